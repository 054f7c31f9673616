#pragma once
// A PyTorch module as layers: the graph `sim/compute/torch_trace.py` traces (torch.fx on CPU, shapes from one
// forward pass) turned into the layer list a scenario's `model.layers` reads, for `syncsim import-model` and
// `syncsim.import_model`.
//
// One costing rule, not two: Python only traces; every layer is made by the catalog's own CnnBuilder
// (cnn_builder.hpp), so an imported torchvision resnet50 equals the catalog's resnet50 field by field. The traced
// graph is a list of nodes, each an op on tensors named by id:
//
//   {"kind": "conv", "name": "layer1.0.conv1", "inputs": ["maxpool"], "output": "layer1_0_conv1",
//    "shape": [64, 56, 56], "params": 4096, "out_channels": 64, "kernel": [1, 1], "stride": [1, 1], ...}
//
// Each tensor id keeps its shape and whether some layer already saved it for backward: a layer that needs its
// input marks that tensor saved, so the block input a bottleneck's conv1 and its downsample both read is counted
// once (the catalog writes this by hand as `shared.saved = true`). Every layer is checked against the trace: its
// parameters against the module's own numel, its output shape against the traced one (a dilated convolution or a
// ceil-mode pool that changes the shape is refused rather than miscounted), and the total against the model's
// sum(p.numel()). The op kinds: conv, batch_norm, relu, max_pool, avg_pool, adaptive_avg_pool, add, concat,
// linear, dropout, reshape (no layer: a view) and alias (no tensor of its own).
//
//   const ImportedModel model = import_torch_graph(json_text, "torchvision:resnet50");
//   write_layers_file(model, out);    // name, source, input, layers: what model.layers: FILE reads
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/compute/model_spec.hpp"

namespace syncsim {

struct ImportedModel {
  std::string name;                 // the model's label: the torchvision name, or the callable's
  std::string source;               // what was traced: "torchvision:resnet50", "mymodels:tiny_net"
  std::vector<std::int64_t> input;  // per-sample input shape, C x H x W
  std::string torch_version;        // the torch that traced it (a comment in the layers file)
  std::vector<Layer> layers;        // in the order the forward pass ran them
};

// The traced graph (the script's JSON) as layers. `where` names the text in errors. A graph the script refused
// ({"error": "..."}: torch missing, an unsupported op) and one the checks above refuse throw InputError with one
// line naming the node and its module path.
ImportedModel import_torch_graph(std::string_view json, const std::string& where);

// The layers file: a YAML mapping of name, source, input and layers (one flow mapping per layer, with the fields
// of syncsim::Layer the scenario's model.layers reads; weight_elements_read only where it is not params).
// Deterministic: the same model gives the same bytes.
void write_layers_file(const ImportedModel& model, std::ostream& out);

// The tracing script (sim/compute/torch_trace.py), embedded at build time so that neither the command nor the
// Python module has to find it on disk. Run as `python3 -c SCRIPT SPEC CxHxW`; in-process, its
// trace_json(model_or_spec, shape) returns the same JSON.
std::string_view torch_trace_script();

}  // namespace syncsim
