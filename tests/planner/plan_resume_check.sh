#!/bin/sh
# An interrupted `syncsim plan` resumes from its output folder (plan_journal.hpp): stopped after two points (the
# interrupt path: exit 130, the journal of those two left behind) and with a last line cut short, the next run of
# the same command runs only the points left and writes byte for byte what an uninterrupted plan writes, then drops
# the journal. A journal of another question is not resumed; a damaged line that is not the last is an error at its
# line (exit 2). Run for --layouts auto with --seeds 2 (a point's runs are its seeds) and for a fixed layout.
#
#   plan_resume_check.sh SYNCSIM SCENARIO FOLDER
set -eu
syncsim=$1
scenario=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
journal=plan.resume.jsonl

check() {  # NAME ARGS...: the whole check for one plan command
  name=$1
  shift
  SYNCSIM_PROGRESS=none "$syncsim" plan "$scenario" "$@" -o "$out/$name-whole" > "$out/$name-whole.txt"
  test ! -e "$out/$name-whole/$journal"
  status=0
  SYNCSIM_PLAN_STOP_AFTER=2 SYNCSIM_PROGRESS=none "$syncsim" plan "$scenario" "$@" -o "$out/$name" \
    > /dev/null 2>&1 || status=$?
  test "$status" = 130
  test "$(wc -l < "$out/$name/$journal")" = 3  # its header and two points
  test ! -e "$out/$name/throughput.svg"
  printf '{"point": 7, "labels": ["cut' >> "$out/$name/$journal"  # the interruption cut the last line
  SYNCSIM_PROGRESS=none "$syncsim" plan "$scenario" "$@" -o "$out/$name" > "$out/$name.txt" 2> "$out/$name.err"
  grep -q "resuming: 2 of [0-9]* points finished before" "$out/$name.err"
  test ! -e "$out/$name/$journal"
  for file in plan.csv throughput.svg efficiency.svg; do cmp "$out/$name-whole/$file" "$out/$name/$file"; done
  sed "s#$out/$name-whole#OUT#g" "$out/$name-whole.txt" > "$out/$name-whole.cmp"
  sed "s#$out/$name#OUT#g" "$out/$name.txt" > "$out/$name.cmp"
  cmp "$out/$name-whole.cmp" "$out/$name.cmp"
}

check search --gpus 16,32,64 --layouts auto --seeds 2
check fixed --gpus 16:128

# Another question's journal (other GPU counts) is not resumed: the plan runs whole and gives the whole plan.
SYNCSIM_PLAN_STOP_AFTER=1 SYNCSIM_PROGRESS=none "$syncsim" plan "$scenario" --gpus 16,32 -o "$out/other" \
  > /dev/null 2>&1 || true
SYNCSIM_PROGRESS=none "$syncsim" plan "$scenario" --gpus 16:128 -o "$out/other" > /dev/null 2> "$out/other.err"
! grep -q resuming "$out/other.err"
cmp "$out/fixed-whole/plan.csv" "$out/other/plan.csv"

# A damaged line before the last: refused at its line, nothing run.
SYNCSIM_PLAN_STOP_AFTER=2 SYNCSIM_PROGRESS=none "$syncsim" plan "$scenario" --gpus 16:128 -o "$out/damaged" \
  > /dev/null 2>&1 || true
sed -i '2s/.*/{"point": "two"}/' "$out/damaged/$journal"
status=0
SYNCSIM_PROGRESS=none "$syncsim" plan "$scenario" --gpus 16:128 -o "$out/damaged" > /dev/null 2> "$out/damaged.err" ||
  status=$?
test "$status" = 2
grep -q "$journal:2:1: not a finished point of this plan; delete the file to plan afresh" "$out/damaged.err"
echo "plan_resume_check: resumed plans equal whole ones; other questions' journals ignored; damage refused"
