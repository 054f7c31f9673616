// make_plan: every algorithm is reachable by name with its context (roots, hosts, channels), and impossible
// requests are InputErrors that say why.
#include <catch2/catch.hpp>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/tree_plan.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

TEST_CASE("make_plan builds every algorithm", "[algorithm]") {
  PlanContext context;
  context.hosts = {{Rank{0}, Rank{1}}, {Rank{2}, Rank{3}}};
  for (auto algorithm :
       {Algorithm::ring, Algorithm::tree, Algorithm::halving_doubling, Algorithm::hierarchical, Algorithm::direct}) {
    const auto plan = make_plan(algorithm, CollectiveOp::allreduce, 4, Bytes{4096}, context);
    CHECK(plan->algorithm() == to_string(algorithm));
    CHECK(plan->rank_count() == 4);
    CHECK(plan->size() == Bytes{4096});
  }
  // PAT runs AllGather and ReduceScatter only.
  const auto pat = make_plan(Algorithm::pat, CollectiveOp::all_gather, 4, Bytes{4096}, context);
  CHECK(pat->algorithm() == "pat");
  CHECK_THROWS_AS(make_plan(Algorithm::pat, CollectiveOp::allreduce, 4, Bytes{4096}, context), InputError);
}

TEST_CASE("tree channels alternate between the two trees, roots carry over", "[algorithm]") {
  PlanContext context;
  context.channel = 3;
  const auto odd = make_plan(Algorithm::tree, CollectiveOp::allreduce, 8, Bytes{64}, context);
  CHECK(dynamic_cast<const TreePlan&>(*odd).root() == Rank{7});  // tree 1 on 8 ranks: mirrored
  context.channel = 2;
  context.root = Rank{5};
  const auto rooted = make_plan(Algorithm::tree, CollectiveOp::broadcast, 8, Bytes{64}, context);
  CHECK(dynamic_cast<const TreePlan&>(*rooted).root() == Rank{5});
}

TEST_CASE("make_plan refuses what an algorithm cannot do", "[algorithm]") {
  PlanContext context;
  CHECK_THROWS_WITH(make_plan(Algorithm::hierarchical, CollectiveOp::allreduce, 4, Bytes{64}, context),
                    Catch::Contains("host"));
  CHECK_THROWS_WITH(make_plan(Algorithm::tree, CollectiveOp::all_gather, 4, Bytes{64}, context),
                    Catch::Contains("cannot run"));
  CHECK_THROWS_WITH(make_plan(Algorithm::direct, CollectiveOp::allreduce, 128, Bytes{64}, context),
                    Catch::Contains("small groups"));
  context.pipeline_slices = 4;
  CHECK_NOTHROW(make_plan(Algorithm::tree, CollectiveOp::allreduce, 4, Bytes{64}, context));
  CHECK_THROWS_WITH(make_plan(Algorithm::halving_doubling, CollectiveOp::allreduce, 4, Bytes{64}, context),
                    Catch::Contains("takes no slices"));
  CHECK_THROWS_WITH(make_plan(Algorithm::direct, CollectiveOp::allreduce, 4, Bytes{64}, context),
                    Catch::Contains("takes no slices"));
}

TEST_CASE("one table names the algorithms, both ways", "[algorithm]") {
  for (const auto& [name, algorithm] : kAlgorithmNames) {
    CHECK(to_string(algorithm) == name);
    CHECK(parse_algorithm(name) == algorithm);
    CHECK(find_algorithm(name) == algorithm);
  }
  // auto and best are the caller's (algorithm_selection.hpp), not an algorithm; the message lists all three kinds.
  CHECK(find_algorithm("auto") == std::nullopt);
  CHECK(find_algorithm("Ring") == std::nullopt);
  CHECK_THROWS_WITH(parse_algorithm("rign"),
                    "unknown algorithm 'rign': expected ring, tree, halving_doubling, hierarchical, direct, pat, nvls, "
                    "nvls_tree, collnet_direct, collnet_chain, auto or best");
}
