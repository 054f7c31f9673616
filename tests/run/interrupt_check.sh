#!/usr/bin/env bash
# interrupt_check.sh SYNCSIM SCENARIO OUTDIR: Ctrl-C (SIGINT) during `syncsim run` exits 130 and leaves the
# outputs of an earlier run in OUTDIR exactly as they were, with no temporary file behind.
set -u
syncsim=$1
scenario=$2
outdir=$3
rm -rf "$outdir"
mkdir -p "$outdir"
echo '{"earlier": true}' >"$outdir/report.json"
echo '{"traceEvents": []}' >"$outdir/trace.json"
cp "$outdir/report.json" "$outdir.report.before"
# A run far longer than the wait below (10,000 iterations on 1,024 GPUs, minutes; within the run-cost budget):
# the signal lands mid-simulation.
"$syncsim" run "$scenario" -o "$outdir" --set cluster.topology.nodes=128 --set training.iterations=10000 \
  >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" -eq 130 ] || { echo "expected exit 130 after SIGINT, got $status"; exit 1; }
cmp -s "$outdir/report.json" "$outdir.report.before" || { echo "report.json changed"; exit 1; }
if ls "$outdir" | grep -q '\.tmp'; then
  echo "temporary file left: $(ls "$outdir")"
  exit 1
fi
