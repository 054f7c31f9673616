#include "sharded_trace.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

namespace syncsim::run {

trace::Trace sharded_trace(const Scenario& s, const ShardedRunResult& result) {
  trace::TraceBuilder b;
  b.set_metadata("scenario", s.name);
  b.set_metadata("ranks", "every rank runs this timeline (sharded data parallelism, identical ranks)");
  // The GUI's lane "worker 0" with rows compute and communication; HSDP's allreduces across the replicas run on a
  // stream of their own, so on a lane of their own.
  const trace::TrackId compute = b.add_track("worker 0 compute", trace::TrackKind::worker, 0);
  const trace::TrackId comm = b.add_track("worker 0 communication", trace::TrackKind::worker, 1);
  std::optional<trace::TrackId> replicas;
  for (const ShardedRunResult::ComputeSpan& c : result.compute_spans) {
    const char* name = c.optimizer ? "optimizer step (1/d)" : c.backward ? "backward" : "forward";
    const std::string_view category = c.optimizer  ? trace::category::optimizer
                                      : c.backward ? trace::category::backward
                                                   : trace::category::forward;
    b.add_span(compute, name, category, c.start, c.end - c.start, {trace::SpanArg{"iteration", c.iteration}});
  }
  for (const ShardedCollective& c : result.collectives) {
    trace::TrackId track = comm;
    if (c.op == CollectiveOp::allreduce) {  // only HSDP's, across the replicas
      if (!replicas) replicas = b.add_track("worker 0 replicas", trace::TrackKind::worker, 2);
      track = *replicas;
    }
    b.add_span(track, fmt::format("{} unit {}", to_string(c.op), c.unit), trace::category::communication, c.start,
               c.end - c.start, {trace::SpanArg{"iteration", c.iteration}, trace::SpanArg{"bytes", c.bytes.value}});
  }
  return std::move(b).build();
}

}  // namespace syncsim::run
