#include "syncsim/training/rank_layout.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::int64_t kMaxRanks = std::int64_t{1} << 31;

std::int64_t& coordinate(RankCoordinates& c, GroupKind kind) {
  switch (kind) {
    case GroupKind::tensor:
      return c.tensor;
    case GroupKind::context:
      return c.context;
    case GroupKind::data:
      return c.data;
    case GroupKind::pipeline:
      return c.pipeline;
  }
  return c.tensor;
}
}  // namespace

std::string_view to_string(GroupKind kind) {
  switch (kind) {
    case GroupKind::tensor:
      return "tensor";
    case GroupKind::context:
      return "context";
    case GroupKind::data:
      return "data";
    case GroupKind::pipeline:
      return "pipeline";
  }
  return "?";
}

RankLayout::RankLayout(LayoutSizes sizes) : sizes_(sizes) {
  std::int64_t product = 1;
  for (const GroupKind kind : {GroupKind::tensor, GroupKind::context, GroupKind::data, GroupKind::pipeline}) {
    const std::int64_t n = size(kind);
    if (n < 1) throw InputError(fmt::format("{} parallel size must be at least 1, got {}", to_string(kind), n));
    if (product > kMaxRanks / n) throw InputError(fmt::format("a layout of more than {} ranks", kMaxRanks));
    product *= n;
  }
}

std::int64_t RankLayout::ranks() const {
  return sizes_.tensor * sizes_.context * sizes_.data * sizes_.pipeline;
}

std::int64_t RankLayout::size(GroupKind kind) const {
  RankCoordinates c{sizes_.tensor, sizes_.context, sizes_.data, sizes_.pipeline};
  return coordinate(c, kind);
}

RankCoordinates RankLayout::coordinates(std::int64_t rank) const {
  RankCoordinates c;
  c.tensor = rank % sizes_.tensor;
  rank /= sizes_.tensor;
  c.context = rank % sizes_.context;
  rank /= sizes_.context;
  c.data = rank % sizes_.data;
  c.pipeline = rank / sizes_.data;
  return c;
}

std::int64_t RankLayout::rank(const RankCoordinates& c) const {
  return c.tensor + sizes_.tensor * (c.context + sizes_.context * (c.data + sizes_.data * c.pipeline));
}

std::vector<std::vector<std::size_t>> RankLayout::groups(GroupKind kind) const {
  std::vector<std::vector<std::size_t>> out;
  const std::int64_t n = size(kind);
  for (std::int64_t r = 0; r < ranks(); ++r) {
    RankCoordinates c = coordinates(r);
    if (coordinate(c, kind) != 0) continue;  // each group once, from its member at coordinate 0
    std::vector<std::size_t>& group = out.emplace_back();
    for (std::int64_t k = 0; k < n; ++k) {
      coordinate(c, kind) = k;
      group.push_back(static_cast<std::size_t>(rank(c)));
    }
  }
  return out;
}

std::vector<std::vector<std::size_t>> RankLayout::gradient_groups() const {
  std::vector<std::vector<std::size_t>> out;
  for (std::int64_t r = 0; r < ranks(); ++r) {
    RankCoordinates c = coordinates(r);
    if (c.context != 0 || c.data != 0) continue;  // each group once, from its first member
    std::vector<std::size_t>& group = out.emplace_back();
    for (c.data = 0; c.data < sizes_.data; ++c.data) {
      for (c.context = 0; c.context < sizes_.context; ++c.context) group.push_back(static_cast<std::size_t>(rank(c)));
    }
  }
  return out;
}

std::vector<std::vector<std::size_t>> RankLayout::gradient_timing_groups() const {
  return groups(sizes_.data == 1 ? GroupKind::context : GroupKind::data);
}

std::vector<std::vector<std::size_t>> RankLayout::expert_groups(std::int64_t e) const {
  if (e < 1 || sizes_.data % e != 0) {
    throw InputError(fmt::format("expert groups of {} do not divide the {} data-parallel ranks", e, sizes_.data));
  }
  std::vector<std::vector<std::size_t>> out;
  for (const std::vector<std::size_t>& data : groups(GroupKind::data)) {
    for (std::size_t first = 0; first < data.size(); first += static_cast<std::size_t>(e)) {
      out.emplace_back(data.begin() + static_cast<std::ptrdiff_t>(first),
                       data.begin() + static_cast<std::ptrdiff_t>(first + static_cast<std::size_t>(e)));
    }
  }
  return out;
}

std::vector<std::vector<std::size_t>> RankLayout::amax_groups(bool tp_only) const {
  // Megatron's order (rank t + T(c + C(d + D p))) keeps a stage's tensor, context and data ranks consecutive.
  const std::int64_t size = sizes_.tensor * sizes_.context * (tp_only ? 1 : sizes_.data);
  std::vector<std::vector<std::size_t>> out;
  if (size < 2) return out;
  for (std::int64_t first = 0; first < ranks(); first += size) {
    auto& group = out.emplace_back();
    for (std::int64_t r = first; r < first + size; ++r) group.push_back(static_cast<std::size_t>(r));
  }
  return out;
}

std::vector<std::vector<std::size_t>> RankLayout::expert_data_groups(std::int64_t e) const {
  expert_groups(e);  // the check
  std::vector<std::vector<std::size_t>> out;
  for (const std::vector<std::size_t>& data : groups(GroupKind::data)) {
    for (std::size_t j = 0; j < static_cast<std::size_t>(e); ++j) {
      std::vector<std::size_t>& group = out.emplace_back();
      for (std::size_t i = j; i < data.size(); i += static_cast<std::size_t>(e)) group.push_back(data[i]);
    }
  }
  return out;
}

std::vector<std::vector<std::size_t>> RankLayout::stage_groups(GroupKind kind, std::int64_t stage) const {
  std::vector<std::vector<std::size_t>> out;
  for (std::vector<std::size_t>& group : groups(kind)) {
    if (coordinates(static_cast<std::int64_t>(group.front())).pipeline == stage) out.push_back(std::move(group));
  }
  return out;
}

}  // namespace syncsim
