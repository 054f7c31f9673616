#include "syncsim/compute/memory_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

constexpr std::int64_t kMaxMicroBatches = std::int64_t{1} << 20;

void check_layout(std::int64_t batch, const MemoryLayout& layout) {
  if (batch < 1) throw InputError(fmt::format("batch size must be positive, got {}", batch));
  const std::pair<const char*, std::int64_t> sizes[] = {{"tensor", layout.tensor},
                                                        {"pipeline", layout.pipeline},
                                                        {"context", layout.context},
                                                        {"shard", layout.shards},
                                                        {"micro-batch", layout.micro_batches}};
  for (const auto& [what, size] : sizes) {
    if (size < 1) throw InputError(fmt::format("{} size must be positive, got {}", what, size));
  }
  if (layout.micro_batches > kMaxMicroBatches) {
    throw InputError(fmt::format("at most {} micro-batches, got {}", kMaxMicroBatches, layout.micro_batches));
  }
}

// Where a stage may end: after any layer, or for a transformer only between blocks (the embedding stays with the
// first block, the head with the last), as Megatron cuts its pipelines.
std::vector<std::size_t> cut_points(const ModelSpec& model) {
  std::vector<std::size_t> cuts;
  if (const auto& t = model.transformer()) {
    for (std::size_t b = 1; b < t->blocks.size(); ++b) cuts.push_back(t->blocks[b].first);
  } else {
    for (std::size_t l = 1; l < model.layers().size(); ++l) cuts.push_back(l);
  }
  return cuts;
}

// Byte counts past 2^63 (an absurd batch of a huge model) are clamped there: such a total is "does not fit", by a
// shortfall that is still enormous, rather than a wrapped number.
std::int64_t times(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<std::int64_t>::max() : out;
}
std::int64_t plus(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? std::numeric_limits<std::int64_t>::max() : out;
}

// Ceiling division: a rank holds the larger share when the count does not divide.
std::int64_t share(std::int64_t value, std::int64_t parts) {
  return (value + parts - 1) / parts;
}

MemoryReport stage_memory(const ModelSpec& model, std::pair<std::size_t, std::size_t> range, std::int64_t batch,
                          Precision precision, Optimizer optimizer, const MemoryLayout& layout) {
  std::int64_t params = 0;
  std::int64_t saved = 0;
  std::int64_t masks = 0;
  std::int64_t largest = 0;
  std::int64_t second = 0;
  for (std::size_t i = range.first; i < range.second; ++i) {
    const Layer& l = model.layers()[i];
    params += l.params;
    saved += l.saved_elements;
    masks += l.saved_mask_bytes;
    if (l.params > largest) {
      second = largest;
      largest = l.params;
    } else {
      second = std::max(second, l.params);
    }
  }
  const std::int64_t w = element_bytes(precision);
  const std::int64_t local = share(params, layout.tensor);
  const std::int64_t s = layout.shards;
  const bool grads_sharded = layout.sharding == ShardingLevel::gradients || layout.sharding == ShardingLevel::full;
  MemoryReport r;
  r.weights = Bytes{layout.sharding == ShardingLevel::full
                        ? share(local, s) * w + (share(largest, layout.tensor) + share(second, layout.tensor)) * w
                        : local * w};
  r.gradients = Bytes{(grads_sharded ? share(local, s) : local) * w};
  r.optimizer_state = Bytes{(layout.sharding == ShardingLevel::none ? local : share(local, s)) *
                            optimizer_state_bytes(optimizer, precision)};
  const std::int64_t per_sample = share(share(saved * w + masks, layout.tensor), layout.context);
  r.activations = Bytes{times(batch, per_sample)};  // one micro-batch
  return r;
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> pipeline_stage_ranges(const ModelSpec& model, std::int64_t stages) {
  const std::vector<std::size_t> cuts = cut_points(model);
  if (stages < 1 || stages - 1 > static_cast<std::int64_t>(cuts.size())) {
    throw InputError(model.transformer()
                         ? fmt::format("{} pipeline stages for a model of {} transformer blocks", stages,
                                       model.transformer()->blocks.size())
                         : fmt::format("{} pipeline stages for a model of {} layers", stages, model.layers().size()));
  }
  const std::vector<Layer>& layers = model.layers();
  std::vector<double> prefix{0};  // forward FLOPs of layers [0, l)
  for (const Layer& l : layers) prefix.push_back(prefix.back() + static_cast<double>(l.forward_flops));
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t first = 0;
  std::size_t next_cut = 0;
  for (std::int64_t k = 0; k + 1 < stages; ++k) {
    const double target = prefix.back() * static_cast<double>(k + 1) / static_cast<double>(stages);
    // The first cut where the running total reaches the target, leaving a cut for every later stage.
    const std::size_t last_allowed = cuts.size() - static_cast<std::size_t>(stages - 1 - k);
    while (next_cut < last_allowed && prefix[cuts[next_cut]] < target) ++next_cut;
    out.emplace_back(first, cuts[next_cut]);
    first = cuts[next_cut++];
  }
  out.emplace_back(first, layers.size());
  return out;
}

std::int64_t in_flight_micro_batches(std::int64_t stage, std::int64_t stages, std::int64_t micro_batches,
                                     PipelineSchedule schedule) {
  if (stages <= 1) return 1;  // one stage runs its micro-batches one after another
  if (schedule == PipelineSchedule::gpipe) return micro_batches;
  return std::min(stages - stage, micro_batches);
}

MemoryReport memory_check(const ModelSpec& model, const GpuSpec& gpu, std::int64_t batch, Precision precision,
                          Optimizer optimizer, const MemoryLayout& layout) {
  check_layout(batch, layout);
  const auto ranges = pipeline_stage_ranges(model, layout.pipeline);
  MemoryReport fullest;
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    const auto stage = static_cast<std::int64_t>(k);
    MemoryReport r = stage_memory(model, ranges[k], batch, precision, optimizer, layout);
    r.in_flight = in_flight_micro_batches(stage, layout.pipeline, layout.micro_batches, layout.schedule);
    r.activations = Bytes{times(r.activations.value, r.in_flight)};
    r.total = Bytes{plus(plus(r.weights.value, r.gradients.value), plus(r.optimizer_state.value, r.activations.value))};
    r.stage = stage;
    if (k == 0 || r.total > fullest.total) fullest = r;
  }
  fullest.capacity = gpu.memory;
  fullest.fits = fullest.total <= fullest.capacity;
  fullest.shortfall = fullest.fits ? Bytes{0} : fullest.total - fullest.capacity;
  return fullest;
}

}  // namespace syncsim
