#include "syncsim/validation/inspector_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

#include "median.hpp"

namespace syncsim {

namespace {

using InspectorPointKey = std::tuple<CollectiveOp, int, int, std::int64_t>;  // op, ranks, nodes, size

// Adds a record to its communicator, checking that it agrees with the communicator's earlier records.
void note_communicator(InspectorCommunicator& comm, const InspectorRecord& r, const std::string& source) {
  if (comm.records == 0) {
    comm.id = r.comm_id;
    comm.name = r.comm_name;
    comm.ranks = r.n_ranks;
    comm.nodes = r.nnodes;
    comm.source = source;
    comm.line = r.line;
  }
  const auto differs = [&](const char* key, int was, int now) {
    if (was == now) return;
    throw InputError(
        fmt::format("communicator {} has {} {} here but {} at {}:{}", r.comm_id, now, key, was, comm.source, comm.line),
        SourceLocation{source, r.line}, std::string("header.") + key);
  };
  differs("n_ranks", comm.ranks, r.n_ranks);
  differs("nnodes", comm.nodes, r.nnodes);
  const auto at = std::lower_bound(comm.ranks_seen.begin(), comm.ranks_seen.end(), r.rank);
  if (at == comm.ranks_seen.end() || *at != r.rank) comm.ranks_seen.insert(at, r.rank);
  if (!r.hostname.empty() && std::find(comm.hosts.begin(), comm.hosts.end(), r.hostname) == comm.hosts.end()) {
    comm.hosts.push_back(r.hostname);
    if (static_cast<int>(comm.hosts.size()) > comm.nodes) {
      throw InputError(fmt::format("communicator {} spans {} nodes (header.nnodes) but its records name {} hosts",
                                   comm.label(), comm.nodes, comm.hosts.size()),
                       SourceLocation{source, r.line}, "metadata.hostname");
    }
  }
  ++comm.records;
}

}  // namespace

std::string InspectorCommunicator::label() const {
  return fmt::format("{}{}, {} rank{} on {} node{}", id, name.empty() ? "" : " (" + name + ")", ranks,
                     ranks == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s");
}

InspectorJob group_inspector_logs(const std::vector<InspectorLog>& logs) {
  InspectorJob job;
  std::map<std::string, std::size_t> comm_index;
  std::map<InspectorPointKey, std::vector<double>> times;
  std::map<InspectorPointKey, std::pair<std::string, int>> first_record;
  for (const InspectorLog& log : logs) {
    job.sources.push_back(log.source);
    for (const std::string& warning : log.warnings) job.warnings.push_back(warning);
    for (const InspectorRecord& r : log.records) {
      const auto [it, added] = comm_index.emplace(r.comm_id, job.communicators.size());
      if (added) job.communicators.emplace_back();
      note_communicator(job.communicators[it->second], r, log.source);
      const InspectorPointKey key{r.op, r.n_ranks, r.nnodes, r.whole_buffer_bytes()};
      times[key].push_back(r.time_us);
      first_record.emplace(key, std::make_pair(log.source, r.line));
    }
  }
  for (const auto& [key, values] : times) {
    const auto& [op, ranks, nodes, size] = key;
    const auto& [source, line] = first_record.at(key);
    job.points.push_back({op, ranks, nodes, size, median_of(values), static_cast<int>(values.size()), source, line});
  }
  for (const InspectorCommunicator& comm : job.communicators) {
    if (comm.ranks == 1) {
      job.warnings.push_back(fmt::format("{}:{}: communicator {}: one rank, nothing to simulate; left out", comm.source,
                                         comm.line, comm.label()));
    }
  }
  return job;
}

InspectorJob read_inspector_job(const std::vector<std::string>& paths) {
  std::vector<InspectorLog> logs;
  for (const std::string& path : paths) logs.push_back(read_inspector_log(path));
  return group_inspector_logs(logs);
}

void check_communicators_fit(const InspectorJob& job, std::string_view topology_family, std::string_view source) {
  const Topology topology = build_topology(topology_family, source);
  for (const InspectorCommunicator& comm : job.communicators) {
    if (static_cast<std::size_t>(comm.ranks) <= topology.gpu_count()) continue;
    throw InputError(fmt::format("communicator {} has more ranks than the topology {} ({}) has GPUs ({}): the job "
                                 "did not run on this system",
                                 comm.label(), topology_family, source, topology.gpu_count()),
                     SourceLocation{comm.source, comm.line}, "header.n_ranks");
  }
}

std::vector<NcclTestsLog> inspector_nccl_tests_logs(const InspectorJob& job) {
  std::vector<NcclTestsLog> logs;
  for (const InspectorPoint& p : job.points) {
    if (p.ranks < 2) continue;
    if (logs.empty() || logs.back().collective != p.op || logs.back().ranks != p.ranks ||
        logs.back().hosts != p.nodes) {
      NcclTestsLog& log = logs.emplace_back();
      log.source = p.source;
      log.collective = p.op;
      log.ranks = p.ranks;
      log.hosts = p.nodes;
      log.ranks_per_host = (p.ranks + p.nodes - 1) / p.nodes;
      log.parameters = fmt::format(
          "NCCL Inspector: {} on communicators of {} ranks on {} node{}; records per size "
          "(the median taken):",
          to_string(p.op), p.ranks, p.nodes, p.nodes == 1 ? "" : "s");
    }
    NcclTestsLog& log = logs.back();
    log.parameters += fmt::format("{} {} B: {}", log.rows.empty() ? "" : ",", p.size_bytes, p.count);
    NcclTestsRow row;
    row.size_bytes = p.size_bytes;
    row.count = count_is_per_rank(p.op) ? p.size_bytes / p.ranks : p.size_bytes;
    row.type = "int8";
    const BusBandwidth bw =
        bus_bandwidth(p.op, static_cast<std::size_t>(p.ranks), Bytes{p.size_bytes}, SimTime::from_us(p.median_us));
    row.out_of_place = {p.median_us, bw.algbw.gb_per_s(), bw.busbw.gb_per_s(), std::nullopt};
    row.in_place = row.out_of_place;
    row.line = p.source == log.source ? p.line : 0;
    log.rows.push_back(row);
  }
  if (logs.empty()) {
    throw InputError("no communicator of two or more ranks: nothing to simulate",
                     SourceLocation{job.sources.empty() ? std::string() : job.sources.front()});
  }
  return logs;
}

}  // namespace syncsim
