#include "syncsim/training/pipeline_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

void check_sizes(PipelineSchedule schedule, std::int64_t stages, std::int64_t micro_batches, std::int64_t chunks) {
  if (stages < 1 || micro_batches < 1 || chunks < 1) {
    throw InputError(fmt::format("a pipeline needs at least one stage, micro-batch and chunk (got {}, {}, {})", stages,
                                 micro_batches, chunks));
  }
  if (chunks > 1 && schedule != PipelineSchedule::interleaved) {
    throw InputError("several model chunks per stage need the interleaved schedule");
  }
  if (schedule == PipelineSchedule::interleaved && micro_batches % stages != 0) {
    throw InputError(fmt::format("the interleaved schedule needs micro-batches in multiples of the {} stages, got {}",
                                 stages, micro_batches));
  }
}

// Megatron's interleaved schedule: virtual micro-batch k's chunk and micro-batch (get_model_chunk_id).
PipelinePass virtual_pass(std::int64_t k, bool backward, std::int64_t stages, std::int64_t chunks) {
  const std::int64_t in_group = k % (stages * chunks);
  std::int64_t chunk = in_group / stages;
  if (backward) chunk = chunks - 1 - chunk;
  return {backward, (k / (stages * chunks)) * stages + in_group % stages, chunk};
}

}  // namespace

std::vector<PipelinePass> pipeline_order(PipelineSchedule schedule, std::int64_t stage, std::int64_t stages,
                                         std::int64_t micro_batches, std::int64_t chunks) {
  check_sizes(schedule, stages, micro_batches, chunks);
  std::vector<PipelinePass> order;
  if (schedule == PipelineSchedule::gpipe) {
    for (std::int64_t j = 0; j < micro_batches; ++j) order.push_back({false, j, 0});
    for (std::int64_t j = 0; j < micro_batches; ++j) order.push_back({true, j, 0});
    return order;
  }
  const std::int64_t total = micro_batches * chunks;
  const std::int64_t warmup = schedule == PipelineSchedule::interleaved
                                  ? std::min(total, (stages - stage - 1) * 2 + (chunks - 1) * stages)
                                  : std::min(micro_batches, stages - stage - 1);
  const auto pass = [&](std::int64_t k, bool backward) {
    return schedule == PipelineSchedule::interleaved ? virtual_pass(k, backward, stages, chunks)
                                                     : PipelinePass{backward, k, 0};
  };
  for (std::int64_t k = 0; k < warmup; ++k) order.push_back(pass(k, false));
  for (std::int64_t i = 0; i < total - warmup; ++i) {
    order.push_back(pass(warmup + i, false));
    order.push_back(pass(i, true));
  }
  for (std::int64_t k = total - warmup; k < total; ++k) order.push_back(pass(k, true));
  return order;
}

namespace {

void check_table(const std::vector<std::vector<SimTime>>& table, const PipelineTimingSetup& s, const char* what) {
  bool ok = table.size() == static_cast<std::size_t>(s.stages);
  for (const auto& row : table) {
    ok = ok && row.size() == static_cast<std::size_t>(s.chunks) &&
         std::all_of(row.begin(), row.end(), [](SimTime t) { return t >= SimTime::zero(); });
  }
  if (!ok) throw InputError(fmt::format("pipeline timing: {} must be stages x chunks of non-negative times", what));
}

// Ends of every pass so far: [global chunk][micro-batch], forward and backward.
class PassEnds {
 public:
  PassEnds(std::int64_t chunks, std::int64_t micro_batches)
      : micro_(micro_batches), ends_(2 * static_cast<std::size_t>(chunks * micro_batches)) {}
  std::optional<SimTime>& at(bool backward, std::int64_t chunk, std::int64_t micro) {
    return ends_[static_cast<std::size_t>((2 * chunk + (backward ? 1 : 0)) * micro_ + micro)];
  }

 private:
  std::int64_t micro_;
  std::vector<std::optional<SimTime>> ends_;
};

}  // namespace

PipelineTiming time_pipeline(const PipelineTimingSetup& s) {
  check_sizes(s.schedule, s.stages, s.micro_batches, s.chunks);
  check_table(s.forward, s, "forward");
  check_table(s.backward, s, "backward");
  if (!s.parameters_ready.empty()) check_table(s.parameters_ready, s, "parameters_ready");
  if (!s.device_free.empty() && s.device_free.size() != static_cast<std::size_t>(s.stages)) {
    throw InputError("pipeline timing: one free time per device expected");
  }
  const auto p = static_cast<std::size_t>(s.stages);
  const std::int64_t global_chunks = s.stages * s.chunks;
  std::vector<std::vector<PipelinePass>> orders;
  for (std::int64_t d = 0; d < s.stages; ++d) {
    orders.push_back(pipeline_order(s.schedule, d, s.stages, s.micro_batches, s.chunks));
  }
  PipelineTiming out;
  out.passes.resize(p);
  out.busy.assign(p, SimTime::zero());
  out.last_backward.assign(p, std::vector<PipelineTiming::Span>(static_cast<std::size_t>(s.chunks)));
  std::vector<SimTime> free = s.device_free.empty() ? std::vector<SimTime>(p) : s.device_free;
  std::vector<std::size_t> next(p, 0);
  PassEnds ends(global_chunks, s.micro_batches);
  std::size_t remaining = 0;
  for (const auto& order : orders) remaining += order.size();
  while (remaining > 0) {
    bool progressed = false;
    for (std::size_t d = 0; d < p; ++d) {
      for (; next[d] < orders[d].size(); ++next[d]) {
        const PipelinePass& pass = orders[d][next[d]];
        const std::int64_t g = pass.chunk * s.stages + static_cast<std::int64_t>(d);
        // The pass it waits for: on the previous (forward) or next (backward) chunk, else the last chunk's forward.
        std::optional<SimTime> ready = SimTime::zero();
        SimTime hop;
        if (!pass.backward && g > 0) {
          ready = ends.at(false, g - 1, pass.micro_batch);
          hop = s.transfer;
        } else if (pass.backward && g + 1 < global_chunks) {
          ready = ends.at(true, g + 1, pass.micro_batch);
          hop = s.transfer;
        } else if (pass.backward) {
          ready = ends.at(false, g, pass.micro_batch);
        }
        if (!ready) break;  // not yet: another device first
        const auto c = static_cast<std::size_t>(pass.chunk);
        SimTime start = std::max(free[d], *ready + hop);
        if (!pass.backward && !s.parameters_ready.empty()) start = std::max(start, s.parameters_ready[d][c]);
        const SimTime length = pass.backward ? s.backward[d][c] : s.forward[d][c];
        const PipelineTiming::Span span{pass, start, start + length};
        ends.at(pass.backward, g, pass.micro_batch) = span.end;
        free[d] = span.end;
        out.busy[d] += length;
        if (pass.backward) out.last_backward[d][c] = span;
        out.passes[d].push_back(span);
        --remaining;
        progressed = true;
      }
    }
    SYNCSIM_INVARIANT(progressed, "pipeline schedule deadlocked");
  }
  SimTime earliest = SimTime::max();
  for (std::size_t d = 0; d < p; ++d) {
    out.first_start.push_back(out.passes[d].front().start);
    out.last_end.push_back(out.passes[d].back().end);
    earliest = std::min(earliest, out.first_start.back());
    out.end = std::max(out.end, out.last_end.back());
  }
  const double span = (out.end - earliest).seconds();
  for (std::size_t d = 0; d < p && span > 0; ++d) {
    out.bubble_fraction += (1 - out.busy[d].seconds() / span) / static_cast<double>(p);
  }
  return out;
}

}  // namespace syncsim
