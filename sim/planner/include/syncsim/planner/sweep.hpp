#pragma once
// run_sweep: a whole sweep — resume, split over MPI ranks and threads, gather, in point order.
//
//   rank 0: read the previous output (if any) ──▶ points not in it ──broadcast──▶ every rank
//   every rank: its share (pending[i] for i % ranks == rank) on `threads` threads
//   rank 0: gather the rows, merge with the resumed ones by point index ──▶ table
//
// Rows are stored by point index, never by arrival, so threads, ranks and resuming cannot change the output.
// Without MPI (or outside mpirun) there is one rank and the table is saved every second while points finish,
// so an interrupted sweep resumes from what it had finished.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string_view>

#include "syncsim/planner/mpi_world.hpp"
#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/planner/sweep_table.hpp"

namespace syncsim::planner {

struct SweepOptions {
  std::filesystem::path scenario;
  std::vector<std::string> varied_keys;  // the leading columns, one per SweepPoint label
  std::vector<SweepPoint> points;
  unsigned threads = 1;
  std::optional<std::filesystem::path> output;  // resumed from when it exists
  std::string fingerprint;           // sweep_fingerprint(scenario, varied_keys): kept in the table, checked on resume
  std::ostream* progress = nullptr;  // where the progress bar goes (rank 0), or nowhere
  // Writes the table (atomically): called while points finish (one rank only) and never with a partial row.
  std::function<void(const SweepTable&)> save;
};

// What a sweep's rows belong to, as 16 hex digits (64-bit FNV-1a): the resolved scenario (to_yaml of the loaded
// file, defaults filled in, so a comment or a reordering does not count as an edit) and the varied keys. A row
// resumed from a file with another fingerprint could be another scenario's numbers. Throws what load_scenario does.
// 64-bit FNV-1a: small, stable across platforms and versions, and plenty to tell two scenarios apart (a guard
// against mistakes, not against forgery). `hash` carries on from an earlier call.
std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 0xcbf29ce484222325ULL);

std::string sweep_fingerprint(const std::filesystem::path& scenario, const std::vector<std::string>& varied_keys);

// Resumed rows (read_table's) by the index of the point whose labels they carry in their first `varied` cells;
// rows of points not in `points` are left out. Throws InputError naming `file` for two rows of one point.
std::map<std::size_t, std::vector<nlohmann::ordered_json>> match_rows(
    std::vector<std::vector<nlohmann::ordered_json>> rows, const std::vector<SweepPoint>& points, std::size_t varied,
    const std::string& file);

// The full table on rank 0; on other ranks an empty one. Throws the first error of any rank on every rank:
// InputError where the input was at fault.
SweepTable run_sweep(const SweepOptions& options, const MpiWorld& world);

}  // namespace syncsim::planner
