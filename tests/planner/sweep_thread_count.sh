#!/usr/bin/env bash
# sweep_thread_count.sh SYNCSIM SCENARIO OUTDIR: the same sweep on 1, 2 and 3 threads must write the same bytes
# (CSV and JSON), and so must the same sweep written to stdout. Points finish in whatever order the threads take
# them; the output is in point order (sweep_point.hpp), and nothing of a point may depend on which thread ran it.
# Six points of unequal cost (1 or 2 nodes, three batch sizes), so that three threads really finish out of order.
set -eu
syncsim=$1
scenario=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
axes=(--vary 'cluster.topology.nodes=1,2' --vary 'model.batch_per_gpu=32,64,128')
for ext in csv json; do
  for jobs in 1 2 3; do
    "$syncsim" sweep "$scenario" "${axes[@]}" -j "$jobs" -o "$out/j$jobs.$ext"
  done
  for jobs in 2 3; do
    if ! cmp "$out/j1.$ext" "$out/j$jobs.$ext"; then
      echo "sweep output ($ext) differs between -j1 and -j$jobs:"
      diff "$out/j1.$ext" "$out/j$jobs.$ext" | head -20
      exit 1
    fi
  done
done
"$syncsim" sweep "$scenario" "${axes[@]}" -j 3 >"$out/stdout-j3.csv"
# A file written with -o ends every line with its fingerprint column (for resuming); stdout has the same table
# without it.
sed 's/,[^,]*$//' "$out/j1.csv" | cmp - "$out/stdout-j3.csv"
rows=$(($(wc -l <"$out/j1.csv") - 1))
if [ "$rows" -ne 6 ]; then
  echo "expected 6 rows, got $rows"
  exit 1
fi
echo "6 points: identical bytes with -j1, -j2 and -j3 (CSV, JSON and stdout)"
