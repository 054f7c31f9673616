#!/usr/bin/env bash
# Times issue 41's straggler question: Llama 3 405B in Meta's layout on 16,384 H100 (TP 8 x PP 16 x DP 128,
# examples/llama3-405b-plan.yaml at 2,048 nodes), without stragglers and with one GPU 20% slow. The model-parallel
# engine runs one pipeline timeline per class of alike replicas, so the slow GPU adds one timeline, not 127.
# Prints each run's iteration line and its wall and CPU seconds and peak RSS (/usr/bin/time). Figures go to
# docs/performance.md, "Stragglers at 16K GPUs".
#
#   bench/slow_gpu.sh [BUILD_DIR] [RANK]     # RANK: the slow GPU (default 15360: stage 15, replica 0, member 0)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
rank=${2:-15360}
syncsim="$build/sim/app/syncsim"
[ -x "$syncsim" ] || { echo "slow_gpu: no $syncsim (build first)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=("$root/examples/llama3-405b-plan.yaml" --set cluster.topology.nodes=2048 --set training.iterations=2)
for case in none slow; do
  extra=()
  [ "$case" = slow ] && extra=(--set "stragglers.slow=[{rank: $rank, factor: 1.2}]")
  echo "slow_gpu: $case"
  SYNCSIM_PROGRESS=none /usr/bin/time -f 'slow_gpu: %e s wall, %U+%S s CPU, %M KB peak RSS' \
    "$syncsim" run "${common[@]}" "${extra[@]}" -o "$out/$case" 2>&1 | grep -E '^(iteration|time shares|bottleneck|slow_gpu)' || true
done
