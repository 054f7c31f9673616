// read_input_file: the bytes of a user's file as every reader wants them, and what it refuses.
#include <catch2/catch.hpp>
#include <string>

#include "../support/special_files.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/topology/dot_io.hpp"
#include "syncsim/topology/nccl_xml_io.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

using namespace syncsim;
using test_support::SpecialFiles;

TEST_CASE("read_input_file drops a UTF-8 byte-order mark and turns a lone CR into LF, keeping CRLF") {
  const SpecialFiles files;
  CHECK(read_input_file(files.write("bom.txt", "\xEF\xBB\xBFgraph g {}\n"), "file") == "graph g {}\n");
  CHECK(read_input_file(files.write("cr.txt", "a\rb\r"), "file") == "a\nb\n");
  CHECK(read_input_file(files.write("crlf.txt", "a\r\nb\r\n"), "file") == "a\r\nb\r\n");
  CHECK(read_input_file(files.write("bom-inside.txt", "a\xEF\xBB\xBF"), "file") == "a\xEF\xBB\xBF");
}

TEST_CASE("first_invalid_text_byte finds the first byte that is not UTF-8 text, or a NUL") {
  CHECK_FALSE(first_invalid_text_byte("plain ascii\n").has_value());
  CHECK_FALSE(first_invalid_text_byte("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80").has_value());  // é € U+1F600
  CHECK(first_invalid_text_byte("caf\xE9!") == std::optional<std::size_t>{3});                    // Latin-1 é
  CHECK(first_invalid_text_byte("ab\xFF") == std::optional<std::size_t>{2});
  CHECK(first_invalid_text_byte("x\xC0\x80") == std::optional<std::size_t>{1});          // overlong NUL
  CHECK(first_invalid_text_byte("x\xED\xA0\x80") == std::optional<std::size_t>{1});      // a surrogate
  CHECK(first_invalid_text_byte("x\xF4\x90\x80\x80") == std::optional<std::size_t>{1});  // past U+10FFFF
  CHECK(first_invalid_text_byte("ok\xE2\x82") == std::optional<std::size_t>{2});         // cut short
  CHECK(first_invalid_text_byte(std::string_view("a\0b", 3)) == std::optional<std::size_t>{1});
}

TEST_CASE("read_input_file refuses a file over its size limit, naming the limit") {
  const SpecialFiles files;
  const auto path = files.write("big.txt", std::string(2000, 'x'));
  CHECK(read_input_file(path, "file", 2000).size() == 2000);
  CHECK_THROWS_WITH(read_input_file(path, "log", 1024),
                    Catch::Contains(path.string()) && Catch::Contains("cannot read the log: it is larger than 1024"));
}

TEST_CASE("the readers' text entry points take a byte-order mark and CR-only line endings as their files do") {
  // DOT: Boost reads the mark as "Invalid character"; CR-only lines would make a // comment swallow the rest.
  const std::string dot = "graph g {\r  // two GPUs\r  a -- b [bw=\"1Gbps\"];\r}\r";
  CHECK(read_dot_text("\xEF\xBB\xBF" + dot, "g.dot").gpu_count() == 2);
  // nccl-tests: CR-only lines would be one line and "no nccl-tests table".
  const SpecialFiles files;
  std::ifstream in(std::string(SYNCSIM_SOURCE_DIR "/tests/data/nccl-tests/a100-sxm4-1node-8gpu-nvswitch.log"));
  std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const NcclTestsLog unix_log = parse_nccl_tests_log(log, "a.all_reduce.log");
  for (char& c : log) c = c == '\n' ? '\r' : c;
  const NcclTestsLog mac_log = parse_nccl_tests_log("\xEF\xBB\xBF" + log, "a.all_reduce.log");
  CHECK(mac_log.rows.size() == unix_log.rows.size());
  CHECK(mac_log.ranks == unix_log.ranks);
  CHECK(needs_normalizing("a\rb"));
  CHECK_FALSE(needs_normalizing("a\r\nb\n"));
  CHECK(normalized_input_text("\xEF\xBB\xBF"
                              "a\rb\r\n") == "a\nb\r\n");
}

TEST_CASE("the test helper reports a reader that blocks on a FIFO, and unblocks it instead of hanging") {
  // A reader as they were before read_input_file: std::ifstream opens a FIFO and waits for a writer.
  const SpecialFiles files;
  const std::filesystem::path fifo = files.fifo();
  const test_support::ReadOutcome outcome = test_support::read_outcome(
      [&] {
        std::ifstream in(fifo);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      },
      fifo, std::chrono::milliseconds(200));
  CHECK(outcome.kind == test_support::ReadOutcome::Kind::blocked);
}
