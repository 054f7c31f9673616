// NCCL topology XML import: node and link counts, bandwidths from NCCL's rate tables, GPU numbering, routes, and
// errors that point at the line and column.
#include "syncsim/topology/nccl_xml_io.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

const std::string kXmlData = SYNCSIM_TEST_DATA;
const std::string kExamples = SYNCSIM_EXAMPLES;

NodeId xml_node(const Topology& topology, const std::string& name) {
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    if (topology.node(NodeId{v}).name == name) return NodeId{v};
  }
  FAIL("no node " << name);
  throw std::logic_error("unreachable");
}

std::size_t count_kind(const Topology& topology, NodeKind kind) {
  std::size_t count = 0;
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) count += topology.node(NodeId{v}).kind == kind ? 1 : 0;
  return count;
}

std::size_t count_kind(const Topology& topology, LinkKind kind) {
  std::size_t count = 0;
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) count += topology.link(LinkId{l}).kind == kind ? 1 : 0;
  return count;
}

// The one directed link a -> b (of the given kind, if one is given).
const Link& xml_link(const Topology& topology, NodeId a, NodeId b, std::optional<LinkKind> kind = std::nullopt) {
  const Link* found = nullptr;
  for (const LinkId l : topology.out_links(a)) {
    if (topology.link(l).dst != b || (kind && topology.link(l).kind != *kind)) continue;
    REQUIRE(found == nullptr);
    found = &topology.link(l);
  }
  REQUIRE(found != nullptr);
  return *found;
}

// The only neighbour of `node` over a PCIe link.
std::string pcie_parent(const Topology& topology, NodeId node) {
  for (const LinkId l : topology.out_links(node)) {
    if (topology.link(l).kind == LinkKind::pcie) return topology.node(topology.link(l).dst).name;
  }
  return "";
}

// Node names along a route, endpoints included.
std::vector<std::string> hops(const Topology& topology, const Route& route) {
  std::vector<std::string> names{topology.node(topology.link(route.links.front()).src).name};
  for (const LinkId l : route.links) names.push_back(topology.node(topology.link(l).dst).name);
  return names;
}

double link_gbps(const Link& link) {
  return link.bandwidth.gb_per_s();
}

InputError xml_error(const std::string& text) {
  try {
    read_nccl_xml_text(text, "x.xml");
  } catch (const InputError& error) {
    return error;
  }
  FAIL("expected an InputError for:\n" << text);
  throw std::logic_error("unreachable");
}

// 1-based line and column of the first `needle` in `text`.
std::pair<int, int> position_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  const std::size_t line_start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  const auto line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  return {line + 1, static_cast<int>(at - line_start) + 1};
}

void check_at(const InputError& error, const std::string& text, const std::string& needle) {
  REQUIRE(error.where().has_value());
  CHECK(error.where()->source == "x.xml");
  CHECK(std::pair(error.where()->line, error.where()->column) == position_of(text, needle));
}

std::string nested(int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += "<a>";
  return text;
}

// One CPU with two sm80 GPUs on an NVSwitch; `gpu1` replaces the second GPU's <gpu> element.
std::string two_gpus(const std::string& gpu1 = R"(<gpu dev="1" sm="80" rank="1"/>)") {
  return "<system version=\"1\">\n"
         "  <cpu numaid=\"0\">\n"
         "    <pci busid=\"0000:07:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n"
         "      <gpu dev=\"0\" sm=\"80\" rank=\"0\" gdr=\"1\"/>\n"
         "    </pci>\n"
         "    <pci busid=\"0000:0f:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n"
         "      " +
         gpu1 +
         "\n"
         "    </pci>\n"
         "  </cpu>\n"
         "</system>\n";
}

}  // namespace

TEST_CASE("a DGX A100 dump: GPUs on one NVSwitch, two levels of PCIe switches, NICs, two CPUs", "[nccl_xml]") {
  const Topology topology = read_nccl_xml(kXmlData + "/nccl_dgx_a100.xml");
  CHECK(topology.node_count() == 31);
  CHECK(topology.gpu_count() == 8);
  CHECK(count_kind(topology, NodeKind::nvswitch) == 1);  // six NVSwitch busids, folded into one node as NCCL does
  CHECK(count_kind(topology, NodeKind::pcie_switch) == 12);
  CHECK(count_kind(topology, NodeKind::cpu) == 2);
  CHECK(count_kind(topology, NodeKind::nic) == 8);
  // 8 GPU and 8 NIC PCIe links, 8 sub-switch and 4 switch uplinks, 1 CPU-CPU link, 8 NVLink bundles; two ways each.
  CHECK(topology.link_count() == 2 * 37);
  CHECK(count_kind(topology, LinkKind::nvlink) == 2 * 8);

  const NodeId nvswitch = xml_node(topology, "nvswitch");
  for (std::size_t g = 0; g < 8; ++g) {
    const Link& nvlink = xml_link(topology, topology.gpu(g), nvswitch);
    CHECK(nvlink.kind == LinkKind::nvlink);
    CHECK(link_gbps(nvlink) == Approx(12 * 20.0));  // 6 <nvlink count="2"> x SM80_NVLINK_BW
    CHECK(nvlink.latency == SimTime::from_ns(300));
    CHECK(link_gbps(xml_link(topology, nvswitch, topology.gpu(g))) == Approx(240.0));
    CHECK(topology.node(topology.gpu(g)).host == std::optional<int>{0});
  }
  // Gen4 x16: 16 lanes x 1.5 GB/s.
  const Link& gpu_pcie = xml_link(topology, topology.gpu(0), xml_node(topology, "pcie_0000:bb:00.0"));
  CHECK(gpu_pcie.kind == LinkKind::pcie);
  CHECK(link_gbps(gpu_pcie) == Approx(24.0));
  CHECK(gpu_pcie.latency == SimTime::from_ns(500));
  CHECK(link_gbps(xml_link(topology, xml_node(topology, "mlx5_3"), xml_node(topology, "pcie_0000:4c:00.0"))) ==
        Approx(24.0));
  // AMD family 23 (Zen 2): AMD_ZEN12_BW.
  const Link& smp = xml_link(topology, xml_node(topology, "cpu0"), xml_node(topology, "cpu1"));
  CHECK(link_gbps(smp) == Approx(16.0));
  CHECK(smp.kind == LinkKind::pcie);
}

TEST_CASE("GPU indices follow NCCL ranks, even when they start above 0 and run against dev order", "[nccl_xml]") {
  const Topology topology = read_nccl_xml(kXmlData + "/nccl_dgx_a100.xml");
  // rank 8 is dev 7 (0000:bd:00.0, under sub-switch 0000:bb:00.0); rank 15 is dev 0 (0000:07:00.0).
  CHECK(pcie_parent(topology, topology.gpu(0)) == "pcie_0000:bb:00.0");
  CHECK(pcie_parent(topology, topology.gpu(1)) == "pcie_0000:b3:00.0");
  CHECK(pcie_parent(topology, topology.gpu(7)) == "pcie_0000:03:00.0");
  CHECK(topology.node(topology.gpu(0)).name == "gpu0");
}

TEST_CASE("on the DGX A100 every GPU pair talks GPU -> NVSwitch -> GPU", "[nccl_xml]") {
  const Topology topology = read_nccl_xml(kXmlData + "/nccl_dgx_a100.xml");
  Router router(topology);
  for (std::size_t a = 0; a < 8; ++a) {
    for (std::size_t b = 0; b < 8; ++b) {
      if (a == b) continue;
      const Route& route = router.gpu_route(a, b);
      INFO(a << " -> " << b);
      REQUIRE(route.links.size() == 2);
      CHECK(hops(topology, route)[1] == "nvswitch");
      CHECK(topology.link(route.links[0]).kind == LinkKind::nvlink);
      CHECK(route.latency == SimTime::from_ns(600));
      CHECK(route.bottleneck.gb_per_s() == Approx(240.0));
    }
  }
}

TEST_CASE("an L40S PCIe-only dump: numbered by dev, routed over PCIe and between the CPUs", "[nccl_xml]") {
  const Topology topology = read_nccl_xml(kXmlData + "/nccl_l40s_pcie.xml");
  CHECK(topology.node_count() == 9);
  CHECK(topology.gpu_count() == 4);
  CHECK(count_kind(topology, NodeKind::pcie_switch) == 1);
  CHECK(count_kind(topology, NodeKind::cpu) == 2);
  CHECK(count_kind(topology, NodeKind::nic) == 2);
  CHECK(count_kind(topology, NodeKind::nvswitch) == 0);
  CHECK(topology.link_count() == 2 * 8);
  CHECK(count_kind(topology, LinkKind::nvlink) == 0);
  // No ranks: dev order, though NUMA node 1 (dev 2 and 3) comes first in the file.
  CHECK(pcie_parent(topology, topology.gpu(0)) == "pcie_0000:15:00.0");
  CHECK(pcie_parent(topology, topology.gpu(1)) == "pcie_0000:15:00.0");
  CHECK(pcie_parent(topology, topology.gpu(2)) == "cpu1");
  CHECK(link_gbps(xml_link(topology, topology.gpu(2), xml_node(topology, "cpu1"))) == Approx(24.0));
  // "16 GT/s" x8: 8 x 1.5; the Gen5 x16 switch uplink: 16 x 3; "8.0 GT/s PCIe" x8 NIC: 8 x 0.75.
  CHECK(link_gbps(xml_link(topology, topology.gpu(3), xml_node(topology, "cpu1"))) == Approx(12.0));
  CHECK(link_gbps(xml_link(topology, xml_node(topology, "pcie_0000:15:00.0"), xml_node(topology, "cpu0"))) ==
        Approx(48.0));
  CHECK(link_gbps(xml_link(topology, xml_node(topology, "mlx5_1"), xml_node(topology, "cpu1"))) == Approx(6.0));
  // Intel family 6 model 0x8F (Sapphire Rapids): SRP_QPI_BW.
  CHECK(link_gbps(xml_link(topology, xml_node(topology, "cpu0"), xml_node(topology, "cpu1"))) == Approx(22.0));

  Router router(topology);
  const Route& same_switch = router.gpu_route(0, 1);
  CHECK(hops(topology, same_switch) == std::vector<std::string>{"gpu0", "pcie_0000:15:00.0", "gpu1"});
  CHECK(same_switch.latency == SimTime::from_us(1));
  CHECK(same_switch.bottleneck.gb_per_s() == Approx(24.0));
  const Route& across = router.gpu_route(0, 2);
  CHECK(hops(topology, across) == std::vector<std::string>{"gpu0", "pcie_0000:15:00.0", "cpu0", "cpu1", "gpu2"});
  CHECK(across.latency == SimTime::from_us(2));
  CHECK(across.bottleneck.gb_per_s() == Approx(22.0));
  CHECK(router.gpu_route(1, 3).bottleneck.gb_per_s() == Approx(12.0));
}

TEST_CASE("a direct GPU-GPU NVLink is one link at count x the sm86 rate", "[nccl_xml]") {
  const Topology topology = read_nccl_xml(kXmlData + "/nccl_nvlink_pair.xml");
  CHECK(topology.node_count() == 3);
  CHECK(topology.link_count() == 2 * 3);  // two PCIe links and one NVLink, though both GPUs list it
  const Link& nvlink = xml_link(topology, topology.gpu(0), topology.gpu(1));
  CHECK(nvlink.kind == LinkKind::nvlink);
  CHECK(link_gbps(nvlink) == Approx(4 * 12.0));                                                       // SM86_NVLINK_BW
  CHECK(link_gbps(xml_link(topology, topology.gpu(1), xml_node(topology, "cpu0"))) == Approx(12.0));  // Gen3 x16
  Router router(topology);
  CHECK(router.gpu_route(1, 0).links.size() == 1);
  CHECK(router.gpu_route(1, 0).latency == SimTime::from_ns(300));
}

TEST_CASE("C2C and NICs without a PCIe path, one GPU is a topology but not a file: spec", "[nccl_xml]") {
  const Topology topology = read_nccl_xml(kXmlData + "/nccl_gh200.xml");
  CHECK(topology.gpu_count() == 1);
  CHECK(topology.node_count() == 3);
  CHECK(topology.link_count() == 2 * 3);
  const NodeId gpu = topology.gpu(0);
  const NodeId cpu = xml_node(topology, "cpu0");
  double c2c = 0;
  double pcie = 0;
  for (const LinkId l : topology.out_links(gpu)) {
    (topology.link(l).kind == LinkKind::nvlink ? c2c : pcie) += topology.link(l).bandwidth.gb_per_s();
    CHECK(topology.link(l).dst == cpu);
  }
  // C2C: 45000 MB/s x 10 links; PCIe Gen5 x16; a NIC with no PCIe path: NCCL's LOC_BW.
  CHECK(c2c == Approx(450.0));
  CHECK(pcie == Approx(48.0));
  CHECK(link_gbps(xml_link(topology, xml_node(topology, "eth0"), cpu)) == Approx(5000.0));
  CHECK_THROWS_WITH(build_topology("file:path=" + kXmlData + "/nccl_gh200.xml"),
                    Catch::Contains("the topology has 1 GPU; at least 2 are needed"));
}

TEST_CASE("NVLink to a POWER9 CPU, and hosts joined only by a multi-node NVSwitch", "[nccl_xml]") {
  SECTION("tclass 0x068001 links the GPU to its own CPU") {
    const Topology topology =
        read_nccl_xml_text(two_gpus(R"(<gpu dev="1" sm="70" rank="1">)"
                                    R"(<nvlink target="0000:04:00.0" count="3" tclass="0x068001"/>)"
                                    "</gpu>"),
                           "p9.xml");
    const Link& to_cpu = xml_link(topology, topology.gpu(1), xml_node(topology, "cpu0"), LinkKind::nvlink);
    CHECK(link_gbps(to_cpu) == Approx(3 * 20.0));  // SM70_NVLINK_BW
  }
  SECTION("two host_hash values, one NVSwitch fabric") {
    std::string text;
    for (const char* host : {"0x1", "0x2"}) {
      text += std::string(R"(<cpu numaid="0" host_hash=")") + host +
              R"(" arch="arm64"><pci busid="0009:01:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" )"
              R"(link_width="16"><gpu dev="0" sm="90" rank=")" +
              (host[2] == '1' ? "0" : "1") +
              R"("><nvlink target="fffffff:ffff:ff" count="18" tclass="0x068000"/></gpu></pci></cpu>)";
    }
    const Topology topology = read_nccl_xml_text("<system version=\"1\">" + text + "</system>", "nvl.xml");
    CHECK(topology.node_count() == 5);
    CHECK(topology.link_count() == 2 * 4);  // no CPU-CPU link between hosts
    CHECK(topology.node(xml_node(topology, "h1.cpu0")).host == std::optional<int>{1});
    CHECK(topology.node(topology.gpu(1)).host == std::optional<int>{1});
    CHECK(!topology.node(xml_node(topology, "nvswitch")).host.has_value());
    Router router(topology);
    CHECK(router.gpu_route(0, 1).bottleneck.gb_per_s() == Approx(18 * 20.6));  // SM90_NVLINK_BW
    std::string cut = "<system version=\"1\">\n" + text + "</system>";
    for (std::size_t at; (at = cut.find("<nvlink")) != std::string::npos;) cut.erase(at, cut.find("/>", at) + 2 - at);
    const InputError error = xml_error(cut);
    CHECK_THAT(error.what(), Catch::StartsWith("x.xml:1:1: ") && Catch::Contains("no path from gpu0 to gpu1"));
    CHECK(error.key().empty());
  }
}

TEST_CASE("file: specs read .xml as NCCL topology, and the example dump loads", "[nccl_xml]") {
  const std::string path = kExamples + "/dgx-a100-nccl-topo.xml";
  const Topology topology = build_topology("file:path=" + path);
  CHECK(topology.gpu_count() == 8);
  CHECK(topology.node_count() == 31);
  CHECK(topology.description() == "file:path=" + path);
  CHECK(pcie_parent(topology, topology.gpu(0)) == "pcie_0000:03:00.0");  // rank == dev here
  CHECK_THROWS_WITH(build_topology("file:path=" + kXmlData + "/topology.xml"),
                    Catch::Contains("topology.xml:1:1: system: no <gpu> in the file"));
  CHECK_THROWS_WITH(build_topology("file:path=" + kXmlData + "/small.txt"),
                    Catch::Contains("unsupported file type '.txt'") && Catch::Contains(".xml (NCCL topology dump)"));
}

TEST_CASE("malformed NCCL XML is an InputError at the line and column", "[nccl_xml]") {
  SECTION("a missing attribute names the element and points at it") {
    const std::string text = two_gpus(R"(<gpu sm="80" rank="1"/>)");
    const InputError error = xml_error(text);
    CHECK(std::string(error.what()) == "x.xml:7:7: gpu: attribute 'dev' missing");
    CHECK(error.key() == "gpu");
  }
  SECTION("an unknown link_speed points at the value") {
    std::string text = two_gpus();
    text.replace(text.find("16.0 GT/s PCIe"), 14, "7 GT/s");
    const InputError error = xml_error(text);
    check_at(error, text, "7 GT/s");
    CHECK(error.key() == "pci.link_speed");
    CHECK_THAT(error.what(), Catch::Contains("unknown link_speed '7 GT/s'"));
  }
  SECTION("an NVLink target that is no GPU of the file") {
    try {
      read_nccl_xml(kXmlData + "/nccl_bad_nvlink_target.xml");
      FAIL("expected an InputError");
    } catch (const InputError& error) {
      CHECK(error.key() == "nvlink.target");
      CHECK_THAT(error.what(), Catch::Contains("nccl_bad_nvlink_target.xml:6:25: nvlink.target: ") &&
                                   Catch::Contains("'0000:b0:00.0' is not the busid of a GPU"));
    }
  }
  SECTION("XML syntax") {
    struct Case {
      std::string text;
      std::string points_at;
      std::string says;
    };
    const std::vector<Case> cases{
        {"<system version=\"1\">\n  <cpu numaid=\"0\">\n", "<cpu", "<cpu> is never closed"},
        {"<system version=\"1\">\n  <cpu numaid=\"0\">\n  </pci>\n</system>", "</pci>", "does not match <cpu>"},
        {"<system version=\"1\">\n  <cpu numaid=0/>\n</system>", "0/>", "must be in quotes"},
        {"<system version=\"1\">\n  <cpu numaid/>\n</system>", "/>", "has no value"},
        {"<system version=\"1\">\n  <cpu numaid=\"0\" numaid=\"1\"/>\n</system>", "numaid=\"1", "duplicate attribute"},
        {"<system version=\"1\" <cpu/>", "<cpu", "unexpected '<'"},
        {"<system version=\"1\">\n  cpu\n</system>", "cpu", "unexpected text 'cpu'"},
        {"<system version=\"1\">\n  <!-- <cpu/>\n</system>", "<!--", "unterminated comment"},
        {"<system version=\"1\"/>\n<system/>", "<system/>", "after the root element"},
        {"<system version=\"1\"><cpu numaid=\"&nbsp;\"/></system>", "&nbsp;", "entity"},
        {"", "", "no root element"},
        {nested(300), "", "nested deeper than 256 levels"},
    };
    for (const Case& c : cases) {
      INFO(c.text);
      const InputError error = xml_error(c.text);
      if (!c.points_at.empty()) check_at(error, c.text, c.points_at);
      CHECK_THAT(error.what(), Catch::Contains(c.says));
    }
  }
  SECTION("NCCL's meaning") {
    struct Case {
      std::string text;
      std::string points_at;
      std::string key;
      std::string says;
    };
    const std::vector<Case> cases{
        {"<topology version=\"1\"/>", "<topology", "topology", "must be <system>"},
        {"<system version=\"2\"/>", "2", "system.version", "version 1 only"},
        {two_gpus(R"(<gpu dev="1" sm="80" rank="0"/>)"), "0\"/>", "gpu.rank", "rank 0 is used by two GPUs"},
        {two_gpus(R"(<gpu dev="x" sm="80" rank="1"/>)"), "x\"", "gpu.dev", "whole number >= 0, got 'x'"},
        {two_gpus(R"(<gpu dev="1" sm="80" rank="1"><nvlink target="0" count="2" tclass="0x060400"/></gpu>)"),
         "0x060400", "nvlink.tclass", "unknown tclass '0x060400'"},
        {two_gpus(R"(<gpu dev="1" sm="80" rank="1"><nvlink count="0" tclass="0x068000"/></gpu>)"), "0\" tclass",
         "nvlink.count", ">= 1"},
        {"<system version=\"1\">\n  <cpu numaid=\"0\"/>\n</system>", "<system", "system", "no <gpu>"},
        {two_gpus().insert(two_gpus().find("</system>"), "  <cpu numaid=\"1\" arch=\"riscv64\"/>\n"), "<cpu numaid",
         "cpu", "attribute 'arch' missing"},
        {two_gpus().insert(two_gpus().find("</system>"), "  <cpu numaid=\"0\"/>\n"), "0\"/>\n</sys", "cpu.numaid",
         "numaid 0 is used twice"},
    };
    for (const Case& c : cases) {
      INFO(c.text);
      const InputError error = xml_error(c.text);
      check_at(error, c.text, c.points_at);
      CHECK(error.key() == c.key);
      CHECK_THAT(error.what(), Catch::Contains(c.says));
    }
  }
  SECTION("entities and single quotes are read, not rejected") {
    std::string text = two_gpus();
    text.replace(text.find("<cpu numaid=\"0\">"), 16, "<cpu numaid='0'><nic><net name=\"eth&amp;0\"/></nic>");
    CHECK(read_nccl_xml_text(text, "x.xml").node_count() == 4);
    CHECK(xml_node(read_nccl_xml_text(text, "x.xml"), "eth&0") == NodeId{3});
  }
  SECTION("a missing file") {
    CHECK_THROWS_WITH(read_nccl_xml(kXmlData + "/nope.xml"),
                      Catch::Contains("nope.xml") && Catch::Contains("cannot open"));
  }
}
