#!/usr/bin/env bash
# golden_check.sh SYNCSIM SCENARIO GOLDEN OUTDIR: `syncsim run SCENARIO` must write a report.json byte-identical to
# the checked-in GOLDEN. After an intended change to the simulation, regenerate every golden file with
# scripts/update-golden and review the diff like any other change.
set -u
syncsim=$1
scenario=$2
golden=$3
outdir=$4
rm -rf "$outdir"
"$syncsim" run "$scenario" -o "$outdir" >/dev/null || { echo "exit $? from syncsim run $scenario"; exit 1; }
if ! cmp -s "$outdir/report.json" "$golden"; then
  echo "report.json differs from $golden (regenerate with scripts/update-golden if the change is intended):"
  diff "$golden" "$outdir/report.json" | head -n 20
  exit 1
fi
