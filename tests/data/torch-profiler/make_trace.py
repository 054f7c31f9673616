#!/usr/bin/python3
"""Profile a training iteration of torchvision's ResNet-50 on the CPU and write the Chrome trace torch.profiler
exports (issue 17: model.profile reads it).

Needs Debian's python3-torch and python3-torchvision, only to regenerate the trace; the tests read the committed
file. Every leaf module's forward runs inside a profiler range "nn.Module: <qualified name>" (a module called
several times, like a Bottleneck's one ReLU, gives one range per call), and its backward inside
"nn.Module backward: <qualified name>" (see BackwardRanges), so a reader can attribute the kernels to layers.
Debian's torch 1.13 build exports no sequence numbers linking backward kernels to forward ones, hence the explicit
backward ranges.

    /usr/bin/python3 tests/data/torch-profiler/make_trace.py tests/data/torch-profiler/resnet50-cpu.json
"""
import sys

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile, record_function

BATCH = 2
IMAGE = 64  # pixels per side: small, so that the trace stays small; the layers are ResNet-50's


def leaves(model):
    return [(name, m) for name, m in model.named_modules() if not any(True for _ in m.children())]


class BackwardRanges:
    """Backward runs one node at a time: a module's backward kernels are those between the moment the gradient of
    its output is ready and the moment the next module's is (a residual add's kernels go to the module before)."""

    def __init__(self):
        self.open = None

    def begin(self, name):
        self.end()
        self.open = record_function(f"nn.Module backward: {name}")
        self.open.__enter__()

    def end(self):
        if self.open is not None:
            self.open.__exit__(None, None, None)
            self.open = None


def instrument(model, ranges):
    """Name every leaf module's forward and backward in the trace."""
    for name, module in leaves(model):
        original = module.forward

        def forward(*args, _original=original, _name=name, **kwargs):
            with record_function(f"nn.Module: {_name}"):
                out = _original(*args, **kwargs)
            if out.requires_grad:
                def backward_begins(grad, _name=_name):
                    ranges.begin(_name)
                    return grad
                out.register_hook(backward_begins)
            return out

        module.forward = forward


def main(out_path):
    torch.manual_seed(0)
    torch.set_num_threads(1)  # one thread: kernel times that add up, as on one GPU stream
    model = torchvision.models.resnet50(num_classes=10)
    ranges = BackwardRanges()
    instrument(model, ranges)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(BATCH, 3, IMAGE, IMAGE)
    labels = torch.randint(0, 10, (BATCH,))
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad(set_to_none=True)
        with record_function("## forward ##"):
            loss = loss_fn(model(images), labels)
        with record_function("## backward ##"):
            loss.backward()
            ranges.end()
        with record_function("## optimizer ##"):
            optimizer.step()

    step()  # warm-up, outside the profiler
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("ProfilerStep#1"):
            step()
    prof.export_chrome_trace(out_path)


if __name__ == "__main__":
    main(sys.argv[1])
