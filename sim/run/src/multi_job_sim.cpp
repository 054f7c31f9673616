// The co-simulation of several jobs (multi_job_sim.hpp).
#include "multi_job_sim.hpp"

#include <algorithm>
#include <functional>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/network/flow_model.hpp"

namespace syncsim::run {

namespace {

// Payloads of a job loop's events.
constexpr std::uint64_t kIterationStarts = 0;
constexpr std::uint64_t kComputeDone = 1;

// One job's iterations: compute timer, then its channels on the shared flow model, then again.
class JobLoop final : public EventHandler {
 public:
  JobLoop(Simulator& sim, FlowModel& flows, Router& router, const CoJob& job, bool bulk,
          std::function<void(SimTime start, SimTime compute_end)> on_iteration)
      : sim_(sim), flows_(flows), router_(router), job_(job), bulk_(bulk), on_iteration_(std::move(on_iteration)) {}

  void on_event(Simulator& sim, std::uint64_t payload) override {
    if (payload == kIterationStarts) {
      started_ = sim.now();
      sim.schedule_in(job_.compute, *this, kComputeDone);
      return;
    }
    // The previous iteration's executors are done, and no call of theirs is on the stack: an event of our own.
    running_.clear();
    compute_end_ = sim.now();
    if (job_.collectives.empty()) return finish();
    pending_ = job_.collectives.size();
    for (const CoCollective& c : job_.collectives) {
      ExecutorOptions options;
      options.bulk = bulk_;
      // k copies as one: k-fold wire bytes (an efficiency of 1/k, exact for the powers of two NCCL's channels come in).
      for (double& efficiency : options.cost.efficiency) efficiency /= c.copies;
      running_.push_back(std::make_unique<CollectiveExecutor>(sim_, flows_, router_, *c.plan, c.gpus, options));
    }
    for (const auto& executor : running_) {
      executor->start([this] {
        if (--pending_ == 0) finish();
      });
    }
  }

 private:
  void finish() {
    on_iteration_(started_, compute_end_);
    sim_.schedule_in(SimTime::zero(), *this, kIterationStarts);
  }

  Simulator& sim_;
  FlowModel& flows_;
  Router& router_;
  const CoJob& job_;
  bool bulk_;
  std::function<void(SimTime, SimTime)> on_iteration_;
  std::vector<std::unique_ptr<CollectiveExecutor>> running_;
  std::size_t pending_ = 0;
  SimTime started_;
  SimTime compute_end_;
};

}  // namespace

CoSimResult co_simulate(const Topology& flow_topology, Router& router, const std::vector<CoJob>& jobs,
                        const std::vector<BackgroundFlow>& background, const CoSimOptions& options) {
  Simulator sim(options.seed);
  FlowModel flows(sim, flow_topology);
  CoSimResult result;
  result.jobs.resize(jobs.size());
  for (const CoJob& job : jobs) result.window_start = std::max(result.window_start, job.offset);
  std::vector<SimTime> measured(jobs.size());  // sum of the measured iterations' times
  std::size_t complete = 0;                    // jobs with window_iterations measured
  std::int64_t done = 0;                       // measured iterations, at most window_iterations a job
  bool stopped = false;
  const RunProgress* progress = options.progress;
  const auto total = static_cast<std::int64_t>(jobs.size()) * options.window_iterations;
  std::vector<std::unique_ptr<JobLoop>> loops;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    loops.push_back(std::make_unique<JobLoop>(
        sim, flows, router, jobs[j], options.bulk, [&, j](SimTime start, SimTime compute_end) {
          CoJobResult& r = result.jobs[j];
          if (r.runs.size() < kJobIterationsRecorded) r.runs.push_back({start, compute_end, sim.now()});
          if (progress && progress->stop && progress->stop->load()) {
            stopped = true;
            sim.stop();
            return;
          }
          if (start < result.window_start) return;
          if (r.iterations < options.window_iterations && progress && progress->on_iteration) {
            progress->on_iteration(++done, total);
          }
          measured[j] += sim.now() - start;
          if (++r.iterations == options.window_iterations && ++complete == jobs.size()) {
            result.window_end = sim.now();
            result.slowest = j;
            sim.stop();
          }
        }));
    sim.schedule_at(jobs[j].offset, *loops.back(), kIterationStarts);
  }
  BackgroundTraffic traffic(sim, flows, background, options.seed);
  traffic.start();
  sim.run();
  if (stopped) throw RunCancelled();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const CoJobResult& r = result.jobs[j];
    result.jobs[j].mean = SimTime::from_ps(measured[j].ps() / r.iterations);
  }
  return result;
}

}  // namespace syncsim::run
