"""`syncsim import-model` and syncsim.import_model for real, with Debian's torch (python3-torch): torchvision's
resnet50 gives the catalog's parameters and a run within 1% of the catalog model's; a module of the test's own
imports; an unsupported op and a missing torch are one line each, exit 2, nothing written. Tests that need torch
skip when /usr/bin/python3 (the interpreter the command runs) lacks it; the missing-torch test needs none."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import syncsim

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("SYNCSIM_CLI", str(ROOT / "build" / "sim" / "app" / "syncsim"))
RESNET_SCENARIO = str(ROOT / "examples" / "resnet50-dgx-8gpu.yaml")
CATALOG_RESNET50_PARAMS = 25_557_032

# The interpreter the command runs: SYNCSIM_PYTHON when set, else the configure-time one (Debian's).
PYTHON = os.environ.get("SYNCSIM_PYTHON", "/usr/bin/python3")
HAS_TORCH = subprocess.run([PYTHON, "-c", "import torch, torchvision, torch.fx"],
                           capture_output=True).returncode == 0
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason=f"torch and torchvision are not installed for {PYTHON}")

# A model of the test's own, for module:callable: every supported kind once, a residual add and a concat.
TINY_NET = '''
import torch
import torch.nn as nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(2)
        self.branch = nn.Conv2d(16, 16, 1)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(self.relu(self.bn(self.stem(x))))
        y = self.relu(self.branch(x) + x)
        x = torch.cat([x, y], 1)
        return self.fc(self.drop(torch.flatten(self.avg(x), 1)))


def tiny_net():
    return TinyNet()


class Swish(nn.Module):
    def forward(self, x):
        return self.fc(torch.flatten(torch.sigmoid(self.conv(x)), 1))

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4 * 6 * 6, 2)
'''


def import_model(*args, cwd=None, env=None):
    return subprocess.run([CLI, "import-model", *args], capture_output=True, text=True, cwd=cwd, env=env)


def run_report(tmp_path, name, *sets):
    out = tmp_path / name
    args = [CLI, "run", RESNET_SCENARIO, "-o", str(out), "--set", "training.iterations=3"]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return json.loads((out / "report.json").read_text())


@needs_torch
def test_resnet50_gives_the_catalogs_parameters_and_its_run(tmp_path):
    layers = tmp_path / "resnet50.yaml"
    done = import_model("torchvision:resnet50", "--input", "3x224x224", "-o", str(layers))
    assert done.returncode == 0, done.stderr
    assert "params           25557032\n" in done.stdout
    text = layers.read_text()
    assert "\nname: resnet50\n" in text and text.count("\n  - {name: ") == 174
    catalog = run_report(tmp_path, "catalog")
    imported = run_report(tmp_path, "imported", f"model.layers={layers}")
    assert imported["samples_per_s"] == pytest.approx(catalog["samples_per_s"], rel=0.01)
    assert imported["iteration_time_us"]["mean"] == pytest.approx(catalog["iteration_time_us"]["mean"], rel=0.01)
    # The Python module runs the same script in-process: the same layers file, byte for byte.
    again = tmp_path / "again.yaml"
    result = syncsim.import_model("torchvision:resnet50", (3, 224, 224), str(again))
    assert again.read_text() == text
    assert result["params"] == CATALOG_RESNET50_PARAMS
    assert result["layers"][6]["name"] == "layer1.0.relu1"


@needs_torch
def test_a_module_of_ones_own_imports_with_its_parameters(tmp_path):
    (tmp_path / "tinymodels.py").write_text(TINY_NET)
    done = import_model("tinymodels:tiny_net", "--input", "3x16x16", "-o", "tiny.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        import tinymodels
        model = tinymodels.tiny_net()
        params = sum(p.numel() for p in model.parameters())
        result = syncsim.import_model(model, "3x16x16")
    finally:
        sys.path.remove(str(tmp_path))
    assert f"params           {params}\n" in done.stdout
    assert result["params"] == params
    assert result["name"] == "TinyNet"
    names = [layer["name"] for layer in result["layers"]]
    assert names == ["stem", "bn", "relu1", "pool", "branch", "add", "relu2", "cat", "avg", "drop", "fc"]


@needs_torch
def test_an_unsupported_op_is_one_line_naming_the_node(tmp_path):
    (tmp_path / "tinymodels.py").write_text(TINY_NET)
    done = import_model("tinymodels:Swish", "--input", "3x8x8", "-o", "swish.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("syncsim: error: tinymodels:Swish: sigmoid: function sigmoid is not supported yet\n")
    assert not (tmp_path / "swish.yaml").exists()
    with pytest.raises(syncsim.InputError, match="function sigmoid is not supported yet"):
        syncsim.import_model(_load(tmp_path, "Swish"), "3x8x8")


def _load(folder, name):
    sys.path.insert(0, str(folder))
    try:
        import tinymodels
        return getattr(tinymodels, name)()
    finally:
        sys.path.remove(str(folder))


def test_without_torch_the_command_says_so_in_one_line(tmp_path):
    (tmp_path / "torch.py").write_text("# stands in for a missing PyTorch: `import torch.fx` fails\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    out = tmp_path / "resnet50.yaml"
    done = import_model("torchvision:resnet50", "--input", "3x224x224", "-o", str(out), env=env)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("syncsim: error: torchvision:resnet50: PyTorch is not installed for ")
    assert not out.exists()


def test_bad_flags_are_refused_before_python_starts(tmp_path):
    done = import_model("torchvision:resnet50", "--input", "224x224", "-o", str(tmp_path / "x.yaml"))
    assert done.returncode == 2
    assert done.stderr == ("syncsim: error: --input: expected a per-sample input shape C x H x W like 3x224x224, "
                           "got '224x224'\n")
    env = dict(os.environ, SYNCSIM_PYTHON=str(tmp_path / "no-python"))
    done = import_model("torchvision:resnet50", "--input", "3x224x224", "-o", str(tmp_path / "x.yaml"), env=env)
    assert done.returncode == 2
    assert "cannot run Python" in done.stderr and "(set SYNCSIM_PYTHON)" in done.stderr
