#pragma once
// Workspace: what runs may share, owned by whoever runs them — the cache of simulated collectives
// (collective_cache.hpp) and each thread's last router. Nothing is shared between runs behind the caller's back: a
// run with a workspace reuses what earlier runs with it simulated and routed, a run without one (run_scenario's
// plain overload) starts fresh.
//
// Owners: `syncsim run` (one run), the sweep runner (one for all its points, shared by its worker threads), and the
// GUI (one per document, so re-running a scenario with other settings reuses its collectives).
//
// Thread-safe: runs on several threads may share one workspace.
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "syncsim/run/collective_cache.hpp"
#include "syncsim/topology/router.hpp"

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

  // A router for a run on this thread over `topology`, whose digest is `key`: the one the thread's last run kept
  // when its topology had the same digest (its routes, and what collectives derived from them, found once for a
  // plan's layouts at one point), its budget renewed, `topology` then replaced by the one it routes (equal
  // contents); else a new one over `topology`, kept for the thread's next run. A router is never shared between
  // threads.
  std::shared_ptr<Router> router(std::shared_ptr<const Topology>& topology, const TopologyDigest& key,
                                 std::uint64_t route_search_budget);

 private:
  CollectiveCache collectives_;
  bool symmetry_ = true;
  struct ThreadRouter {
    TopologyDigest key;
    std::shared_ptr<const Topology> topology;
    std::shared_ptr<Router> router;
  };
  std::mutex routers_mutex_;
  std::map<std::thread::id, ThreadRouter> routers_;
};

}  // namespace syncsim::run
