"""plan.csv and the sweep's CSV are plain CSV files that pandas reads as they are (no comment line, no options),
with the columns docs/planner.md lists and the numbers report.json prints; the Python module's sweep returns the
command line's columns."""
import io
import json
import os
import pathlib
import subprocess

import pandas
import pytest

import syncsim

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("SYNCSIM_CLI", str(ROOT / "build" / "sim" / "app" / "syncsim"))
RESNET = str(ROOT / "examples" / "resnet50-dgx-8gpu.yaml")
NEW_COLUMNS = ["layout", "mfu", "tokens_per_s_per_gpu", "pipeline_bubble_share"]


def syncsim_cli(*args):
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout


def report(tmp_path, scenario, *sets):
    out = tmp_path / "run"
    args = ["run", scenario, "-o", str(out)]
    for s in sets:
        args += ["--set", s]
    syncsim_cli(*args)
    return json.loads((out / "report.json").read_text())


def test_the_sweep_csv_reads_with_pandas_and_matches_report_json(tmp_path):
    csv = tmp_path / "sweep.csv"
    syncsim_cli("sweep", RESNET, "--set", "training.iterations=2", "--vary", "cluster.topology.nodes=1,2", "-o",
                str(csv), "-j", "1")
    table = pandas.read_csv(csv)
    assert list(table["cluster.topology.nodes"]) == [1, 2]
    for column in NEW_COLUMNS + ["samples_per_s", "sweep_fingerprint"]:
        assert column in table.columns
    assert len(set(table["sweep_fingerprint"])) == 1
    assert list(table["layout"]) == ["DP8", "DP16"]
    # --set applied to every point: the row is the run with the same overrides, digit for digit.
    r = report(tmp_path, RESNET, "training.iterations=2", "cluster.topology.nodes=2")
    assert table["iterations"][1] == 2
    assert table["samples_per_s"][1] == r["samples_per_s"]
    assert table["mfu"][1] == r["utilization"]["model_flops_utilization"]
    # The sweep resumes from its own file: nothing left to run, the same bytes.
    before = csv.read_bytes()
    syncsim_cli("sweep", RESNET, "--set", "training.iterations=2", "--vary", "cluster.topology.nodes=1,2", "-o",
                str(csv), "-j", "1")
    assert csv.read_bytes() == before


def test_plan_csv_reads_with_pandas_and_matches_report_json(tmp_path):
    out = tmp_path / "plan"
    syncsim_cli("plan", RESNET, "--gpus", "8", "--samples", "1e6", "--prices",
                str(ROOT / "examples" / "prices-example.yaml"), "-o", str(out), "-j", "1")
    table = pandas.read_csv(out / "plan.csv")
    for column in NEW_COLUMNS + ["gpu_hours", "gpu_power_watts", "energy_mwh", "energy_cost"]:
        assert column in table.columns
    r = report(tmp_path, RESNET)
    row = table.iloc[0]
    assert row["gpus"] == r["workers"] == 8
    assert row["samples_per_s"] == pytest.approx(r["samples_per_s"], rel=1e-9)
    assert row["layout"] == "DP8"
    # The iteration's time shares, one column each, add up to the whole iteration (exposed_communication_share is
    # the sum of the exposed_<group>_share columns, not a share of its own).
    shares = [c for c in table.columns
              if c.endswith("_share") and c not in ("bottleneck_share", "exposed_communication_share")]
    assert "recompute_share" in shares and "exposed_data_share" in shares
    assert sum(row[c] for c in shares) == pytest.approx(1, abs=1e-8)  # each rounded as report.json writes it
    # Energy: GPUs x board power x PUE x time-to-train (the example's PUE and price per kWh).
    assert row["gpu_power_watts"] == 400  # the A100's board power (docs/planner.md)
    assert row["energy_mwh"] == pytest.approx(8 * 400 * 1.2 * row["time_to_train_s"] / 3.6e9, rel=1e-9)
    assert row["energy_cost"] == pytest.approx(row["energy_mwh"] * 1000 * 0.10, rel=1e-9)
    for chart in ("throughput", "efficiency", "cost"):
        assert (out / f"{chart}.pdf").read_bytes().startswith(b"%PDF-")
        assert (out / f"{chart}.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_the_modules_sweep_returns_the_command_lines_columns():
    rows = syncsim.sweep(RESNET, [{"cluster.topology.nodes": 2, "training.iterations": 2}], progress=False)
    records = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
    printed = syncsim_cli("sweep", RESNET, "--vary", "cluster.topology.nodes=2", "--vary", "training.iterations=2",
                          "-j", "1")
    cli = pandas.read_csv(io.StringIO(printed))
    assert list(records[0].keys()) == list(cli.columns)
    for column in ("samples_per_s", "bottleneck", "memory_fits", "mfu", "layout"):
        assert records[0][column] == cli[column][0]
