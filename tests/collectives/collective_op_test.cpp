#include <catch2/catch.hpp>

#include <sstream>

#include "syncsim/collectives/collective_op.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

TEST_CASE("busbw factors are nccl-tests'", "[collective_op]") {
  CHECK(bus_factor(CollectiveOp::allreduce, 8) == Approx(1.75));
  CHECK(bus_factor(CollectiveOp::all_gather, 8) == Approx(0.875));
  CHECK(bus_factor(CollectiveOp::reduce_scatter, 4) == Approx(0.75));
  CHECK(bus_factor(CollectiveOp::broadcast, 8) == 1.0);
  // 1 GB in 10 ms on 8 ranks: algbw 100 GB/s, busbw 175 GB/s.
  const auto bw = bus_bandwidth(CollectiveOp::allreduce, 8, Bytes{1'000'000'000}, SimTime::from_ms(10));
  CHECK(bw.algbw.gb_per_s() == Approx(100.0));
  CHECK(bw.busbw.gb_per_s() == Approx(175.0));
}

TEST_CASE("collective names parse and print", "[collective_op]") {
  for (auto op : {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                  CollectiveOp::broadcast, CollectiveOp::reduce}) {
    CHECK(parse_collective_op(to_string(op)) == op);
  }
  CHECK_THROWS_WITH(parse_collective_op("gather"), Catch::Contains("expected allreduce"));
}

TEST_CASE("rows round sizes as nccl-tests does and print in its column layout", "[collective_op]") {
  CollectiveRow row = make_row(CollectiveOp::allreduce, 8, Bytes{1030}, 0);
  CHECK(row.size.value == 1028);
  CHECK(row.count == 257);
  CHECK(row.root == -1);
  CollectiveRow gather = make_row(CollectiveOp::all_gather, 8, Bytes{1000}, 0);
  CHECK(gather.size.value == 992);  // multiple of 8 ranks x 4 bytes
  CHECK(gather.count == 31);        // per rank
  CHECK(gather.redop == "none");

  row.time = SimTime::from_us(32.01);
  row.bandwidth = bus_bandwidth(CollectiveOp::allreduce, 8, row.size, row.time);
  std::ostringstream out;
  print_nccl_tests_row(out, row);
  // Same widths as nccl-tests: "%12li  %12li  %8s  %6s  %6i" then per placement "  %7s  %6.2f  %6.2f  %5s".
  CHECK(out.str() ==
        "        1028           257     float     sum      -1    32.01    0.03    0.06    N/A    32.01    0.03    "
        "0.06    N/A\n");
}
