#pragma once
// The fuzz targets: one function per reader of user input, each called with arbitrary bytes.
//
// The contract every reader keeps under fuzzing: an input either reads or throws syncsim::InputError (printed by
// `main` as one line, exit 2). A target catches InputError and nothing else, so any other exception escapes and
// becomes a finding, as do crashes, leaks, hangs and memory blow-ups (libFuzzer and the sanitizers catch those).
//
// Each function is linked twice: into a libFuzzer binary per target (clang only, libfuzzer_entry.cpp) and into
// syncsim-fuzz-replay (every compiler, replay_main.cpp), which ctest runs over the seed corpora, the kept
// regressions and the malformed corpus, so a fixed finding stays fixed on machines without clang.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace syncsim {
struct TopologySpec;  // syncsim/topology/topology_spec.hpp: declared only, so the JSON targets link without it
}

namespace syncsim::fuzz {

using FuzzTarget = int (*)(const std::uint8_t* data, std::size_t size);

int fuzz_scenario(const std::uint8_t* data, std::size_t size);        // parse_scenario (+ its topology)
int fuzz_topology_spec(const std::uint8_t* data, std::size_t size);   // parse_topology_spec + build_topology
int fuzz_dot(const std::uint8_t* data, std::size_t size);             // read_dot_text
int fuzz_nccl_xml(const std::uint8_t* data, std::size_t size);        // read_nccl_xml_text
int fuzz_nccl_tests_log(const std::uint8_t* data, std::size_t size);  // parse_nccl_tests_log
int fuzz_calibration(const std::uint8_t* data, std::size_t size);     // parse_calibration
int fuzz_prices(const std::uint8_t* data, std::size_t size);          // parse_price_table (plan --prices)
int fuzz_sweep_args(const std::uint8_t* data, std::size_t size);      // --vary/--zip, --gpus/--gpu-types/--networks
int fuzz_scenario_run(const std::uint8_t* data, std::size_t size);    // parse_scenario + run::run_scenario (small)
int fuzz_cli_args(const std::uint8_t* data, std::size_t size);        // every subcommand's flags: CLI11 + flag checks
int fuzz_sweep_resume(const std::uint8_t* data, std::size_t size);    // parse_table + resumable_rows + match_rows
int fuzz_topology_file(const std::uint8_t* data, std::size_t size);   // file: spec, built and summarized
int fuzz_hf_config(const std::uint8_t* data, std::size_t size);       // parse_hf_config (model.hf_config)
int fuzz_gpu_profile(const std::uint8_t* data, std::size_t size);     // parse_gpu_profile (cluster.gpu.profile)
int fuzz_profile_trace(const std::uint8_t* data, std::size_t size);   // parse_profile_trace (model.profile)
int fuzz_layers_file(const std::uint8_t* data, std::size_t size);     // model.layers: FILE, read and sized
int fuzz_inspector(const std::uint8_t* data, std::size_t size);       // parse_inspector_log + grouping
// The GUI's trace, report.json and sweep CSV readers; built only where Qt is (not in kTargets: gui_readers_fuzz.cpp).
int fuzz_gui_readers(const std::uint8_t* data, std::size_t size);

struct NamedTarget {
  std::string_view name;  // also the folder of its seed corpus, regressions and malformed inputs
  FuzzTarget run;
};

inline constexpr NamedTarget kTargets[] = {
    {"scenario", fuzz_scenario},       {"topology_spec", fuzz_topology_spec},   {"dot", fuzz_dot},
    {"nccl_xml", fuzz_nccl_xml},       {"nccl_tests_log", fuzz_nccl_tests_log}, {"calibration", fuzz_calibration},
    {"prices", fuzz_prices},           {"sweep_args", fuzz_sweep_args},         {"scenario_run", fuzz_scenario_run},
    {"cli_args", fuzz_cli_args},       {"sweep_resume", fuzz_sweep_resume},     {"topology_file", fuzz_topology_file},
    {"hf_config", fuzz_hf_config},     {"gpu_profile", fuzz_gpu_profile},       {"profile_trace", fuzz_profile_trace},
    {"layers_file", fuzz_layers_file}, {"inspector", fuzz_inspector},
};

// Generators accept up to 2^20 GPUs, which is right for users and wrong for a fuzzer: one input asking for a
// million-node mesh would spend the whole run (or the memory limit) building it. Specs over this many GPUs are
// parsed but not built; every size up to it still goes through the generators' own checks.
inline constexpr std::int64_t kMaxFuzzGpus = 256;

// True when building `spec` stays within kMaxFuzzGpus and reads no file (`file:` specs name paths on the machine
// running the fuzzer; the DOT and XML readers are fuzzed through their text entry points instead).
bool small_enough_to_build(const TopologySpec& spec, std::int64_t max_gpus = kMaxFuzzGpus);

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A folder of this process's own (libFuzzer's -jobs run several), created once, for targets whose reader takes a
// path: `name` tells the targets' folders apart.
const std::filesystem::path& scratch_folder(const std::string& name);

// Writes `text` to `path`, replacing it.
void write_scratch_file(const std::filesystem::path& path, std::string_view text);

// The overrides a scenario input carries as lines `#--set key=value` (comments to YAML), so the fuzzer reaches
// the override parser too.
std::vector<std::string> set_lines(std::string_view text);

}  // namespace syncsim::fuzz
