#include "syncsim/validation/nccl_tests_writer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include "syncsim/collectives/nccl_tests_table.hpp"

namespace syncsim {

namespace {

MeasuredPlacement to_measured(const NcclTestsPlacement& p) {
  MeasuredPlacement m;
  m.time = SimTime::from_us(p.time_us);
  m.bandwidth = {Bandwidth::from_gb_per_s(p.algbw_gbps), Bandwidth::from_gb_per_s(p.busbw_gbps)};
  if (p.wrong) m.wrong = std::llround(*p.wrong);
  return m;
}

}  // namespace

std::string format_rank_line(const NcclTestsRank& rank) {
  return fmt::format("#  Rank {:2} Group {:2} Pid {:6} on {:>10} device {:2} [{}] {}\n", rank.rank, 0, rank.pid,
                     rank.host, rank.device, rank.bus_id, rank.device_name);
}

std::string format_nccl_tests_parameters(Bytes min, Bytes max, double factor, int warmup_iters, int iters, bool check) {
  return fmt::format(
      "nThread 1 nGpus 1 minBytes {} maxBytes {} step: {:g}(factor) warmup iters: {} iters: {} agg iters: 1 "
      "validation: {} graph: 0",
      min.value, max.value, factor, warmup_iters, iters, check ? 1 : 0);
}

void describe_system(NcclTestsLog& log) {
  std::map<std::string, int> per_host;
  log.gpu_names.clear();
  for (const NcclTestsRank& rank : log.rank_list) {
    ++per_host[rank.host];
    if (std::find(log.gpu_names.begin(), log.gpu_names.end(), rank.device_name) == log.gpu_names.end()) {
      log.gpu_names.push_back(rank.device_name);
    }
  }
  log.ranks = static_cast<int>(log.rank_list.size());
  log.hosts = static_cast<int>(per_host.size());
  log.ranks_per_host = 0;
  for (const auto& [host, count] : per_host) log.ranks_per_host = std::max(log.ranks_per_host, count);
}

NcclTestsPlacement measured_placement(CollectiveOp op, int ranks, std::int64_t size_bytes, double seconds,
                                      std::optional<std::int64_t> wrong) {
  NcclTestsPlacement p;
  p.time_us = seconds * 1e6;
  const BusBandwidth bw =
      bus_bandwidth(op, static_cast<std::size_t>(ranks), Bytes{size_bytes}, SimTime::from_seconds(seconds));
  p.algbw_gbps = bw.algbw.gb_per_s();
  p.busbw_gbps = bw.busbw.gb_per_s();
  if (wrong) p.wrong = static_cast<double>(*wrong);
  return p;
}

double average_busbw_gbps(const NcclTestsLog& log) {
  if (log.rows.empty()) return 0.0;
  double sum = 0;
  for (const NcclTestsRow& row : log.rows) sum += row.out_of_place.busbw_gbps + row.in_place.busbw_gbps;
  return sum / static_cast<double>(2 * log.rows.size());
}

void write_nccl_tests_log(std::ostream& out, const NcclTestsLog& log) {
  const std::string_view program = nccl_tests_name(log.collective);
  fmt::print(out, "# Collective test starting: {}\n", program);
  if (!log.parameters.empty()) fmt::print(out, "# {}\n", log.parameters);
  out << "#\n# Using devices\n";
  for (const NcclTestsRank& rank : log.rank_list) out << format_rank_line(rank);
  out << "#\n";
  print_nccl_tests_header(out);
  std::int64_t wrong = 0;
  for (const NcclTestsRow& row : log.rows) {
    CollectiveRow shape;
    shape.size = Bytes{row.size_bytes};
    shape.count = row.count;
    shape.type = row.type;
    shape.redop = row.redop;
    shape.root = row.root.value_or(-1);
    print_nccl_tests_row(out, shape, to_measured(row.out_of_place), to_measured(row.in_place));
    for (const NcclTestsPlacement* p : {&row.out_of_place, &row.in_place}) {
      if (p->wrong && *p->wrong > 0) wrong += std::llround(*p->wrong);
    }
  }
  print_nccl_tests_footer(out, log.out_of_bounds.value_or(wrong), log.avg_busbw_gbps.value_or(average_busbw_gbps(log)));
  fmt::print(out, "# Collective test concluded: {}\n", program);
}

}  // namespace syncsim
