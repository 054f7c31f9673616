#include "syncsim/run/layout_probe.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "layout_communication.hpp"
#include "resolved_scenario.hpp"

namespace syncsim::run {

namespace {

// What bounds a collective's time on this topology, whatever its algorithm: the most a GPU can inject (or take in),
// and what a server's links to the rest of the topology carry each way.
struct Capacities {
  double gpu_rate = 0;             // the most any GPU's links carry out (and in: full duplex)
  std::vector<int> host_of_gpu;    // -1: a GPU without a server
  std::map<int, double> host_out;  // per server: its links to nodes of other servers or none
  std::map<int, double> host_in;
};

Capacities capacities(const Topology& topology) {
  Capacities c;
  for (std::size_t g = 0; g < topology.gpu_count(); ++g) {
    double rate = 0;
    for (const LinkId link : topology.out_links(topology.gpu(g)))
      rate += topology.link(link).bandwidth.bytes_per_second;
    c.gpu_rate = std::max(c.gpu_rate, rate);
    c.host_of_gpu.push_back(topology.node(topology.gpu(g)).host.value_or(-1));
  }
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    const std::optional<int> from = topology.node(link.src).host;
    const std::optional<int> to = topology.node(link.dst).host;
    if (from == to) continue;
    if (from) c.host_out[*from] += link.bandwidth.bytes_per_second;
    if (to) c.host_in[*to] += link.bandwidth.bytes_per_second;
  }
  return c;
}

SimTime seconds_floor(double seconds) {
  return SimTime::from_ps(static_cast<std::int64_t>(seconds * 1e12));  // rounded down: a floor
}

// How many buffers must cross the boundary of the first group's first member's server, each way, when every group
// runs `op` at once: for each group with members on that server spanning N servers, (N - 1)/N (a send that leaves
// it, one). It depends on the groups alone, and a layout's setup asks it of the same groups for every bucket and
// block, so it is kept per group set (thousands of calls over 8,192 GPUs cost the whole bound otherwise).
class ServerCrossings {
 public:
  explicit ServerCrossings(const Capacities& capacities) : c_(capacities) {}

  double buffers(bool send, const std::vector<std::vector<std::size_t>>& groups) {
    for (const Known& k : known_) {
      if (k.send == send && k.groups == groups) return k.buffers;
    }
    return known_.emplace_back(Known{send, groups, count(send, groups)}).buffers;
  }

  // One layout's group sets are kept (a handful, so a scan finds them); the next layout's are others.
  void forget() { known_.clear(); }

 private:
  struct Known {
    bool send = false;
    std::vector<std::vector<std::size_t>> groups;
    double buffers = 0;
  };

  double count(bool send, const std::vector<std::vector<std::size_t>>& groups) {
    const int host = c_.host_of_gpu[groups.front().front()];
    double crossing = 0;
    for (const std::vector<std::size_t>& group : groups) {
      hosts_.clear();
      bool here = false;
      for (const std::size_t gpu : group) {
        hosts_.push_back(c_.host_of_gpu[gpu]);
        here = here || c_.host_of_gpu[gpu] == host;
      }
      const bool counted = send ? c_.host_of_gpu[group.front()] == host : here;
      if (!counted) continue;
      std::sort(hosts_.begin(), hosts_.end());
      const auto spanned = static_cast<double>(std::unique(hosts_.begin(), hosts_.end()) - hosts_.begin());
      if (spanned < 2) continue;
      crossing += send ? 1.0 : (spanned - 1) / spanned;
    }
    return crossing;
  }

  const Capacities& c_;
  std::vector<Known> known_;
  std::vector<int> hosts_;  // reused: no allocation per group
};

// The floor of `op` of `bytes` over every group at once (layout_probe.hpp): a GPU sends or receives (n - 1)/n of
// the buffer (a stage-to-stage send all of it), and the first group's first member's server what ServerCrossings
// counts.
SimTime collective_floor(const Capacities& c, ServerCrossings& crossings, CollectiveOp op, Bytes bytes,
                         const std::vector<std::vector<std::size_t>>& groups) {
  const bool send = op == CollectiveOp::broadcast;
  const auto n = static_cast<double>(groups.front().size());
  const auto size = static_cast<double>(bytes.value);
  const double seconds = (send ? 1.0 : (n - 1) / n) * size / c.gpu_rate;
  const int host = c.host_of_gpu[groups.front().front()];
  if (host < 0 || !c.host_out.contains(host) || !c.host_in.contains(host)) return seconds_floor(seconds);
  const double link = std::min(c.host_out.at(host), c.host_in.at(host));
  return seconds_floor(std::max(seconds, crossings.buffers(send, groups) * size / link));
}

// The floor above, and no lower than NCCL's bus-bandwidth ceiling lets any algorithm go (busbw_floor).
SimTime collective_floor(const ResolvedScenario& context, const Capacities& c, ServerCrossings& crossings,
                         CollectiveOp op, Bytes bytes, const std::vector<std::vector<std::size_t>>& groups) {
  CollectiveSpec spec = context.collective_spec(op, 0);
  spec.size = bytes;
  return std::max(collective_floor(c, crossings, op, bytes, groups), busbw_floor(spec, groups.front().size()));
}

SimTime forward_of(const ChunkWork& w) {
  return w.forward_compute + w.forward_tensor + w.forward_context + w.forward_expert + w.forward_data;
}

SimTime backward_of(const ChunkWork& w) {
  return w.backward_compute + w.backward_tensor + w.backward_context + w.backward_expert + w.backward_data;
}

// The data-parallel collectives of one iteration on a stage's in-order stream, before its optimizer step, as each
// engine issues them (model_parallel_run.hpp, sharded_run.hpp): a reduction per bucket, and under full sharding the
// gathers too — once per iteration where the pipeline engine keeps them, for every micro-batch, forward and
// backward, where FSDP reshards (no pipeline).
struct StreamRule {
  bool reshards = false;  // the sharded engine: FSDP without a pipeline, or sharding alone
  // The pipeline engine's buckets are this setup's (the others cut their own): only then are their ready times known.
  bool own_buckets = false;
  // FP8 all-gathers (parallelism.fp8_all_gather) move fewer bytes than the units here hold: counting no gathers
  // keeps the bound below the run.
  bool free_gathers = false;
};

struct Stream {
  SimTime total;  // every collective of the stage's iteration, one after another
  // What must still run after the stage's last backward pass ends (zero where the buckets are not this setup's).
  SimTime tail;
  // The gathers the first forward of the stage's first chunk waits for (full sharding in the pipeline engine).
  SimTime first_gathers;
};

// A bucket is ready `ready` of the way through its chunk's last backward pass. That pass cannot start before all the
// stage's other passes have run, so a bucket is ready no earlier than (1 - ready) x the pass's floor before the
// earliest the stage can finish; the stream runs the buckets ready then or later one after another after it. Each
// chunk's last backward may be the stage's last pass: the least of the chunks' tails holds whichever it is.
SimTime tail_after_last_pass(std::vector<std::pair<double, SimTime>> ready_and_length, SimTime pass) {
  std::sort(ready_and_length.begin(), ready_and_length.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  SimTime tail;
  SimTime after;  // the reductions ready at the current share or later
  for (std::size_t i = 0; i < ready_and_length.size(); ++i) {
    after += ready_and_length[i].second;
    const double ready = std::clamp(ready_and_length[i].first, 0.0, 1.0);
    const bool last_of_share =
        i + 1 == ready_and_length.size() || ready_and_length[i + 1].first != ready_and_length[i].first;
    if (last_of_share) tail = std::max(tail, after - pass.scaled(1 - ready));
  }
  return tail;
}

Stream stream_of(const ModelParallelSetup& setup, const std::vector<ChunkWork>& chunks, StreamRule rule) {
  const bool sharded = setup.sharding != ShardingLevel::none;
  const CollectiveOp reduce = sharded ? CollectiveOp::reduce_scatter : CollectiveOp::allreduce;
  const bool full = setup.sharding == ShardingLevel::full;
  const std::int64_t m = setup.micro_batches;
  // ZeRO-1 reduces after the last micro-batch; ZeRO-2 after every one, and ZeRO-3 when it reshards.
  const bool every_micro_batch = setup.sharding == ShardingLevel::gradients || (rule.reshards && full);
  const std::int64_t reductions = every_micro_batch ? m : 1;
  const std::int64_t gathers = !full || rule.free_gathers ? 0 : rule.reshards ? 2 * m : 1;
  Stream out;
  std::optional<SimTime> tail;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const ChunkWork& w = chunks[c];
    std::vector<std::pair<double, SimTime>> ready_and_length;
    for (const ChunkWork::Unit& u : w.units) {
      if (u.expert && setup.expert_data < 2) continue;
      const SimTime reduced = setup.data_collective(reduce, u.bytes, u.expert);
      out.total += reduced * reductions;
      ready_and_length.emplace_back(u.ready, reduced);
      if (gathers == 0) continue;
      const SimTime gathered = setup.data_collective(CollectiveOp::all_gather, u.gather_bytes(), u.expert);
      out.total += gathered * gathers;
      if (c == 0 && !rule.reshards) out.first_gathers += gathered;
    }
    const SimTime chunk_tail = tail_after_last_pass(std::move(ready_and_length), backward_of(w));
    tail = tail ? std::min(*tail, chunk_tail) : chunk_tail;
  }
  if (rule.own_buckets) out.tail = tail.value_or(SimTime::zero());
  return out;
}

// The critical paths through each stage and the stage's data-parallel stream (layout_probe.hpp).
SimTime pipeline_bound(const ModelParallelSetup& setup, std::int64_t shards, StreamRule rule) {
  const bool gradients_reduced = setup.data * setup.context > 1;
  const bool pipeline_gathers = setup.sharding == ShardingLevel::full && rule.own_buckets && gradients_reduced;
  std::vector<Stream> streams;
  for (const std::vector<ChunkWork>& chunks : setup.work) {
    streams.push_back(gradients_reduced ? stream_of(setup, chunks, rule) : Stream{});
  }
  const auto step_of = [&](std::size_t s) { return SimTime::from_ps(setup.optimizer_step[s].ps() / shards); };
  // The first iteration's bound, where fully sharded parameters are gathered before the first forward, and a later
  // one's, where they are not: a run's mean iteration is at least their mean.
  const auto bound = [&](bool gathered_first) {
    SimTime best;
    SimTime arrives;        // the first micro-batch's forward reaching stage s
    SimTime back_to_first;  // the last micro-batch's backward from stage s to the first stage's end
    for (std::size_t s = 0; s < setup.work.size(); ++s) {
      if (gathered_first && pipeline_gathers) arrives = std::max(arrives, streams[s].first_gathers);
      SimTime own;
      for (const ChunkWork& w : setup.work[s]) own += forward_of(w) + backward_of(w);
      const SimTime ends = arrives + own * setup.micro_batches;  // the earliest stage s's last pass ends
      best = std::max(best, std::max(ends + streams[s].tail, streams[s].total) + step_of(s));
      best = std::max(best, ends + back_to_first + streams.front().tail + step_of(0));
      const ChunkWork& first = setup.work[s].front();
      arrives += forward_of(first) + setup.transfer;
      back_to_first += backward_of(first) + setup.transfer;
    }
    return best;
  };
  const SimTime first = bound(true);
  if (!pipeline_gathers || setup.iterations == 1) return first;
  const SimTime later = bound(false);
  return SimTime::from_ps((first.ps() + later.ps() * (setup.iterations - 1)) / setup.iterations);
}

}  // namespace

struct LayoutProbe::Impl {
  Scenario scenario;
  ResolvedScenario context;
  Capacities capacity;
  ServerCrossings crossings{capacity};

  Impl(const Scenario& point, Workspace& workspace)
      : scenario(point), context(scenario, workspace), capacity(capacities(context.topology())) {}

  void apply(const ProbeLayout& layout) {
    scenario.parallelism = layout.parallelism;
    scenario.model.batch_per_gpu.value = layout.batch_per_gpu;
    scenario.model.micro_batches = layout.micro_batches;
  }
};

LayoutProbe::LayoutProbe(const Scenario& point, Workspace& workspace)
    : impl_(std::make_unique<Impl>(point, workspace)) {}
LayoutProbe::~LayoutProbe() = default;

MemoryReport LayoutProbe::memory(const ProbeLayout& layout) {
  impl_->apply(layout);
  return impl_->context.memory();
}

SimTime LayoutProbe::lower_bound(const ProbeLayout& layout) {
  impl_->apply(layout);
  const Scenario& s = impl_->scenario;
  if (s.stragglers.jitter.distribution != JitterKind::none || !s.stragglers.slow.empty()) return SimTime::zero();
  const ParallelismConfig& p = s.parallelism;
  const std::int64_t data = impl_->context.workers() / (p.tensor.value * p.pipeline.value * p.context.value);
  // ZeRO and FSDP shard over data x context (RankLayout::gradient_groups).
  const std::int64_t shards =
      p.sharding.value == ShardingLevel::none ? 1 : std::max<std::int64_t>(data * p.context.value, 1);
  if (!impl_->context.model().transformer()) {
    // A model without blocks has no layout: every micro-batch's layers, then the step.
    const LayerTimes layers = impl_->context.layer_times();
    SimTime pass;
    for (std::size_t l = 0; l < layers.forward.size(); ++l) pass += layers.forward[l] + layers.backward[l];
    return pass * s.model.micro_batches + SimTime::from_ps(impl_->context.optimizer_step().ps() / shards);
  }
  // The engine run_scenario picks (run_scenario.cpp): the sharded one reshards per micro-batch.
  const bool model_split = p.tensor.value * p.pipeline.value * p.context.value * p.expert.value > 1;
  const bool reshards = model_split ? p.sharding.value == ShardingLevel::full && p.pipeline.value == 1
                                    : p.sharding.value != ShardingLevel::none;
  const StreamRule rule{.reshards = reshards,
                        .own_buckets = model_split && !reshards,
                        .free_gathers = p.fp8_all_gather.value && p.sharding.value == ShardingLevel::full};
  LayoutCommunication floors(
      impl_->context, [this](CollectiveOp op, Bytes bytes, const std::vector<std::vector<std::size_t>>& groups) {
        return collective_floor(impl_->context, impl_->capacity, impl_->crossings, op, bytes, groups);
      });
  return pipeline_bound(floors.setup(), shards, rule);
}

}  // namespace syncsim::run
