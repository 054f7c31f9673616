#pragma once
// The data-parallel replicas of a layout sorted into classes of alike ones under stragglers (straggler_model.hpp):
// the layout engines run one timeline per class, not per replica, so that one slow GPU among 16K costs two
// timelines, not thousands.
//
// Ranks are in Megatron's order (rank_layout.hpp): rank g + group x (r + replicas x d) is member g of replica r's
// stage d. A group (tensor x context ranks) meets at every collective inside a pass, so it computes at its slowest
// member's factor: F(r, d) = max over the group of factor(rank, iteration).
#include <cstdint>
#include <vector>

#include "syncsim/training/straggler_model.hpp"

namespace syncsim {

struct ReplicaClass {
  std::vector<double> stage_factors;  // F(r, d) for d = 0 .. stages - 1, alike for every replica of the class
  std::int64_t replicas = 0;          // how many replicas have them
};

// The classes of iteration `iteration`, in increasing order of their factors (deterministic); a single class of
// factors 1 without stragglers.
std::vector<ReplicaClass> replica_classes(const StragglerModel& model, std::int64_t group, std::int64_t replicas,
                                          std::int64_t stages, std::int64_t iteration);

// Whether the model slows or speeds any rank at all.
bool has_stragglers(const StragglerModel& model);

// The factor rank `rank`'s group of `group` consecutive ranks computes at in `iteration`: its slowest member's.
double group_factor(const StragglerModel& model, std::int64_t group, std::int64_t rank, std::int64_t iteration);

// The slowest of `ranks` ranks' factor in `iteration`: the pace of an engine whose every collective joins every rank
// (the sharded engine), 1 without stragglers.
double slowest_factor(const StragglerModel& model, std::int64_t ranks, std::int64_t iteration);

}  // namespace syncsim
