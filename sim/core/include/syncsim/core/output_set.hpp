#pragma once
// The files of one command's output folder (run: report.json, trace.json, charts; plan: plan.csv, charts),
// replaced together: after a failure or an interrupt the folder holds the earlier set or the new one, never a mix.
//
//   OutputSet set(outdir);                                   // checked and created; nothing replaced yet
//   set.add("report.json", [&](std::ostream& out) { out << report; });
//   set.add("trace.json", [&](std::ostream& out) { write_chrome_trace(trace, out); });
//   set.remove("staleness.svg");                             // an earlier run's file that this run does not make
//   set.commit();                                            // the swap
//
// How: add() writes each file in full to a temporary beside its target (NAME.tmpPID, in the same folder, so a
// rename replaces it atomically). A failure there (a full disk, a write error) or an interrupt (the temporaries
// are registered with exit_cleanly_on_interrupt) removes the temporaries and replaces nothing. commit() then, with
// SIGINT and SIGTERM held back, moves each earlier file aside (hard link to NAME.oldPID), renames each temporary
// over its target and finally drops the backups; should a rename fail, the backups are put back. An interrupt
// during commit takes effect once it is done: all new.
//
// Why not build a new folder and swap it in: an output folder may hold the user's own files (notes, an earlier
// sweep), and swapping the folder would either drop them or have to copy them; it would also change the folder's
// identity under a shell or a GUI sitting in it. So only the files named here are touched, nothing else in the
// folder is read, moved or deleted. A symlink among the files is kept as a link, its target replaced. A FIFO or a
// character device among them (trace.json -> /dev/null, to skip a large trace) cannot be swapped and has no earlier
// content to keep: it is written through as it is added. A directory, socket or block device in a file's place is
// refused (check_output_dir finds it before the simulation).
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace syncsim {

class OutputSet {
 public:
  // Creates `dir` (and its parents) if needed; removes what it created again if the set is never committed.
  explicit OutputSet(std::filesystem::path dir);
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

  // Writes NAME's new content now, to its temporary.
  void add(const std::string& name, const std::function<void(std::ostream&)>& write);
  // NAME, if an earlier run left it, goes with the swap: a set never mixes in a file this run did not make.
  void remove(const std::string& name);
  // Replaces the earlier files by the new ones, all or none.
  void commit();

  // Tests only: the k-th rename of commit() (0-based) fails as if with EIO, to check the rollback.
  void fail_rename_for_test(std::size_t k) { failing_rename_ = k; }

 private:
  struct Entry;
  void discard();

  std::filesystem::path dir_;
  std::vector<std::filesystem::path> created_;  // folders this set made, deepest last
  std::vector<std::unique_ptr<Entry>> entries_;
  std::optional<std::size_t> failing_rename_;
  bool committed_ = false;
};

}  // namespace syncsim
