// How syncsim writes its outputs (sim/app/output_file.hpp, output_set.hpp). The property under test: after any
// failure the folder holds exactly the earlier files (same names, same bytes, nothing added, no temporary), after
// a commit exactly the new ones; files the set does not name are never touched.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/core/output_set.hpp"

using namespace syncsim;
using namespace syncsim;
namespace fs = std::filesystem;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "syncsim-output-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void put(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

std::string get(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every entry of a folder (names and contents, symlinks as "-> target"), to compare a folder before and after.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    out[name] = e.is_symlink() ? "-> " + fs::read_symlink(e.path()).string() : get(e.path());
  }
  return out;
}

// An earlier run's set, and a file of the user's.
void earlier_set(const fs::path& dir) {
  put(dir / "report.json", "old report");
  put(dir / "trace.json", "old trace");
  put(dir / "convergence.svg", "old chart");
  put(dir / "notes.txt", "the user's");
}

const std::vector<std::string> kNewFiles{"report.json", "trace.json", "loss.svg"};

// The new set: three files (one, loss.svg, new to the folder) and convergence.svg taken away. With `throw_at`,
// the file of that index fails while it is written, as a full disk would make it.
void write_new_set(OutputSet& set, std::optional<std::size_t> throw_at = std::nullopt) {
  for (std::size_t i = 0; i < kNewFiles.size(); ++i) {
    set.add(kNewFiles[i], [&](std::ostream& out) {
      out << "new " << kNewFiles[i];
      if (throw_at == i) throw InputError("injected failure");
    });
  }
  set.remove("convergence.svg");
}

bool is_root() {
  return ::geteuid() == 0;
}

}  // namespace

TEST_CASE("output set: a commit replaces the named files, removes the dropped one and keeps the user's") {
  const TempDir tmp;
  earlier_set(tmp.path());
  OutputSet set(tmp.path());
  write_new_set(set);
  set.commit();
  const std::map<std::string, std::string> expected{{"report.json", "new report.json"},
                                                    {"trace.json", "new trace.json"},
                                                    {"loss.svg", "new loss.svg"},
                                                    {"notes.txt", "the user's"}};
  CHECK(snapshot(tmp.path()) == expected);
}

TEST_CASE("output set: a failure while the k-th file is written leaves the earlier set, no temporary") {
  for (std::size_t k = 0; k < kNewFiles.size(); ++k) {
    CAPTURE(k);
    const TempDir tmp;
    earlier_set(tmp.path());
    const auto before = snapshot(tmp.path());
    {
      OutputSet set(tmp.path());
      CHECK_THROWS_WITH(write_new_set(set, k), "injected failure");
    }  // never committed
    CHECK(snapshot(tmp.path()) == before);
  }
}

TEST_CASE("output set: a failed rename at any point of the swap rolls back to the earlier set") {
  for (std::size_t k = 0; k < kNewFiles.size(); ++k) {
    CAPTURE(k);
    const TempDir tmp;
    earlier_set(tmp.path());
    const auto before = snapshot(tmp.path());
    OutputSet set(tmp.path());
    write_new_set(set);
    set.fail_rename_for_test(k);
    CHECK_THROWS_WITH(set.commit(), Catch::Contains("cannot write '") && Catch::Contains("Input/output error"));
    CHECK(snapshot(tmp.path()) == before);
  }
}

TEST_CASE("output set: a set of thousands of files (a layout's Chakra traces) is written, or left whole, as one") {
  constexpr int kFiles = 3000;
  const TempDir tmp;
  put(tmp.path() / "trace.2999.et", "old");
  const auto before = snapshot(tmp.path());
  const auto write_all = [&](OutputSet& set, int throw_at) {
    for (int i = 0; i < kFiles; ++i) {
      set.add("trace." + std::to_string(i) + ".et", [&](std::ostream& out) {
        out << "new " << i;
        if (i == throw_at) throw InputError("injected failure");
      });
    }
  };
  {
    OutputSet set(tmp.path());
    CHECK_THROWS_WITH(write_all(set, kFiles - 1), "injected failure");
  }
  CHECK(snapshot(tmp.path()) == before);
  OutputSet set(tmp.path());  // the slots the failed set gave back serve again
  write_all(set, -1);
  set.commit();
  const auto after = snapshot(tmp.path());
  CHECK(after.size() == kFiles);
  CHECK(after.at("trace.2999.et") == "new 2999");
}

TEST_CASE("output set: a set never committed takes back the folder it created") {
  const TempDir tmp;
  const fs::path dir = tmp.path() / "a" / "b";
  {
    OutputSet set(dir);
    set.add("report.json", [](std::ostream& out) { out << "new"; });
    CHECK(fs::exists(dir / "report.json.tmp" += std::to_string(::getpid())));
  }
  CHECK(!fs::exists(tmp.path() / "a"));
}

TEST_CASE("output set: a symlinked file stays a link and its target gets the new content") {
  const TempDir tmp;
  fs::create_directory(tmp.path() / "elsewhere");
  put(tmp.path() / "elsewhere" / "report.json", "old");
  fs::create_directory(tmp.path() / "out");
  fs::create_symlink("../elsewhere/report.json", tmp.path() / "out" / "report.json");
  OutputSet set(tmp.path() / "out");
  set.add("report.json", [](std::ostream& out) { out << "new"; });
  set.commit();
  CHECK(fs::is_symlink(tmp.path() / "out" / "report.json"));
  CHECK(get(tmp.path() / "elsewhere" / "report.json") == "new");
  CHECK(snapshot(tmp.path() / "elsewhere").size() == 1);  // no temporary or backup left beside the target
}

TEST_CASE("output set: a FIFO among the files is written through, a directory in a file's place refused") {
  const TempDir tmp;
  const fs::path fifo = tmp.path() / "trace.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  fs::create_directory(tmp.path() / "report.json");
  CHECK_THROWS_WITH(check_output_dir(tmp.path(), "-o", {"trace.json", "report.json"}),
                    "-o: cannot write '" + (tmp.path() / "report.json").string() + "': it is a directory");
  OutputSet set(tmp.path());
  set.add("trace.json", [](std::ostream& out) { out << "trace"; });
  CHECK_THROWS_WITH(set.add("report.json", [](std::ostream& out) { out << "new"; }),
                    Catch::Contains("it is a directory"));
  char buffer[16] = {};
  CHECK(::read(reader, buffer, sizeof buffer) == 5);
  ::close(reader);
  CHECK(fs::is_fifo(fifo));
}

TEST_CASE("write_file_atomically: a regular file is replaced whole, its permissions kept") {
  const TempDir tmp;
  const fs::path file = tmp.path() / "t.dot";
  put(file, "old");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomically(file, [](std::ostream& out) { out << "new"; });
  CHECK(get(file) == "new");
  CHECK(fs::status(file).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(snapshot(tmp.path()).size() == 1);
}

TEST_CASE("write_file_atomically: a FIFO is written through and stays a FIFO") {
  const TempDir tmp;
  const fs::path fifo = tmp.path() / "out.dot";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A reader that is already there: the writer's open does not wait, and the pipe holds the few bytes written.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  write_file_atomically(fifo, [](std::ostream& out) { out << "graph {}"; });
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  CHECK(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0) == "graph {}");
  CHECK(fs::is_fifo(fifo));
}

TEST_CASE("write_file_atomically: a full device is an error with its reason, and stays a device") {
  // Never the real /dev/full as root (a broken writer would replace it); a copy made with mknod instead.
  const TempDir tmp;
  fs::path full = "/dev/full";
  if (is_root()) {
    full = tmp.path() / "full";
    REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  }
  if (!fs::exists(full)) return;
  CHECK_THROWS_WITH(write_file_atomically(full, [](std::ostream& out) { out << "graph {}"; }),
                    "cannot write '" + full.string() + "': No space left on device");
  CHECK(fs::is_character_file(full));
}

TEST_CASE("write_file_atomically: a directory is refused, and a missing folder named") {
  const TempDir tmp;
  CHECK_THROWS_WITH(write_file_atomically(tmp.path(), [](std::ostream&) {}),
                    "cannot write '" + tmp.path().string() + "': it is a directory");
  CHECK_THROWS_WITH(check_output_file(tmp.path() / "missing" / "x.dot", "--dot"),
                    "--dot: cannot write '" + (tmp.path() / "missing" / "x.dot").string() + "': folder '" +
                        (tmp.path() / "missing").string() + "' does not exist");
  put(tmp.path() / "file", "x");
  CHECK_THROWS_WITH(check_output_dir(tmp.path() / "file" / "sub", "-o"),
                    "-o: cannot create '" + (tmp.path() / "file" / "sub").string() + "': '" +
                        (tmp.path() / "file").string() + "' is not a folder");
  CHECK_NOTHROW(check_output_dir(tmp.path() / "new" / "deeper", "-o"));
  CHECK_NOTHROW(check_output_file(tmp.path() / "new.dot", "--dot"));
}

TEST_CASE("write_file_atomically: a symlink loop is an error, not a hang") {
  const TempDir tmp;
  fs::create_symlink("b", tmp.path() / "a");
  fs::create_symlink("a", tmp.path() / "b");
  CHECK_THROWS_WITH(write_file_atomically(tmp.path() / "a", [](std::ostream&) {}),
                    Catch::Contains("Too many levels of symbolic links"));
}
