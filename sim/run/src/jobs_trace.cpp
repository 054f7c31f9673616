// The jobs' iterations as a trace (multi_job_run.hpp, jobs_trace).
#include <fmt/format.h>

#include <algorithm>

#include "syncsim/run/multi_job_run.hpp"

namespace syncsim::run {

trace::Trace jobs_trace(const JobsReport& report) {
  trace::TraceBuilder builder;
  builder.set_metadata("scenario", report.scenario);
  for (const JobReport& job : report.jobs) {
    const std::size_t traced = std::min(job.gpu_indices.size(), kJobTraceGpus);
    std::string gpus;
    for (std::size_t i = 0; i < traced; ++i) gpus += fmt::format("{}{}", i == 0 ? "" : " ", job.gpu_indices[i]);
    // The GUI colours each job's GPU lanes from this (gui/models/job_colors.h).
    builder.set_metadata(fmt::format("job {}", job.name), gpus);
    for (std::size_t i = 0; i < traced; ++i) {
      const std::int64_t gpu = job.gpu_indices[i];
      const auto index = static_cast<std::int32_t>(2 * gpu);
      const trace::TrackId compute =
          builder.add_track(fmt::format("gpu {} compute", gpu), trace::TrackKind::worker, index);
      const trace::TrackId communication =
          builder.add_track(fmt::format("gpu {} communication", gpu), trace::TrackKind::worker, index + 1);
      for (std::size_t k = 0; k < job.runs.size(); ++k) {
        const JobIterationRun& run = job.runs[k];
        const std::initializer_list<trace::SpanArg> args{{"iteration", k}, {"job", job.name}};
        if (run.compute_end > run.start) {
          builder.add_span(compute, "compute", trace::category::forward, run.start, run.compute_end - run.start, args);
        }
        if (run.end > run.compute_end) {
          builder.add_span(
              communication, "allreduce", trace::category::communication, run.compute_end, run.end - run.compute_end,
              {{"iteration", k}, {"job", job.name}, {"bytes", static_cast<std::int64_t>(job.gradient_bytes)}});
        }
      }
    }
  }
  return std::move(builder).build();
}

}  // namespace syncsim::run
