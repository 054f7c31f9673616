#!/usr/bin/env bash
# output_targets.sh CASE SYNCSIM SCENARIO: where syncsim's outputs go when the target is not a plain new file
# (sim/app/atomic_file.hpp, output_set.hpp). Each case works in its own temporary folder, never on the real
# /dev/null or /dev/full: devices are made with mknod there (as root; the case is skipped, exit 77, otherwise).
#   fifo            --dot into a FIFO writes through (a reader gets the DOT) and leaves the FIFO a FIFO
#   null-device     --dot into a character device (a copy of /dev/null) leaves it a character device
#   full-device     --dot into a copy of /dev/full exits 2: "cannot write '...': No space left on device"
#   stdout-full     the standard output into a copy of /dev/full exits 2 with the reason (it used to exit 0)
#   symlink         --dot through a symlink replaces the link's target and keeps the link
#   run-symlink     run -o DIR where DIR/report.json is a symlink: the link is kept, its target is the new report
#   run-device      run -o DIR where DIR/trace.json is a symlink to a character device: written through, kept
#   run-dir-in-place  run -o DIR where DIR/report.json is a folder: exit 2 before the simulation, naming it
#   interrupt-plan  SIGINT between two files of plan's set: exit 130, the earlier set whole (and the journal of the
#                   finished points, to resume from), no temporary left; uninterrupted, no journal left
#   interrupt-run   the same for run's set (report.json, trace.json, charts)
#   user-files      run -o DIR keeps files of the user's in DIR, and drops an earlier run's chart it does not draw
#   chakra-traces   run --chakra on 8 ranks drops an earlier run's chakra.8.et and up; run without it drops them all
#   chakra-many     run --chakra on 640 ranks writes 642 files as one set; interrupted after 500 of them, the
#                   earlier set is whole and no temporary is left (the interrupt handler knows every one)
#   chakra-space    run --chakra whose traces pass the file system's free space (SYNCSIM_TEST_FREE_BYTES stands
#                   for it): exit 2 before any is written, one line naming the sizes, the earlier set whole
#   file-size-limit run -o DIR under ulimit -f 1: exit 2, one line ("File too large"), the earlier set whole, no
#                   temporary left (SIGXFSZ is ignored, so the write fails instead of killing the process)
set -u
case_name=$1
syncsim=$2
scenario=${3:-}
switch8=switch:n=8,bw=100Gbps,lat=5us
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() {
  echo "$case_name: $*"
  ls -la "$d" "$d"/* 2>/dev/null
  exit 1
}
need_root() { [ "$(id -u)" -eq 0 ] || { echo "skipped: mknod needs root"; exit 77; }; }
# No temporary (NAME.tmpPID) or backup (NAME.oldPID) anywhere under DIR.
no_strays() { ! find "$1" -name '*.tmp[0-9]*' -o -name '*.old[0-9]*' | grep -q . || fail "stray files: $(find "$1")"; }

case "$case_name" in
fifo)
  mkfifo "$d/out.dot"
  cat "$d/out.dot" >"$d/read.dot" &
  reader=$!
  "$syncsim" topo $switch8 --dot "$d/out.dot" >/dev/null || fail "exit $?"
  wait "$reader"
  [ -p "$d/out.dot" ] || fail "the FIFO was replaced"
  grep -q "^graph" "$d/read.dot" || fail "the reader got no DOT"
  no_strays "$d"
  ;;
null-device)
  need_root
  mknod "$d/null" c 1 3
  "$syncsim" topo $switch8 --dot "$d/null" >/dev/null || fail "exit $?"
  [ -c "$d/null" ] || fail "the device was replaced by a regular file"
  no_strays "$d"
  ;;
full-device)
  need_root
  mknod "$d/full" c 1 7
  err=$("$syncsim" topo $switch8 --dot "$d/full" 2>&1 >/dev/null)
  status=$?
  [ "$status" -eq 2 ] || fail "expected exit 2, got $status: $err"
  echo "$err" | grep -Eq "^syncsim: error: cannot write '$d/full': No space left on device$" || fail "message: $err"
  [ -c "$d/full" ] || fail "the device was replaced"
  no_strays "$d"
  ;;
stdout-full)
  need_root
  mknod "$d/full" c 1 7
  err=$("$syncsim" run "$scenario" -o "$d/out" --json 2>&1 >"$d/full")
  status=$?
  [ "$status" -eq 2 ] || fail "expected exit 2, got $status: $err"
  echo "$err" | grep -Eq "^syncsim: error: cannot write the standard output: No space left on device$" ||
    fail "message: $err"
  ;;
symlink)
  mkdir "$d/real"
  echo old >"$d/real/t.dot"
  ln -s real/t.dot "$d/link.dot"
  "$syncsim" topo $switch8 --dot "$d/link.dot" >/dev/null || fail "exit $?"
  [ -L "$d/link.dot" ] || fail "the symlink was replaced"
  [ "$(readlink "$d/link.dot")" = real/t.dot ] || fail "the symlink points elsewhere"
  grep -q "^graph" "$d/real/t.dot" || fail "the link's target was not written"
  no_strays "$d"
  ;;
run-symlink)
  mkdir "$d/out" "$d/kept"
  echo '{"earlier": true}' >"$d/kept/report.json"
  ln -s ../kept/report.json "$d/out/report.json"
  "$syncsim" run "$scenario" -o "$d/out" >/dev/null || fail "exit $?"
  [ -L "$d/out/report.json" ] || fail "the symlink was replaced"
  grep -q '"scenario"' "$d/kept/report.json" || fail "the link's target is not the new report"
  no_strays "$d"
  ;;
run-device)
  need_root
  mkdir "$d/out"
  mknod "$d/null" c 1 3
  ln -s ../null "$d/out/trace.json"
  "$syncsim" run "$scenario" -o "$d/out" >/dev/null || fail "exit $?"
  [ -L "$d/out/trace.json" ] && [ -c "$d/null" ] || fail "the link or the device was replaced"
  grep -q '"scenario"' "$d/out/report.json" || fail "no report.json"
  no_strays "$d"
  ;;
run-dir-in-place)
  mkdir -p "$d/out/report.json"
  err=$("$syncsim" run "$scenario" -o "$d/out" --set training.iterations=100000 --set cluster.topology.nodes=128 2>&1)
  status=$?
  [ "$status" -eq 2 ] || fail "expected exit 2, got $status: $err"
  echo "$err" | grep -Eq "^syncsim: error: -o: cannot write '$d/out/report.json': it is a directory$" ||
    fail "message: $err"
  [ "$(ls -A "$d/out")" = report.json ] || fail "something was written: $(ls -A "$d/out")"
  ;;
interrupt-plan | interrupt-run)
  mkdir "$d/out"
  if [ "$case_name" = interrupt-plan ]; then
    files="plan.csv throughput.svg throughput.png efficiency.svg efficiency.png"
    command=(plan "$scenario" --gpus 8,16 -j 1 -o "$d/out")
  else
    files="trace.json report.json convergence.svg convergence.png"
    command=(run "$scenario" -o "$d/out" --set convergence.target_loss=0.7)
  fi
  for f in $files; do echo "earlier $f" >"$d/out/$f"; done
  echo mine >"$d/out/notes.txt"
  cp -r "$d/out" "$d/before"
  count=$(echo $files | wc -w)
  k=1
  while [ "$k" -lt "$count" ]; do
    SYNCSIM_TEST_INTERRUPT_AFTER_FILES=$k "$syncsim" "${command[@]}" >/dev/null 2>&1
    status=$?
    [ "$status" -eq 130 ] || fail "interrupt after $k files: expected exit 130, got $status"
    if [ "$case_name" = interrupt-plan ]; then  # every point finished: its journal stays, to resume from
      [ -f "$d/out/plan.resume.jsonl" ] || fail "interrupt after $k files: no journal to resume from"
      rm "$d/out/plan.resume.jsonl"
    fi
    diff -r "$d/before" "$d/out" >/dev/null || fail "interrupt after $k files: the earlier set changed"
    no_strays "$d/out"
    k=$((k + 1))
  done
  # Uninterrupted, the whole set is new and the user's file is still there.
  "$syncsim" "${command[@]}" >/dev/null || fail "exit $?"
  for f in $files; do ! grep -q "^earlier" "$d/out/$f" || fail "$f is still the earlier one"; done
  grep -q mine "$d/out/notes.txt" || fail "the user's notes.txt changed"
  [ ! -e "$d/out/plan.resume.jsonl" ] || fail "a finished plan left its journal"
  no_strays "$d/out"
  ;;
user-files)
  mkdir "$d/out"
  echo mine >"$d/out/notes.txt"
  echo "earlier chart" >"$d/out/convergence.svg"
  "$syncsim" run "$scenario" -o "$d/out" >/dev/null || fail "exit $?"
  grep -q mine "$d/out/notes.txt" || fail "the user's notes.txt changed"
  [ ! -e "$d/out/convergence.svg" ] || fail "an earlier run's chart stayed beside a report without convergence"
  [ -s "$d/out/report.json" ] && [ -s "$d/out/trace.json" ] || fail "report.json or trace.json missing"
  no_strays "$d/out"
  ;;
chakra-traces)
  mkdir "$d/out"
  for rank in 0 7 8 15; do echo "earlier trace" >"$d/out/chakra.$rank.et"; done
  echo mine >"$d/out/chakra.notes"
  "$syncsim" run "$scenario" -o "$d/out" --chakra >/dev/null || fail "exit $?"
  for rank in 0 7; do
    ! grep -q "earlier trace" "$d/out/chakra.$rank.et" || fail "chakra.$rank.et was not rewritten"
  done
  [ ! -e "$d/out/chakra.8.et" ] && [ ! -e "$d/out/chakra.15.et" ] || fail "an earlier run's traces of ranks 8+ stayed"
  "$syncsim" run "$scenario" -o "$d/out" >/dev/null || fail "exit $?"
  ! ls "$d/out"/chakra.*.et >/dev/null 2>&1 || fail "traces stayed beside a run without --chakra"
  grep -q mine "$d/out/chakra.notes" || fail "the user's chakra.notes changed"
  no_strays "$d/out"
  ;;
chakra-many)
  mkdir "$d/out"
  echo "earlier report" >"$d/out/report.json"
  echo "earlier trace" >"$d/out/chakra.600.et"
  cp -r "$d/out" "$d/before"
  many=(run "$scenario" -o "$d/out" --chakra --set cluster.topology.nodes=80)
  SYNCSIM_TEST_INTERRUPT_AFTER_FILES=500 "$syncsim" "${many[@]}" >/dev/null 2>&1
  status=$?
  [ "$status" -eq 130 ] || fail "interrupt after 500 files: expected exit 130, got $status"
  diff -r "$d/before" "$d/out" >/dev/null || fail "interrupt after 500 files: the earlier set changed"
  no_strays "$d/out"
  "$syncsim" "${many[@]}" >/dev/null || fail "exit $?"
  [ "$(ls "$d/out" | grep -c '^chakra\.[0-9]*\.et$')" -eq 640 ] || fail "expected 640 traces: $(ls "$d/out" | wc -l)"
  ! grep -q "earlier" "$d/out/chakra.600.et" "$d/out/report.json" || fail "an earlier file stayed"
  no_strays "$d/out"
  ;;
chakra-space)
  mkdir "$d/out"
  echo "earlier report" >"$d/out/report.json"
  cp -r "$d/out" "$d/before"
  # 640 ranks of ResNet-50 under DDP: each trace is tens of kB, all of them some MB; 100 kB free cannot hold them.
  err=$(SYNCSIM_TEST_FREE_BYTES=100000 "$syncsim" run "$scenario" -o "$d/out" --chakra \
    --set cluster.topology.nodes=80 2>&1 >/dev/null)
  status=$?
  [ "$status" -eq 2 ] || fail "expected exit 2, got $status: $err"
  [ "$(echo "$err" | wc -l)" -eq 1 ] || fail "expected one line: $err"
  echo "$err" | grep -Eq "^syncsim: error: cannot write 640 Chakra execution traces into '$d/out': they take at least [0-9.]+ MB \(rank 0's is [0-9.]+ kB\) and its file system has 100.0 kB free$" ||
    fail "message: $err"
  diff -r "$d/before" "$d/out" >/dev/null || fail "the earlier set changed"
  no_strays "$d/out"
  # With room enough the same export is written.
  SYNCSIM_TEST_FREE_BYTES=1e12 "$syncsim" run "$scenario" -o "$d/out" --chakra --set cluster.topology.nodes=80 \
    >/dev/null || fail "exit $?"
  [ -f "$d/out/chakra.639.et" ] || fail "no trace of rank 639"
  ;;
file-size-limit)
  # ulimit -f 1: no file past 1 KiB. The earlier set stays whole, the new one is refused in one line, exit 2.
  mkdir "$d/out"
  echo "earlier report" >"$d/out/report.json"
  out=$( (ulimit -f 1; "$syncsim" run "$scenario" -o "$d/out") 2>&1 >/dev/null)
  code=$?
  [ "$code" -eq 2 ] || fail "exit $code, expected 2: $out"
  [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q "File too large" || fail "message: $out"
  grep -q "earlier report" "$d/out/report.json" || fail "the earlier report.json changed"
  no_strays "$d/out"
  ;;
*)
  echo "unknown case $case_name"
  exit 1
  ;;
esac
exit 0
