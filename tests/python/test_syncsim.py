"""The Python module against the command line: the same scenario gives the same report.json byte for byte, the
same overrides the same run, the same bad input the same message, the same collective the same rows."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import syncsim

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("SYNCSIM_CLI", str(ROOT / "build" / "sim" / "app" / "syncsim"))
RESNET = str(ROOT / "examples" / "resnet50-dgx-8gpu.yaml")
SHORT = {"training.iterations": 2}


def cli_run(tmp_path, scenario, *sets):
    """report.json and trace.json as `syncsim run` writes them."""
    out = tmp_path / "cli"
    args = [CLI, "run", scenario, "-o", str(out)]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return (out / "report.json").read_text(), (out / "trace.json").read_text()


def test_run_gives_the_command_lines_report_byte_for_byte(tmp_path):
    report, trace = cli_run(tmp_path, RESNET, "training.iterations=2")
    result = syncsim.simulate(RESNET, overrides=SHORT)
    assert result.report_json == report
    assert result.trace_json == trace
    assert syncsim.run(RESNET, overrides=SHORT)["samples_per_s"] == json.loads(report)["samples_per_s"]


def test_overrides_as_a_dict_or_as_set_strings_are_one_run():
    as_dict = syncsim.simulate(RESNET, overrides={"training.iterations": 2, "cluster.topology.nodes": 2})
    as_list = syncsim.simulate(RESNET, overrides=["training.iterations=2", "cluster.topology.nodes=2"])
    loaded = syncsim.simulate(syncsim.load(RESNET, ["cluster.topology.nodes=2"]), overrides=SHORT)
    assert as_dict.report_json == as_list.report_json == loaded.report_json
    assert json.loads(as_dict.report_json)["workers"] == 16


def test_a_bad_key_raises_with_the_command_lines_message(tmp_path):
    with pytest.raises(syncsim.InputError) as raised:
        syncsim.run(RESNET, overrides={"training.iteratons": 2})
    cli = subprocess.run([CLI, "run", RESNET, "-o", str(tmp_path / "x"), "--set", "training.iteratons=2"],
                         capture_output=True, text=True)
    assert cli.returncode == 2
    assert cli.stderr.strip() == "syncsim: error: " + str(raised.value)
    assert "iteratons" in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_a_bad_value_in_a_file_names_its_line_and_column(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(pathlib.Path(RESNET).read_text().replace("batch_per_gpu: 64", "batch_per_gpu: -3"))
    with pytest.raises(syncsim.InputError) as raised:
        syncsim.load(str(bad))
    assert str(raised.value).startswith(f"{bad}:")
    assert "batch_per_gpu" in str(raised.value)


def test_a_scenario_from_yaml_text_or_a_dict_runs_as_the_file_does():
    text = pathlib.Path(RESNET).read_text()
    from_text = syncsim.simulate(text, overrides=SHORT).report
    from_file = syncsim.simulate(RESNET, overrides=SHORT).report
    assert from_text["samples_per_s"] == from_file["samples_per_s"]
    scenario = {
        "name": "dict",
        "cluster": {"gpu": "A100-SXM4-80GB", "topology": {"kind": "dgx", "nodes": 2, "gpus": 8}},
        "model": {"name": "resnet50", "batch_per_gpu": 32, "precision": "fp16"},
        "training": {"strategy": "sync", "iterations": 2},
    }
    report = syncsim.run(scenario)
    assert report["scenario"] == "dict" and report["workers"] == 16
    with pytest.raises(syncsim.InputError):
        syncsim.run({**scenario, "training": {"strategy": "sync", "iterations": "many"}})


def test_a_scenario_is_a_dict_text_or_a_path_and_nothing_else():
    # Found by fuzzing: None and 42 were read as files named "None" and "42".
    assert syncsim.load(pathlib.Path(RESNET)).name == syncsim.load(RESNET).name
    for wrong in (None, 42, 1.5, [RESNET]):
        with pytest.raises(TypeError, match="expected a dict, YAML text or a path"):
            syncsim.load(wrong)
    # One `key: value` line that names no file is YAML text, with YAML's error (it was opened as a file).
    with pytest.raises(syncsim.InputError, match="^<string>:1:1: invalid YAML"):
        syncsim.load("cluster: [")


def test_trace_events_and_write_trace(tmp_path):
    result = syncsim.simulate(RESNET, overrides=SHORT)
    events = result.trace_events()
    assert isinstance(events, list) and len(events) > 0
    path = tmp_path / "trace.json"
    result.write_trace(str(path))
    assert path.read_text() == result.trace_json


def test_a_failed_write_trace_leaves_the_old_file_whole(tmp_path):
    """A write that fails part-way (here past the file-size limit, `ulimit -f`) raises syncsim.InputError and leaves
    the earlier trace.json as it was, with no temporary beside it (it used to leave a truncated file)."""
    path = tmp_path / "trace.json"
    path.write_text("the old trace\n")
    code = (
        "import resource, sys, syncsim\n"
        "result = syncsim.simulate(sys.argv[1], overrides={'training.iterations': 2})\n"
        "assert len(result.trace_json) > 4096\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))\n"
        "try:\n"
        "    result.write_trace(sys.argv[2])\n"
        "except syncsim.InputError as e:\n"
        "    print(e)\n"
        "    sys.exit(3)\n")
    run = subprocess.run([sys.executable, "-c", code, RESNET, str(path)], capture_output=True, text=True)
    assert run.returncode == 3, run.stdout + run.stderr
    assert "cannot write" in run.stdout and "File too large" in run.stdout
    assert path.read_text() == "the old trace\n"
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]


def test_collective_gives_the_command_lines_rows():
    args = ["-t", "dgx:nodes=2,gpus=8", "--sizes", "1M:64M", "--json"]
    cli = json.loads(subprocess.run([CLI, "collective", *args], check=True, capture_output=True, text=True).stdout)
    assert syncsim.collective("dgx:nodes=2,gpus=8", sizes="1M:64M") == cli
    assert [row["size_bytes"] for row in cli["rows"]] == [2**20 * 2**k for k in range(7)]
    with pytest.raises(syncsim.InputError, match="--sizes"):
        syncsim.collective("switch:n=8,bw=100Gbps", sizes="1X")


def test_sweep_runs_each_point_and_reports_progress():
    seen = []
    rows = syncsim.sweep(RESNET, [{"cluster.topology.nodes": n, "training.iterations": 2} for n in (1, 2)],
                         progress=lambda done, total: seen.append((done, total)))
    records = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
    assert seen == [(1, 2), (2, 2)]
    assert [r["workers"] for r in records] == [8, 16]
    assert [r["cluster.topology.nodes"] for r in records] == [1, 2]
    single = syncsim.run(RESNET, overrides={"cluster.topology.nodes": 2, "training.iterations": 2})
    assert records[1]["samples_per_s"] == single["samples_per_s"]


def test_symmetry_off_changes_nothing():
    on = syncsim.simulate(RESNET, overrides={"cluster.topology.nodes": 64, "training.iterations": 1,
                                             "training.algorithm": "ring"})
    off = syncsim.simulate(RESNET, overrides={"cluster.topology.nodes": 64, "training.iterations": 1,
                                              "training.algorithm": "ring"}, symmetry=False)
    assert on.report_json == off.report_json


def test_the_quickstart_prints_what_docs_python_md_shows():
    """docs/python.md pastes the quickstart's output after its command: the page cannot drift from the module."""
    page = (ROOT / "docs" / "python.md").read_text()
    command = "PYTHONPATH=build/python python3 examples/python/quickstart.py\n"
    assert command in page
    shown = page.split(command, 1)[1].split("```", 1)[0]
    printed = subprocess.run([sys.executable, "examples/python/quickstart.py"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
    assert printed == shown


def test_the_plan_example_plots_a_scaling_curve(tmp_path):
    """examples/python/plan.py: a sweep over cluster sizes drawn with matplotlib (no display: the Agg backend)."""
    pytest.importorskip("matplotlib")
    chart = tmp_path / "plan.png"
    printed = subprocess.run([sys.executable, "examples/python/plan.py", str(chart)], cwd=ROOT, check=True,
                             capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"}).stdout
    lines = printed.splitlines()
    assert [int(line.split()[0]) for line in lines[:-1]] == [8, 16, 32, 64, 128]
    assert lines[-1] == f"wrote {chart}"
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Throughput grows with the cluster and never beats ideal scaling.
    throughput = [float(line.split()[2]) for line in lines[:-1]]
    assert throughput == sorted(throughput)
    assert all(0 < float(line.split()[5].rstrip("%")) <= 100 for line in lines[:-1])
