// run_points_with's weights: points whose weights would sum past 1.5 times the heaviest never run together, and
// every point still runs once (sweep_runner.hpp). Checked on four threads whatever their timing: the runs record the
// weight running beside them, not when they ran.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "syncsim/planner/sweep_runner.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

struct Recorder {
  std::mutex mutex;
  std::int64_t running = 0;
  std::int64_t most = 0;
  std::vector<int> runs;
};

}  // namespace

TEST_CASE("weighted points run together only within 1.5 times the heaviest, each once") {
  // Weights in GPUs, as plan gives them: four of the largest, then smaller ones.
  const std::vector<std::int64_t> gpus{32768, 32768, 16384, 32768, 8192, 4096, 32768, 16384, 2048, 8192};
  std::vector<SweepPoint> points;
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    points.push_back({i, {std::to_string(gpus[i])}, {}});
    which.push_back(i);
  }
  Recorder recorder;
  recorder.runs.assign(points.size(), 0);
  const PointRun run = [&](const SweepPoint& point, run::Workspace&) {
    {
      const std::scoped_lock lock(recorder.mutex);
      recorder.running += gpus[point.index];
      recorder.most = std::max(recorder.most, recorder.running);
      ++recorder.runs[point.index];
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // long enough for the others to try to start
    const std::scoped_lock lock(recorder.mutex);
    recorder.running -= gpus[point.index];
    return TrainingReport{};
  };
  run_points_with(
      points, which, 4, run, [](std::size_t, const TrainingReport&) {}, nullptr,
      [&](const SweepPoint& point) { return gpus[point.index]; });
  CHECK(recorder.most <= 32768 + 16384);
  CHECK(std::all_of(recorder.runs.begin(), recorder.runs.end(), [](int n) { return n == 1; }));
}
