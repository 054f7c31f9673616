#!/usr/bin/env bash
# Times issue 44's item 7: two 8K-GPU LLM jobs on a 16K-GPU fabric (bench/two-8k-llm-jobs.yaml), simulated together
# by `syncsim run`, at most 30 s. Wall and CPU seconds and peak RSS (/usr/bin/time), with the run's per-job table.
# Figures go to docs/performance.md, "Several jobs at 16K GPUs".
#
#   bench/jobs_16k.sh [BUILD_DIR] [spread|packed]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
placement=${2:-spread}
syncsim="$build/sim/app/syncsim"
[ -x "$syncsim" ] || { echo "jobs_16k: no $syncsim (build first)" >&2; exit 2; }
case "$placement" in
  spread | packed) ;;
  *) echo "jobs_16k: unknown placement '$placement' (spread or packed)" >&2; exit 2 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=("$root/bench/two-8k-llm-jobs.yaml" --set "placement=$placement" -o "$out/run")
echo "jobs_16k: syncsim run ${args[*]}"
/usr/bin/time -f 'jobs_16k: %e s wall, %U+%S s CPU, %M KB peak RSS' "$syncsim" run "${args[@]}" 2>&1 |
  grep -v '^wrote' || true
