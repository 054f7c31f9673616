#pragma once
// How syncsim writes what it produces (one file: --dot, calibrate -o, sweep -o; a set of files: output_set.hpp).
//
// A regular file is written all at once: the content goes to a temporary file beside the target (NAME.tmpPID),
// which is flushed, fsync'ed, closed and renamed over it only when complete, so a failure never leaves a
// half-written output behind. A symlink is kept: its target is the file written (the temporary goes beside the
// target). A FIFO or a character device (/dev/null, /dev/stdout, a terminal) cannot be replaced by a rename without
// destroying it, so it is written through: opened and written directly. A directory, a socket or a block device is
// refused. Every failure, including one only seen at flush, fsync or close (/dev/full, a full disk), is an
// InputError "cannot write 'PATH': REASON" with the reason from errno.
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace syncsim {

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

// Up-front checks, made before any simulation so that an output that cannot be written costs no time. Each throws
// InputError at `flag` ("--dot: cannot write 'x/y.dot': folder 'x' does not exist").
//   check_output_file: PATH can be written as above (its folder exists and is writable; it is not a directory).
//   check_output_dir: DIR is a writable folder, or can be created (its nearest existing ancestor is one), and none
//   of the FILES to be written in it is a directory, socket or block device.
void check_output_file(const std::filesystem::path& path, std::string_view flag);
void check_output_dir(const std::filesystem::path& dir, std::string_view flag,
                      const std::vector<std::string>& files = {});

// The standard output is an output too: `syncsim collective > /dev/full` must not report success. Flushes it and
// turns a write error into exit 2 with its reason ("syncsim: error: cannot write the standard output: No space left
// on device"); otherwise returns `code`. Called by main once a command is done.
// check_standard_output_writes, called once at start-up, has std::cout keep the errno of a failed write, for the
// reason (the standard library's own buffer does not).
void check_standard_output_writes();
int finish_standard_output(int code);

// Makes SIGINT and SIGTERM end the program with exit code 128 + the signal (130 for Ctrl-C) after removing the
// temporary files being written, if any: an interrupted run leaves earlier outputs as they were and no stray
// temporary behind. It also ignores SIGXFSZ, so that a write past the file-size limit fails as a write error (one
// line, exit 2, temporaries removed) instead of killing the process. Call once, at start-up.
void exit_cleanly_on_interrupt();

// The child process that SIGINT and SIGTERM end too (import-model's Python: a SIGTERM to syncsim alone, or a SIGINT
// from outside the terminal's process group, used to leave it running): the interrupt handler kills it (SIGKILL)
// and reaps it before syncsim exits, with its process group when it leads one. One child at a time; 0 clears it.
// Set it with the signals blocked from before the child is started, and clear it before the child is reaped (its
// pid could then be reused).
void stop_child_on_interrupt(pid_t pid);

}  // namespace syncsim
