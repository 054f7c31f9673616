#pragma once
// Sweep points: the scenario overrides one simulation of a sweep runs with.
//
//   syncsim sweep s.yaml --vary cluster.workers=8,16 --vary model.batch_per_gpu=32,64
//
// gives four points, the last axis varying fastest (as nested loops read):
//
//   #0 workers=8  batch=32     #1 workers=8  batch=64     #2 workers=16 batch=32     #3 workers=16 batch=64
//
// With --zip the axes must have equal lengths and point i takes value i of every axis (two points here if each
// axis had two values). A point's index is its place in this order: output rows are written in index order, so a
// sweep's output does not depend on how many threads or MPI ranks ran it.
//
// Values are split on commas outside brackets (`[1, 2]` and `{rank: 3}` stay whole); a list that contains ';' is
// split on ';' instead, for values that contain commas themselves (topology specs: `dgx:nodes=2,gpus=8;...`).
#include <string>
#include <string_view>
#include <vector>

namespace syncsim::planner {

struct VaryAxis {
  std::string key;                  // a scenario key path, as docs/scenarios.md lists them
  std::vector<std::string> values;  // YAML values, as written
};

struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::string> labels;     // one cell per varied column, as written by the user
  std::vector<std::string> overrides;  // `key.path=value`, applied in order
};

// Parses one `--vary key.path=v1,v2,...`; throws InputError at `--vary` for a missing '=', an empty key, an empty
// range or an empty value.
VaryAxis parse_vary(std::string_view text);

// A sweep runs one simulation per point; more than this is a typo (an axis pasted twice), not a plan, and its
// points alone would fill the memory before the first simulation.
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

// How many points expand_points gives, computed without expanding. Throws InputError at `--vary` for a key given
// twice or more than kMaxSweepPoints points, and at `--zip` for axes of unequal length.
std::size_t count_points(const std::vector<VaryAxis>& axes, bool zip);

// The cartesian product (or, with zip, the element-wise pairing) of the axes; throws what count_points throws.
std::vector<SweepPoint> expand_points(const std::vector<VaryAxis>& axes, bool zip);

}  // namespace syncsim::planner
