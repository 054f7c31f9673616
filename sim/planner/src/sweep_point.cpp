#include "syncsim/planner/sweep_point.hpp"

#include <fmt/format.h>

#include <set>

#include "syncsim/core/input_error.hpp"

namespace syncsim::planner {

namespace {

InputError vary_error(std::string message, std::string key = {}) {
  return InputError(std::move(message), SourceLocation{"--vary"}, std::move(key));
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return std::string(s.substr(first, last - first + 1));
}

std::vector<std::string> split_values(std::string_view text) {
  std::vector<std::string> out;
  if (text.find(';') != std::string_view::npos) {
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == ';') {
        out.push_back(trim(text.substr(start, i - start)));
        start = i + 1;
      }
    }
    return out;
  }
  // Commas inside YAML flow collections belong to the value.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && (text[i] == '[' || text[i] == '{')) ++depth;
    if (i < text.size() && (text[i] == ']' || text[i] == '}')) --depth;
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      out.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

VaryAxis parse_vary(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    throw vary_error(fmt::format("expected key.path=v1,v2,..., got '{}'", text));
  }
  VaryAxis axis{trim(text.substr(0, eq)), {}};
  if (axis.key.empty()) throw vary_error(fmt::format("no key before '=' in '{}'", text));
  const std::string_view range = text.substr(eq + 1);
  if (trim(range).empty()) throw vary_error("empty range: give at least one value after '='", axis.key);
  axis.values = split_values(range);
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    if (axis.values[i].empty()) {
      throw vary_error(fmt::format("value {} of '{}' is empty", i + 1, std::string(range)), axis.key);
    }
  }
  return axis;
}

std::size_t count_points(const std::vector<VaryAxis>& axes, bool zip) {
  std::set<std::string> keys;
  for (const VaryAxis& a : axes) {
    if (!keys.insert(a.key).second) throw vary_error("varied twice; give all its values in one --vary", a.key);
  }
  if (axes.empty()) return 0;
  std::size_t count = 1;
  if (zip) {
    for (const VaryAxis& a : axes) {
      if (a.values.size() != axes.front().values.size()) {
        throw InputError(fmt::format("{} has {} values but {} has {}: zipped axes need equal lengths", a.key,
                                     a.values.size(), axes.front().key, axes.front().values.size()),
                         SourceLocation{"--zip"});
      }
    }
    count = axes.front().values.size();
  } else {
    for (const VaryAxis& a : axes) {
      // Compared before multiplying, so the product can neither overflow nor pass the limit unseen.
      const std::size_t n = a.values.size();
      count = n != 0 && count > kMaxSweepPoints / n ? kMaxSweepPoints + 1 : count * n;
    }
  }
  if (count > kMaxSweepPoints) {
    throw vary_error(fmt::format("more than {} points ({} axes); a sweep runs one simulation per point: vary fewer "
                                 "values, or split the sweep",
                                 kMaxSweepPoints, axes.size()),
                     axes.back().key);
  }
  return count;
}

std::vector<SweepPoint> expand_points(const std::vector<VaryAxis>& axes, bool zip) {
  std::vector<SweepPoint> points;
  const std::size_t count = count_points(axes, zip);
  if (count == 0) return points;  // no axes, or an axis without values: the odometer below needs a value each
  points.reserve(count);
  auto make = [&](const std::vector<std::size_t>& choice) {
    SweepPoint p;
    p.index = points.size();
    for (std::size_t a = 0; a < axes.size(); ++a) {
      p.labels.push_back(axes[a].values[choice[a]]);
      p.overrides.push_back(axes[a].key + "=" + axes[a].values[choice[a]]);
    }
    points.push_back(std::move(p));
  };
  if (zip) {
    for (std::size_t i = 0; i < axes.front().values.size(); ++i) make(std::vector<std::size_t>(axes.size(), i));
    return points;
  }
  // An odometer: the last axis turns fastest.
  std::vector<std::size_t> choice(axes.size(), 0);
  while (true) {
    make(choice);
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++choice[a] < axes[a].values.size()) break;
      choice[a] = 0;
      if (a == 0) return points;
    }
  }
}

}  // namespace syncsim::planner
