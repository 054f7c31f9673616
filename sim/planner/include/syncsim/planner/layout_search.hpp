#pragma once
// `syncsim plan --layouts auto`: for each GPU count, the layouts worth simulating, and the best of them standing
// for the count (Calculon's optimal-execution search, on the simulated topology instead of a formula).
//
// Candidates per point of n GPUs: tensor t in {1, 2, 4, 8} and pipeline p in {1, 2, 4, 8, 16} with t x p dividing
// n (data = n / (t x p)), p at most the model's transformer blocks, sharding none, optimizer (Megatron's
// distributed optimizer) or full (FSDP), each with activation checkpointing off, or full where off does not fit,
// and with the micro-batches (model.micro_batches) that keep the global batch the scenario's own layout trains at
// that size — layouts are compared on the same work per iteration, as Calculon compares them; a layout whose
// data-parallel size does not divide it is left out.
// A model without transformer blocks has no tensor or pipeline split: its candidates are the sharding levels
// (data parallelism only). Every candidate's memory is checked first (memory_check.hpp, no simulation): only those
// that fit are simulated; a point where none fits keeps the one closest to fitting, to be listed as not fitting.
//
// The best candidate of a point is the fastest that fits; its layout is named in the table ("TP8 PP4 DP8
// optimizer"). Scaling efficiency is then measured against the smallest count planned, per GPU (what one GPU of
// the smallest cluster delivers): one GPU cannot hold a model that needs a layout, so "x one GPU" means nothing.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/sweep_point.hpp"

namespace syncsim::planner {

struct LayoutCandidate {
  std::size_t point = 0;  // the plan point it is a layout of
  std::string label;      // "TP8 PP4 DP8 optimizer mb16", "+ckpt" with full checkpointing
  SweepPoint run;         // the point's overrides, then the layout's
};

// The candidates of every point, memory-checked against `scenario` (the file plan_points' overrides apply to).
std::vector<LayoutCandidate> layout_candidates(const std::filesystem::path& scenario,
                                               const std::vector<SweepPoint>& points);

// Per plan point, the fastest candidate that fits (else the closest to fitting), with PlanPoint::layout set;
// `results[i]` is candidate i's point.
std::vector<PlanPoint> best_layouts(const std::vector<LayoutCandidate>& candidates, std::vector<PlanPoint> results,
                                    std::size_t points);

// Scaling efficiency per configuration against its smallest count's throughput per GPU.
void rebase_on_smallest(std::vector<PlanPoint>& points);

}  // namespace syncsim::planner
