// parallelism.tp_comm_overlap: FILE, Transformer Engine's userbuffers configuration in a file of its own (NeMo's
// conf/training/tp_overlap/ub_cfg_*.yaml): read as the inline mapping, its path against the scenario's folder, its
// errors at the file's own lines.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::string kScenario =
    "cluster: {gpu: H100-SXM-80GB, topology: {kind: dgx, nodes: 1, gpus: 8}}\n"
    "model: {name: llama3-8b, batch_per_gpu: 1}\n";

// NeMo's layout: comments, one layer per block, flags 0 and 1.
const std::string kUbFile =
    "# UB communicator configurations\n"
    "qkv_dgrad:\n  method: bulk\n  num_sm: 8\n  cga_size: 2\n  set_sm_margin: 0\n\n"
    "fc2_dgrad:\n  method: ring_exchange\n  aggregate: 1\n\n"
    "proj_fprop:\n  method: pipeline\n  num_sm: 24\n  cga_size: 2\n  num_splits: 4\n  set_sm_margin: 1\n";

std::string error_of(const std::filesystem::path& scenario) {
  try {
    load_scenario(scenario);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a userbuffers file reads as the same configuration inline, beside the scenario", "[scenario]") {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "syncsim-userbuffers-file";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder / "tp_overlap");
  std::ofstream(folder / "tp_overlap" / "ub_cfg.yaml") << kUbFile;
  std::ofstream(folder / "s.yaml") << kScenario
                                   << "parallelism: {tensor: 2, tp_comm_overlap: tp_overlap/ub_cfg.yaml}\n";
  const Scenario from_file = load_scenario(folder / "s.yaml");
  const Scenario inline_one = load_scenario(
      folder / "s.yaml",
      {"parallelism.tp_comm_overlap={qkv_dgrad: {method: bulk, num_sm: 8, cga_size: 2, set_sm_margin: 0}, fc2_dgrad: "
       "{method: ring_exchange, aggregate: 1}, proj_fprop: {method: pipeline, num_sm: 24, cga_size: 2, num_splits: 4, "
       "set_sm_margin: 1}}"});
  REQUIRE(from_file.parallelism.userbuffers);
  REQUIRE(inline_one.parallelism.userbuffers);
  CHECK(from_file.parallelism.tp_comm_overlap.value);
  CHECK(from_file.parallelism.userbuffers->value == inline_one.parallelism.userbuffers->value);
  // The resolved scenario holds the configuration, not the path: it reads back without the file.
  CHECK(to_yaml(parse_scenario(to_yaml(from_file), "again.yaml")) == to_yaml(from_file));

  // A bad value is refused at the file's own line and column, keyed inside it.
  std::ofstream(folder / "tp_overlap" / "ub_cfg.yaml") << kUbFile << "qkv_fprop:\n  method: pipeline\n";
  CHECK_THAT(error_of(folder / "s.yaml"), Catch::Contains("ub_cfg.yaml:19:11: qkv_fprop.method: Transformer Engine "
                                                          "refuses the pipeline method for an all-gather"));
  // A missing file, a folder, and a file that is no mapping.
  std::filesystem::remove(folder / "tp_overlap" / "ub_cfg.yaml");
  CHECK_THAT(error_of(folder / "s.yaml"), Catch::Contains("cannot open the userbuffers file"));
  std::filesystem::create_directories(folder / "tp_overlap" / "ub_cfg.yaml");
  CHECK_THAT(error_of(folder / "s.yaml"), Catch::Contains("it is a directory, not a regular file"));
  std::filesystem::remove(folder / "tp_overlap" / "ub_cfg.yaml");
  std::ofstream(folder / "tp_overlap" / "ub_cfg.yaml") << "- qkv_dgrad\n";
  CHECK_THAT(error_of(folder / "s.yaml"),
             Catch::Contains("expected Transformer Engine's userbuffers configuration (a mapping of its layer names), "
                             "got a list"));
  // A word that is neither a flag nor a YAML file's name says what the key takes.
  std::ofstream(folder / "s.yaml") << kScenario << "parallelism: {tensor: 2, tp_comm_overlap: on}\n";
  CHECK_THAT(error_of(folder / "s.yaml"),
             Catch::Contains("parallelism.tp_comm_overlap: expected true, false, Transformer Engine's userbuffers "
                             "configuration (a mapping of its layer names, as NeMo's ub_cfg files write it) or the "
                             "path of a .yaml file holding it, got 'on'"));
  std::filesystem::remove_all(folder);
}
