#!/usr/bin/env python3
"""`syncsim plan` of a jobs scenario against `syncsim run` of its points (the "one answer" rule), and its determinism.

    plan_run_agree.py SYNCSIM SCENARIO OUTDIR NETWORKS PLACEMENTS

Runs the plan twice, with -j 1 and -j 2: plan.csv and the slowdown chart must be the same bytes. Then, for every row
of plan.csv, `syncsim run SCENARIO --set cluster.topology=SPEC --set placement=P`: each job's iteration_time_us,
alone_iteration_time_us, slowdown and samples_per_s in the row must equal report.json's exactly, and the row's
worst_slowdown must be the largest of them. Exit 1 naming the first difference.
"""
import csv
import json
import pathlib
import shutil
import subprocess
import sys


def run(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"exit {done.returncode} from {' '.join(args)}:\n{done.stdout}{done.stderr}")
    return done.stdout


def main():
    syncsim, scenario, outdir, networks, placements = sys.argv[1:6]
    out = pathlib.Path(outdir)
    shutil.rmtree(out, ignore_errors=True)
    for threads in ("1", "2"):
        run([syncsim, "plan", scenario, "--networks", networks, "--placements", placements, "-j", threads,
             "-o", str(out / f"plan-j{threads}")])
    for name in ("plan.csv", "slowdown.svg", "slowdown.png", "slowdown.pdf"):
        a = (out / "plan-j1" / name).read_bytes()
        b = (out / "plan-j2" / name).read_bytes()
        if a != b:
            sys.exit(f"{name} differs between -j 1 and -j 2")
    specs = dict(item.split("=", 1) for item in networks.split(";"))
    rows = list(csv.DictReader(open(out / "plan-j1" / "plan.csv")))
    if len(rows) != len(specs) * len(placements.split(",")):
        sys.exit(f"expected one row per (network, placement), got {len(rows)}")
    for i, row in enumerate(rows):
        if row["not_run"]:
            continue
        point = out / f"run-{i}"
        run([syncsim, "run", scenario, "--set", f"cluster.topology={specs[row['network']]}", "--set",
             f"placement={row['placement']}", "-o", str(point)])
        report = json.load(open(point / "report.json"))
        worst = 0.0
        for job in report["jobs"]:
            for key in ("iteration_time_us", "alone_iteration_time_us", "slowdown", "samples_per_s"):
                planned = float(row[f"{job['name']}_{key}"])
                if planned != float(job[key]):
                    sys.exit(f"{row['network']} / {row['placement']}: job {job['name']} {key}: plan {planned}, "
                             f"run {job[key]}")
            worst = max(worst, float(job["slowdown"]))
        if float(row["worst_slowdown"]) != worst:
            sys.exit(f"{row['network']} / {row['placement']}: worst_slowdown {row['worst_slowdown']}, run {worst}")
    print(f"{len(rows)} points agree with syncsim run")


if __name__ == "__main__":
    main()
