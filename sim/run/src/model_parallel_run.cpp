// Strategy sync under a model-parallel layout (parallelism.tensor, pipeline, context > 1): the scenario turned into
// a ModelParallelSetup — every stage's chunks, their compute shares, the tensor- and context-parallel collectives
// inside them, the pipeline's transfers and the data-parallel buckets, each collective simulated with all of its
// kind's groups at once on the topology (CollectiveSpec::groups) — then run_model_parallel, the report with its
// `layout` and `communication_by_group` sections, and a trace with one timeline per stage.
#include <fmt/format.h>

#include <string>

#include "convergence_run.hpp"
#include "engines.hpp"
#include "layout_communication.hpp"
#include "replayed_faults.hpp"
#include "sharded_paces.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/model_parallel_run.hpp"
#include "syncsim/training/replica_classes.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

namespace {

void check_model_parallel_supported(const Scenario& s) {
  refuse_what_layouts_lack(s, "with a model-parallel layout");
  refuse_unsimulated_overheads(s, "with a tensor, pipeline, context or expert layout", true);
  const ParallelismConfig& p = s.parallelism;
  if (p.shard_group) {
    throw p.shard_group->error("HSDP's shard groups are not simulated yet with a model-parallel layout");
  }
}

// A pass's tensor-, context- and expert-parallel collectives, each kind summed over the pass's blocks and drawn as
// one span, the kinds back to back up to the pass's end: they interleave with its compute block by block.
void add_inline_collectives(trace::TraceBuilder& b, trace::TrackId track, const ModelParallelResult::PassSpan& p,
                            const ChunkWork& w) {
  const bool back = p.pass.backward;
  const std::pair<const char*, SimTime> kinds[] = {
      {"tensor-parallel allreduces", back ? w.backward_tensor : w.forward_tensor},
      {"context-parallel K, V collectives", back ? w.backward_context : w.forward_context},
      {"expert all-to-alls", back ? w.backward_expert : w.forward_expert},
      {"FP8 amax all-reduce", back ? w.backward_data : w.forward_data}};
  SimTime at = p.end;
  for (const auto& [name, length] : kinds) at -= length;
  for (const auto& [name, length] : kinds) {
    if (length <= SimTime::zero()) continue;
    b.add_span(track, name, "communication", at, length,
               {trace::SpanArg{"iteration", p.iteration}, trace::SpanArg{"micro_batch", p.pass.micro_batch},
                trace::SpanArg{"placement", "summed over the pass's blocks, drawn at its end"}});
    at += length;
  }
}

trace::Trace layout_trace(const Scenario& s, const RankLayout& layout, const ModelParallelSetup& setup,
                          const ModelParallelResult& result) {
  trace::TraceBuilder b;
  b.set_metadata("scenario", s.name);
  b.set_metadata("ranks",
                 "each stage's ranks run its timeline (Megatron's rank order: tensor, context, data, pipeline)");
  std::vector<trace::TrackId> compute;
  std::vector<trace::TrackId> model;
  std::vector<trace::TrackId> data;
  const std::int64_t per_stage = layout.ranks() / layout.sizes().pipeline;
  // One lane per stage in the GUI's timeline: rows "compute", "model-parallel" and "communication".
  for (std::int64_t d = 0; d < layout.sizes().pipeline; ++d) {
    const auto order = static_cast<std::uint32_t>(3 * d);
    const std::string lane = fmt::format("stage {} (ranks {}-{})", d, d * per_stage, (d + 1) * per_stage - 1);
    compute.push_back(b.add_track(lane + " compute", trace::TrackKind::worker, order));
    model.push_back(b.add_track(lane + " model-parallel", trace::TrackKind::worker, order + 1));
    data.push_back(b.add_track(lane + " communication", trace::TrackKind::worker, order + 2));
  }
  for (const ModelParallelResult::PassSpan& p : result.passes) {
    b.add_span(
        compute[static_cast<std::size_t>(p.stage)],
        fmt::format("{} mb {} chunk {}", p.pass.backward ? "backward" : "forward", p.pass.micro_batch, p.pass.chunk),
        p.pass.backward ? trace::category::backward : trace::category::forward, p.start, p.end - p.start,
        {trace::SpanArg{"iteration", p.iteration}, trace::SpanArg{"micro_batch", p.pass.micro_batch}});
    const auto stage = static_cast<std::size_t>(p.stage);
    add_inline_collectives(b, model[stage], p, setup.work[stage][static_cast<std::size_t>(p.pass.chunk)]);
  }
  for (const ModelParallelResult::StepSpan& st : result.steps) {
    b.add_span(compute[static_cast<std::size_t>(st.stage)], "optimizer step", trace::category::optimizer, st.start,
               st.end - st.start, {trace::SpanArg{"iteration", st.iteration}});
  }
  for (const ModelParallelResult::CollectiveSpan& c : result.collectives) {
    b.add_span(data[static_cast<std::size_t>(c.stage)], fmt::format("{} chunk {}", to_string(c.op), c.chunk),
               "communication", c.start, c.end - c.start,
               {trace::SpanArg{"iteration", c.iteration}, trace::SpanArg{"bytes", c.bytes.value}});
  }
  return std::move(b).build();
}

void fill_workers(TrainingReport& r, const RankLayout& layout, const ModelParallelResult& result) {
  for (std::int64_t rank = 0; rank < layout.ranks(); ++rank) {
    const auto& st = result.stages[static_cast<std::size_t>(layout.coordinates(rank).pipeline)];
    r.per_worker.push_back(
        {.compute = st.compute,
         .optimizer = st.optimizer,
         .exposed_communication = st.tensor + st.context + st.expert + st.pipeline + st.data_inline + st.data_wait,
         .straggler_wait = st.straggler_wait,
         .framework_overhead = SimTime::zero(),
         .overlap_interference = st.interference,
         .pipeline_bubble = st.bubble,
         .updates = std::nullopt,
         .recompute = st.recompute,
         .exposed_tensor = st.tensor,
         .exposed_context = st.context,
         .exposed_pipeline = st.pipeline,
         .exposed_expert = st.expert});
  }
}

LayoutExposure exposure_of(const ModelParallelResult& result, const Scenario& s) {
  double data_bytes = 0;
  for (const auto& st : result.stages) data_bytes += st.data_bytes_per_iteration;
  const char* collectives = "allreduce per bucket";
  if (s.parallelism.sharding.value == ShardingLevel::full) {
    collectives =
        "all_gather per bucket before its chunk's first forward, kept through the iteration + "
        "reduce_scatter per bucket";
  } else if (s.parallelism.sharding.value == ShardingLevel::gradients) {
    collectives = "reduce_scatter per bucket after every micro-batch + all_gather per bucket";
  } else if (s.parallelism.sharding.value != ShardingLevel::none) {
    collectives = "reduce_scatter + all_gather per bucket";
  }
  return {.data = result.exposed_data,
          .tensor = result.exposed_tensor,
          .context = result.exposed_context,
          .pipeline = result.exposed_pipeline,
          .expert = result.exposed_expert,
          .data_bytes_per_gpu = data_bytes / static_cast<double>(result.stages.size()),
          .data_collectives = collectives};
}

}  // namespace

RunOutput run_model_parallel_layout(ResolvedScenario& context, convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  check_model_parallel_supported(s);
  degrade_for_whole_run(context);
  LayoutCommunication comm(context);
  // With model.chakra the layout's traces give the work (chakra_layout.cpp), the scenario the cluster.
  ModelParallelSetup setup = s.model.chakra ? comm.imported_setup() : comm.setup();
  const RankLayout& layout = comm.layout();
  setup.stragglers = context.stragglers();
  setup.group = layout.sizes().tensor * layout.sizes().context;
  setup.overlap_slowdown = s.training.overlap_slowdown_or_default();
  const ModelParallelResult result = run_model_parallel(setup);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  r.global_batch = layout.sizes().data * context.batch() * s.model.micro_batches;
  fill_workers(r, layout, result);
  const std::vector<SimTime> times = fill_run_timeline(context, r, result.iteration_times, result.total);
  r.layout = comm.layout_report(r, result.bubble_fraction);
  compute_shares(r);
  r.group_communication = comm.group_reports(exposure_of(result, s));
  // Each kind's exposed time is causal: the run repeated with that kind free (model_parallel_run.hpp).
  for (const GroupCommunication& g : r.group_communication) {
    r.causes.push_back({.cause = "communication", .group = g.group, .per_iteration = g.exposed, .measured = true});
  }
  if (has_stragglers(setup.stragglers)) {
    // What the stragglers cost: the run again with every rank at its nominal speed (the DDP engine's measure).
    ModelParallelSetup even = setup;
    even.stragglers = StragglerModel{};
    r.causes.push_back(straggler_cause(result.total, run_model_parallel(even).total, setup.iterations));
  }
  comm.fill_links(r, setup.iterations);
  if (schedule != nullptr) *schedule = synchronous_schedule(layout.sizes().data, times);
  out.trace = layout_trace(s, layout, setup, result);
  return out;
}

}  // namespace syncsim::run
