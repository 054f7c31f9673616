#pragma once
// The trace of `syncsim run` for the parameter-server strategies (sync over servers, async, ssp, hybrid): records
// run_parameter_server_engine's spans as the engine reports them (ParameterServerObserver). Per client a compute
// track (forward, backward, the staleness bound's wait) and a communication track (one span per bucket push, the
// iteration's pull, a hybrid group's broadcast); per server a track of its applies; per link of a server (both
// directions) a utilization counter (load / bandwidth), written when it changes.
//
// Cap: the first `traced_iterations` iterations of each client (a client that runs ahead keeps being traced only
// that far), and the link counters only while some client is still in them.
#include <cstdint>
#include <string>
#include <vector>

#include "syncsim/topology/topology.hpp"
#include "syncsim/trace/trace.hpp"
#include "syncsim/training/parameter_server_run.hpp"

namespace syncsim::run {

struct ParameterServerTraceLayout {
  std::string scenario_name;
  std::int64_t traced_iterations = 0;     // per client, the first ones
  std::vector<std::string> client_names;  // track names ("worker 3", "group 1")
  std::size_t servers = 0;
  const Topology* topology = nullptr;     // the network with the servers in it: the links' names and bandwidths
  std::vector<LinkId> utilization_links;  // their counters, in this order
};

class ParameterServerTraceRecorder final : public ParameterServerObserver {
 public:
  explicit ParameterServerTraceRecorder(ParameterServerTraceLayout layout);

  void on_iteration_start(std::size_t client, std::int64_t iteration, SimTime start, const ClientWork& work) override;
  void on_bound_wait(std::size_t client, std::int64_t iteration, SimTime start, SimTime end) override;
  void on_push(std::size_t client, std::int64_t iteration, std::size_t bucket, SimTime start, SimTime end) override;
  void on_pull(std::size_t client, std::int64_t iteration, SimTime start, SimTime end) override;
  void on_after_pull(std::size_t client, std::int64_t iteration, SimTime start, SimTime end) override;
  void on_apply(std::size_t server, std::size_t client, std::size_t bucket, std::int64_t iteration, SimTime start,
                SimTime end) override;
  bool wants_link_loads() const override;
  void on_link_loads(SimTime at, const FlowModel& flows) override;

  trace::Trace build() &&;

 private:
  bool traced(std::int64_t iteration) const { return iteration < layout_.traced_iterations; }

  ParameterServerTraceLayout layout_;
  trace::TraceBuilder builder_;
  std::vector<trace::TrackId> compute_track_;
  std::vector<trace::TrackId> comm_track_;
  std::vector<trace::TrackId> server_track_;
  std::vector<trace::TrackId> link_track_;
  std::vector<double> last_utilization_;  // per link counter, the value last written
  std::size_t clients_past_trace_ = 0;    // clients whose traced iterations are over
};

}  // namespace syncsim::run
