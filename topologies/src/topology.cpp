#include "syncsim/topology/topology.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

constexpr std::array kNodeKindNames{std::pair{NodeKind::gpu, std::string_view{"gpu"}},
                                    std::pair{NodeKind::nvswitch, std::string_view{"nvswitch"}},
                                    std::pair{NodeKind::pcie_switch, std::string_view{"pcie_switch"}},
                                    std::pair{NodeKind::cpu, std::string_view{"cpu"}},
                                    std::pair{NodeKind::nic, std::string_view{"nic"}},
                                    std::pair{NodeKind::network_switch, std::string_view{"network_switch"}}};

constexpr std::array kLinkKindNames{std::pair{LinkKind::nvlink, std::string_view{"nvlink"}},
                                    std::pair{LinkKind::pcie, std::string_view{"pcie"}},
                                    std::pair{LinkKind::network, std::string_view{"network"}}};

constexpr std::array kSwitchReductionNames{std::pair{SwitchReduction::off, std::string_view{"off"}},
                                           std::pair{SwitchReduction::on, std::string_view{"on"}},
                                           std::pair{SwitchReduction::automatic, std::string_view{"auto"}}};

template <typename Kind, std::size_t N>
std::string_view name_of(Kind kind, const std::array<std::pair<Kind, std::string_view>, N>& names) {
  for (const auto& [candidate, name] : names) {
    if (candidate == kind) return name;
  }
  return "unknown";
}

template <typename Kind, std::size_t N>
Kind parse_kind(std::string_view text, const std::array<std::pair<Kind, std::string_view>, N>& names,
                std::string_view what) {
  std::string accepted;
  for (const auto& [kind, name] : names) {
    if (name == text) return kind;
    accepted += accepted.empty() ? "" : ", ";
    accepted += name;
  }
  throw InputError(fmt::format("unknown {} '{}' (expected one of: {})", what, text, accepted));
}

// Marks "not a GPU" in the node -> GPU index table.
constexpr std::size_t kNotGpu = std::numeric_limits<std::size_t>::max();

}  // namespace

std::string_view to_string(NodeKind kind) {
  return name_of(kind, kNodeKindNames);
}
std::string_view to_string(LinkKind kind) {
  return name_of(kind, kLinkKindNames);
}
NodeKind parse_node_kind(std::string_view text) {
  return parse_kind(text, kNodeKindNames, "node kind");
}
LinkKind parse_link_kind(std::string_view text) {
  return parse_kind(text, kLinkKindNames, "link kind");
}
std::string_view to_string(SwitchReduction reduction) {
  return name_of(reduction, kSwitchReductionNames);
}
SwitchReduction parse_switch_reduction(std::string_view text) {
  return parse_kind(text, kSwitchReductionNames, "switch reduction");
}

// Links live in one array indexed by LinkId; each node keeps its outgoing link ids in a vector of its own so
// out_links() is a contiguous span (the router's inner loop). Algorithms that want Boost.Graph build a Boost view
// on demand (see bisection.cpp); the structure here is the single source of truth.
struct Topology::Impl {
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::vector<std::vector<LinkId>> out;
  std::vector<NodeId> gpus;
  std::vector<std::size_t> gpu_index_of;  // per node; kNotGpu for other kinds
  std::string description;

  void check_node(NodeId id) const { SYNCSIM_INVARIANT(id.value() < nodes.size(), "node id out of range"); }

  LinkId push_link(NodeId src, NodeId dst, Bandwidth bandwidth, SimTime latency, LinkKind kind) {
    check_node(src);
    check_node(dst);
    if (!(bandwidth.bytes_per_second > 0)) {
      throw InputError(
          fmt::format("link {} -> {} needs a bandwidth > 0", nodes[src.value()].name, nodes[dst.value()].name));
    }
    if (latency < SimTime::zero()) {
      throw InputError(
          fmt::format("link {} -> {} has a negative latency", nodes[src.value()].name, nodes[dst.value()].name));
    }
    SYNCSIM_INVARIANT(links.size() < std::numeric_limits<std::uint32_t>::max(), "too many links");
    const LinkId id{static_cast<std::uint32_t>(links.size())};
    links.push_back(Link{src, dst, bandwidth, latency, kind, id});
    out[src.value()].push_back(id);
    return id;
  }
};

Topology::Topology() : impl_(std::make_unique<Impl>()) {}
Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::Topology(const Topology& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
Topology& Topology::operator=(const Topology& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}

NodeId Topology::add_node(Node node) {
  SYNCSIM_INVARIANT(impl_->nodes.size() < std::numeric_limits<std::uint32_t>::max(), "too many nodes");
  const NodeId id{static_cast<std::uint32_t>(impl_->nodes.size())};
  if (node.kind == NodeKind::gpu) {
    impl_->gpu_index_of.push_back(impl_->gpus.size());
    impl_->gpus.push_back(id);
  } else {
    impl_->gpu_index_of.push_back(kNotGpu);
  }
  impl_->nodes.push_back(std::move(node));
  impl_->out.emplace_back();
  return id;
}

LinkId Topology::add_duplex_link(NodeId a, NodeId b, Bandwidth bandwidth, SimTime latency, LinkKind kind) {
  const LinkId forward = impl_->push_link(a, b, bandwidth, latency, kind);
  const LinkId backward = impl_->push_link(b, a, bandwidth, latency, kind);
  impl_->links[forward.value()].reverse = backward;
  impl_->links[backward.value()].reverse = forward;
  return forward;
}

LinkId Topology::add_simplex_link(NodeId src, NodeId dst, Bandwidth bandwidth, SimTime latency, LinkKind kind) {
  const LinkId id = impl_->push_link(src, dst, bandwidth, latency, kind);
  // Pair with an earlier, still unpaired dst->src link: together they are one physical duplex link.
  for (const LinkId candidate : impl_->out[dst.value()]) {
    Link& other = impl_->links[candidate.value()];
    if (other.dst == src && other.reverse == candidate && candidate != id) {
      other.reverse = id;
      impl_->links[id.value()].reverse = candidate;
      break;
    }
  }
  return id;
}

std::size_t Topology::node_count() const {
  return impl_->nodes.size();
}
std::size_t Topology::link_count() const {
  return impl_->links.size();
}

const Node& Topology::node(NodeId id) const {
  impl_->check_node(id);
  return impl_->nodes[id.value()];
}

const Link& Topology::link(LinkId id) const {
  SYNCSIM_INVARIANT(id.value() < impl_->links.size(), "link id out of range");
  return impl_->links[id.value()];
}

std::span<const LinkId> Topology::out_links(NodeId id) const {
  impl_->check_node(id);
  return impl_->out[id.value()];
}

std::size_t Topology::gpu_count() const {
  return impl_->gpus.size();
}

NodeId Topology::gpu(std::size_t gpu_index) const {
  SYNCSIM_INVARIANT(gpu_index < impl_->gpus.size(), "GPU index out of range");
  return impl_->gpus[gpu_index];
}

std::optional<std::size_t> Topology::gpu_index(NodeId id) const {
  impl_->check_node(id);
  const std::size_t index = impl_->gpu_index_of[id.value()];
  if (index == kNotGpu) return std::nullopt;
  return index;
}

const std::string& Topology::description() const {
  return impl_->description;
}
void Topology::set_description(std::string description) {
  impl_->description = std::move(description);
}

void Topology::check_gpus_connected() const {
  if (impl_->gpus.size() < 2) return;
  // The GPUs are mutually reachable exactly when every GPU is reachable from GPU 0 and reaches GPU 0; links may
  // be simplex (DOT digraphs), so both directions are searched.
  const std::size_t n = impl_->nodes.size();
  std::vector<std::vector<LinkId>> in;
  in.resize(n);
  for (std::size_t l = 0; l < impl_->links.size(); ++l) {
    in[impl_->links[l].dst.value()].push_back(LinkId{static_cast<std::uint32_t>(l)});
  }
  const auto reached_from_gpu0 = [&](bool forward) {
    std::vector<char> seen(n, 0);
    std::vector<NodeId> stack{impl_->gpus[0]};
    seen[impl_->gpus[0].value()] = 1;
    while (!stack.empty()) {
      const NodeId at = stack.back();
      stack.pop_back();
      for (const LinkId l : forward ? impl_->out[at.value()] : in[at.value()]) {
        const Link& link = impl_->links[l.value()];
        const NodeId next = forward ? link.dst : link.src;
        if (!seen[next.value()]) {
          seen[next.value()] = 1;
          stack.push_back(next);
        }
      }
    }
    return seen;
  };
  const std::string& first = impl_->nodes[impl_->gpus[0].value()].name;
  for (const bool forward : {true, false}) {
    const std::vector<char> seen = reached_from_gpu0(forward);
    for (const NodeId gpu : impl_->gpus) {
      if (seen[gpu.value()]) continue;
      const std::string& other = impl_->nodes[gpu.value()].name;
      throw InputError(fmt::format("GPUs are not all connected: no path from {} to {}", forward ? first : other,
                                   forward ? other : first));
    }
  }
}

}  // namespace syncsim
