#include "ps_trace.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace syncsim::run {

ParameterServerTraceRecorder::ParameterServerTraceRecorder(ParameterServerTraceLayout layout)
    : layout_(std::move(layout)) {
  builder_.set_metadata("scenario", layout_.scenario_name);
  builder_.set_metadata("iterations_traced", fmt::format("the first {} of each worker", layout_.traced_iterations));
  for (std::size_t c = 0; c < layout_.client_names.size(); ++c) {
    const std::string& name = layout_.client_names[c];
    const auto index = static_cast<std::int32_t>(2 * c);
    compute_track_.push_back(builder_.add_track(name + " compute", trace::TrackKind::worker, index));
    comm_track_.push_back(builder_.add_track(name + " communication", trace::TrackKind::worker, index + 1));
  }
  for (std::size_t j = 0; j < layout_.servers; ++j) {
    server_track_.push_back(builder_.add_track(fmt::format("server {}", j), trace::TrackKind::worker,
                                               static_cast<std::int32_t>(2 * layout_.client_names.size() + j)));
  }
  const Topology& topology = *layout_.topology;
  for (std::size_t i = 0; i < layout_.utilization_links.size(); ++i) {
    const Link& link = topology.link(layout_.utilization_links[i]);
    link_track_.push_back(
        builder_.add_track(fmt::format("link {} -> {}", topology.node(link.src).name, topology.node(link.dst).name),
                           trace::TrackKind::link, static_cast<std::int32_t>(i)));
  }
  last_utilization_.assign(link_track_.size(), -1.0);
}

void ParameterServerTraceRecorder::on_iteration_start(std::size_t client, std::int64_t iteration, SimTime start,
                                                      const ClientWork& work) {
  if (iteration == layout_.traced_iterations) ++clients_past_trace_;
  if (!traced(iteration)) return;
  builder_.add_span(compute_track_[client], "forward", trace::category::forward, start, work.forward_end,
                    {{"iteration", iteration}});
  builder_.add_span(compute_track_[client], "backward", trace::category::backward, start + work.forward_end,
                    work.compute_end - work.forward_end, {{"iteration", iteration}});
}

void ParameterServerTraceRecorder::on_bound_wait(std::size_t client, std::int64_t iteration, SimTime start,
                                                 SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(compute_track_[client], "wait (staleness bound)", trace::category::idle, start, end - start,
                    {{"iteration", iteration}});
}

void ParameterServerTraceRecorder::on_push(std::size_t client, std::int64_t iteration, std::size_t bucket,
                                           SimTime start, SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(comm_track_[client], fmt::format("push bucket {}", bucket), trace::category::communication, start,
                    end - start, {{"iteration", iteration}, {"bucket", bucket}});
}

void ParameterServerTraceRecorder::on_pull(std::size_t client, std::int64_t iteration, SimTime start, SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(comm_track_[client], "pull", trace::category::communication, start, end - start,
                    {{"iteration", iteration}});
}

void ParameterServerTraceRecorder::on_after_pull(std::size_t client, std::int64_t iteration, SimTime start,
                                                 SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(comm_track_[client], "broadcast in group", trace::category::communication, start, end - start,
                    {{"iteration", iteration}});
}

void ParameterServerTraceRecorder::on_apply(std::size_t server, std::size_t client, std::size_t bucket,
                                            std::int64_t iteration, SimTime start, SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(server_track_[server], "apply", trace::category::server_apply, start, end - start,
                    {{"client", client}, {"bucket", bucket}, {"iteration", iteration}});
}

bool ParameterServerTraceRecorder::wants_link_loads() const {
  return !link_track_.empty() && clients_past_trace_ < layout_.client_names.size();
}

void ParameterServerTraceRecorder::on_link_loads(SimTime at, const FlowModel& flows) {
  for (std::size_t i = 0; i < layout_.utilization_links.size(); ++i) {
    const LinkId link = layout_.utilization_links[i];
    const double capacity = layout_.topology->link(link).bandwidth.bytes_per_second;
    // Rounded so that float noise in the solver (0.9999999999) does not show as a change.
    const double value = capacity > 0 ? std::round(flows.link_load(link).bytes_per_second / capacity * 1e6) / 1e6 : 0.0;
    if (value == last_utilization_[i]) continue;
    last_utilization_[i] = value;
    builder_.add_counter(link_track_[i], "utilization", at, value);
  }
}

trace::Trace ParameterServerTraceRecorder::build() && {
  return std::move(builder_).build();
}

}  // namespace syncsim::run
