#include "syncsim/planner/sweep_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::planner {

namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

// The loader names overrides "--set" (its `syncsim run` flag); in a sweep they came from --vary.
InputError as_vary_error(const InputError& e) {
  if (e.where() && e.where()->source == "--set") return InputError(e.message(), SourceLocation{"--vary"}, e.key());
  return e;
}

}  // namespace

namespace {

// The scenario with one override alone, or, when it fails alone, with the point's overrides up to it: an override
// may need an earlier one (a calibrated latency model its calibration file), so only a failure after them is its own.
Scenario load_alone_or_after(const std::filesystem::path& scenario, const std::vector<std::string>& overrides,
                             std::vector<std::string>::const_iterator which) {
  try {
    return load_scenario(scenario, {*which});
  } catch (const InputError&) {
    if (which == overrides.begin()) throw;
    return load_scenario(scenario, std::vector<std::string>(overrides.begin(), which + 1));
  }
}

}  // namespace

void check_overrides(const std::filesystem::path& scenario, const std::vector<SweepPoint>& points) {
  std::set<std::string> seen;
  for (const SweepPoint& p : points) {
    for (auto o = p.overrides.begin(); o != p.overrides.end(); ++o) {
      if (!seen.insert(*o).second) continue;
      try {
        const Scenario s = load_alone_or_after(scenario, p.overrides, o);
        // The loader leaves GPU names to the compute model; a sweep checks them here, before any point runs.
        if (!s.cluster.gpu.inline_spec) {
          try {
            (void)find_gpu(s.cluster.gpu.name.value);
          } catch (const InputError& e) {
            throw s.cluster.gpu.name.error(e.message());
          }
        }
      } catch (const InputError& e) {
        throw as_vary_error(e);
      }
    }
  }
}

void run_points(const std::filesystem::path& scenario, const std::vector<SweepPoint>& points,
                const std::vector<std::size_t>& which, unsigned threads, const PointDone& done,
                const std::atomic<bool>* cancel) {
  const PointRun run = [&scenario](const SweepPoint& point, run::Workspace& workspace) {
    return run::run_scenario(load_scenario(scenario, point.overrides), workspace).report;
  };
  run_points_with(points, which, threads, run, done, cancel);
}

void run_points_with(const std::vector<SweepPoint>& points, const std::vector<std::size_t>& which, unsigned threads,
                     const PointRun& run, const PointDone& done, const std::atomic<bool>* cancel) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex lock;
  std::exception_ptr first_error;
  std::size_t first_error_index = 0;
  run::Workspace workspace;  // one for the sweep: points on every thread reuse each other's collectives
  auto worker = [&] {
    while (!stop.load() && (cancel == nullptr || !cancel->load())) {
      const std::size_t slot = next.fetch_add(1);
      if (slot >= which.size()) return;
      const SweepPoint& point = points.at(which[slot]);
      try {
        const TrainingReport report = run(point, workspace);
        const std::scoped_lock guard(lock);
        if (!stop.load()) done(point.index, report);
      } catch (const InputError& e) {
        const std::scoped_lock guard(lock);
        // The lowest failing point wins, so the message does not depend on thread timing.
        if (!first_error || point.index < first_error_index) {
          const InputError located = as_vary_error(e);
          first_error = std::make_exception_ptr(
              InputError(fmt::format("{} (point {}: {})", located.message(), point.index, join(point.overrides)),
                         located.where(), located.key()));
          first_error_index = point.index;
        }
        stop = true;
      } catch (...) {
        const std::scoped_lock guard(lock);
        if (!first_error || point.index < first_error_index) {
          first_error = std::current_exception();
          first_error_index = point.index;
        }
        stop = true;
      }
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(which.size())));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
    worker();
  }
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace syncsim::planner
