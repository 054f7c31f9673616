// Megatron's rank order: tensor fastest, then context, data, pipeline.
#include <catch2/catch.hpp>

#include <set>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/rank_layout.hpp"

using namespace syncsim;

using Groups = std::vector<std::vector<std::size_t>>;

TEST_CASE("groups follow Megatron's order: tensor, context, data, pipeline", "[layout]") {
  const RankLayout layout({.tensor = 2, .context = 1, .data = 2, .pipeline = 2});
  CHECK(layout.ranks() == 8);
  CHECK(layout.groups(GroupKind::tensor) == Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(layout.groups(GroupKind::data) == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(layout.groups(GroupKind::pipeline) == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(layout.stage_groups(GroupKind::data, 1) == Groups{{4, 6}, {5, 7}});
  const RankLayout with_context({.tensor = 2, .context = 2, .data = 1, .pipeline = 1});
  CHECK(with_context.groups(GroupKind::context) == Groups{{0, 2}, {1, 3}});
}

TEST_CASE("gradients are reduced over data x context: the ranks of one tensor index and stage", "[layout]") {
  // rank = t + 2 (c + 2 (d + 2 p)): the group of t = 0, p = 0 is c = 0, 1 of d = 0, then of d = 1.
  const RankLayout layout({.tensor = 2, .context = 2, .data = 2, .pipeline = 2});
  CHECK(layout.gradient_groups() == Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
  // Without context parallelism they are the data-parallel groups, and without data the context ones.
  const RankLayout no_context({.tensor = 2, .context = 1, .data = 2, .pipeline = 2});
  CHECK(no_context.gradient_groups() == no_context.groups(GroupKind::data));
  const RankLayout no_data({.tensor = 2, .context = 4, .data = 1, .pipeline = 1});
  CHECK(no_data.gradient_groups() == no_data.groups(GroupKind::context));
}

TEST_CASE("every rank is in exactly one group of each kind, and coordinates round-trip", "[layout]") {
  const RankLayout layout({.tensor = 4, .context = 2, .data = 3, .pipeline = 5});
  for (const GroupKind kind : {GroupKind::tensor, GroupKind::context, GroupKind::data, GroupKind::pipeline}) {
    std::set<std::size_t> seen;
    const Groups groups = layout.groups(kind);
    CHECK(static_cast<std::int64_t>(groups.size()) == layout.ranks() / layout.size(kind));
    for (const auto& group : groups) {
      CHECK(static_cast<std::int64_t>(group.size()) == layout.size(kind));
      for (const std::size_t r : group) CHECK(seen.insert(r).second);
    }
    CHECK(static_cast<std::int64_t>(seen.size()) == layout.ranks());
  }
  for (std::int64_t r = 0; r < layout.ranks(); ++r) CHECK(layout.rank(layout.coordinates(r)) == r);
}

TEST_CASE("tensor groups of 8 on 8-GPU nodes are the nodes, their data groups are the nodes' local GPUs", "[layout]") {
  const RankLayout layout({.tensor = 8, .context = 1, .data = 4, .pipeline = 1});
  const Groups tensor = layout.groups(GroupKind::tensor);
  for (std::size_t n = 0; n < tensor.size(); ++n) CHECK(tensor[n].front() == 8 * n);
  const Groups data = layout.groups(GroupKind::data);
  REQUIRE(data.size() == 8);
  for (std::size_t k = 0; k < 8; ++k) CHECK(data[k] == std::vector<std::size_t>{k, 8 + k, 16 + k, 24 + k});
}

TEST_CASE("layout sizes are checked", "[layout]") {
  CHECK_THROWS_WITH(RankLayout({.tensor = 0}), Catch::Contains("tensor parallel size must be at least 1"));
  CHECK_THROWS_AS(RankLayout({.tensor = 1 << 16, .context = 1 << 16, .data = 4}), InputError);
}
