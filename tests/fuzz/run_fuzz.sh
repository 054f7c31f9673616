#!/usr/bin/env bash
# run_fuzz.sh BUILD_DIR SECONDS [TARGET...]: runs libFuzzer binaries of a fuzz build (SYNCSIM_FUZZ=ON, clang) for
# SECONDS each, one after another (every target when none is named, gui_readers where the build has the GUI).
# scripts/test runs it for a few seconds a target; docs/reliability.md gives the long runs.
#
# Each run starts from the seed corpus, the kept regressions and the malformed corpus, and writes what it finds to
# BUILD_DIR/fuzz-runs/TARGET/ (new inputs in corpus/, crashing ones in artifacts/, libFuzzer's output in fuzz.log),
# never into the source tree. Limits: 2 GB of memory, 10 s per input. Exit 1 if any target found something.
set -u
build_dir=$(cd "$1" && pwd)
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(scenario topology_spec dot nccl_xml nccl_tests_log calibration prices sweep_args scenario_run cli_args
           sweep_resume topology_file hf_config gpu_profile profile_trace layers_file inspector)
  # The GUI's readers have a target only in builds with the GUI (Qt found).
  [ -x "$build_dir/tests/fuzz/syncsim-fuzz-gui_readers" ] && targets+=(gui_readers)
fi
# Findings from UBSan end the run with a stack; leaks are reported by LeakSanitizer at the end of each input.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
for target in "${targets[@]}"; do
  binary=$build_dir/tests/fuzz/syncsim-fuzz-$target
  run=$build_dir/fuzz-runs/$target
  mkdir -p "$run/corpus" "$run/artifacts"
  seeds=("$here/$target")
  for extra in "$here/regressions/$target" "$here/malformed/$target"; do
    [ -d "$extra" ] && seeds+=("$extra")
  done
  "$binary" "$run/corpus" "${seeds[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$run/artifacts/" -print_final_stats=1 >"$run/fuzz.log" 2>&1
  status=$?
  # The last status line: "#123456 DONE cov: 1234 ft: 5678 corp: 90/12Kb ..." and the total executions.
  done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$run/fuzz.log" | tail -1)
  cov=$(echo "$done_line" | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*')
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$run/fuzz.log" | grep -oE '[0-9]+$')
  if [ $status -eq 0 ]; then
    echo "fuzz $target: ${seconds}s, ${execs:-?} executions, $cov, no findings"
  else
    failed=1
    echo "fuzz $target: FINDING (exit $status) after ${execs:-?} executions; input(s) in $run/artifacts/:"
    ls "$run/artifacts" | sed 's/^/  /'
    grep -E 'ERROR|SUMMARY|terminate|what\(\)' "$run/fuzz.log" | head -5 | sed 's/^/  /'
  fi
done
exit $failed
