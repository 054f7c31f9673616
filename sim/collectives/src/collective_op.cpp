#include "syncsim/collectives/collective_op.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::array<std::pair<CollectiveOp, std::string_view>, 6> kNames{{
    {CollectiveOp::allreduce, "allreduce"},
    {CollectiveOp::reduce_scatter, "reduce_scatter"},
    {CollectiveOp::all_gather, "all_gather"},
    {CollectiveOp::broadcast, "broadcast"},
    {CollectiveOp::reduce, "reduce"},
    {CollectiveOp::alltoall, "alltoall"},
}};
}  // namespace

std::string_view to_string(CollectiveOp op) {
  for (const auto& [candidate, name] : kNames) {
    if (candidate == op) return name;
  }
  return "?";
}

CollectiveOp parse_collective_op(std::string_view text) {
  for (const auto& [op, name] : kNames) {
    if (name == text) return op;
  }
  if (text == "all_to_all") return CollectiveOp::alltoall;  // the spelling of all_gather's family
  throw InputError(fmt::format(
      "unknown collective '{}': expected allreduce, reduce_scatter, all_gather, broadcast, reduce or alltoall", text));
}

double bus_factor(CollectiveOp op, std::size_t ranks) {
  const auto n = static_cast<double>(ranks);
  switch (op) {
    case CollectiveOp::allreduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::alltoall:
      return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
      return 1.0;
  }
  return 1.0;
}

bool count_is_per_rank(CollectiveOp op) {
  return op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather || op == CollectiveOp::alltoall;
}

std::string_view nccl_tests_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::allreduce:
      return "all_reduce_perf";
    case CollectiveOp::reduce_scatter:
      return "reduce_scatter_perf";
    case CollectiveOp::all_gather:
      return "all_gather_perf";
    case CollectiveOp::broadcast:
      return "broadcast_perf";
    case CollectiveOp::reduce:
      return "reduce_perf";
    case CollectiveOp::alltoall:
      return "alltoall_perf";
  }
  return "?";
}

BusBandwidth bus_bandwidth(CollectiveOp op, std::size_t ranks, Bytes size, SimTime time) {
  const double seconds = time.seconds();
  const double algbw = seconds > 0 ? static_cast<double>(size.value) / seconds : 0.0;
  return {Bandwidth{algbw}, Bandwidth{algbw * bus_factor(op, ranks)}};
}

}  // namespace syncsim
