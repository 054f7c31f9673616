#pragma once
// One collective over a size sweep as `syncsim collective` simulates it: its options (the command's flags, as
// text, so that Python's syncsim.collective takes the same values and reports the same errors), the rows, and
// their JSON form (`--json`).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"

namespace syncsim::app {

struct CollectiveOptions {
  std::string topology;
  std::string op = "allreduce";
  std::string algo = "auto";
  std::string protocol = "auto";
  std::string latency = "nccl";
  std::string sizes = "8:1G";
  std::optional<std::int64_t> ranks;     // absent: all the topology's GPUs
  std::optional<std::int64_t> channels;  // absent: one per rail (default_channels)
  std::optional<std::int64_t> root;      // absent: rank 0 (broadcast and reduce only)
  std::string pipeline = "auto";
  bool per_flow = false;
  bool no_symmetry = false;
  bool json = false;
  std::string calibration;
  bool strict_calibration = false;  // a calibration fitted on another system is an error (calibration_check.hpp)
  std::string gpu;                  // catalog name: NCCL's bus-bandwidth ceiling for its architecture
};

struct CollectiveTableRow {
  CollectiveRow table;
  CollectiveOutcome outcome;
  std::optional<ErrorBand> band;  // with a calibration: the fit's residuals near this size (calibration.hpp)
};

struct CollectiveTable {
  std::string topology;  // its description
  CollectiveSpec spec;   // every row's, but the size; spec.calibration points into `calibrated`
  std::unique_ptr<CalibratedModel> calibrated;
  std::vector<CollectiveTableRow> rows;
  std::vector<std::string> calibration_lines;  // the domain check's warnings and note (calibration_check.hpp)
};

// The flags, checked without building the topology or simulating (the cli_args fuzz target runs this alone).
// Throws InputError at the flag.
void check_collective_flags(const CollectiveOptions& options);

// Every row simulated. Throws InputError at the flag behind a bad value.
CollectiveTable simulate_collective_table(const CollectiveOptions& options);

nlohmann::ordered_json to_json(const CollectiveTable& table);

}  // namespace syncsim::app
