#pragma once
// SpecParams: one generator's typed view of a TopologySpec's `key=value` text.
//
// Every accessor parses with the units.hpp parsers and rethrows their errors with the key and the location of its
// value, so a generator never formats an error location itself. Construction rejects keys the generator does not
// know, listing the ones it does.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/topology/topology.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::topology_detail {

// The location, or none when it is the empty default (a spec built in code, not read from a file).
std::optional<SourceLocation> known(const SourceLocation& location);

class SpecParams {
 public:
  // `keys` are the keys the generator accepts, in the order canonical() writes them.
  SpecParams(const TopologySpec& spec, std::span<const std::string_view> keys);

  const std::string& kind() const { return spec_.kind; }
  bool has(std::string_view key) const;

  // Required when no fallback is given. Counts are whole numbers; bandwidths must be > 0; durations >= 0.
  std::int64_t count(std::string_view key, std::optional<std::int64_t> fallback = std::nullopt) const;
  double number(std::string_view key, std::optional<double> fallback = std::nullopt) const;
  Bandwidth bandwidth(std::string_view key, std::optional<Bandwidth> fallback = std::nullopt) const;
  SimTime duration(std::string_view key, std::optional<SimTime> fallback = std::nullopt) const;
  LinkKind link_kind(std::string_view key, LinkKind fallback) const;
  SwitchReduction switch_reduction(std::string_view key, SwitchReduction fallback) const;  // off | on | auto
  std::string text(std::string_view key) const;

  // Where the key's value came from (the spec's own location when the key was not given).
  std::optional<SourceLocation> location(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;

  // `kind:key=value,...` with the given keys in the generator's order: the topology's description.
  std::string canonical() const;

 private:
  const std::string* value(std::string_view key, bool required) const;
  std::string key_list() const;

  const TopologySpec& spec_;
  std::span<const std::string_view> keys_;
};

}  // namespace syncsim::topology_detail
