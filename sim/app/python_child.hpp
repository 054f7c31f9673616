#pragma once
// Runs a Python script in a child interpreter and collects what it prints, for `syncsim import-model`.
//
//   const ChildOutput out = run_python(python_interpreter(), torch_trace_script(), {"torchvision:resnet50",
//                                      "3x224x224"}, 64 << 20, std::chrono::seconds{600});
//
// The interpreter is $SYNCSIM_PYTHON, else the one found at configure time (Debian's /usr/bin/python3, for which
// the tests and scripts/setup install python3-torch), so a pyenv or virtualenv python3 first on PATH does not
// silently lack torch. The child leads a process group of its own, and a SIGINT (Ctrl-C) or SIGTERM to syncsim kills
// that group before syncsim exits (stop_child_on_interrupt, output_file.hpp): neither it nor a process the traced
// model started outlives syncsim. Its standard output is capped and so is its time (the group is killed past either:
// a runaway script can neither fill the memory nor hang the command); once it exits, what it started and left
// running is killed too, so a forked child holding the pipes cannot keep the command waiting (a process that left
// the group with setsid escapes this). The last line of its standard error is kept to say why it failed.
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace syncsim::app {

struct ChildOutput {
  int exit_code = 0;            // the child's exit status; 128 + N when signal N ended it
  std::string out;              // its standard output, whole
  std::string last_error_line;  // the last non-empty line of its standard error, or ""
};

// $SYNCSIM_PYTHON, else the configure-time interpreter.
std::string python_interpreter();

// `python -c SCRIPT ARGS...`. Throws InputError when the interpreter cannot be started ("cannot run Python
// '/usr/bin/python9': No such file or directory (set SYNCSIM_PYTHON)"), prints more than max_output bytes or runs
// past time_limit.
ChildOutput run_python(const std::string& python, std::string_view script, const std::vector<std::string>& args,
                       std::size_t max_output, std::chrono::seconds time_limit);

}  // namespace syncsim::app
