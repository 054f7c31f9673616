#!/bin/sh
# `plan --layouts auto --seeds 3`: each point's layout is searched at the scenario's seed S, then run at S+1 and S+2,
# and its --risk run stands for it. On a scenario with compute jitter: every row has 3 seeds whose throughputs
# differ (p10 < p90), the row is its p10 run (--risk p10), its layout is the one `--seeds 1` finds, and the
# `--seeds 1` throughput (the run at S) is one of the three.
#
#   plan_seeds_check.sh SYNCSIM SCENARIO FOLDER
set -eu
syncsim=$1
scenario=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
"$syncsim" plan "$scenario" --gpus 8,16 --layouts auto --seeds 3 --risk p10 -o "$out/three" > /dev/null
"$syncsim" plan "$scenario" --gpus 8,16 --layouts auto -o "$out/one" > /dev/null
# Column NAME of data row ROW (1 = the first after the header) of plan.csv FILE.
cell() {
  awk -F, -v name="$2" -v row="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
    NR == row + 1 { print $c }' "$1"
}
for row in 1 2; do
  three="$out/three/plan.csv"
  one="$out/one/plan.csv"
  gpus=$(cell "$three" gpus $row)
  one_row=$(awk -F, -v g="$gpus" 'NR > 1 && $4 == g { print NR - 1 }' "$one")
  test "$(cell "$three" seeds $row)" = 3
  test "$(cell "$three" layout $row)" = "$(cell "$one" layout "$one_row")"
  p10=$(cell "$three" samples_per_s_p10 $row)
  p50=$(cell "$three" samples_per_s_p50 $row)
  p90=$(cell "$three" samples_per_s_p90 $row)
  test "$(cell "$three" samples_per_s $row)" = "$p10"
  awk -v a="$p10" -v b="$p90" 'BEGIN { exit !(a < b) }'
  at_s=$(cell "$one" samples_per_s "$one_row")
  test "$at_s" = "$p10" || test "$at_s" = "$p50" || test "$at_s" = "$p90"
done
echo "plan_seeds_check: 2 points, 3 seeds each, consistent with --seeds 1"
