// Resuming a sweep (`syncsim sweep ... -o results.csv` on an existing file): the reader of a previous output
// (parse_table, CSV and JSON), the fingerprint check (resumable_rows) and the matching of its rows to the sweep's
// points (match_rows), on arbitrary text.
//
// The sweep is fixed: --vary cluster.topology.nodes=1,2 --vary model.batch_per_gpu=32,64,128 (six points, the
// sweep of tests/planner), with the fingerprint 0123456789abcdef, which the seeds carry. Each input is read as
// CSV and as JSON.
#include <string>
#include <vector>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/sweep.hpp"
#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/planner/sweep_table.hpp"

namespace syncsim::fuzz {
namespace {

constexpr const char* kFingerprint = "0123456789abcdef";

struct Sweep {
  std::vector<std::string> columns;
  std::vector<planner::SweepPoint> points;
  std::size_t varied = 0;
};

Sweep make_sweep() {
  Sweep s;
  const std::vector<planner::VaryAxis> axes = {planner::parse_vary("cluster.topology.nodes=1,2"),
                                               planner::parse_vary("model.batch_per_gpu=32,64,128")};
  for (const planner::VaryAxis& a : axes) s.columns.push_back(a.key);
  s.varied = s.columns.size();
  s.columns.insert(s.columns.end(), planner::report_columns().begin(), planner::report_columns().end());
  s.points = planner::expand_points(axes, false);
  return s;
}

}  // namespace

int fuzz_sweep_resume(const std::uint8_t* data, std::size_t size) {
  static const Sweep sweep = make_sweep();
  const std::string_view text = as_text(data, size);
  for (const planner::TableFormat format : {planner::TableFormat::csv, planner::TableFormat::json}) {
    try {
      planner::TableFile table = planner::parse_table(text, "resume.out", format, sweep.columns);
      auto rows = planner::resumable_rows(std::move(table), "resume.out", kFingerprint);
      (void)planner::match_rows(std::move(rows), sweep.points, sweep.varied, "resume.out");
    } catch (const InputError&) {
      // The contract: bad input is an InputError.
    }
  }
  return 0;
}

}  // namespace syncsim::fuzz
