#include "channel_classes.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace syncsim::collectives_detail {

namespace {

// The links' renaming for one channel against the channel timed for it, built route by route.
class LinkRenaming {
 public:
  explicit LinkRenaming(std::size_t links) : image_(links, kNone), source_(links, kNone) {}

  // Maps `from` to `to`; false when either is already paired otherwise.
  bool pair(std::uint32_t from, std::uint32_t to) {
    if (image_[from] == kNone && source_[to] == kNone) {
      image_[from] = to;
      source_[to] = from;
      touched_.push_back(from);
      return true;
    }
    return image_[from] == to;
  }
  const std::vector<std::uint32_t>& sources() const { return touched_; }
  std::uint32_t image(std::uint32_t from) const { return image_[from]; }
  void clear() {
    for (const std::uint32_t from : touched_) source_[std::exchange(image_[from], kNone)] = kNone;
    touched_.clear();
  }

 private:
  std::vector<std::uint32_t> image_;
  std::vector<std::uint32_t> source_;
  std::vector<std::uint32_t> touched_;
};

bool same_route_shape(const Topology& topology, const Peer& mine, const Peer& theirs) {
  const Route& a = *mine.route;
  const Route& b = *theirs.route;
  if (mine.route_class != theirs.route_class || mine.latency != theirs.latency || a.latency != b.latency ||
      a.bottleneck != b.bottleneck || a.links.size() != b.links.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    if (topology.link(a.links[i]).bandwidth != topology.link(b.links[i]).bandwidth) return false;
  }
  return true;
}

// Whether channel k runs as channel j under `map` (j's local participant p is k's map[p]) on routes that are a
// renaming of j's links, which `renaming` receives.
bool runs_as(const Topology& topology, Graph& graph, std::uint32_t j, std::uint32_t k,
             const std::vector<std::uint32_t>& map, LinkRenaming& renaming) {
  const std::uint32_t j_begin = graph.channel_begin[j];
  const std::uint32_t k_begin = graph.channel_begin[k];
  const std::uint32_t count = graph.channel_begin[j + 1] - j_begin;
  if (map.size() != count || graph.channel_begin[k + 1] - k_begin != count) return false;
  // The map must be a permutation: every participant of k runs as exactly one of j.
  std::vector<bool> mapped(count, false);
  for (const std::uint32_t image : map) {
    if (image >= count || mapped[image]) return false;
    mapped[image] = true;
  }
  for (std::uint32_t local = 0; local < count; ++local) {
    const std::uint32_t p = j_begin + local;
    const std::uint32_t q = k_begin + map[local];
    if (graph.steps[p] != graph.steps[q] ||
        graph.peer_begin[p + 1] - graph.peer_begin[p] != graph.peer_begin[q + 1] - graph.peer_begin[q]) {
      return false;
    }
    for (std::uint32_t x = graph.peer_begin[p]; x < graph.peer_begin[p + 1]; ++x) {
      const Peer& mine = graph.peers[x];
      const Peer* theirs = find_peer(graph, q, k_begin + map[mine.dst - j_begin]);
      if (theirs == nullptr || !same_route_shape(topology, mine, *theirs)) return false;
      for (std::size_t i = 0; i < mine.route->links.size(); ++i) {
        if (!renaming.pair(mine.route->links[i].value(), theirs->route->links[i].value())) return false;
      }
    }
  }
  return true;
}

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t link) {
  while (parent[link] != link) link = parent[link] = parent[parent[link]];
  return link;
}

// The classes found, checked against the header's conditions: each timed channel's links' images distinct
// (`images`: per timed channel, (timed link, image) for every member of its class), every class of links as large
// as every class of channels (`class_size` channels each).
bool classes_hold(std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>& images,
                  std::vector<std::uint32_t>& parent, std::uint32_t class_size) {
  for (auto& pairs : images) {
    std::sort(pairs.begin(), pairs.end());
    if (std::adjacent_find(pairs.begin(), pairs.end()) != pairs.end()) return false;
  }
  std::vector<std::uint32_t> size(parent.size(), 0);
  std::vector<std::uint32_t> used;
  for (const auto& pairs : images) {
    for (const auto& [timed, image] : pairs) used.push_back(image);
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (const std::uint32_t link : used) ++size[find_root(parent, link)];
  return std::all_of(used.begin(), used.end(),
                     [&](std::uint32_t link) { return size[find_root(parent, link)] == class_size; });
}

// The timed channels' snapshot routes on their classes' stand-ins (each class's root); false when one would cross
// a class twice.
bool make_class_routes(Graph& graph, std::vector<std::uint32_t>& parent) {
  graph.link_class.resize(parent.size());
  for (std::uint32_t l = 0; l < parent.size(); ++l) graph.link_class[l] = find_root(parent, l);
  for (std::uint32_t c = 0; c < graph.timed_as.size(); ++c) {
    if (graph.timed_as[c] != c) continue;
    for (std::uint32_t p = graph.channel_begin[c]; p < graph.channel_begin[c + 1]; ++p) {
      for (std::uint32_t x = graph.peer_begin[p]; x < graph.peer_begin[p + 1]; ++x) {
        Peer& peer = graph.peers[x];
        Route& route = graph.class_routes.emplace_back(*peer.route);
        for (LinkId& link : route.links) link = LinkId{graph.link_class[link.value()]};
        std::vector<LinkId> sorted = route.links;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;
        peer.snapshot_route = &route;
      }
    }
  }
  return true;
}

// Back to each channel its own class.
void forget_classes(Graph& graph) {
  std::iota(graph.timed_as.begin(), graph.timed_as.end(), std::uint32_t{0});
  graph.timed_participant.clear();
  graph.link_class.clear();
  graph.class_routes.clear();
  for (Peer& peer : graph.peers) peer.snapshot_route = peer.route;
}

// One try at classes of `stride` channels each: channel k timed as channel k mod stride. The layouts that repeat
// every channel pair (a double binary tree's two trees on each rail) or every channel find their classes at
// stride 2 or 1; the smallest stride is tried first, since it times the fewest channels.
bool try_classes(const Topology& topology, std::span<const CollectivePlan* const> channels, Graph& graph,
                 std::uint32_t stride) {
  const std::size_t links = topology.link_count();
  LinkRenaming renaming(links);
  std::vector<std::uint32_t> parent(links);
  std::iota(parent.begin(), parent.end(), std::uint32_t{0});
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> images(stride);  // see classes_hold
  for (std::uint32_t k = 0; k < channels.size(); ++k) {
    const std::uint32_t timed = k % stride;
    auto& pairs = images[timed];
    if (k == timed) {
      // A timed channel: its links are their own images.
      for (std::uint32_t p = graph.channel_begin[k]; p < graph.channel_begin[k + 1]; ++p) {
        for (std::uint32_t x = graph.peer_begin[p]; x < graph.peer_begin[p + 1]; ++x) {
          for (const LinkId link : graph.peers[x].route->links) pairs.emplace_back(link.value(), link.value());
        }
      }
      std::sort(pairs.begin(), pairs.end());
      pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
      continue;
    }
    const std::vector<std::uint32_t> map = channels[k]->relabelling_of(*channels[timed]);
    if (map.empty() || !runs_as(topology, graph, timed, k, map, renaming)) return false;
    // A link that is its own image repeats the timed channel's own pair (link, link), which classes_hold refuses:
    // refuse it now, before the other channels are read (copies of a channel on the same GPUs, such as every
    // channel of a group with one GPU per server, fail every stride below the channels per group here).
    for (const std::uint32_t from : renaming.sources()) {
      if (renaming.image(from) == from) return false;
    }
    graph.timed_as[k] = timed;
    if (graph.timed_participant.empty()) {
      graph.timed_participant.resize(graph.steps.size());
      std::iota(graph.timed_participant.begin(), graph.timed_participant.end(), std::uint32_t{0});
    }
    for (std::uint32_t local = 0; local < map.size(); ++local) {
      graph.timed_participant[graph.channel_begin[k] + map[local]] = graph.channel_begin[timed] + local;
    }
    for (const std::uint32_t from : renaming.sources()) {
      const std::uint32_t to = renaming.image(from);
      pairs.emplace_back(from, to);
      parent[find_root(parent, from)] = find_root(parent, to);
    }
    renaming.clear();
  }
  const auto class_size = static_cast<std::uint32_t>(channels.size()) / stride;
  return classes_hold(images, parent, class_size) && make_class_routes(graph, parent);
}

}  // namespace

void find_channel_classes(const Topology& topology, std::span<const CollectivePlan* const> channels, Graph& graph) {
  const auto count = static_cast<std::uint32_t>(channels.size());
  for (std::uint32_t stride = 1; 2 * stride <= count; stride *= 2) {
    if (count % stride != 0) continue;
    if (try_classes(topology, channels, graph, stride)) return;
    forget_classes(graph);
  }
}

std::size_t timed_channels(const Graph& graph) {
  if (graph.link_class.empty()) return 0;
  std::size_t timed = 0;
  for (std::uint32_t c = 0; c < graph.timed_as.size(); ++c) timed += graph.timed_as[c] == c ? 1 : 0;
  return timed;
}

}  // namespace syncsim::collectives_detail
