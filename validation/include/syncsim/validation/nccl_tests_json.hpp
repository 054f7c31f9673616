#pragma once
// NcclTestsLog as JSON: what the benchmarks write with --json, and what scripts and later stages read.
//
//   {"collective": "allreduce", "nccl_tests_name": "all_reduce_perf", "ranks": 4, "ranks_per_host": 4, "hosts": 1,
//    "gpu_names": [...], "rank_list": [{"rank": 0, "host": "node-00", "pid": 10000, "device": 0, "bus_id": "0x07",
//    "device_name": "..."}], "parameters": "nThread 1 ...", "layout": "with_root",
//    "rows": [{"size_bytes": 64, "count": 16, "type": "float", "redop": "sum", "root": -1,
//              "out_of_place": {"time_us": 32.01, "algbw_gbps": 0.0, "busbw_gbps": 0.0, "wrong": 0},
//              "in_place": {...}}],
//    "out_of_bounds": 0, "avg_busbw_gbps": 80.99, "warnings": [], "source": "..."}
//
// Times and bandwidths keep full precision (the table rounds them); `root`, `wrong`, `out_of_bounds` and
// `avg_busbw_gbps` are null where the log has none.
#include <nlohmann/json.hpp>
#include <string>

#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim {

nlohmann::json to_json(const NcclTestsLog& log);
// The inverse of to_json; throws InputError naming `source` and the key path of a missing or mistyped field.
NcclTestsLog nccl_tests_log_from_json(const nlohmann::json& json, const std::string& source);

}  // namespace syncsim
