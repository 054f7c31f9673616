// The execution trace's file format (execution_trace.hpp): what is written is read back field for field, the same
// trace gives the same bytes, and a broken file is an InputError naming the file and the place, never a crash or
// an allocation the length prefixes ask for.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>

#include "execution_node.hpp"
#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;
using namespace syncsim::chakra;

using syncsim::chakra::testing::node;

namespace {

ExecutionTrace sample_trace() {
  ExecutionTrace t;
  t.version = std::string(kSchemaVersion);
  t.workload = "sample";
  t.rank = 3;
  t.ranks = 8;
  ExecutionNode compute = node(0, "conv1 forward", NodeKind::compute);
  compute.duration_micros = 91;
  compute.duration_ps = 90'508'897;
  ExecutionNode reduce = node(1, "bucket 0 all_reduce", NodeKind::collective);
  reduce.data_deps = {0};
  reduce.ctrl_deps = {0};
  reduce.collective = CollectiveKind::all_reduce;
  reduce.comm_size = 25'000'000;
  compute.num_ops = 231'211'008;
  compute.tensor_size = std::uint64_t{1} << 40;  // past int64's half range: kept as uint64
  reduce.pg_name.emplace(std::string_view("0"));
  ExecutionNode foreign = node(2, "load", static_cast<NodeKind>(42));
  foreign.is_cpu_op = true;
  t.nodes = {compute, reduce, foreign};
  return t;
}

std::string error_of(std::string_view bytes) {
  try {
    decode_execution_trace(bytes, "x.0.et");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("an execution trace is read back as it was written, and the same trace gives the same bytes") {
  const ExecutionTrace t = sample_trace();
  const std::string bytes = encode_execution_trace(t);
  REQUIRE(bytes == encode_execution_trace(sample_trace()));
  const ExecutionTrace back = decode_execution_trace(bytes, "x.3.et");
  CHECK(back.version == "0.0.4");
  CHECK(back.workload == "sample");
  CHECK(back.rank == 3);
  CHECK(back.ranks == 8);
  REQUIRE(back.nodes.size() == 3);
  CHECK(back.nodes[0].name == "conv1 forward");
  CHECK(back.nodes[0].kind == NodeKind::compute);
  CHECK(back.nodes[0].duration_micros == 91);
  CHECK(back.nodes[0].duration_ps == 90'508'897);
  CHECK_FALSE(back.nodes[0].collective);
  CHECK(back.nodes[1].data_deps == std::vector<std::uint64_t>{0});
  CHECK(back.nodes[1].ctrl_deps == std::vector<std::uint64_t>{0});
  CHECK(back.nodes[1].collective == CollectiveKind::all_reduce);
  CHECK(back.nodes[1].comm_size == 25'000'000);
  CHECK_FALSE(back.nodes[1].duration_ps);
  // ASTRA-sim's roofline inputs and the process group, with the types Chakra's feeder reads (int64, uint64, string).
  CHECK(back.nodes[0].num_ops == 231'211'008);
  CHECK(back.nodes[0].tensor_size == std::uint64_t{1} << 40);
  CHECK_FALSE(back.nodes[0].pg_name);
  CHECK(back.nodes[1].pg_name == "0");
  CHECK_FALSE(back.nodes[1].num_ops);
  // A kind the schema does not define is kept as its number, so that an error can name it.
  CHECK(to_string(back.nodes[2].kind) == "node type 42");
  CHECK(back.nodes[2].is_cpu_op);
}

TEST_CASE("the file starts with a varint-delimited GlobalMetadata, as Chakra's encode_message writes it") {
  const std::string bytes = encode_execution_trace(sample_trace());
  // The first byte is the metadata's length; the metadata's first field is version (field 1, length-delimited).
  const auto length = static_cast<unsigned char>(bytes[0]);
  REQUIRE(length < 128);
  CHECK(bytes[1] == '\x0a');
  CHECK(bytes.substr(3, 5) == "0.0.4");
  CHECK(std::size_t{length} + 1 < bytes.size());
}

TEST_CASE("a transfer's comm_src, comm_dst and comm_tag go out as int32, the type Chakra's feeder reads them as") {
  ExecutionTrace t = sample_trace();
  ExecutionNode send = node(3, "send", NodeKind::send);
  send.comm_src = 2;
  send.comm_dst = 6;
  send.comm_tag = 5;
  send.comm_size = 64;
  t.nodes = {send};
  const std::string bytes = encode_execution_trace(t);
  // AttributeProto: name (field 1, "\x0a" + length), then int32_val (field 7, varint: tag byte 0x38).
  for (const auto& [name, value] :
       {std::pair{std::string("comm_src"), '\x02'}, std::pair{std::string("comm_dst"), '\x06'},
        std::pair{std::string("comm_tag"), '\x05'}}) {
    INFO(name);
    CHECK(bytes.find(std::string("\x0a\x08") + name + "\x38" + value) != std::string::npos);
  }
  const ExecutionNode back = decode_execution_trace(bytes, "s.0.et").nodes.at(0);
  CHECK(back.comm_src == 2);
  CHECK(back.comm_dst == 6);
  CHECK(back.comm_tag == 5);
}

TEST_CASE("schema names: node and collective kinds") {
  CHECK(to_string(NodeKind::compute) == "COMP_NODE");
  CHECK(to_string(NodeKind::mem_load) == "MEM_LOAD_NODE");
  CHECK(to_string(NodeKind::collective) == "COMM_COLL_NODE");
  CHECK(to_string(CollectiveKind::all_gather) == "ALL_GATHER");
  CHECK(to_string(CollectiveKind::barrier) == "BARRIER");
  CHECK(to_string(static_cast<CollectiveKind>(17)) == "collective type 17");
  CHECK(execution_trace_file_name("out/chakra", 7) == "out/chakra.7.et");
  CHECK(execution_trace_file_rank("chakra", "chakra.7.et") == 7);
  CHECK(execution_trace_file_rank("chakra", execution_trace_file_name("chakra", 123456)) == 123456);
  for (const char* other : {"chakra.et", "chakra..et", "chakra.07.et", "chakra.-1.et", "chakra.7.et.old",
                            "chakra.7x.et", "notchakra.7.et", "chakra.1234567890123456789.et"}) {
    CHECK_FALSE(execution_trace_file_rank("chakra", other));
  }
}

TEST_CASE("broken execution traces are InputErrors naming the file and the place") {
  const std::string good = encode_execution_trace(sample_trace());
  CHECK_THAT(error_of(""), Catch::Contains("x.0.et") && Catch::Contains("empty"));
  // Cut short inside the last node.
  CHECK_THAT(error_of(good.substr(0, good.size() - 1)), Catch::Contains("truncated") && Catch::Contains("node"));
  // Cut inside a length prefix: a varint whose continuation bit leads nowhere.
  CHECK_THAT(error_of("\x80"), Catch::Contains("not a varint"));
  // A length prefix asking for far more than a node can be is refused before any allocation.
  CHECK_THAT(error_of("\xff\xff\xff\xff\x0f"), Catch::Contains("more than the 1048576"));
  // Zeros: an empty metadata, then empty nodes, which have no type.
  CHECK_THAT(error_of(std::string(1000, '\0')), Catch::Contains("INVALID_NODE"));
  // Text is not a trace: its first byte is read as a length, its bytes as a message.
  CHECK_THAT(error_of("version: 0.0.4\nnodes: []\n"), Catch::Contains("x.0.et"));
}

TEST_CASE("a device or a missing file is refused before it is read") {
  const auto error_reading = [](const std::filesystem::path& path) {
    try {
      read_execution_trace(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_reading("/dev/zero"), Catch::Contains("/dev/zero") && Catch::Contains("not a regular file"));
  CHECK_THAT(error_reading("/no/such/trace.0.et"), Catch::Contains("cannot open the Chakra execution trace"));
  // A file with a byte that text reading would change (a lone CR) is read as it is.
  ExecutionTrace t = sample_trace();
  t.nodes[0].duration_ps = 13;  // 0x0d
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "syncsim-chakra-cr.0.et";
  std::ofstream(path, std::ios::binary) << encode_execution_trace(t);
  CHECK(read_execution_trace(path).nodes[0].duration_ps == 13);
  std::filesystem::remove(path);
}
