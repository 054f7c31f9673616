#pragma once
// StrongId: integer ids of different kinds (nodes, links, flows, ranks) that cannot be mixed up.
#include <compare>
#include <cstdint>
#include <functional>

namespace syncsim {

template <typename Tag>
class StrongId {
 public:
  constexpr StrongId() = default;
  constexpr explicit StrongId(std::uint32_t value) : value_(value) {}
  constexpr std::uint32_t value() const { return value_; }
  constexpr auto operator<=>(const StrongId&) const = default;

 private:
  std::uint32_t value_ = 0;
};

using NodeId = StrongId<struct NodeTag>;
using LinkId = StrongId<struct LinkTag>;
using FlowId = StrongId<struct FlowTag>;
using Rank = StrongId<struct RankTag>;

}  // namespace syncsim

template <typename Tag>
struct std::hash<syncsim::StrongId<Tag>> {
  std::size_t operator()(syncsim::StrongId<Tag> id) const noexcept { return std::hash<std::uint32_t>{}(id.value()); }
};
