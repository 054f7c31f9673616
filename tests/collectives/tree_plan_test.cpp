// NCCL's tree as pure data: the node-level double binary tree pinned against NCCL's own construction, the chains
// and how they attach, schedules that move the right data for every root and slice count, byte totals, bad input.
#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include "plan_checks.hpp"
#include "syncsim/collectives/double_binary_tree.hpp"
#include "syncsim/collectives/tree_plan.hpp"
#include "syncsim/core/input_error.hpp"
#include "test_fabrics.hpp"

using namespace syncsim;
using namespace syncsim::test_fabrics;
using plan_checks::check_moves_right_data;

namespace {

// NCCL's rules as NCCL 2.30 src/graph/trees.cc states them, on bits rather than positions. ncclGetBtree: with b the
// lowest set bit of r, the parent is (r ^ b) | 2b, or r ^ b when that is out of range; the children are r - b/2 and
// r + b/2 (b/4, b/8, ... while out of range); node 0's one child is P/2, P the smallest power of two >= n, in the
// second slot; a node is its parent's first child when it is smaller. ncclGetDtree: tree 1 runs the same on
// n-1-r (even n) or r-1 mod n (odd n) and maps the answers back.
struct Reference {
  int parent = -1;
  int slot = 0;
  std::array<int, 2> children{-1, -1};
};

Reference btree(int n, int r) {
  Reference ref;
  int bit = 1;
  while (bit < n && (bit & r) == 0) bit <<= 1;
  if (r == 0) {
    ref.children[1] = n > 1 ? bit >> 1 : -1;
    return ref;
  }
  ref.parent = (r ^ bit) | (bit << 1);
  if (ref.parent >= n) ref.parent = r ^ bit;
  ref.slot = r < ref.parent ? 0 : 1;
  for (int low = bit >> 1; low > 0; low >>= 1) {
    if (ref.children[0] < 0) ref.children[0] = r - low;
    if (r + low < n) {
      ref.children[1] = r + low;
      break;
    }
  }
  return ref;
}

Reference dtree(int n, int tree, int r) {
  if (tree == 0) return btree(n, r);
  const auto to = [&](int x) { return n % 2 == 0 ? n - 1 - x : (x - 1 + n) % n; };
  const auto back = [&](int x) { return x < 0 ? -1 : n % 2 == 0 ? n - 1 - x : (x + 1) % n; };
  Reference ref = btree(n, to(r));
  ref.parent = back(ref.parent);
  for (int& c : ref.children) c = back(c);
  return ref;
}

int value(const std::optional<std::uint32_t>& x) {
  return x ? static_cast<int>(*x) : -1;
}

bool interior(std::uint32_t n, std::uint32_t tree, std::uint32_t node) {
  const TreeLinks links = double_binary_tree_links(n, tree, node);
  return links.children[0] || links.children[1];
}

TreeOptions options_for(std::uint32_t which, std::uint32_t slices = 1, Rank root = Rank{0},
                        std::vector<std::vector<Rank>> hosts = {}) {
  TreeOptions options;
  options.tree = which;
  options.pipeline_slices = slices;
  options.root = root;
  options.hosts = std::move(hosts);
  return options;
}

TreePlan tree(CollectiveOp op, std::size_t n, const TreeOptions& options) {
  return TreePlan(op, n, Bytes{static_cast<std::int64_t>(n) * 7919 * options.pipeline_slices}, options);
}

}  // namespace

TEST_CASE("the node tree is NCCL's double binary tree for 2 to 64 nodes: parents, slots, children", "[tree_plan]") {
  for (std::uint32_t n = 2; n <= 64; ++n) {
    for (std::uint32_t which : {0u, 1u}) {
      for (std::uint32_t node = 0; node < n; ++node) {
        INFO("n=" << n << " tree " << which << " node " << node);
        const Reference ref = dtree(static_cast<int>(n), static_cast<int>(which), static_cast<int>(node));
        const TreeLinks links = double_binary_tree_links(n, which, node);
        CHECK(value(links.parent) == ref.parent);
        if (links.parent) CHECK(links.slot == static_cast<std::uint32_t>(ref.slot));
        CHECK(value(links.children[0]) == ref.children[0]);
        CHECK(value(links.children[1]) == ref.children[1]);
      }
    }
  }
}

TEST_CASE("double binary tree: roots, reachability, every node interior in one tree (odd n: node 0 in both)",
          "[tree_plan]") {
  for (std::uint32_t n = 2; n <= 64; ++n) {
    INFO("n=" << n);
    CHECK(double_binary_tree_root(n, 0) == 0);
    CHECK(double_binary_tree_root(n, 1) == (n % 2 == 0 ? n - 1 : 1));
    for (std::uint32_t which : {0u, 1u}) {
      // Every node reaches the root, and parent and child agree on the slot.
      for (std::uint32_t node = 0; node < n; ++node) {
        std::uint32_t q = node;
        for (std::uint32_t hops = 0; hops < n && q != double_binary_tree_root(n, which); ++hops) {
          const TreeLinks links = double_binary_tree_links(n, which, q);
          REQUIRE(links.parent);
          CHECK(double_binary_tree_links(n, which, *links.parent).children[links.slot] == q);
          q = *links.parent;
        }
        CHECK(q == double_binary_tree_root(n, which));
      }
    }
    for (std::uint32_t node = 0; node < n; ++node) {
      INFO("node " << node);
      CHECK((interior(n, 0, node) || interior(n, 1, node)));  // a leaf in at most one tree
      if (n % 2 == 0 || node != 0) CHECK_FALSE((interior(n, 0, node) && interior(n, 1, node)));
    }
  }
}

TEST_CASE("tree 0 on 14 nodes is NCCL's picture: 0 -> 8, 8 -> 4 12, 12 -> 10 13, tree 1 mirrors it", "[tree_plan]") {
  const TreeLinks root = double_binary_tree_links(14, 0, 0);
  CHECK_FALSE(root.parent);
  CHECK_FALSE(root.children[0]);
  CHECK(root.children[1] == 8u);
  CHECK(double_binary_tree_links(14, 0, 12).children == std::array<std::optional<std::uint32_t>, 2>{10u, 13u});
  CHECK(double_binary_tree_links(14, 0, 13).parent == 12u);  // 14 does not exist: 13 hangs from 12
  CHECK(double_binary_tree_links(14, 0, 13).slot == 1);
  CHECK(double_binary_tree_links(14, 1, 13).children[1] == 5u);  // 13-p: the root 13 over 5
  CHECK(double_binary_tree_links(14, 1, 0).parent == 1u);
}

TEST_CASE("4 nodes of 4 GPUs: chains inside nodes, heads attached as BALANCED_TREE (the header's picture) or TREE",
          "[tree_plan]") {
  TreeOptions balanced = options_for(0, 1, Rank{0}, hosts_of(4, 4));
  balanced.pattern = TreePattern::balanced_tree;
  const TreePlan plan = tree(CollectiveOp::allreduce, 16, balanced);
  CHECK(plan.root() == Rank{0});
  for (std::uint32_t r = 0; r < 16; ++r) {
    if (r % 4 != 0) CHECK(plan.parent(Rank{r}) == Rank{r - 1});  // the chain
  }
  CHECK(plan.parent(Rank{8}) == Rank{0});   // node 2 is node 0's child in slot 1: on GPU 0.0
  CHECK(plan.parent(Rank{4}) == Rank{9});   // node 1, slot 0 of node 2: on GPU 2.1
  CHECK(plan.parent(Rank{12}) == Rank{8});  // node 3, slot 1 of node 2: on GPU 2.0
  CHECK(plan.depth() == 6);                 // 0 -> 8 -> 9 -> 4 -> 5 -> 6 -> 7
  CHECK(plan.children(Rank{9}) == std::vector<Rank>{Rank{10}, Rank{4}});

  // TREE (the default): every child node on the head, so all of a node's network traffic is on its head's rail.
  const TreePlan head = tree(CollectiveOp::allreduce, 16, options_for(0, 1, Rank{0}, hosts_of(4, 4)));
  CHECK(head.parent(Rank{4}) == Rank{8});
  CHECK(head.parent(Rank{12}) == Rank{8});
  CHECK(head.children(Rank{8}) == std::vector<Rank>{Rank{9}, Rank{4}, Rank{12}});
  CHECK(head.depth() == 5);  // 0 -> 8 -> 4 -> 5 -> 6 -> 7

  // Tree 1 (mirrored: root node 3, whose only child is node 1) on the second chain of two, entered at local GPU 2.
  TreeOptions second = balanced;
  second.tree = 1;
  second.chain = 1;
  second.chains = 2;
  const TreePlan other = tree(CollectiveOp::allreduce, 16, second);
  CHECK(other.root() == Rank{14});
  CHECK(other.parent(Rank{15}) == Rank{14});
  CHECK(other.parent(Rank{12}) == Rank{15});
  CHECK(other.parent(Rank{6}) == Rank{14});  // node 1 hangs from node 3's head in slot 1
}

TEST_CASE("one GPU per node attaches everything to the head (TREE), every rank its own node without hosts",
          "[tree_plan]") {
  for (std::uint32_t n : {2u, 5u, 14u, 33u}) {
    for (std::uint32_t which : {0u, 1u}) {
      const TreePlan plan = tree(CollectiveOp::allreduce, n, options_for(which));
      const TreePlan hosted = tree(CollectiveOp::allreduce, n, options_for(which, 1, Rank{0}, hosts_of(n, 1)));
      CHECK(plan.root() == Rank{double_binary_tree_root(n, which)});
      for (std::uint32_t r = 0; r < n; ++r) {
        const TreeLinks links = double_binary_tree_links(n, which, r);
        CHECK(plan.parent(Rank{r}) == (links.parent ? std::optional<Rank>(Rank{*links.parent}) : std::nullopt));
        CHECK(hosted.parent(Rank{r}) == plan.parent(Rank{r}));
      }
    }
  }
}

TEST_CASE("tree AllReduce: every rank ends with every slice summed over all ranks", "[tree_plan]") {
  for (std::uint32_t nodes : {2u, 3u, 5u, 8u}) {
    for (std::uint32_t gpus : {1u, 2u, 4u}) {
      for (std::uint32_t which : {0u, 1u}) {
        for (std::uint32_t slices : {1u, 2u, 5u}) {
          for (TreePattern pattern : {TreePattern::tree, TreePattern::split_tree, TreePattern::balanced_tree}) {
            TreeOptions options = options_for(which, slices, Rank{0}, hosts_of(nodes, gpus));
            options.pattern = pattern;
            check_moves_right_data(tree(CollectiveOp::allreduce, nodes * gpus, options), slices);
          }
        }
      }
    }
  }
}

TEST_CASE("tree Reduce and Broadcast re-root the tree on any root, the root heading its node's chain", "[tree_plan]") {
  for (std::uint32_t nodes : {2u, 3u, 6u}) {
    for (std::uint32_t gpus : {1u, 3u}) {
      const std::uint32_t n = nodes * gpus;
      for (std::uint32_t root = 0; root < n; root += 2) {
        for (std::uint32_t which : {0u, 1u}) {
          const TreeOptions options = options_for(which, 3, Rank{root}, hosts_of(nodes, gpus));
          const TreePlan reduce = tree(CollectiveOp::reduce, n, options);
          CHECK(reduce.root() == Rank{root});
          check_moves_right_data(reduce, 3, Rank{root});
          const TreePlan broadcast = tree(CollectiveOp::broadcast, n, options);
          CHECK(broadcast.root() == Rank{root});
          check_moves_right_data(broadcast, 3, Rank{root});
        }
      }
    }
  }
}

TEST_CASE("tree byte totals: AllReduce 2(n-1)S, Reduce and Broadcast (n-1)S, AllReduce has two streams a rank",
          "[tree_plan]") {
  for (std::uint32_t n : {2u, 5u, 8u, 12u}) {
    for (std::uint32_t slices : {1u, 4u}) {
      const TreeOptions options = options_for(1, slices, Rank{1}, n % 4 == 0 ? hosts_of(n / 4, 4) : hosts_of(n, 1));
      const TreePlan allreduce = tree(CollectiveOp::allreduce, n, options);
      CHECK(allreduce.participant_count() == 2 * n);
      CHECK(allreduce.participant(n + 1).rank == Rank{1});
      const double size = static_cast<double>(allreduce.size().value);
      const auto all = plan_checks::totals(allreduce);
      CHECK(all.sends == all.receives);
      CHECK(all.bytes_sent == Approx(2.0 * (n - 1) * size));
      for (auto op : {CollectiveOp::reduce, CollectiveOp::broadcast}) {
        const TreePlan plan = tree(op, n, options);
        CHECK(plan.participant_count() == n);
        const auto t = plan_checks::totals(plan);
        CHECK(t.sends == t.receives);
        CHECK(t.bytes_sent == Approx((n - 1) * size));
      }
    }
  }
}

TEST_CASE("tree send totals in closed form are the step-by-step sums: peers, order, transfers and bytes",
          "[tree_plan]") {
  for (std::uint32_t n : {2u, 3u, 8u, 13u, 24u}) {
    for (std::uint32_t slices : {1u, 7u, 64u}) {
      for (std::uint32_t which : {0u, 1u}) {
        const TreeOptions options =
            options_for(which, slices, Rank{n - 1}, n % 4 == 0 ? hosts_of(n / 4, 4) : hosts_of(n, 1));
        for (auto op : {CollectiveOp::allreduce, CollectiveOp::reduce, CollectiveOp::broadcast}) {
          const TreePlan plan(op, n, Bytes{1'000'003}, options);
          std::vector<PeerSends> closed;
          std::vector<PeerSends> stepped;
          for (std::uint32_t p = 0; p < plan.participant_count(); ++p) {
            plan.send_totals(Rank{p}, closed);
            plan.CollectivePlan::send_totals(Rank{p}, stepped);  // the default: every step read
            INFO("n=" << n << " slices=" << slices << " tree " << which << " participant " << p);
            REQUIRE(closed.size() == stepped.size());
            for (std::size_t i = 0; i < closed.size(); ++i) {
              CHECK(closed[i].dst == stepped[i].dst);
              CHECK(closed[i].transfers == stepped[i].transfers);
              CHECK(closed[i].bytes == Approx(stepped[i].bytes).epsilon(1e-12));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a tree relabelled: every chain of a channel pair runs as the first, step for step", "[tree_plan]") {
  // The checked property: whenever relabelling_of answers, the mapped participant has the same steps, each send
  // to the mapped peer with the same bytes and receiver's step. It must answer for the chains of one tree.
  for (const std::uint32_t nodes : {1u, 2u, 3u, 6u, 16u}) {
    for (const auto op : {CollectiveOp::allreduce, CollectiveOp::reduce, CollectiveOp::broadcast}) {
      for (const std::uint32_t which : {0u, 1u}) {
        std::vector<TreePlan> plans;
        for (std::uint32_t chain = 0; chain < 4; ++chain) {
          TreeOptions options = options_for(which, 5, Rank{0}, hosts_of(nodes, 8));
          options.chain = chain;
          options.chains = 4;
          plans.emplace_back(op, nodes * 8, Bytes{1'000'000}, options);
        }
        plans.emplace_back(op, nodes * 8, Bytes{1'000'000}, options_for(1 - which, 5, Rank{0}, hosts_of(nodes, 8)));
        for (std::size_t k = 0; k < plans.size(); ++k) {
          const std::vector<std::uint32_t> map = plans[k].relabelling_of(plans[0]);
          INFO(nodes << " nodes, " << to_string(op) << ", tree " << which << ", plan " << k);
          // Reduce and Broadcast re-root at rank 0, so their chains do not rotate: only AllReduce's must map.
          if (k < 4 && op == CollectiveOp::allreduce) REQUIRE(map.size() == plans[0].participant_count());
          if (!map.empty()) plan_checks::check_relabelling(plans[k], plans[0], map);
        }
      }
    }
  }
  // Another size, slice count or operation is never a relabelling.
  const TreePlan plan(CollectiveOp::allreduce, 16, Bytes{1'000'000}, options_for(0, 5, Rank{0}, hosts_of(2, 8)));
  CHECK(plan.relabelling_of(
                TreePlan(CollectiveOp::allreduce, 16, Bytes{1'000'001}, options_for(0, 5, Rank{0}, hosts_of(2, 8))))
            .empty());
  CHECK(plan.relabelling_of(
                TreePlan(CollectiveOp::allreduce, 16, Bytes{1'000'000}, options_for(0, 4, Rank{0}, hosts_of(2, 8))))
            .empty());
  CHECK(plan.relabelling_of(
                TreePlan(CollectiveOp::reduce, 16, Bytes{1'000'000}, options_for(0, 5, Rank{0}, hosts_of(2, 8))))
            .empty());
}

TEST_CASE("tree plans reject impossible set-ups", "[tree_plan]") {
  CHECK_THROWS_AS(TreePlan(CollectiveOp::allreduce, 1, Bytes{8}), InputError);
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::reduce_scatter, 4, Bytes{8}), Catch::Contains("cannot run"));
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::all_gather, 4, Bytes{8}), Catch::Contains("cannot run"));
  TreeOptions root;
  root.root = Rank{4};
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::reduce, 4, Bytes{8}, root), Catch::Contains("root 4"));
  TreeOptions slices;
  slices.pipeline_slices = 0;
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::allreduce, 4, Bytes{8}, slices), Catch::Contains("slices"));
  TreeOptions third;
  third.tree = 2;
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::allreduce, 4, Bytes{8}, third), Catch::Contains("trees 0 and 1"));
  TreeOptions twice;
  twice.hosts = {{Rank{0}, Rank{1}}, {Rank{1}, Rank{2}}};
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::allreduce, 4, Bytes{8}, twice), Catch::Contains("each of the 4 ranks"));
  TreeOptions missing;
  missing.hosts = {{Rank{0}, Rank{1}}, {Rank{2}}};
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::allreduce, 4, Bytes{8}, missing), Catch::Contains("each of the 4 ranks"));
}
