// syncsim-fuzz-replay TARGET PATH...: runs one fuzz target over files (folders: every file inside, sorted), with
// any compiler. ctest replays the seed corpora, the kept regressions and the malformed corpus this way, so the
// contract (read, or throw InputError) is checked on every build, not only in the clang fuzz build.
//
// An exception other than InputError is reported with the input's path and the run fails (exit 1); a crash or a
// sanitizer report ends it by itself.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <typeinfo>
#include <vector>

#include "fuzz_targets.hpp"

namespace {

std::vector<std::filesystem::path> inputs_under(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: syncsim-fuzz-replay TARGET PATH...\n");
    return 2;
  }
  const std::string_view name = argv[1];
  std::vector<syncsim::fuzz::NamedTarget> targets(std::begin(syncsim::fuzz::kTargets),
                                                  std::end(syncsim::fuzz::kTargets));
#ifdef SYNCSIM_FUZZ_GUI
  targets.push_back({"gui_readers", syncsim::fuzz::fuzz_gui_readers});  // where the GUI is built (tests/fuzz)
#endif
  const auto target = std::find_if(targets.begin(), targets.end(), [&](const auto& t) { return t.name == name; });
  if (target == targets.end()) {
    std::fprintf(stderr, "syncsim-fuzz-replay: unknown target '%s'\n", argv[1]);
    return 2;
  }
  int replayed = 0;
  for (int i = 2; i < argc; ++i) {
    if (!std::filesystem::exists(argv[i])) {
      std::fprintf(stderr, "syncsim-fuzz-replay: no such file or folder: %s\n", argv[i]);
      return 2;
    }
    for (const std::filesystem::path& file : inputs_under(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      try {
        target->run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s escaped the reader (only InputError may): %s\n", file.c_str(), typeid(e).name(),
                     e.what());
        return 1;
      } catch (...) {
        std::fprintf(stderr, "%s: a non-standard exception escaped the reader\n", file.c_str());
        return 1;
      }
      ++replayed;
    }
  }
  std::printf("%s: %d input(s) read or rejected with InputError\n", argv[1], replayed);
  return 0;
}
