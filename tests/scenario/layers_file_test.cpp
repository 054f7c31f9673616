// model.layers: FILE, a layers file as `syncsim import-model` writes it: the same layers as inline ones, the file's
// name as the model's label, and errors that point into the file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/torch_import.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::string kA100Cluster = "cluster: {gpu: A100-SXM4-40GB, topology: \"switch:n=8,bw=100Gbps,lat=5us\"}\n";

// A fresh folder of its own (ctest may run the test cases at once), removed at the end.
struct Folder {
  std::filesystem::path path;
  explicit Folder(const std::string& name) : path(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~Folder() { std::filesystem::remove_all(path); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return path / name;
  }
};

std::string load_error(const std::string& scenario) {
  try {
    parse_scenario(scenario, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a layers file written by the import reads back as the catalog's model", "[scenario][layers_file]") {
  const Folder folder("syncsim-layers-file-read-back");
  const ImportedModel resnet = import_torch_graph(
      read_input_file(std::filesystem::path(SYNCSIM_TORCH_DATA) / "resnet50.json", "graph"), "torchvision:resnet50");
  std::ofstream(folder.path / "resnet50.yaml") << [&] {
    std::ostringstream out;
    write_layers_file(resnet, out);
    return out.str();
  }();
  const std::string file = (folder.path / "resnet50.yaml").string();
  const Scenario s = parse_scenario(kA100Cluster + "model: {layers: " + file + ", batch_per_gpu: 32}\n", "s.yaml");
  CHECK(s.model.name.value == "resnet50");  // the file's name
  const ModelSpec catalog = find_model("resnet50");
  REQUIRE(s.model.layers.size() == catalog.layers().size());
  for (std::size_t i = 0; i < catalog.layers().size(); ++i) {
    const Layer& a = s.model.layers[i].value;
    const Layer& b = catalog.layers()[i];
    CHECK(a.forward_flops == b.forward_flops);
    CHECK(a.saved_elements == b.saved_elements);
    CHECK(a.activation_elements_moved == b.activation_elements_moved);
    CHECK(a.weight_elements_read == b.weight_elements_read);
    CHECK(a.weight_rows == b.weight_rows);
    CHECK(a.weight_cols == b.weight_cols);
    CHECK(s.model.layers[i].where.source == file);  // each layer placed in the file
  }
  std::vector<Layer> layers;
  for (const auto& located : s.model.layers) layers.push_back(located.value);
  CHECK(ModelSpec("r", layers).params() == 25'557'032);
  // model.name still names it.
  CHECK(parse_scenario(kA100Cluster + "model: {name: mine, layers: " + file + ", batch_per_gpu: 32}\n", "s.yaml")
            .model.name.value == "mine");
}

TEST_CASE("a bad layers file is refused at its own line, column and key", "[scenario][layers_file]") {
  const Folder folder("syncsim-layers-file-errors");
  const std::string bad = folder
                              .write("bad.yaml",
                                     "name: tiny\nlayers:\n"
                                     "  - {name: fc1, params: 10, forward_flops: 20}\n"
                                     "  - {name: fc2, params: -3, forward_flops: 20}\n")
                              .string();
  CHECK_THAT(load_error(kA100Cluster + "model: {layers: " + bad + ", batch_per_gpu: 1}\n"),
             Catch::StartsWith(bad + ":4:25: layers[1].params: "));
  const std::string list = folder.write("list.yaml", "- {name: fc1, params: 10}\n").string();
  CHECK_THAT(load_error(kA100Cluster + "model: {layers: " + list + ", batch_per_gpu: 1}\n"),
             Catch::Contains("expected a layers file (name, source, input, layers), got a list"));
  const std::string unknown = folder.write("unknown.yaml", "nam: x\nlayers: []\n").string();
  CHECK_THAT(load_error(kA100Cluster + "model: {layers: " + unknown + ", batch_per_gpu: 1}\n"),
             Catch::StartsWith(unknown + ":1:1: nam"));
  CHECK_THAT(
      load_error(kA100Cluster + "model: {layers: " + (folder.path / "absent.yaml").string() + ", batch_per_gpu: 1}\n"),
      Catch::Contains("absent.yaml: cannot open the layers file"));
}
