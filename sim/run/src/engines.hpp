#pragma once
// The training engines behind run_scenario, one per family of strategies. Each checks that it supports what
// the scenario asks (InputError at the key's position otherwise).
#include "ps_report.hpp"
#include "resolved_scenario.hpp"
#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/convergence/update_schedule.hpp"
#include "syncsim/run/run_scenario.hpp"

namespace syncsim::run {

// What the engines of identical ranks (the recommendation one) refuse, at its key, naming the engine as `with`
// ("with a recommendation model"): strategies other than sync, parameter servers, gradient compression, faults,
// degraded links and stragglers.
void refuse_what_identical_ranks_lack(const Scenario& scenario, std::string_view with);

// What the engines of alike ranks (sharded, model-parallel), which simulate stragglers by classes of ranks and
// replay faults over whole iterations (replayed_faults.hpp), refuse: strategies other than sync, parameter servers,
// gradient compression, elastic recovery (it would change the layout) and a degradation window other than the whole
// run (each collective is simulated once).
void refuse_what_layouts_lack(const Scenario& scenario, std::string_view with);

// The overheads a scenario states that the engine named by `with` does not run, refused at their keys rather than
// left out in silence: training.framework_overhead (DDP's engine only), and training.overlap_slowdown unless the
// engine slows backward beside its gradient collectives (`slows_backward`: the DDP and sharded engines).
void refuse_unsimulated_overheads(const Scenario& scenario, std::string_view with, bool slows_backward);

// The scenario's degraded_links applied to the context's network for the whole run (ResolvedScenario::change_network):
// every collective simulated after it crosses the degraded links at their reduced bandwidth. InputError at a link's
// names when the topology lacks them.
void degrade_for_whole_run(ResolvedScenario& context);

// Each engine also fills `schedule`, when given, with the updates in the order it applied them (the convergence
// proxy replays it).

// Strategies sync and local_sgd over AllReduce: per-rank timelines over cached AllReduce times
// (synchronous_run.hpp).
RunOutput run_sync_allreduce(ResolvedScenario& context, convergence::UpdateSchedule* schedule);

// Everything with parameter servers — sync, async, ssp — and hybrid (AllReduce inside groups, servers across
// them): an event-driven run on the flow model, so that incast at a server's link shows.
RunOutput run_parameter_server(ResolvedScenario& context, convergence::UpdateSchedule* schedule);
// A server's cost of applying a shard of `bytes` of dense gradients: parameter_servers.apply_time or apply_rate, else
// the scenario's optimizer step over the shard's parameters at the host's memory bandwidth (cpu) or on a GPU.
std::function<SimTime(double)> server_apply_cost(const ResolvedScenario& context);
// The updates of a parameter-server run in the order they were applied (sync: one per round over every worker).
convergence::UpdateSchedule parameter_server_schedule(const ParameterServerSetup& setup,
                                                      const ParameterServerResult& result, const ClientLayout& layout);

// Strategy sync with parallelism.sharding (ZeRO-1/2/3) and no model parallelism: one rank's timeline over the
// units' reduce-scatters and all-gathers (sharded_run.hpp).
RunOutput run_sharded_data(ResolvedScenario& context, convergence::UpdateSchedule* schedule);

// Strategy sync with tensor, pipeline or context parallelism (with or without ZeRO across the data-parallel
// groups; full sharding only with a pipeline): one timeline per pipeline stage over collectives that run in all groups
// at once (model_parallel_run.hpp, layout_communication.hpp).
RunOutput run_model_parallel_layout(ResolvedScenario& context, convergence::UpdateSchedule* schedule);

// Strategy sync with full sharding (ZeRO-3) beside tensor or context parallelism and no pipeline (torchtitan's
// FSDP + TP): the sharded engine over one rank's layers with the layout's collectives inside them
// (sharded_layout_run.cpp).
RunOutput run_sharded_layout(ResolvedScenario& context, convergence::UpdateSchedule* schedule);
// Its iteration as one rank's Chakra workload (chakra/ddp_workload.hpp with a layout): the layers at the rank's share
// with their tensor and context collectives after them, the units on the data-parallel groups, the rank's step.
// With model.chakra, run_sharded_layout reads such a trace back in its place.
chakra::DdpWorkload sharded_layout_chakra_workload(ResolvedScenario& context);

// Strategy sync with a recommendation model: tables sharded over the GPUs with all-to-alls, the dense part data
// parallel (recommendation_run.cpp, docs/recommendation.md).
RunOutput run_recommendation(ResolvedScenario& context, const RecommendationShape& shape,
                             convergence::UpdateSchedule* schedule);
// The same with communication parameter_server: the tables on the servers, sparse pull and push through the
// parameter-server engine, the dense part over AllReduce or the same servers (recommendation_servers_run.cpp).
RunOutput run_recommendation_servers(ResolvedScenario& context, const RecommendationShape& shape,
                                     convergence::UpdateSchedule* schedule);

// model.collectives: a job's per-step collective sequence from its NCCL Inspector logs replayed on the scenario's
// cluster (collectives_replay.hpp).
RunOutput run_collectives_replay(ResolvedScenario& context, convergence::UpdateSchedule* schedule);

}  // namespace syncsim::run
