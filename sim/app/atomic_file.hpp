#pragma once
// Writes a file all at once: the content goes to a temporary file beside the target, which is renamed over it
// only when complete, so a failure never leaves a half-written output behind.
#include <filesystem>
#include <functional>
#include <iosfwd>

namespace syncsim::app {

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

// Makes SIGINT and SIGTERM end the program with exit code 128 + the signal (130 for Ctrl-C) after removing the
// temporary file being written, if any: an interrupted run leaves earlier outputs as they were and no stray
// temporary behind. Call once, at start-up.
void exit_cleanly_on_interrupt();

}  // namespace syncsim::app
