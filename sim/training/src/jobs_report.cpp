#include "syncsim/training/jobs_report.hpp"

#include "report_rounding.hpp"

namespace syncsim {

namespace {

nlohmann::ordered_json shared_links_json(const std::vector<SharedLinkReport>& links) {
  auto out = nlohmann::ordered_json::array();
  for (const SharedLinkReport& l : links) {
    nlohmann::ordered_json by_job = nlohmann::ordered_json::object();
    for (const auto& [job, u] : l.utilization_by_job) by_job[job] = training_detail::rounded_ratio(u);
    out.push_back({{"from", l.from}, {"to", l.to}, {"with", l.with}, {"utilization_by_job", by_job}});
  }
  return out;
}

}  // namespace

double samples_per_s(const JobReport& job) {
  const double seconds = job.iteration_time.seconds();
  return seconds > 0 ? static_cast<double>(job.samples_per_iteration) / seconds : 0.0;
}

nlohmann::ordered_json jobs_json(const JobsReport& r) {
  nlohmann::ordered_json out;
  out["scenario"] = r.scenario;
  out["workers"] = r.workers;
  out["placement"] = r.placement;
  out["window"] = {{"start_us", training_detail::report_us(r.window_start)},
                   {"end_us", training_detail::report_us(r.window_end)},
                   {"duration_us", training_detail::report_us(r.window_end - r.window_start)},
                   {"iterations_of_slowest_job", r.window_iterations},
                   {"slowest_job", r.slowest_job}};
  out["background_flows"] = r.background_flows;
  auto jobs = nlohmann::ordered_json::array();
  for (const JobReport& j : r.jobs) {
    jobs.push_back({{"name", j.name},
                    {"gpus", j.gpus},
                    {"nodes", j.nodes},
                    {"offset_us", training_detail::report_us(j.offset)},
                    {"compute_us", training_detail::report_us(j.compute)},
                    {"gradient_bytes", training_detail::rounded_ratio(j.gradient_bytes)},
                    {"ring_channels", j.channels},
                    {"shared_traffic", j.shared_traffic},
                    {"iterations", j.iterations},
                    {"iteration_time_us", training_detail::report_us(j.iteration_time)},
                    {"alone_iteration_time_us", training_detail::report_us(j.alone_iteration_time)},
                    {"slowdown", training_detail::rounded_ratio(j.slowdown)},
                    {"samples_per_iteration", j.samples_per_iteration},
                    {"samples_per_s", training_detail::rounded_ratio(samples_per_s(j))},
                    {"shared_link_count", j.shared_link_count},
                    {"shared_links", shared_links_json(j.shared_links)}});
  }
  out["jobs"] = jobs;
  return out;
}

}  // namespace syncsim
