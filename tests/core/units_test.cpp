#include <catch2/catch.hpp>

#include <algorithm>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/units.hpp"

using namespace syncsim;

TEST_CASE("sizes: SI, IEC and nccl-tests' bare binary prefixes", "[units]") {
  CHECK(parse_bytes("4096").value == 4096);
  CHECK(parse_bytes("64KiB").value == 65536);
  CHECK(parse_bytes("25MB").value == 25'000'000);
  CHECK(parse_bytes("1G").value == 1073741824);
  CHECK(parse_bytes("1.5 KiB").value == 1536);
  CHECK(parse_bytes("8GiB").value == 8LL * 1024 * 1024 * 1024);
}

TEST_CASE("sizes: bad input names what is wrong", "[units]") {
  CHECK_THROWS_WITH(parse_bytes("12 parsecs"), Catch::Contains("unknown unit 'parsecs'"));
  CHECK_THROWS_WITH(parse_bytes("MB"), Catch::Contains("expected a size"));
  CHECK_THROWS_WITH(parse_bytes("-5"), Catch::Contains("zero or more"));
  CHECK_THROWS_WITH(parse_bytes("1.5"), Catch::Contains("whole number of bytes"));
}

TEST_CASE("bandwidth: bits and bytes per second", "[units]") {
  CHECK(parse_bandwidth("100Gbps").bytes_per_second == Approx(12.5e9));
  CHECK(parse_bandwidth("12.5GB/s").bytes_per_second == Approx(12.5e9));
  CHECK(parse_bandwidth("12.5GBps").bytes_per_second == Approx(12.5e9));
  CHECK(parse_bandwidth("400 Gb/s").bytes_per_second == Approx(50e9));
  CHECK(parse_bandwidth("1GiB/s").bytes_per_second == Approx(1073741824.0));
}

TEST_CASE("bandwidth and time: a number without its unit is an error, not a guess", "[units]") {
  CHECK_THROWS_WITH(parse_bandwidth("100"), Catch::Contains("without its unit"));
  CHECK_THROWS_WITH(parse_duration("5"), Catch::Contains("without its unit"));
  CHECK_THROWS_WITH(parse_bandwidth("100 furlongs"), Catch::Contains("unknown unit 'furlongs'"));
  CHECK_THROWS_AS(parse_duration("fast"), InputError);
}

TEST_CASE("a time may be written in days, as a step time's 'at most 1 day' reads", "[units]") {
  CHECK(parse_duration("1d").seconds() == Approx(86400));
  CHECK_THROWS_WITH(parse_duration("200d"), Catch::Contains("is too large"));  // past the 9e6 s a duration may be
}

TEST_CASE("a bandwidth past a yottabyte a second is too large, not infinite", "[units]") {
  // 1e300GB/s is 1e309 B/s, infinite as a double: the flow model's rates and bytes would lose their meaning.
  CHECK_THROWS_WITH(parse_bandwidth("1e300GB/s"), Catch::Contains("is too large"));
  CHECK_THROWS_WITH(parse_bandwidth("2e15TB/s"), Catch::Contains("at most 1e24 B/s"));
  CHECK(parse_bandwidth("1e12TB/s").bytes_per_second == Approx(1e24));  // the tests' instant GPU's 1e21 fits
  CHECK_THROWS_WITH(parse_bandwidth("1e-300GB/s"), Catch::Contains("is too small (at least 1bps)"));
  CHECK(parse_bandwidth("1bps").bytes_per_second == Approx(0.125));
}

TEST_CASE("durations land on whole picoseconds", "[units]") {
  CHECK(parse_duration("5us").ps() == 5'000'000);
  CHECK(parse_duration("1.5ms").ps() == 1'500'000'000);
  CHECK(parse_duration("2s").ps() == 2'000'000'000'000);
  CHECK(parse_duration("700ns").ps() == 700'000);
  CHECK(parse_duration("1ps").ps() == 1);
}

TEST_CASE("counts and plain numbers", "[units]") {
  CHECK(parse_count("1024") == 1024);
  CHECK_THROWS_AS(parse_count("10.5"), InputError);
  CHECK_THROWS_AS(parse_count("8GB"), InputError);
  CHECK(parse_number("1.5") == 1.5);
  CHECK_THROWS_AS(parse_number("4x"), InputError);
}

TEST_CASE("printers pick readable units and round-trip through the parsers", "[units]") {
  CHECK(format_bytes(Bytes{65536}) == "64 KiB");
  CHECK(format_bytes(Bytes{100}) == "100 B");
  CHECK(format_bandwidth(parse_bandwidth("100Gbps")) == "12.5 GB/s");
  CHECK(format_duration(parse_duration("5us")) == "5 us");
  CHECK(format_duration(SimTime::from_ps(1'250'000'000)) == "1.25 ms");
  for (const char* text : {"64KiB", "3GiB", "12MiB"}) {
    const Bytes b = parse_bytes(text);
    std::string printed = format_bytes(b);
    printed.erase(std::remove(printed.begin(), printed.end(), ' '), printed.end());
    CHECK(parse_bytes(printed) == b);
  }
}

TEST_CASE("transfer time is bytes over bandwidth in whole picoseconds", "[units]") {
  CHECK(transfer_time(Bytes{12'500'000'000}, parse_bandwidth("100Gbps")).ps() == 1'000'000'000'000);
  CHECK(transfer_time(Bytes{1}, parse_bandwidth("100Gbps")).ps() == 80);
}

TEST_CASE("input errors render as one line with location and key", "[units]") {
  const InputError e("expected a bandwidth", SourceLocation{"scenario.yaml", 12, 7}, "cluster.topology.bw");
  CHECK(std::string(e.what()) == "scenario.yaml:12:7: cluster.topology.bw: expected a bandwidth");
  const InputError flag = InputError("bad").at(SourceLocation{"--topology", 0, 8});
  CHECK(std::string(flag.what()) == "--topology:8: bad");
}
