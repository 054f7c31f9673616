#include "syncsim/run/workspace.hpp"

namespace syncsim::run {

std::shared_ptr<Router> Workspace::router(std::shared_ptr<const Topology>& topology, const TopologyDigest& key,
                                          std::uint64_t route_search_budget) {
  std::lock_guard<std::mutex> lock(routers_mutex_);
  ThreadRouter& mine = routers_[std::this_thread::get_id()];
  if (mine.router && mine.key == key) {
    mine.router->renew_budget();
    topology = mine.topology;
    return mine.router;
  }
  // The last topology's router goes: a thread keeps one, so a sweep over many networks holds no more routes than
  // its threads' current ones.
  mine = {key, topology, std::make_shared<Router>(*topology, route_search_budget)};
  return mine.router;
}

}  // namespace syncsim::run
