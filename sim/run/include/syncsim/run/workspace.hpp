#pragma once
// Workspace: what runs may share, owned by whoever runs them — today the cache of simulated collectives
// (collective_cache.hpp). Nothing is shared between runs behind the caller's back: a run with a workspace reuses
// what earlier runs with it simulated, a run without one (run_scenario's plain overload) starts fresh.
//
// Owners: `syncsim run` (one run), the sweep runner (one for all its points, shared by its worker threads), and the
// GUI (one per document, so re-running a scenario with other settings reuses its collectives).
//
// Thread-safe: runs on several threads may share one workspace.
#include "syncsim/run/collective_cache.hpp"

namespace syncsim::run {

class Workspace {
 public:
  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  CollectiveCache& collectives() { return collectives_; }
  const CollectiveCache& collectives() const { return collectives_; }

  // Whether the runs' collectives compute ranks in identical states once per symmetry class (CollectiveSpec::
  // symmetry; the default). Off gives the same results, slower: it is there to prove that. Set before the runs.
  void set_symmetry(bool on) { symmetry_ = on; }
  bool symmetry() const { return symmetry_; }

 private:
  CollectiveCache collectives_;
  bool symmetry_ = true;
};

}  // namespace syncsim::run
