// syncsim-invariants: prints which engine invariants this build checks (docs/reliability.md §4), and proves the
// audit switch by tripping an audit: it must throw exactly when audits are compiled in.
#include <cstdio>
#include <stdexcept>

#include "syncsim/core/input_error.hpp"

namespace {

struct Invariant {
  const char* name;
  const char* where;
  bool audit;  // compiled in only with SYNCSIM_AUDITS (Debug, sanitizer and fuzz builds)
};

constexpr Invariant kInvariants[] = {
    {"event times never decrease (no event scheduled in the past)", "sim/core/src/simulator.cpp", false},
    {"link capacity: a re-solved link carries at most its capacity", "sim/network/src/flow_model_impl.cpp", false},
    {"link capacity: every link, after every re-solve (audit_link_loads)", "sim/network/src/flow_model_impl.cpp", true},
    {"each flow leaves its links with its bytes sent, none overdrawn", "sim/network/src/flow_model_impl.cpp", false},
    {"every started flow finishes (checked when the events run out)", "sim/network/src/flow_model_impl.cpp", false},
    {"bytes conserved per collective: nothing in flight or unclaimed at the end, delivered == sent",
     "sim/collectives/src/collective_executor.cpp", false},
    {"bytes conserved per collective: sent == the plan's bytes", "sim/collectives/src/collective_executor.cpp", true},
    {"no deadlock: a collective still waiting when the events run out is reported, who waits for whom",
     "sim/collectives/src/deadlock_report.cpp", false},
};

}  // namespace

int main() {
  bool audit_fired = false;
  try {
    SYNCSIM_AUDIT(false, "syncsim-invariants: the audit switch works");
  } catch (const std::logic_error&) {
    audit_fired = true;
  }
  if (audit_fired != syncsim::kAuditsCompiledIn) {
    std::printf("audit switch broken: kAuditsCompiledIn=%d but an audit %s\n", syncsim::kAuditsCompiledIn,
                audit_fired ? "fired" : "did not fire");
    return 1;
  }
  std::printf("audits: %s\n", syncsim::kAuditsCompiledIn ? "compiled in" : "not compiled in (a Release build)");
  for (const Invariant& i : kInvariants) {
    const bool on = !i.audit || syncsim::kAuditsCompiledIn;
    std::printf("  [%s] %s%s  (%s)\n", on ? "on " : "off", i.name, i.audit ? " [audit]" : "", i.where);
  }
  return 0;
}
