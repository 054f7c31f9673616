// built_scenario_topology: one build per network while it is in use (scenario_loader.hpp).
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {

namespace {

// A generator's kind and values say everything its topology holds; a file's path does not (the file may change
// between two loads), so `file` topologies are built every time.
using BuildKey = std::pair<std::string, std::map<std::string, std::string>>;

struct Built {
  std::mutex mutex;
  std::map<BuildKey, std::weak_ptr<const BuiltTopology>> alive;
};

Built& built() {
  static Built instance;
  return instance;
}

}  // namespace

std::shared_ptr<const BuiltTopology> built_scenario_topology(const Scenario& scenario) {
  const TopologySpec& spec = scenario.cluster.topology;
  const auto build = [&] {
    return std::make_shared<const BuiltTopology>(
        BuiltTopology{spec.kind, spec.params, build_scenario_topology(scenario)});
  };
  if (spec.kind == "file") return build();
  BuildKey key{spec.kind, spec.params};
  Built& memo = built();
  {
    const std::lock_guard lock(memo.mutex);
    const auto found = memo.alive.find(key);
    if (found != memo.alive.end()) {
      if (auto kept = found->second.lock()) return kept;
    }
  }
  auto made = build();  // outside the lock: a 100,000-GPU build takes a while, and another thread may need another
  const std::lock_guard lock(memo.mutex);
  std::erase_if(memo.alive, [](const auto& entry) { return entry.second.expired(); });
  memo.alive.insert_or_assign(std::move(key), made);
  return made;
}

}  // namespace syncsim
