#pragma once
// The report of a parameter-server run (ps_run.cpp): throughput, per-worker time, staleness, faults and buckets
// from run_parameter_server_engine's result.
#include <cstddef>
#include <cstdint>

#include "resolved_scenario.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/parameter_server_run.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

// Who the engine's clients are: every worker, or (hybrid; sync with group_size) groups of `group` consecutive ranks,
// client c being ranks [c x group, (c + 1) x group).
struct ClientLayout {
  std::int64_t workers = 0;
  bool grouped = false;
  std::int64_t group = 1;
  std::size_t clients = 0;  // workers / group
};

// Everything but busiest_links (the caller has the network with the servers in it).
TrainingReport parameter_server_report(ResolvedScenario& context, const ClientLayout& layout, const BucketPlan& buckets,
                                       const ParameterServerResult& result, ParameterServerMode mode);

}  // namespace syncsim::run
