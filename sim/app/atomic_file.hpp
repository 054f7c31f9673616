#pragma once
// Writes a file all at once: the content goes to a temporary file beside the target, which is renamed over it
// only when complete, so a failure never leaves a half-written output behind.
#include <filesystem>
#include <functional>
#include <iosfwd>

namespace syncsim::app {

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace syncsim::app
