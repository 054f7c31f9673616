#!/usr/bin/env python3
"""The scale benchmark of docs/performance.md: wall time and peak memory against GPU count, syncsim beside SimGrid.

Each case is one process (`syncsim collective` or `syncsim run`, or SimGrid's ring in
bench/simgrid/ring_allreduce_simgrid.cpp), timed from outside, its peak RSS read from its own rusage (os.wait4),
so a figure belongs to that case alone. Prints one table row per case as it finishes and writes them as CSV; then
bench_scale_plot draws the log-log chart of wall time against GPUs.

    bench/scale.py build                        # the whole matrix (about 10 minutes on 2 cores)
    bench/scale.py build --quick                # up to 16,384 GPUs
    bench/scale.py build --csv scale.csv --plot docs/images/scale   # also write the CSV and the chart

What each workload predicts:
  switch ring   ring AllReduce of 100 MB on switch:n=N,bw=100Gbps,lat=5us, physical latencies: the alpha-beta closed
                form 2(N-1)(2 lat + S/(N bw)), which the run checks (SimGrid's flow model predicts the same);
  dgx ring x8   ring AllReduce of 100 MB on dgx:nodes=N/8,gpus=8, NCCL's 8 channels (one per rail) in lockstep;
  dgx auto      the same with the algorithm and protocol chosen as NCCL does (trees of 1 M transfers or more
                pipelined, docs/collectives.md);
  resnet50      one data-parallel ResNet-50 iteration (examples/resnet50-dgx-8gpu.yaml) on N/8 DGX nodes, ring
                or auto;
  llama 405b    one Llama 3 405B iteration, TP 8 x PP 16 x DP 128 on 16,384 H100
                (validation/scenarios/mfu/llama3-405b-16k.yaml).
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time

SIZE = 100_000_000
SWITCH = "switch:n={n},bw=100Gbps,lat=5us"
SWITCH_SIZES = [256, 1024, 2048, 4096, 16384, 65536, 131072]
# 98,304 GPUs: 12,288 nodes fill 384 leaves of 32, a fabric with a period; 100,000 (12,500 nodes) leaves the last
# leaf part-empty, which breaks it, so its rings run along their cycles (docs/collectives.md).
DGX_RING_SIZES = [1024, 4096, 8192, 16384, 65536, 98304, 100000]
DGX_AUTO_SIZES = [1024, 4096, 8192, 16384, 65536, 100000]
RESNET_SIZES = [1024, 4096, 16384]
RESNET_AUTO_SIZES = [1024, 4096, 16384]
LLAMA_SIZES = [16384]
SIMGRID_SIZES = [256, 1024, 2048]  # 4,096 took 494 s


def measure_rss(command):
    """(stdout, wall seconds, peak RSS MB) of one process, read with os.wait4."""
    start = time.monotonic()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(write_end, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(read_end)
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end) as stream:
        for chunk in stream:
            chunks.append(chunk)
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"scale.py: {' '.join(command)} failed with {os.waitstatus_to_exitcode(status)}")
    return "".join(chunks), wall, usage.ru_maxrss / 1024.0


def collective_time(output):
    """The simulated time of the one row `syncsim collective --json` printed, in seconds."""
    match = re.search(r'"time_us":\s*([0-9.eE+-]+)', output)
    if not match:
        sys.exit("scale.py: no time_us in syncsim collective's output")
    return float(match.group(1)) * 1e-6


def iteration_time(output):
    """The mean iteration of the report `syncsim run --json` printed, in seconds."""
    return json.loads(output)["iteration_time_us"]["mean"] * 1e-6


def cases(build, quick, simgrid, tmp):
    def scratch():
        """A fresh folder (inside `tmp`, removed at the end) for a run's report and trace, which are not read."""
        return tempfile.mkdtemp(dir=tmp)

    syncsim = os.path.join(build, "sim", "app", "syncsim")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    examples = os.path.join(root, "examples")
    limit = 16384 if quick else 1 << 30
    for n in (s for s in SWITCH_SIZES if s <= limit):
        yield ("switch ring", n, "syncsim",
               [syncsim, "collective", "-t", SWITCH.format(n=n), "--algo", "ring", "--latency-model", "physical",
                "--sizes", f"{SIZE}:{SIZE}", "--json"], collective_time)
    if simgrid:
        for n in SIMGRID_SIZES:
            yield ("switch ring", n, "simgrid",
                   [simgrid, "--gpus", str(n), "--size", str(SIZE), "--bw-gbps", "100", "--lat-us", "5"],
                   lambda out: float(re.search(r"simulated_s=([0-9.eE+-]+)", out).group(1)))
    for n in (s for s in DGX_RING_SIZES if s <= limit):
        yield ("dgx ring x8", n, "syncsim",
               [syncsim, "collective", "-t", f"dgx:nodes={n // 8},gpus=8", "--algo", "ring", "--sizes",
                f"{SIZE}:{SIZE}", "--json"], collective_time)
    for n in (s for s in DGX_AUTO_SIZES if s <= limit):
        yield ("dgx auto", n, "syncsim",
               [syncsim, "collective", "-t", f"dgx:nodes={n // 8},gpus=8", "--sizes", f"{SIZE}:{SIZE}", "--json"],
               collective_time)
    for algorithm, sizes in (("ring", RESNET_SIZES), ("auto", RESNET_AUTO_SIZES)):
        for n in (s for s in sizes if s <= limit):
            yield (f"resnet50 {algorithm}", n, "syncsim",
                   [syncsim, "run", os.path.join(examples, "resnet50-dgx-8gpu.yaml"), "--json", "-o", scratch(),
                    "--set", f"cluster.topology.nodes={n // 8}", "--set", "training.iterations=1", "--set",
                    f"training.algorithm={algorithm}"], iteration_time)
    for n in (s for s in LLAMA_SIZES if s <= limit):
        yield ("llama3 405b iteration", n, "syncsim",
               [syncsim, "run", os.path.join(root, "validation", "scenarios", "mfu", "llama3-405b-16k.yaml"), "--json",
                "-o", scratch()], iteration_time)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", help="the build folder (Release)")
    parser.add_argument("--quick", action="store_true", help="stop at 16,384 GPUs")
    parser.add_argument("--csv", help="write the rows here")
    parser.add_argument("--plot", help="draw the chart to PREFIX.svg and PREFIX.png (bench_scale_plot)")
    args = parser.parse_args()
    simgrid = os.path.join(args.build, "bench", "simgrid", "bench_ring_allreduce_simgrid")
    if not os.path.exists(simgrid):
        print("scale.py: SimGrid's ring is not built (libsimgrid-dev): syncsim alone", file=sys.stderr)
        simgrid = None
    rows = []
    print(f"{'workload':<22} {'GPUs':>7} {'tool':<8} {'simulated':>12} {'wall':>9} {'peak RSS':>10}")
    with tempfile.TemporaryDirectory(prefix="syncsim-scale-") as tmp:
        for workload, n, tool, command, simulated_of in cases(args.build, args.quick, simgrid, tmp):
            out, wall, rss = measure_rss(command)
            simulated = simulated_of(out)
            rows.append({"workload": workload, "gpus": n, "tool": tool, "simulated_s": f"{simulated:.9g}",
                         "wall_s": f"{wall:.3f}", "peak_rss_mb": f"{rss:.1f}"})
            print(f"{workload:<22} {n:>7} {tool:<8} {simulated:>11.6f}s {wall:>8.3f}s {rss:>8.1f}MB", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            writer.writeheader()
            writer.writerows(rows)
    if args.plot:
        if not args.csv:
            sys.exit("scale.py: --plot reads the rows from --csv")
        subprocess.run([os.path.join(args.build, "bench", "bench_scale_plot"), args.csv, args.plot], check=True)


if __name__ == "__main__":
    main()
