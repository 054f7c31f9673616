#!/usr/bin/env bash
# One prepared run of the real NCCL benchmark on a GPU machine: builds syncsim-bench-nccl, sweeps every collective
# from 8 B to 8 GiB, runs the compute calibration (square cuBLAS GEMMs per precision, the bf16/fp8 GEMM shape sweep,
# memory bandwidth, and a sustained GEMM + copy loop with the clocks sampled by nvidia-smi every 500 ms), and writes
# all of it, with a description of the machine, under validation/measurements/<date>-<count>x<gpu>/.
#
#   scripts/device-bench.sh                 # full sweep: 8 B .. 8 GiB, factor 2, -w 5 -n 20, all collectives
#   scripts/device-bench.sh --quick         # 8 B .. 64 MiB, factor 4, -w 2 -n 5, 5 s sustained (to check the setup)
#   scripts/device-bench.sh --compute-only  # the compute calibration alone, no collectives (about a minute)
#   scripts/device-bench.sh --max 1G --ops allreduce,all_gather --iters 50 --sustained 60
#
# --sustained SECONDS sets the sustained loop's length (default 30; 0: none).
#
# Environment: BUILD_DIR (default build-device), CUDA_ARCHS (default 90), NCCL_HOME (a directory holding
# include/nccl.h and lib/libnccl.so when NCCL is not installed next to the CUDA toolkit), SYNCSIM_BENCH_NCCL (a
# prebuilt syncsim-bench-nccl to run instead of building one), OUT (the output directory).
# Exit status: the benchmark's (0 success, 1 CUDA/NCCL failure or wrong results, 77 no GPU).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
max=8G
factor=2
warmup=5
iters=20
ops=all
compute=--compute
sustained=30
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) max=64M; factor=4; warmup=2; iters=5; sustained=5 ;;
    --max) max=$2; shift ;;
    --factor) factor=$2; shift ;;
    --iters) iters=$2; shift ;;
    --warmup) warmup=$2; shift ;;
    --ops) ops=$2; shift ;;
    --compute-only) compute=--compute-only ;;
    --sustained) sustained=$2; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "device-bench.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

log() { printf '[device-bench] %s\n' "$*" >&2; }

command -v nvidia-smi >/dev/null || { log "nvidia-smi not found: this is not a GPU machine"; exit 77; }

bench=${SYNCSIM_BENCH_NCCL:-}
if [ -z "$bench" ]; then
  build=${BUILD_DIR:-$root/build-device}
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  nccl=()
  if [ -n "${NCCL_HOME:-}" ]; then
    nccl=(-DSYNCSIM_NCCL_INCLUDE_DIR="$NCCL_HOME/include"
          -DSYNCSIM_NCCL_LIBRARY="$(find "$NCCL_HOME/lib" -maxdepth 1 -name 'libnccl.so*' | sort | head -n 1)")
  fi
  log "configuring $build (CUDA architectures ${CUDA_ARCHS:-90})"
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DSYNCSIM_BUILD_TESTS=OFF -DSYNCSIM_BUILD_BENCH=OFF -DSYNCSIM_WITH_GUI=OFF -DSYNCSIM_WITH_MPI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" "${nccl[@]}" >"$build.configure.log" 2>&1 ||
    { tail -n 30 "$build.configure.log" >&2; log "configure failed (whole log: $build.configure.log)"; exit 1; }
  grep -q "NCCL benchmark enabled" "$build.configure.log" ||
    { grep "syncsim:" "$build.configure.log" >&2; log "the NCCL benchmark is not enabled (set NCCL_HOME?)"; exit 1; }
  log "building syncsim-bench-nccl"
  cmake --build "$build" --target syncsim-bench-nccl -j "$(nproc)" >"$build.build.log" 2>&1 ||
    { tail -n 30 "$build.build.log" >&2; log "build failed (whole log: $build.build.log)"; exit 1; }
  bench=$build/validation/nccl/syncsim-bench-nccl
fi

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | sed 's/^NVIDIA //; s/[^A-Za-z0-9._-]/-/g')
count=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
out=${OUT:-$root/validation/measurements/$(date +%Y-%m-%d)-${count}x${gpu}}
mkdir -p "$out"
log "writing to $out"

# The machine, as the tools describe it.
nvidia-smi -q >"$out/nvidia-smi-q.txt" 2>&1 || true
nvidia-smi topo -m >"$out/nvidia-smi-topo.txt" 2>&1 || true
{ command -v nvcc >/dev/null && nvcc --version || echo "nvcc not on PATH"; } >"$out/nvcc-version.txt" 2>&1
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "kernel: $(uname -srm)"
  echo "gpus: $count x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
  echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)"
  echo "cpu: $(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "cpus: $(nproc)"
  echo "memory: $(grep MemTotal /proc/meminfo | awk '{print $2 " kB"}')"
  echo "nccl (library the benchmark loads): $(ldd "$bench" | awk '/libnccl/ {print $3}')"
  header=$(dirname "$(ldd "$bench" | awk '/libnccl/ {print $3}')")/../include/nccl.h
  [ -f "$header" ] && echo "nccl.h: $(grep -E '#define NCCL_(MAJOR|MINOR|PATCH) ' "$header" | awk '{printf "%s ", $3}')"
  echo "benchmark: $bench"
  echo "sweep: -b 8 -e $max -f $factor -w $warmup -n $iters --op $ops $compute --gemm-sustained $sustained"
  echo "git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$out/machine.txt"

# The clocks, power and temperature every 500 ms for the whole run (the sustained loop is its last part;
# results.json's compute.sustained.started_utc says when it began). Timestamps in UTC. Stopped on any exit.
clocks_pid=
stop_clocks() {
  if [ -n "$clocks_pid" ]; then
    kill "$clocks_pid" 2>/dev/null || true
    wait "$clocks_pid" 2>/dev/null || true
    clocks_pid=
  fi
}
trap stop_clocks EXIT
fields=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu
# Newer drivers call the throttle reasons "clocks event reasons"; take whichever this one knows.
for reasons in clocks_throttle_reasons.active clocks_event_reasons.active; do
  if nvidia-smi --query-gpu="$reasons" --format=csv,noheader >/dev/null 2>&1; then
    fields=$fields,$reasons
    break
  fi
done
TZ=UTC nvidia-smi --query-gpu="$fields" --format=csv -lms 500 >"$out/clocks.csv" 2>&1 &
clocks_pid=$!

# The sweep and the compute calibration; NCCL's topology, graph and tuning log land in $out too.
set +e
"$bench" -b 8 -e "$max" -f "$factor" -w "$warmup" -n "$iters" --op "$ops" "$compute" --gemm-sustained "$sustained" \
  --out-dir "$out" 2>"$out/stderr.log" | tee "$out/stdout.log"
status=${PIPESTATUS[0]}
set -e
stop_clocks
nvidia-smi -q -d PERFORMANCE,CLOCK,POWER >"$out/nvidia-smi-after.txt" 2>&1 || true
cat "$out/stderr.log" >&2
if [ "$status" -eq 77 ]; then
  rm -rf "$out"  # no GPU after all: nothing worth keeping
  exit 77
fi
log "benchmark exit status $status; files:"
ls -l "$out" >&2
exit "$status"
