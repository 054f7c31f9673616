#include "atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

#include "syncsim/core/input_error.hpp"

namespace syncsim::app {

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path temporary = path.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("cannot write '{}'", path.string()));
    try {
      write(out);
    } catch (...) {
      out.close();
      std::filesystem::remove(temporary);
      throw;
    }
    out.flush();
    if (!out) {
      std::filesystem::remove(temporary);
      throw InputError(fmt::format("writing '{}' failed", path.string()));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw InputError(fmt::format("cannot write '{}': {}", path.string(), error.message()));
  }
}

}  // namespace syncsim::app
