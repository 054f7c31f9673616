# Traces a PyTorch module on CPU with torch.fx and prints its graph as JSON, for `syncsim import-model`.
#
# Only traces: the FLOPs, moved and saved elements are counted on the C++ side by the catalog's own rules
# (sim/compute/src/cnn_builder.cpp), so an imported model and the catalog's agree by construction.
# Usage: python3 torch_trace.py SPEC CxHxW    SPEC: torchvision:NAME or package.module:callable
# Prints one JSON object: the graph, or {"error": "..."} (then exits 2). Embedded into syncsim at build time
# (sim/compute/CMakeLists.txt): the command runs it as `python3 -c SCRIPT SPEC CxHxW`, the Python module calls
# trace_json(model_or_spec, shape) in-process, so that it also takes an nn.Module object.
import contextlib
import importlib
import io
import json
import operator
import sys


class TraceError(Exception):
    pass


def load_module(spec):
    """The module SPEC names and its label: the torchvision name, the callable's, or an object's class name."""
    import torch.nn as nn
    if isinstance(spec, nn.Module):
        return spec, type(spec).__name__
    if not isinstance(spec, str) or ":" not in spec:
        raise TraceError(f"expected torchvision:NAME or module:callable, got '{spec}'")
    where, name = spec.split(":", 1)
    if where == "torchvision":
        import torchvision.models as models
        factory = getattr(models, name, None)
        if factory is None:
            raise TraceError(f"torchvision has no model '{name}'")
        model = factory(weights=None) if name != "inception_v3" else factory(weights=None, init_weights=False)
    else:
        if "" not in sys.path and "." not in sys.path:
            sys.path.insert(0, ".")  # the user's own code, from the folder the command runs in
        try:
            module = importlib.import_module(where)
        except Exception as e:  # ImportError, or the module's own error as it loads
            raise TraceError(f"cannot import '{where}': {type(e).__name__}: {(str(e).splitlines() or [''])[0]}")
        factory = getattr(module, name, None)
        if factory is None:
            raise TraceError(f"'{where}' has no '{name}'")
        model = factory() if callable(factory) and not isinstance(factory, nn.Module) else factory
    if not isinstance(model, nn.Module):
        raise TraceError(f"'{spec}' is not a torch.nn.Module")
    return model, name


def scoped_tracer():
    import torch.fx as fx

    class ScopedTracer(fx.Tracer):
        """Stamps every node with the module path it was created in, so functional ops get names."""

        def __init__(self):
            super().__init__()
            self.scopes = [""]

        def call_module(self, m, forward, args, kwargs):
            self.scopes.append(self.path_of_module(m))
            try:
                return super().call_module(m, forward, args, kwargs)
            finally:
                self.scopes.pop()

        def create_node(self, *args, **kwargs):
            node = super().create_node(*args, **kwargs)
            node.meta["scope"] = self.scopes[-1]
            return node

    return ScopedTracer()


def pair(v):
    return list(v) if isinstance(v, (tuple, list)) else [v, v]


def describe(node, modules):
    """The node's kind and attributes, or None for a node that makes no tensor of its own (an alias)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    if node.op == "call_module":
        m = modules[node.target]
        if isinstance(m, nn.Conv2d):
            if m.padding_mode != "zeros" or isinstance(m.padding, str):
                raise TraceError(f"{node.target}: only zero padding given as numbers is supported")
            return {"kind": "conv", "out_channels": m.out_channels, "kernel": pair(m.kernel_size),
                    "stride": pair(m.stride), "padding": pair(m.padding), "dilation": pair(m.dilation),
                    "groups": m.groups, "bias": m.bias is not None}
        if isinstance(m, nn.BatchNorm2d):
            return {"kind": "batch_norm"}
        if isinstance(m, nn.ReLU):
            return {"kind": "relu"}
        if isinstance(m, (nn.MaxPool2d, nn.AvgPool2d)):
            return {"kind": "max_pool" if isinstance(m, nn.MaxPool2d) else "avg_pool", "kernel": pair(m.kernel_size),
                    "stride": pair(m.stride), "padding": pair(m.padding), "ceil_mode": bool(m.ceil_mode)}
        if isinstance(m, nn.AdaptiveAvgPool2d):
            return {"kind": "adaptive_avg_pool", "out": pair(m.output_size)}
        if isinstance(m, nn.Linear):
            return {"kind": "linear", "out_features": m.out_features, "bias": m.bias is not None}
        if isinstance(m, nn.Dropout):
            return {"kind": "dropout"}
        if isinstance(m, (nn.Flatten, nn.Identity)):
            return {"kind": "reshape"}
        raise TraceError(f"{node.target}: module {type(m).__name__} is not supported yet")
    if node.op == "call_function":
        f = node.target
        if f in (operator.add, operator.iadd, torch.add):
            return {"kind": "add"}
        if f is torch.cat:
            return {"kind": "concat"}
        if f is torch.flatten:
            return {"kind": "reshape"}
        if f is F.relu:
            return {"kind": "relu"}
        if f is F.dropout:
            return {"kind": "dropout"}
        if f in (F.max_pool2d, F.avg_pool2d):
            kw = dict(zip(["kernel_size", "stride", "padding"], node.args[1:]), **node.kwargs)
            kernel = kw["kernel_size"]
            return {"kind": "max_pool" if f is F.max_pool2d else "avg_pool", "kernel": pair(kernel),
                    "stride": pair(kw.get("stride") or kernel), "padding": pair(kw.get("padding", 0)),
                    "ceil_mode": bool(kw.get("ceil_mode", False))}
        if f is F.adaptive_avg_pool2d:
            return {"kind": "adaptive_avg_pool", "out": pair(node.args[1] if len(node.args) > 1 else
                                                              node.kwargs["output_size"])}
        if f is operator.getitem or (isinstance(f, type) and issubclass(f, tuple)):
            return None  # picks from, or packs, several outputs (Inception's InceptionOutputs): no tensor of its own
        raise TraceError(f"{node.name}: function {getattr(f, '__name__', f)} is not supported yet")
    if node.op == "call_method":
        if node.target in ("flatten", "view", "reshape", "contiguous"):
            return {"kind": "reshape"}
        raise TraceError(f"{node.name}: method .{node.target}() is not supported yet")
    raise TraceError(f"{node.name}: {node.op} nodes are not supported")


def function_name(node, kind):
    """A functional op's own name (cat, avg_pool2d), as profilers show it; `out += x` is an add like `out + x`."""
    if node.op != "call_function" or kind == "add":
        return kind
    return getattr(node.target, "__name__", kind)


def source_of(spec, model):
    return spec if isinstance(spec, str) else f"{type(model).__module__}.{type(model).__name__}"


def trace(spec, shape):
    import torch
    from torch.fx.passes.shape_prop import ShapeProp
    model, name = load_module(spec)
    model.train()  # training mode: Inception's auxiliary classifier runs and counts
    tracer = scoped_tracer()
    try:
        graph = tracer.trace(model)
    except Exception as e:  # torch.fx's own refusals: data-dependent control flow, iterating a tensor
        raise TraceError(f"torch.fx cannot trace it: {str(e).splitlines()[0]}")
    gm = torch.fx.GraphModule(model, graph)
    try:
        # ShapeProp prints the traceback of a failing node itself; the one line below says it all.
        with torch.no_grad(), contextlib.redirect_stderr(io.StringIO()):
            ShapeProp(gm).propagate(torch.zeros(2, *shape))  # BatchNorm in training needs more than one sample
    except Exception as e:  # the module's own refusal of the shape: too few channels, too small an image
        while (e.__cause__ or e.__context__) is not None:  # ShapeProp wraps the module's error in its own
            e = e.__cause__ or e.__context__
        raise TraceError(f"{source_of(spec, model)} cannot run on a {'x'.join(map(str, shape))} input: "
                         f"{(str(e).splitlines() or [type(e).__name__])[0]}")
    modules = dict(gm.named_modules())
    nodes = []
    calls = {}
    for node in graph.nodes:
        if node.op in ("placeholder", "output", "get_attr"):
            if node.op == "get_attr":
                raise TraceError(f"{node.name}: a parameter used outside its module is not supported")
            continue
        try:
            what = describe(node, modules)
        except TraceError as e:  # named by the module it sits in, as the layers are
            scope = node.meta.get("scope", "")
            raise TraceError(f"{scope}: {e}" if scope and node.op != "call_module" else str(e))
        inputs = [a.name for a in node.all_input_nodes]
        if what is None:
            nodes.append({"kind": "alias", "inputs": inputs[:1], "output": node.name})
            continue
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            raise TraceError(f"{node.name}: its output is not one tensor")
        base = node.target if node.op == "call_module" else ".".join(
            p for p in (node.meta["scope"], function_name(node, what["kind"])) if p)
        calls.setdefault(base, []).append(len(nodes))
        params = sum(p.numel() for p in modules[node.target].parameters()) if node.op == "call_module" else 0
        nodes.append(dict(what, name=base, inputs=inputs, output=node.name, shape=list(meta.shape[1:]),
                          params=params))
    for base, indices in calls.items():
        if len(indices) > 1:  # a module called k times: module1..k, as profiler calls are claimed
            for k, i in enumerate(indices, 1):
                nodes[i]["name"] = f"{base}{k}"
    inputs = [n.name for n in graph.nodes if n.op == "placeholder"]
    if len(inputs) != 1:
        raise TraceError(f"the module takes {len(inputs)} inputs; only one tensor input is supported")
    return {"name": name, "source": source_of(spec, model), "input": list(shape), "input_tensor": inputs[0], "torch": torch.__version__,
            "parameters": sum(p.numel() for p in model.parameters()), "nodes": nodes}


def parse_shape(shape):
    if isinstance(shape, str):
        try:
            shape = [int(d) for d in shape.lower().split("x")]
        except ValueError:
            raise TraceError(f"expected an input shape like 3x224x224, got '{shape}'")
    shape = list(shape)
    if len(shape) != 3 or not all(isinstance(d, int) and d > 0 for d in shape):
        raise TraceError(f"expected an input shape C x H x W of three positive numbers, got {shape}")
    return shape


def trace_json(spec, shape):
    """The graph of SPEC (torchvision:NAME, module:callable, or an nn.Module) as JSON text, or {"error": ...}."""
    try:
        shape = parse_shape(shape)
        try:
            import torch  # noqa: F401
            import torch.fx  # noqa: F401
            from torch.fx.passes.shape_prop import ShapeProp  # noqa: F401
        except ImportError:
            raise TraceError(f"PyTorch is not installed for {sys.executable} (Debian: python3-torch "
                             "python3-torchvision)")
        return json.dumps(trace(spec, shape))
    except TraceError as e:
        return json.dumps({"error": str(e)})
    except Exception as e:  # the user's own code failing (a syntax error, its constructor): one line, not a traceback
        return json.dumps({"error": f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"})


def main(argv):
    if len(argv) != 3:
        print(json.dumps({"error": "usage: torch_trace.py SPEC CxHxW"}))
        return 2
    text = trace_json(argv[1], argv[2])
    print(text)
    return 2 if text.startswith('{"error"') else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
