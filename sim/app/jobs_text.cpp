#include "jobs_text.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

namespace syncsim::app {

namespace {

std::string node_list(const std::vector<std::int64_t>& nodes) {
  constexpr std::size_t kShown = 8;  // longer lists are in report.json
  std::string out;
  for (std::size_t i = 0; i < nodes.size() && i < kShown; ++i) out += fmt::format("{}{}", i ? "," : "", nodes[i]);
  if (nodes.size() > kShown) out += fmt::format(",... ({} nodes)", nodes.size());
  return out;
}

}  // namespace

void print_jobs_summary(const JobsReport& r, const std::filesystem::path& outdir) {
  std::ostream& o = std::cout;
  fmt::print(o, "# syncsim run {}: {} jobs on {} GPUs, placement {}, {} background flows\n", r.scenario, r.jobs.size(),
             r.workers, r.placement, r.background_flows);
  fmt::print(o, "window           {:.3f} ms .. {:.3f} ms ({:.3f} ms): at least {} iterations of each job ({} last)\n",
             r.window_start.us() / 1e3, r.window_end.us() / 1e3, (r.window_end - r.window_start).us() / 1e3,
             r.window_iterations, r.slowest_job);
  fmt::print(o, "{:<16} {:>6} {:>12} {:>12} {:>9} {:>7}  {}\n", "job", "gpus", "iter (ms)", "alone (ms)", "slowdown",
             "shared", "nodes");
  for (const JobReport& j : r.jobs) {
    fmt::print(o, "{:<16} {:>6} {:>12.3f} {:>12.3f} {:>8.3f}x {:>7}  {}\n", j.name, j.gpus, j.iteration_time.us() / 1e3,
               j.alone_iteration_time.us() / 1e3, j.slowdown, j.shared_link_count, node_list(j.nodes));
  }
  for (const JobReport& j : r.jobs) {
    if (j.shared_links.empty()) continue;
    const SharedLinkReport& l = j.shared_links.front();
    std::string with;
    for (const std::string& w : l.with) with += (with.empty() ? "" : ", ") + w;
    fmt::print(o, "busiest shared   {}: {} -> {} with {}\n", j.name, l.from, l.to, with);
  }
  fmt::print(o, "wrote            {} and {}\n", (outdir / "report.json").string(), (outdir / "trace.json").string());
}

}  // namespace syncsim::app
