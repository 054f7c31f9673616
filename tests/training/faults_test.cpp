// The fault enums' names: one table each, shared by the scenario's reader and the report, so the words in a
// scenario file and in report.json are the same.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/training/faults.hpp"

using namespace syncsim;

TEST_CASE("fault kinds and policies are written as the scenario spells them") {
  CHECK(to_string(FaultKind::worker_down) == "worker_down");
  CHECK(to_string(FaultKind::link_down) == "link_down");
  CHECK(to_string(FaultPolicy::restart_from_checkpoint) == "restart_from_checkpoint");
  CHECK(to_string(FaultPolicy::continue_without) == "continue");  // `continue` is a C++ keyword
  CHECK(to_string(FaultPolicy::elastic) == "elastic");
  // Every value has exactly one name in its table.
  for (const auto& [name, kind] : kFaultKindNames) CHECK(to_string(kind) == name);
  for (const auto& [name, policy] : kFaultPolicyNames) CHECK(to_string(policy) == name);
}
