#!/usr/bin/env bash
# special_files_cli.sh SYNCSIM CASE: one command a user could run on what is not a regular file (a directory, a FIFO,
# /dev/zero), which must exit 2 at once with one line naming the path and what it is (tests/app/expect.sh). No one
# ever writes to the FIFO: a reader that opened it would block, and ctest's timeout turns that into a failure.
set -u
syncsim=$1
case_name=$2
here=$(cd "$(dirname "$0")" && pwd)
expect=$here/../app/expect.sh
log=$here/../data/nccl-tests/a100-sxm4-1node-8gpu-nvswitch.log
scenario=$here/../../examples/planner-compute-bound.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/scenario.yaml" "$tmp/topology.dot"
mkfifo "$tmp/fifo.yaml" "$tmp/fifo.dot" "$tmp/fifo.log"
directory="it is a directory, not a regular file"
fifo="it is a FIFO \(named pipe\), not a regular file"
device="it is a character device, not a regular file"
case $case_name in
  run-directory) "$expect" 2 "^syncsim: error: $tmp/scenario.yaml: .*$directory" "$syncsim" run "$tmp/scenario.yaml" ;;
  run-fifo) "$expect" 2 "^syncsim: error: $tmp/fifo.yaml: .*$fifo" "$syncsim" run "$tmp/fifo.yaml" ;;
  run-dev-zero) "$expect" 2 "^syncsim: error: /dev/zero: .*$device" "$syncsim" run /dev/zero ;;
  topo-directory)
    "$expect" 2 "^syncsim: error: .*'$tmp/topology.dot' is a directory" "$syncsim" topo "file:path=$tmp/topology.dot"
    ;;
  topo-fifo) "$expect" 2 "^syncsim: error: .*'$tmp/fifo.dot' is a FIFO" "$syncsim" topo "file:path=$tmp/fifo.dot" ;;
  validate-log-dev-zero)
    "$expect" 2 "^syncsim: error: /dev/zero: .*$device" "$syncsim" validate --topology dgx:nodes=1,gpus=8 \
      --nccl-tests /dev/zero
    ;;
  validate-log-fifo)
    "$expect" 2 "^syncsim: error: $tmp/fifo.log: .*$fifo" "$syncsim" validate --topology dgx:nodes=1,gpus=8 \
      --nccl-tests "$tmp/fifo.log"
    ;;
  validate-calibration-dev-zero)
    "$expect" 2 "^syncsim: error: /dev/zero: .*$device" "$syncsim" validate --calibration /dev/zero --nccl-tests "$log"
    ;;
  plan-prices-fifo)
    "$expect" 2 "^syncsim: error: $tmp/fifo.yaml: .*$fifo" "$syncsim" plan "$scenario" --gpus 8:16 \
      --prices "$tmp/fifo.yaml" -o "$tmp/plan"
    ;;
  *)
    echo "special_files_cli.sh: unknown case '$case_name'"
    exit 1
    ;;
esac
