#include "models/collective_traffic.h"

#include <algorithm>
#include <map>

#include "models/topology_layout.h"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/latency_model.hpp"
#include "syncsim/topology/topology.hpp"

namespace {

// Three significant digits up to 100 GB/s, whole numbers above: enough to tell 12.5 from 13 and 23.1 from 25.
constexpr int kSignificantDigits = 3;
constexpr double kWholeFrom = 100;

// The cost the simulator gives a transfer (collective_runner.cpp, cost_of): the physical one without a protocol,
// else NCCL's for the algorithm and protocol, whose LL and LL128 reach NCCL's NVLink figure rather than the link's
// datasheet rate (there: scale_low_latency_nvlink, the first GPU's NVLink against nccl_nvlink_figure).
syncsim::TransferCost costOf(const CollectiveTraffic::Spec& spec, const syncsim::Topology& topology) {
  if (spec.protocol.isEmpty()) return syncsim::physical_cost();
  const syncsim::Protocol protocol = syncsim::parse_protocol(spec.protocol.toStdString());
  syncsim::TransferCost cost = syncsim::nccl_cost(simulatorAlgorithm(spec.algorithm), protocol, spec.computeCapability,
                                                  static_cast<std::size_t>(spec.ranks));
  if (protocol == syncsim::Protocol::simple || !spec.computeCapability || topology.gpu_count() == 0) return cost;
  const std::optional<syncsim::Bandwidth> figure = syncsim::nccl_nvlink_figure(*spec.computeCapability);
  if (!figure) return cost;
  for (const syncsim::LinkId id : topology.out_links(topology.gpu(0))) {
    const syncsim::Link& link = topology.link(id);
    if (link.kind != syncsim::LinkKind::nvlink) continue;
    cost.efficiency[static_cast<std::size_t>(syncsim::LinkKind::nvlink)] *=
        std::min(1.0, figure->bytes_per_second / link.bandwidth.bytes_per_second);
    break;
  }
  return cost;
}

}  // namespace

QString formatRateGbps(double bytesPerSecond) {
  const double gbps = bytesPerSecond / 1e9;
  if (gbps >= kWholeFrom) return QString::number(gbps, 'f', 0);
  return QString::number(gbps, 'g', kSignificantDigits);
}

CollectiveTraffic::CollectiveTraffic(std::shared_ptr<const TopologyLayout> layout, Spec spec)
    : m_layout(std::move(layout)), m_spec(std::move(spec)) {
  m_spec.channels = std::max(1, m_spec.channels);
  CollectiveChannel channel;
  channel.op = m_spec.op;
  // The ranks grouped as NCCL groups them into nodes (nccl_node_groups): what the channels are built on.
  const int lastGpu =
      m_spec.members.empty() ? m_spec.ranks - 1 : *std::max_element(m_spec.members.begin(), m_spec.members.end());
  if (m_layout && lastGpu < static_cast<int>(m_layout->gpuCount())) {
    const std::vector<std::size_t> gpus(m_spec.members.begin(), m_spec.members.end());
    for (const std::vector<syncsim::Rank>& node :
         gpus.empty() ? syncsim::nccl_node_groups(m_layout->topology(), static_cast<std::size_t>(m_spec.ranks))
                      : syncsim::nccl_node_groups(m_layout->topology(), gpus)) {
      auto& members = channel.hosts.emplace_back();
      for (const syncsim::Rank r : node) members.push_back(static_cast<int>(r.value()));
    }
  }
  channel.channels = m_spec.channels;
  for (int c = 0; c < m_spec.channels; ++c) {
    channel.channel = c;
    m_schedules.emplace_back(m_spec.algorithm, m_spec.ranks, channel);
  }
  if (!m_layout) return;

  // Per channel, the wire bytes each directed edge carries per byte of the channel's share: rounds that repeat a
  // pattern (every round of a ring) are walked once and counted as often as they occur.
  const syncsim::TransferCost cost = costOf(m_spec, m_layout->topology());
  const std::size_t directedEdges = 2 * m_layout->edges().size();
  std::map<std::pair<int, int>, double> wirePerPayload;  // by (src, dst): the route's wire bytes per payload byte
  for (const CollectiveSchedule& s : m_schedules) {
    std::vector<double>& unit = m_wirePerByte.emplace_back(directedEdges, 0.0);
    std::vector<int> repeats(static_cast<std::size_t>(s.stepCount()), 0);
    for (int k = 0; k < s.stepCount(); ++k) ++repeats[static_cast<std::size_t>(s.pattern(k))];
    for (int k = 0; k < s.stepCount(); ++k) {
      const int times = repeats[static_cast<std::size_t>(k)];
      if (times == 0) continue;
      for (const CollectiveTransfer& t : s.transfers(k)) {
        const int src = gpuOf(t.src);
        const int dst = gpuOf(t.dst);
        auto [it, fresh] = wirePerPayload.try_emplace({src, dst}, 0.0);
        if (fresh) it->second = m_layout->wireBytes(cost, src, dst, 1.0);
        const double bytes = times * it->second * t.chunks / s.pieceCount();
        for (const EdgeUse& use : m_layout->route(src, dst)) unit[static_cast<std::size_t>(use.directed())] += bytes;
      }
    }
  }
}

int CollectiveTraffic::defaultChannels(const TopologyLayout* layout, CollectiveAlgorithm algorithm, int ranks,
                                       const std::vector<int>& members) {
  if (layout == nullptr) return 1;
  if (!members.empty()) {
    const std::vector<std::size_t> gpus(members.begin(), members.end());
    return static_cast<int>(syncsim::default_channels(layout->topology(), gpus, simulatorAlgorithm(algorithm)));
  }
  return static_cast<int>(
      syncsim::default_channels(layout->topology(), static_cast<std::size_t>(ranks), simulatorAlgorithm(algorithm)));
}

int CollectiveTraffic::gpuOf(int rank) const {
  return m_spec.members.empty() ? rank : m_spec.members[static_cast<std::size_t>(rank)];
}

double CollectiveTraffic::channelBytes(qint64 bytes, int channel, int channels) {
  const qint64 perChannel = bytes / std::max(1, channels);
  return static_cast<double>(channel + 1 == channels ? bytes - perChannel * (channels - 1) : perChannel);
}

int CollectiveTraffic::stepCount() const {
  int steps = 0;
  for (const CollectiveSchedule& s : m_schedules) steps = std::max(steps, s.stepCount());
  return steps;
}

std::vector<double> CollectiveTraffic::edgeBytes(qint64 bytes, std::optional<int> channel) const {
  if (!m_layout) return {};
  std::vector<double> out(2 * m_layout->edges().size(), 0.0);
  for (int c = 0; c < channelCount(); ++c) {
    if (channel && *channel != c) continue;
    const double share = channelBytes(bytes, c, channelCount());
    const std::vector<double>& unit = m_wirePerByte[static_cast<std::size_t>(c)];
    for (std::size_t e = 0; e < out.size(); ++e) out[e] += share * unit[e];
  }
  return out;
}

std::vector<CollectiveTraffic::StepUse> CollectiveTraffic::stepUses(int step, std::optional<int> channel) const {
  if (!m_layout) return {};
  std::map<int, StepUse> uses;
  for (int c = 0; c < channelCount(); ++c) {
    const CollectiveSchedule& s = schedule(c);
    if ((channel && *channel != c) || step < 0 || step >= s.stepCount()) continue;
    for (const CollectiveTransfer& t : s.transfers(step)) {
      for (const EdgeUse& use : m_layout->route(gpuOf(t.src), gpuOf(t.dst))) {
        ++uses.try_emplace(use.directed(), StepUse{use.directed(), 0, t.chunk, c}).first->second.transfers;
      }
    }
  }
  std::vector<StepUse> out;
  out.reserve(uses.size());
  for (const auto& [directed, use] : uses) out.push_back(use);
  return out;
}
