// Topology specs: `KIND:key=value,...` parsing, and every bad input as an InputError naming the key and column.
#include "syncsim/topology/topology_spec.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace syncsim;

namespace {

InputError error_of(const std::string& text) {
  try {
    build_topology(text, "--topology");
  } catch (const InputError& error) {
    return error;
  }
  FAIL("expected an InputError for " << text);
  throw std::logic_error("unreachable");
}

// 1-based column of the first occurrence of `part` in `text`.
int column_of(const std::string& text, const std::string& part) {
  const auto at = text.find(part);
  REQUIRE(at != std::string::npos);
  return static_cast<int>(at) + 1;
}

}  // namespace

TEST_CASE("a spec string splits into kind, values and the column of each value", "[topology_spec]") {
  const std::string text = "switch:n=8,bw=100Gbps, lat=5us";
  const TopologySpec spec = parse_topology_spec(text, "--topology");
  CHECK(spec.kind == "switch");
  CHECK(spec.params.size() == 3);
  CHECK(spec.params.at("n") == "8");
  CHECK(spec.params.at("bw") == "100Gbps");
  CHECK(spec.params.at("lat") == "5us");
  CHECK(spec.param_locations.at("n").column == 10);
  CHECK(spec.param_locations.at("bw").column == column_of(text, "100Gbps"));
  CHECK(spec.param_locations.at("lat").column == column_of(text, "5us"));
  CHECK(spec.param_locations.at("lat").source == "--topology");
  CHECK(spec.param_locations.at("lat").line == 0);
}

TEST_CASE("a bare kind parses with no parameters", "[topology_spec]") {
  CHECK(parse_topology_spec("ring").kind == "ring");
  CHECK(parse_topology_spec("ring").params.empty());
  CHECK(parse_topology_spec("ring:").params.empty());
  // ...but ring has required keys, so building it says which.
  const InputError error = error_of("ring");
  CHECK(error.key() == "n");
}

TEST_CASE("the description is the canonical spec: the generator's key order, spaces dropped", "[topology_spec]") {
  const Topology topology = build_topology("switch: lat=5us , bw=100Gbps, n=8");
  CHECK(topology.description() == "switch:n=8,bw=100Gbps,lat=5us");
  CHECK(build_topology(topology.description()).description() == topology.description());
}

TEST_CASE("bad specs throw InputError naming the key and the column", "[topology_spec]") {
  struct Case {
    std::string text;
    std::string key;
    std::string points_at;  // the text the column points at ("" = column 1)
    std::string says;       // part of the message
  };
  const std::vector<Case> cases{
      {":n=8", "kind", "", "missing topology kind"},
      {"n=8,bw=1Gbps", "kind", "", "KIND:key=value"},
      {"blob:n=8", "kind", "", "valid kinds: ring, mesh, switch, fattree, torus, dgx, file"},
      {"ring:n=8,bw", "bw", "bw", "expected key=value"},
      {"ring:n=8,,bw=1Gbps", "", ",bw", "empty parameter"},
      {"ring:n=8,=3,bw=1Gbps", "", "=3", "missing key"},
      {"ring:n=8,bw=,lat=1us", "bw", ",lat", "missing value"},
      {"ring:n=8,n=4,bw=1Gbps", "n", "n=4", "duplicate key"},
      {"ring:n=8,bw=1Gbps,foo=7", "foo", "7", "valid keys: n, bw, lat, link_kind"},
      {"ring:bw=1Gbps", "n", "", "needs key 'n'"},
      {"ring:n=8,bw=100", "bw", "100", "without its unit"},
      {"ring:n=8,bw=100Gbx", "bw", "100Gbx", "unknown unit"},
      {"ring:n=1,bw=1Gbps", "n", "1,", "at least 2"},
      {"ring:n=eight,bw=1Gbps", "n", "eight", "whole number"},
      {"ring:n=8,bw=0Gbps", "bw", "0Gbps", "greater than zero"},
      {"ring:n=8,bw=-5Gbps", "bw", "-5Gbps", "greater than zero"},
      {"ring:n=8,bw=1Gbps,lat=-1us", "lat", "-1us", "negative"},
      {"ring:n=8,bw=1Gbps,lat=5", "lat", "5", "without its unit"},
      {"ring:n=8,bw=1Gbps,link_kind=ib", "link_kind", "ib", "nvlink, pcie, network"},
      {"mesh:n=2000,bw=1Gbps", "n", "2000", "at most"},
      {"torus:dims=4x,bw=1Gbps", "dims", "4x", "4x4"},
      {"torus:dims=4,bw=1Gbps", "dims", "4,", "2 or 3 dimensions"},
      {"torus:dims=1x4,bw=1Gbps", "dims", "1x4", "at least 2"},
      {"torus:dims=2x2x2x2,bw=1Gbps", "dims", "2x2x2x2", "2 or 3 dimensions"},
      {"fattree:n=8,bw=1Gbps,radix=7", "radix", "7", "even"},
      {"fattree:n=8,bw=1Gbps,radix=2", "radix", "2", "at least 4"},
      {"fattree:n=8,bw=1Gbps,tiers=4", "tiers", "4", "at most 3"},
      {"fattree:n=8,bw=1Gbps,oversub=0.5", "oversub", "0.5", "at least 1"},
      {"fattree:n=33,bw=1Gbps,radix=8", "n", "33", "at most 32 GPUs"},
      {"fattree:n=129,bw=1Gbps,radix=8,tiers=3", "n", "129", "at most 128 GPUs"},
      {"dgx:nodes=0", "nodes", "0", "at least 1"},
      {"dgx:gpus=1,nodes=1", "gpus", "1", "at least 2 GPUs"},
      {"dgx:nodes=2,rails=9", "rails", "9", "at most 8"},
      {"dgx:nodes=2,nic_bw=fast", "nic_bw", "fast", "bandwidth"},
      {"dgx:nodes=36,gpus=4,nvlink_domain=5", "nvlink_domain", "5", "must divide nodes"},
      {"dgx:nodes=2,nvlink_domain=3", "nvlink_domain", "3", "at most 2"},
      {"file:path=cluster.txt", "path", "cluster.txt", "expected .dot"},
      {"file:path=does_not_exist.dot", "path", "does_not_exist.dot", "no such file"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const InputError error = error_of(c.text);
    const int column = c.points_at.empty() ? 1 : column_of(c.text, c.points_at);
    CHECK(error.key() == c.key);
    REQUIRE(error.where().has_value());
    CHECK(error.where()->source == "--topology");
    CHECK(error.where()->column == column);
    const std::string what = error.what();
    CHECK_THAT(what, Catch::Contains("--topology:" + std::to_string(column) + ":"));
    if (!c.key.empty()) CHECK_THAT(what, Catch::Contains(c.key + ":"));
    CHECK_THAT(what, Catch::Contains(c.says));
  }
}

TEST_CASE("too many GPUs for a two-tier fat tree suggests the fixes", "[topology_spec]") {
  const InputError error = error_of("fattree:n=300,bw=100Gbps");
  CHECK_THAT(error.what(),
             Catch::Contains("at most 128") && Catch::Contains("tiers=3") && Catch::Contains("larger radix"));
}

TEST_CASE("a spec from a file keeps the file's locations", "[topology_spec]") {
  TopologySpec spec;
  spec.kind = "ring";
  spec.params = {{"n", "8"}, {"bw", "100"}};
  spec.param_locations = {{"n", SourceLocation{"scenario.yaml", 4, 8}}, {"bw", SourceLocation{"scenario.yaml", 5, 9}}};
  spec.location = SourceLocation{"scenario.yaml", 3, 3};
  try {
    build_topology(spec);
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    CHECK_THAT(error.what(), Catch::StartsWith("scenario.yaml:5:9: bw: "));
  }
}
