#!/usr/bin/env bash
# malformed_cli.sh SYNCSIM FORMAT FILE LOCATION: feeds one malformed input to the command that reads FORMAT and
# requires what a user must see (tests/app/expect.sh): exit 2 (not a signal, not a crash, not 0), one line on
# stderr naming FILE at LOCATION (`LINE:COLUMN`, `LINE`, or for a spec string its column), nothing on stdout.
# ctest's TIMEOUT turns a hang into a failure.
set -u
syncsim=$1
format=$2
file=$3
location=$4
here=$(cd "$(dirname "$0")" && pwd)
expect=$here/../app/expect.sh
# A valid log and calibration to pair with the malformed one, so that only the input under test can fail.
a100_log=$here/../data/nccl-tests/a100-sxm4-1node-8gpu-nvswitch.log
# A valid scenario for the sweep and plan flags and the price files (small: a mistake is found before it runs).
planner_scenario=$here/../../examples/planner-compute-bound.yaml
name=$(basename "$file")
# grep -E specials in the file name match literally.
name_re=$(printf '%s' "$name" | sed 's/[]\\.*+?^$(){}|[]/\\&/g')
case $location in
  "") where="^syncsim: error: (.*/)?${name_re}: " ;;
  --*) where="^syncsim: error: ${location}" ;;  # a flag's value: the flag and the key
  SPEC:*) where="^syncsim: error: ${location}: " ;;
  *) where="^syncsim: error: (.*/)?${name_re}:${location}: " ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
case $format in
  scenario) "$expect" 2 "$where" "$syncsim" run "$file" -o "$out/run" ;;
  # A spec is a command-line argument: its place is the flag's name and the column in the text.
  topology_spec) "$expect" 2 "^syncsim: error: SPEC:${location}: " "$syncsim" topo "$(cat "$file")" ;;
  dot | nccl_xml) "$expect" 2 "$where" "$syncsim" topo "file:path=$file" ;;
  nccl_tests_log) "$expect" 2 "$where" "$syncsim" validate --topology dgx:nodes=2,gpus=8 --nccl-tests "$file" ;;
  inspector) "$expect" 2 "$where" "$syncsim" validate --topology dgx:nodes=1,gpus=8 --inspector "$file" ;;
  calibration) "$expect" 2 "$where" "$syncsim" validate --calibration "$file" --nccl-tests "$a100_log" ;;
  prices) "$expect" 2 "$where" "$syncsim" plan "$planner_scenario" --gpus 8:16 --prices "$file" -o "$out/plan" ;;
  sweep_args)
    # One flag a line, as the fuzz target reads them (sweep_args_fuzz.cpp); a bare line is a --vary value. With
    # a plan flag the command is `syncsim plan`, else `syncsim sweep`.
    args=()
    command=sweep
    while IFS= read -r line || [ -n "$line" ]; do
      case $line in
        --zip) args+=(--zip) ;;
        --gpus\ * | --gpu-types\ * | --networks\ *)
          command=plan
          args+=("${line%% *}" "${line#* }")
          ;;
        --vary\ *) args+=(--vary "${line#--vary }") ;;
        *) args+=(--vary "$line") ;;
      esac
    done <"$file"
    [ $command = plan ] && args+=(-o "$out/plan")
    "$expect" 2 "$where" "$syncsim" $command "$planner_scenario" "${args[@]}"
    ;;
  *)
    echo "malformed_cli.sh: unknown format '$format'"
    exit 1
    ;;
esac
