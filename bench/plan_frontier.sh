#!/usr/bin/env bash
# Times issue 40's frontier planning questions: wall and CPU seconds and peak RSS (/usr/bin/time), with the plan's
# own header lines (candidates, simulations). Figures go to docs/performance.md, "Planning at frontier scale".
#
#   bench/plan_frontier.sh [BUILD_DIR] [full|quick|70b]
#     quick  Llama 3 405B at 2K, 4K, 8K H100, one network, --max-simulations 2 (a few minutes on 2 cores)
#     full   Llama 3 405B over 2K-32K GPUs, H100 and B200, 400 and 200 Gb/s rails, --layouts auto (the issue's question)
#     70b    Llama 3 70B over 1K-16K GPUs, the same GPUs and networks
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
which=${2:-quick}
syncsim="$build/sim/app/syncsim"
[ -x "$syncsim" ] || { echo "plan_frontier: no $syncsim (build first)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
networks='ib400=dgx:gpus=8,nic_bw=400Gbps;ib200=dgx:gpus=8,nic_bw=200Gbps'
case "$which" in
  quick) args=("$root/examples/llama3-405b-plan.yaml" --gpus 2048,4096,8192 --layouts auto --max-simulations 2) ;;
  full) args=("$root/examples/llama3-405b-plan.yaml" --gpus 2048:32768 --layouts auto --gpu-types H100-SXM-80GB,B200
              --networks "$networks") ;;
  70b) args=("$root/examples/llama3-70b-layouts.yaml" --gpus 1024:16384 --layouts auto --gpu-types H100-SXM-80GB,B200
             --networks "$networks") ;;
  *) echo "plan_frontier: unknown question '$which' (quick, full or 70b)" >&2; exit 2 ;;
esac
echo "plan_frontier: $which: syncsim plan ${args[*]}"
SYNCSIM_PROGRESS=none /usr/bin/time -f 'plan_frontier: %e s wall, %U+%S s CPU, %M KB peak RSS' \
  "$syncsim" plan "${args[@]}" -o "$out/plan" 2>&1 | grep -E '^(#|plan_frontier)' || true
