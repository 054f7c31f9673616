// Every reader of a user's file, handed what is not a regular file: a directory, a FIFO, /dev/zero, and a symlink to
// a regular file. Each refuses the first three at once with an InputError that names the path and says what it is
// (never blocking on the FIFO, never reading /dev/zero until memory runs out), and reads the symlink's target.
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "../support/special_files.hpp"
#include "syncsim/collectives/calibration.hpp"
#include "syncsim/planner/price_table.hpp"
#include "syncsim/planner/sweep_table.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/topology/dot_io.hpp"
#include "syncsim/topology/nccl_xml_io.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

using namespace syncsim;
using test_support::ReadOutcome;
using test_support::SpecialFiles;

namespace {

const std::filesystem::path kSource = SYNCSIM_SOURCE_DIR;

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One reader: its name, the extension it wants, a valid file for the symlink, and how to call it on a path.
struct Reader {
  std::string name;
  std::string extension;
  std::string valid_text;
  std::function<void(const std::filesystem::path&)> read;
};

std::vector<Reader> readers() {
  const auto file_spec = [](const std::filesystem::path& path) {
    (void)build_topology(parse_topology_spec("file:path=" + path.string(), "SPEC"));
  };
  return {
      {"load_scenario", ".yaml", contents(kSource / "examples/planner-compute-bound.yaml"),
       [](const auto& path) { (void)load_scenario(path); }},
      {"read_dot", ".dot", contents(kSource / "tests/topologies/data/small.dot"),
       [](const auto& path) { (void)read_dot(path); }},
      {"read_nccl_xml", ".xml", contents(kSource / "tests/topologies/data/nccl_l40s_pcie.xml"),
       [](const auto& path) { (void)read_nccl_xml(path); }},
      {"read_nccl_tests_log", ".log", contents(kSource / "tests/data/nccl-tests/a100-sxm4-1node-8gpu-nvswitch.log"),
       [](const auto& path) { (void)read_nccl_tests_log(path.string()); }},
      {"read_calibration", ".yaml", contents(kSource / "tests/validation/data/calibration/a100-1node.yaml"),
       [](const auto& path) { (void)read_calibration(path.string()); }},
      {"load_price_table", ".yaml", contents(kSource / "examples/prices-example.yaml"),
       [](const auto& path) { (void)planner::load_price_table(path); }},
      // An empty table holds nothing to resume: it reads (as no rows) without a fingerprint.
      {"read_table", ".csv", "",
       [](const auto& path) { (void)planner::read_table(path, planner::TableFormat::csv, {"a"}, "f00d"); }},
      {"file: spec (DOT)", ".dot", contents(kSource / "tests/topologies/data/small.dot"), file_spec},
      {"file: spec (XML)", ".xml", contents(kSource / "tests/topologies/data/nccl_l40s_pcie.xml"), file_spec},
  };
}

void check_refused(const Reader& reader, const std::filesystem::path& path, const std::string& what,
                   const std::filesystem::path& fifo = {}) {
  INFO(reader.name << " on " << what << " " << path);
  const ReadOutcome outcome = test_support::read_outcome([&] { reader.read(path); }, fifo);
  INFO(to_string(outcome));
  REQUIRE(outcome.kind == ReadOutcome::Kind::input_error);
  CHECK_THAT(outcome.message, Catch::Contains(path.string()));
  CHECK_THAT(outcome.message, Catch::Contains("is " + what + ", not a regular file"));
  CHECK(outcome.message.find('\n') == std::string::npos);
}

}  // namespace

TEST_CASE("every file reader refuses a directory, saying it is one") {
  const SpecialFiles files;
  for (const Reader& reader : readers()) {
    check_refused(reader, files.directory("a-directory" + reader.extension), "a directory");
  }
}

TEST_CASE("every file reader refuses a FIFO at once instead of waiting for a writer") {
  const SpecialFiles files;
  for (const Reader& reader : readers()) {
    const std::filesystem::path fifo = files.fifo("a-fifo" + reader.extension);
    check_refused(reader, fifo, "a FIFO (named pipe)", fifo);
  }
}

TEST_CASE("every file reader refuses /dev/zero instead of reading it until memory runs out") {
  // The file: spec checks the extension first; a link named .dot or .xml to /dev/zero reaches the device check.
  const SpecialFiles files;
  for (const Reader& reader : readers()) {
    const std::filesystem::path link = files.root() / ("zero" + reader.extension);
    std::filesystem::create_symlink(SpecialFiles::zero_device(), link);
    check_refused(reader, reader.name.starts_with("file:") ? link : SpecialFiles::zero_device(), "a character device");
    std::filesystem::remove(link);
  }
}

TEST_CASE("every file reader reads the target of a symlink") {
  const SpecialFiles files;
  for (const Reader& reader : readers()) {
    const std::filesystem::path link =
        files.symlink_to("target" + reader.extension, reader.valid_text, "link" + reader.extension);
    INFO(reader.name << " on " << link);
    const ReadOutcome outcome = test_support::read_outcome([&] { reader.read(link); });
    INFO(to_string(outcome));
    CHECK(outcome.kind == ReadOutcome::Kind::returned);
  }
}

TEST_CASE("a missing file is 'cannot open' with the reason, for every reader") {
  const SpecialFiles files;
  for (const Reader& reader : readers()) {
    const std::filesystem::path missing = files.root() / ("missing" + reader.extension);
    INFO(reader.name);
    const ReadOutcome outcome = test_support::read_outcome([&] { reader.read(missing); });
    REQUIRE(outcome.kind == ReadOutcome::Kind::input_error);
    CHECK_THAT(outcome.message, Catch::Contains(missing.string()));
    const bool says_why = outcome.message.find("No such file or directory") != std::string::npos ||
                          outcome.message.find("no such file") != std::string::npos;
    CHECK(says_why);
  }
}
