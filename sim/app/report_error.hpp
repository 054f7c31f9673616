#pragma once
// How `syncsim` tells the user that a command failed: one line on stderr and the exit code (2 bad input, 1 internal
// error). main uses it for every command; `syncsim sweep` under mpirun uses it on rank 0 before the ranks part.
#include <exception>

namespace syncsim::app {

// Prints the error held by `error` and returns its exit code. Rethrows anything that is not a std::exception.
int report_error(const std::exception_ptr& error);

}  // namespace syncsim::app
