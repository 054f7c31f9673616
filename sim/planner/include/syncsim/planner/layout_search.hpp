#pragma once
// `syncsim plan --layouts auto`: per plan point (GPU type, network, count), the fastest layout that fits, found by
// bound-and-prune as `--algo auto` finds a collective (docs/planner.md, "The layout search").
//
//   1. the candidates of the count (layout_space.hpp), valid by construction, the rest counted by reason;
//   2. memory first (run/layout_probe.hpp, no simulation): a candidate that does not fit with its activations kept
//      is tried with selective, then full checkpointing; one that fits in none is left out;
//   3. a lower bound of each fitting candidate's iteration (the engine's setup with every collective at its floor);
//   4. the scenario's own layout first when it fits as it is written (the search never answers slower than what the
//      user wrote), then simulation in the order of the bounds, until the next bound is no faster than the best
//      simulated time: every candidate left is pruned, none of them could win. At most `max_simulations` per point are
//      simulated; the output says so when that cap, not the bound, ended a point's search.
//
// A point where no candidate fits simulates the one closest to fitting, listed as not fitting. Every count holds
// the global batch it is given (plan_command.cpp decides which): layouts are compared on the same work.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/planner/layout_space.hpp"
#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::planner {

struct LayoutSearchStats {
  std::int64_t candidates = 0;   // generated for the count
  SkipCounts skipped;            // left out, by reason (the space's and the model's refusals)
  std::int64_t not_fitting = 0;  // in memory under every checkpointing
  std::int64_t simulated = 0;
  std::int64_t pruned = 0;      // fitting, their bound no faster than the best simulated
  std::int64_t unexplored = 0;  // fitting, bound faster, left by the max_simulations cap

  LayoutSearchStats& operator+=(const LayoutSearchStats& o);
};

struct LayoutSearchOptions {
  LayoutSpace space;
  double memory_headroom = 0;  // the share of each GPU's memory kept free
  std::int64_t max_simulations = 8;
};

struct SearchedPoint {
  std::string label;                   // the chosen layout, label_of
  std::vector<std::string> overrides;  // the point's, then the layout's: `syncsim run --set` each to reproduce it
  TrainingReport report;               // its simulation
  LayoutSearchStats stats;
};

// Searches the layouts of one plan point holding `global_batch` samples per iteration. Throws InputError when the
// count has no candidate at all (the reasons counted in the message).
SearchedPoint search_layouts(const std::filesystem::path& scenario, const SweepPoint& point, std::int64_t global_batch,
                             const LayoutSearchOptions& options, run::Workspace& workspace);

// A simulated candidate counted, and kept as the search's answer when it is the fastest so far (`best` its time).
void keep_fastest(SearchedPoint& out, std::optional<SimTime>& best, std::string label,
                  std::vector<std::string> overrides, TrainingReport report);

// Step 4 of a search: simulate(i) for i = 0, 1, ... (the candidates in the order of their bounds) until the next
// bound is no faster than best() (the rest counted pruned) or max_simulations have run (the rest unexplored). A
// candidate without a bound (nullopt) is never pruned.
void simulate_in_bound_order(std::size_t count, const std::function<std::optional<SimTime>(std::size_t)>& bound,
                             const std::function<std::optional<SimTime>()>& best,
                             const std::function<void(std::size_t)>& simulate, std::int64_t max_simulations,
                             LayoutSearchStats& stats);

// The space of the scenario's model (its blocks, sequence, experts; its tp_comm_overlap and batch_per_gpu).
LayoutSpace layout_space(const Scenario& base);

// Whether `memory` fits with `headroom` (a share of the capacity) kept free.
bool fits_with_headroom(const MemoryReport& memory, double headroom);

// The plan header's line: candidates, simulated, pruned, not fitting, and the skipped ones by reason; `noun` and
// `space` say what was searched (a recommendation model's placements, embedding_search.hpp, say their own).
std::string search_summary(const std::vector<SearchedPoint>& points, std::string_view noun = "layouts",
                           std::string_view space =
                               "tensor x pipeline x virtual stages x context x expert x sharding "
                               "x micro-batch size x checkpointing");

}  // namespace syncsim::planner
