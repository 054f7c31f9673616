#!/usr/bin/env bash
# The performance matrix of docs/performance.md: ring AllReduce wall time and peak RSS, bulk and per-flow, plus
# the event-queue and flow-model benchmarks. Usage: bench/compare.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
for n in 1024 4096; do
  for size in 1MiB 1GiB; do
    "$build/bench/bench_collective" --topology "switch:n=$n,bw=100Gbps,lat=5us" --size "$size"
    "$build/bench/bench_collective" --topology "switch:n=$n,bw=100Gbps,lat=5us" --size "$size" --per-flow
  done
done
"$build/bench/bench_collective" --topology "fattree:n=1024,radix=64,bw=100Gbps,lat=1us,oversub=4" --size 1GiB
# Multi-channel collectives on a DGX fabric, lockstep and per flow, then whole training iterations.
"$build/bench/bench_collective" --topology "dgx:nodes=16,gpus=8" --size 25MB --channels auto
"$build/bench/bench_collective" --topology "dgx:nodes=16,gpus=8" --size 25MB --channels auto --per-flow
"$build/bench/bench_training_iteration"
"$build/bench/bench_event_queue" --benchmark_min_time=0.2
"$build/bench/bench_flow_model" --benchmark_min_time=0.2
# The convergence proxy's cost on a 64-worker, 200-iteration run (off, logistic, mlp).
"$build/bench/bench_convergence"
