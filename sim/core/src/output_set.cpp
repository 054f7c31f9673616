#include "syncsim/core/output_set.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string_view>

#include "output_detail.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

using namespace output_detail;

struct OutputSet::Entry {
  enum class Backup { none, linked, moved };

  std::filesystem::path shown;      // DIR/NAME, as messages name it
  std::filesystem::path target;     // after symlinks: the file replaced
  std::filesystem::path temporary;  // the new content; empty for a removal
  std::unique_ptr<RegisteredTemporary> registration;
  bool existed = false;
  std::filesystem::path backup;
  Backup backup_kind = Backup::none;
  bool in_place = false;  // the new content (or the removal) has taken the target's place
};

namespace {

// Tests only: SYNCSIM_TEST_INTERRUPT_AFTER_FILES=K sends this process SIGINT once K files of a set are written,
// the moment a Ctrl-C between two outputs would come (tests/app: the earlier set must survive whole).
void interrupt_for_test(std::size_t files_written) {
  static const char* const after = std::getenv("SYNCSIM_TEST_INTERRUPT_AFTER_FILES");
  if (after != nullptr && std::to_string(files_written) == after) std::raise(SIGINT);
}

std::size_t g_files_written = 0;

}  // namespace

OutputSet::OutputSet(std::filesystem::path dir) : dir_(std::move(dir)) {
  if (dir_.empty()) dir_ = ".";
  // The folders that are missing, deepest first, so that discard() can take back exactly what was made.
  for (std::filesystem::path p = dir_; !p.empty() && !std::filesystem::exists(p); p = p.parent_path()) {
    created_.push_back(p);
    if (p.parent_path() == p) break;
  }
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) throw InputError(fmt::format("cannot create '{}': {}", dir_.string(), error.message()));
}

OutputSet::~OutputSet() {
  if (!committed_) discard();
}

void OutputSet::add(const std::string& name, const std::function<void(std::ostream&)>& write) {
  auto entry = std::make_unique<Entry>();
  entry->shown = dir_ / name;
  const OutputTarget target = resolve_output(entry->shown);
  if (target.kind == OutputKind::refused) {
    write_failed(entry->shown, fmt::format("it is {}; an output folder's files must be files (or FIFOs and devices, "
                                           "written through)",
                                           target.what));
  }
  if (target.kind == OutputKind::write_through) {
    // trace.json -> /dev/null to skip a large trace: a device or FIFO has no earlier content to keep, so it is
    // written now and takes no part in the swap.
    write_through(target.file, entry->shown, write);
    interrupt_for_test(++g_files_written);
    return;
  }
  entry->target = target.file;
  entry->existed = target.kind == OutputKind::regular;
  entry->temporary = temporary_beside(target.file, "tmp");
  entry->registration = std::make_unique<RegisteredTemporary>(entry->temporary);
  Entry& e = *entry;
  entries_.push_back(std::move(entry));
  write_new_file(e.temporary, e.shown, target.mode, write);  // on failure, discard() removes it
  interrupt_for_test(++g_files_written);
}

void OutputSet::remove(const std::string& name) {
  auto entry = std::make_unique<Entry>();
  entry->shown = dir_ / name;
  const OutputTarget target = resolve_output(entry->shown);
  if (target.kind != OutputKind::regular) return;  // nothing of an earlier run to take away
  entry->target = target.file;
  entry->existed = true;
  entries_.push_back(std::move(entry));
}

void OutputSet::commit() {
  const SignalsBlocked blocked;  // the swap is never cut in half: an interrupt waits for its end
  std::size_t next = 0;
  std::size_t renames = 0;
  try {
    for (; next < entries_.size(); ++next) {
      Entry& e = *entries_[next];
      if (e.existed) {
        // A hard link keeps the earlier file where it is until its replacement is in; a file system without
        // hard links gets the earlier file moved aside instead.
        e.backup = temporary_beside(e.target, "old");
        ::unlink(e.backup.c_str());
        if (::link(e.target.c_str(), e.backup.c_str()) == 0) {
          e.backup_kind = Entry::Backup::linked;
        } else if (::rename(e.target.c_str(), e.backup.c_str()) == 0) {
          e.backup_kind = Entry::Backup::moved;
        } else {
          write_failed_errno(e.shown, errno);
        }
      }
      if (e.temporary.empty()) {
        if (e.backup_kind == Entry::Backup::linked && ::unlink(e.target.c_str()) != 0) {
          write_failed_errno(e.shown, errno);
        }
      } else {
        if (failing_rename_ == renames++) write_failed_errno(e.shown, EIO);
        if (::rename(e.temporary.c_str(), e.target.c_str()) != 0) write_failed_errno(e.shown, errno);
      }
      e.in_place = true;
    }
  } catch (...) {
    // Back to the earlier set, newest change first.
    for (std::size_t i = std::min(next + 1, entries_.size()); i-- > 0;) {
      Entry& e = *entries_[i];
      if (e.in_place && e.backup_kind == Entry::Backup::none) ::unlink(e.target.c_str());
      if (e.backup_kind == Entry::Backup::moved || (e.in_place && e.backup_kind == Entry::Backup::linked)) {
        ::rename(e.backup.c_str(), e.target.c_str());
      } else if (e.backup_kind == Entry::Backup::linked) {
        ::unlink(e.backup.c_str());
      }
    }
    discard();
    throw;
  }
  for (const auto& e : entries_) {
    if (e->backup_kind == Entry::Backup::linked || e->backup_kind == Entry::Backup::moved) {
      ::unlink(e->backup.c_str());
    }
    e->registration.reset();
  }
  committed_ = true;
}

void OutputSet::discard() {
  for (const auto& e : entries_) {
    if (!e->temporary.empty()) ::unlink(e->temporary.c_str());
    e->registration.reset();
  }
  entries_.clear();
  for (const std::filesystem::path& dir : created_) ::rmdir(dir.c_str());  // only if still empty
  created_.clear();
}

}  // namespace syncsim
