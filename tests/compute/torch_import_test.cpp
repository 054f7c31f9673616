// A traced PyTorch graph into layers (torch_import.hpp), without torch: the graphs under tests/data/torch were
// traced by sim/compute/torch_trace.py with Debian's torch 1.13 (torchvision 0.14), and the catalog's generators
// are the reference. One costing rule means the imported torchvision models equal the catalog's, field by field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/torch_import.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"

using namespace syncsim;

namespace {
const std::filesystem::path kTorchData = SYNCSIM_TORCH_DATA;

ImportedModel traced(const std::string& file) {
  return import_torch_graph(read_input_file(kTorchData / file, "traced graph"), file);
}

// Every count of two layers, by field, so a failure names the field.
void same_counts(const Layer& imported, const Layer& catalog) {
  INFO("imported " << imported.name << ", catalog " << catalog.name);
  CHECK(imported.params == catalog.params);
  CHECK(imported.forward_flops == catalog.forward_flops);
  CHECK(imported.weight_elements_read == catalog.weight_elements_read);
  CHECK(imported.activation_elements_moved == catalog.activation_elements_moved);
  CHECK(imported.saved_elements == catalog.saved_elements);
  CHECK(imported.saved_mask_bytes == catalog.saved_mask_bytes);
  CHECK(imported.weight_rows == catalog.weight_rows);
  CHECK(imported.weight_cols == catalog.weight_cols);
  CHECK(imported.weight_matrices == catalog.weight_matrices);
}

// torchvision's module paths where the catalog chose its own names: the downsample branch is an nn.Sequential
// (0: conv, 1: bn) there.
std::string catalog_name(std::string name) {
  for (const auto& [torch, catalog] :
       {std::pair{"downsample.0", "downsample.conv"}, {"downsample.1", "downsample.bn"}}) {
    if (const std::size_t at = name.find(torch); at != std::string::npos)
      name.replace(at, std::string(torch).size(), catalog);
  }
  return name;
}

void same_as_catalog_resnet(const ImportedModel& imported, const ModelSpec& catalog) {
  REQUIRE(imported.layers.size() == catalog.layers().size());
  for (std::size_t i = 0; i < imported.layers.size(); ++i) {
    CHECK(catalog_name(imported.layers[i].name) == catalog.layers()[i].name);
    same_counts(imported.layers[i], catalog.layers()[i]);
  }
  const ModelSpec spec(imported.name, imported.layers);
  CHECK(spec.params() == catalog.params());
  CHECK(spec.forward_flops() == catalog.forward_flops());
  CHECK(spec.saved_elements() == catalog.saved_elements());
}

// A one-conv graph with the conv's attributes replaced by `conv` (a JSON object's fields, spliced in).
std::string one_conv_graph(const std::string& conv, const std::string& shape = "[8, 16, 16]",
                           std::int64_t params = 216) {
  return R"({"name": "tiny", "source": "test:tiny", "input": [3, 16, 16], "input_tensor": "x", "torch": "1.13",
             "parameters": )" +
         std::to_string(params) + R"(, "nodes": [{"kind": "conv", "name": "conv", "inputs": ["x"], "output": "c",
             "shape": )" +
         shape + ", \"params\": " + std::to_string(params) + ", " + conv + "}]}";
}
const std::string kPlainConv = R"("out_channels": 8, "kernel": [3, 3], "stride": [1, 1], "padding": [1, 1],
                                  "dilation": [1, 1], "groups": 1, "bias": false)";

std::string import_error(const std::string& json) {
  try {
    import_torch_graph(json, "test:tiny");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("torchvision resnet50 imports as the catalog's resnet50, field by field", "[torch_import]") {
  const ImportedModel resnet = traced("resnet50.json");
  CHECK(resnet.name == "resnet50");
  CHECK(resnet.source == "torchvision:resnet50");
  CHECK(resnet.input == std::vector<std::int64_t>{3, 224, 224});
  same_as_catalog_resnet(resnet, find_model("resnet50"));
  CHECK(ModelSpec("r", resnet.layers).params() == 25'557'032);
  // The module names a profiler trace shows: one relu module called three times is relu1..3, as the catalog has it.
  CHECK(resnet.layers[6].name == "layer1.0.relu1");
  CHECK(resnet.layers[12].name == "layer1.0.downsample.0");
}

TEST_CASE("torchvision resnext50_32x4d imports as the catalog's resnext50", "[torch_import]") {
  const ImportedModel resnext = traced("resnext50_32x4d.json");
  same_as_catalog_resnet(resnext, find_model("resnext50"));
  CHECK(ModelSpec("r", resnext.layers).params() == 25'028'904);
}

TEST_CASE("torchvision inception_v3 imports layer for layer as the catalog's inception3", "[torch_import]") {
  const ImportedModel inception = traced("inception_v3.json");
  const ModelSpec catalog = find_model("inception3");
  REQUIRE(inception.layers.size() == catalog.layers().size());
  std::vector<std::string> saved_differently;
  for (std::size_t i = 0; i < inception.layers.size(); ++i) {
    const Layer& a = inception.layers[i];
    const Layer& b = catalog.layers()[i];
    if (a.saved_elements != b.saved_elements) {
      saved_differently.push_back(a.name);
      continue;
    }
    same_counts(a, b);
  }
  // The one place the hand-written catalog and the traced graph part: the auxiliary head reads Mixed_6e's output
  // through an average pool, which keeps nothing; the catalog nonetheless marks that tensor kept when the head ends,
  // so Mixed_7a's first convolution saves nothing there. The import counts the 768 x 17 x 17 tensor once, where
  // Mixed_7a keeps it.
  CHECK(saved_differently == std::vector<std::string>{"Mixed_7a.branch3x3_1.conv"});
  const ModelSpec spec("inception", inception.layers);
  CHECK(spec.params() == 27'161'264);
  CHECK(spec.forward_flops() == catalog.forward_flops());
  CHECK(spec.saved_elements() == catalog.saved_elements() + 768 * 17 * 17);
  // Functional ops are named after their module and function, module1..k when called more than once.
  CHECK(inception.layers[35].name == "Mixed_5b.avg_pool2d");
}

TEST_CASE("the layers file lists every layer's counts, deterministically", "[torch_import]") {
  const ImportedModel resnet = traced("resnet50.json");
  std::ostringstream once;
  std::ostringstream again;
  write_layers_file(resnet, once);
  write_layers_file(traced("resnet50.json"), again);
  CHECK(once.str() == again.str());
  const std::string text = once.str();
  CHECK(text.find("name: resnet50\nsource: \"torchvision:resnet50\"\ninput: [3, 224, 224]\nlayers:\n") !=
        std::string::npos);
  CHECK(text.find("  - {name: conv1, params: 9408, forward_flops: 236027904, activation_elements_moved: 953344, "
                  "saved_elements: 150528, weight_shape: [64, 147]}\n") != std::string::npos);
  CHECK(text.find("  - {name: layer1.0.relu1, params: 0,") != std::string::npos);
  // Names YAML would read as something else are quoted.
  ImportedModel odd = resnet;
  odd.layers[0].name = "yes";
  odd.layers[1].name = "odd: name";
  std::ostringstream quoted;
  write_layers_file(odd, quoted);
  CHECK(quoted.str().find("{name: \"yes\",") != std::string::npos);
  CHECK(quoted.str().find("{name: \"odd: name\",") != std::string::npos);
}

TEST_CASE("a traced graph the catalog's rules cannot count is refused with the node's name", "[torch_import]") {
  CHECK(import_torch_graph(one_conv_graph(kPlainConv), "t").layers.size() == 1);
  CHECK_THAT(import_error(R"({"error": "PyTorch is not installed for /usr/bin/python3"})"),
             Catch::Equals("test:tiny: PyTorch is not installed for /usr/bin/python3"));
  CHECK_THAT(import_error("not json"), Catch::Contains("other than one JSON object"));
  std::string dilated = kPlainConv;
  dilated.replace(dilated.find("\"dilation\": [1, 1]"), 18, "\"dilation\": [2, 2]");
  CHECK_THAT(import_error(one_conv_graph(dilated)),
             Catch::Equals("test:tiny: conv: a dilated convolution (2x2) is not supported: the catalog counts none "
                           "(node c)"));
  CHECK_THAT(import_error(one_conv_graph(kPlainConv, "[8, 15, 15]")),
             Catch::Equals("test:tiny: conv: torch gives an output of [8, 15, 15], the catalog's rule [8, 16, 16] "
                           "(node c)"));
  CHECK_THAT(import_error(one_conv_graph(kPlainConv, "[8, 16, 16]", 224)),
             Catch::Contains("the module has 224 parameters, the catalog's rule counts 216"));
  std::string strided = kPlainConv;
  strided.replace(strided.find("\"stride\": [1, 1]"), 16, "\"stride\": [1, 2]");
  CHECK_THAT(import_error(one_conv_graph(strided)), Catch::Contains("a stride of 1x2 is not supported"));
  std::string unknown_input = one_conv_graph(kPlainConv);
  unknown_input.replace(unknown_input.find("[\"x\"]"), 5, "[\"y\"]");
  CHECK_THAT(import_error(unknown_input), Catch::Contains("reads tensor \"y\", which no earlier node made"));
  std::string total = one_conv_graph(kPlainConv);
  total.replace(total.find("\"parameters\": 216"), 17, "\"parameters\": 300");
  CHECK_THAT(import_error(total), Catch::Contains("parameters: the layers hold 216 parameters but the module has 300"));
  std::string kind = one_conv_graph(kPlainConv);
  kind.replace(kind.find("\"kind\": \"conv\""), 14, "\"kind\": \"lstm\"");
  CHECK_THAT(import_error(kind), Catch::Contains("the op kind 'lstm' is not supported"));
}
