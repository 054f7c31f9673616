// DOT import and export: attributes, GPU numbering, round trips, and errors that say where.
#include "syncsim/topology/dot_io.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>
#include <tuple>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

const std::string kDotData = SYNCSIM_TEST_DATA;

const Node& dot_node(const Topology& topology, const std::string& name) {
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    if (topology.node(NodeId{v}).name == name) return topology.node(NodeId{v});
  }
  FAIL("no node " << name);
  throw std::logic_error("unreachable");
}

using LinkRecord = std::tuple<std::string, std::string, double, std::int64_t, LinkKind, bool>;

// Every directed link by its endpoints' names, sorted: equal for topologies equal up to node and link order.
std::vector<LinkRecord> link_records(const Topology& topology) {
  std::vector<LinkRecord> records;
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    records.emplace_back(topology.node(link.src).name, topology.node(link.dst).name, link.bandwidth.bytes_per_second,
                         link.latency.ps(), link.kind, link.reverse == LinkId{l});
  }
  std::sort(records.begin(), records.end());
  return records;
}

InputError dot_error(const std::string& text) {
  try {
    read_dot_text(text, "test.dot");
  } catch (const InputError& error) {
    return error;
  }
  FAIL("expected an InputError for:\n" << text);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("read_dot: kinds, ranks, hosts, latencies and edge attributes", "[dot_io]") {
  const Topology topology = read_dot(kDotData + "/small.dot");
  CHECK(topology.node_count() == 7);
  CHECK(topology.gpu_count() == 4);
  CHECK(topology.link_count() == 2 * 6);
  // GPUs in rank order, whatever their names.
  CHECK(topology.node(topology.gpu(0)).name == "gpu_b");
  CHECK(topology.node(topology.gpu(1)).name == "gpu_c");
  CHECK(topology.node(topology.gpu(2)).name == "gpu_a");
  CHECK(topology.node(topology.gpu(3)).name == "gpu_d");
  CHECK(topology.node(topology.gpu(2)).host == std::optional<int>{1});
  const Node& sw = dot_node(topology, "sw");
  CHECK(sw.kind == NodeKind::network_switch);
  CHECK(sw.latency == SimTime::from_ns(300));
  CHECK(dot_node(topology, "pcie0").kind == NodeKind::pcie_switch);
  CHECK(topology.description() == kDotData + "/small.dot");

  const auto records = link_records(topology);
  CHECK(std::count(records.begin(), records.end(),
                   LinkRecord{"pcie0", "sw", 12.5e9, SimTime::from_us(1).ps(), LinkKind::network, false}) == 1);
  CHECK(std::count(records.begin(), records.end(), LinkRecord{"gpu_a", "pcie1", 64e9, 0, LinkKind::pcie, false}) == 1);
}

TEST_CASE("without ranks GPUs are numbered by name in natural order", "[dot_io]") {
  const Topology topology = read_dot_text(R"(graph { gpu10 -- gpu2 -- gpu1 -- gpu10 [bw="1GB/s"]; })", "inline");
  CHECK(topology.node(topology.gpu(0)).name == "gpu1");
  CHECK(topology.node(topology.gpu(1)).name == "gpu2");
  CHECK(topology.node(topology.gpu(2)).name == "gpu10");
}

TEST_CASE("digraph edges go one way each, and opposite edges pair up as one physical link", "[dot_io]") {
  const Topology topology = read_dot(kDotData + "/digraph.dot");
  CHECK(topology.gpu_count() == 3);
  CHECK(topology.link_count() == 4);
  std::size_t simplex = 0;
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    simplex += topology.link(LinkId{l}).reverse == LinkId{l} ? 1 : 0;
  }
  CHECK(simplex == 2);  // g0->g1 and g1->g0 pair up, the other two stand alone
}

TEST_CASE("write_dot then read_dot gives the same topology", "[dot_io]") {
  const auto spec =
      GENERATE(std::string{"ring:n=6,bw=100Gbps,lat=1us"}, std::string{"switch:n=4,bw=3Gbps,switch_lat=5ps"},
               std::string{"fattree:n=20,radix=8,bw=100Gbps,lat=1500ns,oversub=3"},
               std::string{"torus:dims=2x3x2,bw=50GB/s,lat=250ns"}, std::string{"dgx:nodes=2,rails=4"});
  INFO(spec);
  const Topology original = build_topology(spec);
  std::ostringstream out;
  write_dot(original, out);
  CHECK_THAT(out.str(), Catch::Contains("graph topology {") && !Catch::Contains("digraph"));
  const Topology back = read_dot_text(out.str(), "roundtrip.dot");
  CHECK(back.node_count() == original.node_count());
  CHECK(back.link_count() == original.link_count());
  CHECK(back.gpu_count() == original.gpu_count());
  for (std::size_t g = 0; g < original.gpu_count(); ++g) {
    CHECK(back.node(back.gpu(g)).name == original.node(original.gpu(g)).name);
    CHECK(back.node(back.gpu(g)).host == original.node(original.gpu(g)).host);
  }
  for (std::uint32_t v = 0; v < original.node_count(); ++v) {
    const Node& node = original.node(NodeId{v});
    CHECK(dot_node(back, node.name).kind == node.kind);
    CHECK(dot_node(back, node.name).latency == node.latency);
  }
  CHECK(link_records(back) == link_records(original));
}

TEST_CASE("write_dot writes a digraph when some link has no matching reverse", "[dot_io]") {
  const Topology original = read_dot(kDotData + "/digraph.dot");
  std::ostringstream out;
  write_dot(original, out);
  CHECK_THAT(out.str(), Catch::Contains("digraph topology {"));
  const Topology back = read_dot_text(out.str(), "roundtrip.dot");
  CHECK(link_records(back) == link_records(original));
}

TEST_CASE("a file spec reads DOT files and rejects other types", "[dot_io]") {
  const Topology topology = build_topology("file:path=" + kDotData + "/small.dot");
  CHECK(topology.gpu_count() == 4);
  CHECK(topology.description() == "file:path=" + kDotData + "/small.dot");
  CHECK_THROWS_WITH(build_topology("file:path=" + kDotData + "/topology.txt"),
                    Catch::Contains("unsupported file type '.txt'") && Catch::Contains("expected .dot"));
}

TEST_CASE("a path given in a scenario file is relative to that file", "[dot_io]") {
  TopologySpec spec;
  spec.kind = "file";
  spec.params = {{"path", "small.dot"}};
  spec.param_locations = {{"path", SourceLocation{kDotData + "/scenario.yaml", 3, 11}}};
  spec.location = SourceLocation{kDotData + "/scenario.yaml", 2, 3};
  CHECK(build_topology(spec).gpu_count() == 4);
}

TEST_CASE("a disconnected graph is an error naming two GPUs", "[dot_io]") {
  try {
    build_topology("file:path=" + kDotData + "/disconnected.dot");
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("disconnected.dot") && Catch::Contains("no path from gpu0 to gpu2"));
  }
}

TEST_CASE("an edge without bw is an error naming the edge, its line and its column", "[dot_io]") {
  try {
    read_dot(kDotData + "/missing_bw.dot");
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    CHECK(error.key() == "bw");
    REQUIRE(error.where().has_value());
    CHECK(error.where()->line == 7);
    CHECK(error.where()->column == 3);  // the edge statement starts after two spaces
    CHECK_THAT(error.what(), Catch::Contains("missing_bw.dot:7:3: bw: edge gpu1 -- sw0"));
  }
}

TEST_CASE("malformed DOT is an InputError, with the line where it can be found", "[dot_io]") {
  SECTION("unclosed brace") {
    const InputError error = dot_error("graph {\n  a -- b [bw=\"1Gbps\"];\n");
    CHECK(error.where()->line == 1);
    CHECK_THAT(error.what(), Catch::Contains("never closed"));
  }
  SECTION("unclosed attribute list") {
    const InputError error = dot_error("graph {\n  a -- b [bw=\"1Gbps\";\n}\n");
    CHECK(error.where()->line == 3);
  }
  SECTION("unterminated string") {
    const InputError error = dot_error("graph {\n  a -- b [bw=\"1Gbps];\n}\n");
    CHECK(error.where()->line == 2);
    CHECK_THAT(error.what(), Catch::Contains("unterminated"));
  }
  SECTION("unterminated comment") {
    const InputError error = dot_error("graph {\n  a -- b [bw=\"1Gbps\"];\n  /* b -- c\n}\n");
    CHECK(error.where()->line == 3);
    CHECK(error.where()->column == 3);
  }
  SECTION("brackets inside strings and comments are text") {
    const Topology topology = read_dot_text(
        "strict graph {\n  // a } in a comment\n  a -- b [bw=\"1Gbps\", label=\"{ \\\" "
        "[\"];\n}\n",
        "text.dot");
    CHECK(topology.gpu_count() == 2);
  }
  SECTION("not a graph") {
    CHECK_THAT(dot_error("network { a -- b }").what(), Catch::Contains("expected 'graph' or 'digraph'"));
  }
  SECTION("a syntax error only Boost notices") {
    const InputError error = dot_error("graph {\n  a -- -- b;\n}\n");
    CHECK(error.where()->source == "test.dot");
    CHECK_THAT(error.what(), Catch::Contains("malformed DOT"));
  }
  SECTION("wrong edge operator for the graph type") {
    CHECK_THROWS_AS(read_dot_text("graph { a -> b [bw=\"1Gbps\"]; }", "x.dot"), InputError);
  }
  SECTION("unknown node kind") {
    const InputError error = dot_error("graph {\n  a -- b [bw=\"1Gbps\"];\n  b [kind=tpu];\n}\n");
    CHECK(error.key() == "kind");
    CHECK(error.where()->line == 3);
    CHECK_THAT(error.what(), Catch::Contains("node b") && Catch::Contains("tpu"));
  }
  SECTION("bandwidth without unit") {
    const InputError error = dot_error("graph {\n  a -- b\n    [bw=100];\n  b -- c [bw=\"1Gbps\"];\n}\n");
    CHECK(error.key() == "bw");
    CHECK(error.where()->line == 2);
    CHECK_THAT(error.what(), Catch::Contains("edge a -- b") && Catch::Contains("without its unit"));
  }
  SECTION("duplicate ranks") {
    const InputError error = dot_error("graph { a [rank=0]; b [rank=0]; a -- b [bw=\"1Gbps\"]; }");
    CHECK(error.key() == "rank");
  }
  SECTION("a missing file") {
    CHECK_THROWS_WITH(read_dot(kDotData + "/nope.dot"), Catch::Contains("nope.dot") && Catch::Contains("cannot open"));
  }
}

TEST_CASE("subgraphs nested deeper than 256 levels are refused before Boost's parser recurses into them", "[dot_io]") {
  // Boost's read_graphviz recurses once per '{': 20,000 levels overflowed the stack (a segfault, not a message).
  const auto nested = [](int depth, const std::string& open) {
    std::string text = "graph g {\n  a -- b [bw=\"1Gbps\"];\n  ";
    for (int level = 0; level < depth; ++level) text += open;
    return text + std::string(static_cast<std::size_t>(depth), '}') + "\n}\n";
  };
  // With the graph's own braces, 256 levels (Boost takes nested subgraphs as `subgraph { ... }`).
  CHECK(read_dot_text(nested(255, "subgraph {"), "test.dot").gpu_count() == 2);
  const InputError deep = dot_error(nested(20'000, "{"));
  CHECK(std::string(deep.what()) == "test.dot:3:258: subgraphs nested deeper than 256 levels");
  // Braces in strings and comments are text, not nesting.
  const std::string quoted = "graph g {\n  a [label=\"" + std::string(1000, '{') + "\"];\n  a -- b [bw=\"1Gbps\"];\n" +
                             "  // " + std::string(1000, '{') + "\n}\n";
  CHECK(read_dot_text(quoted, "test.dot").gpu_count() == 2);
}

TEST_CASE("a DOT text with a byte-order mark and CR-only lines reads like the same text without", "[dot_io]") {
  const Topology plain = read_dot_text("graph g {\n  // GPUs\n  a -- b [bw=\"1Gbps\"];\n}\n", "test.dot");
  const Topology mac = read_dot_text("\xEF\xBB\xBFgraph g {\r  // GPUs\r  a -- b [bw=\"1Gbps\"];\r}\r", "test.dot");
  CHECK(link_records(mac) == link_records(plain));
}
