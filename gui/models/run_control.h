#pragma once
// RunControl: what a worker thread shares with the window while it loads a document or runs a sweep — a cancel
// flag the worker checks between units of work, and a progress callback it calls (from the worker thread: the
// callback must only post to the GUI thread).
//
// Granularity: a sweep reports and cancels per point (planner::run_points stops starting points once canceled). A
// scenario reports its stages (load, simulate, build the timeline, lay out the topology) and, while simulating,
// its iterations (worker updates for asynchronous strategies): run::run_scenario calls back after each one and
// checks `canceled` there (run::RunProgress), so a canceled simulation stops within one iteration.
#include <QCoreApplication>
#include <QString>
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <exception>
#include <functional>

struct RunControl {
  std::atomic<bool> canceled{false};
  // done of total units (points, or stages), and what is running now (translated).
  std::function<void(int done, int total, const QString& what)> progress;

  void report(int done, int total, const QString& what) const {
    if (progress) progress(done, total, what);
  }

  // The simulation's own progress: `done` of `total` iterations, or worker updates when `updates`.
  void reportSimulation(std::int64_t done, std::int64_t total, bool updates) const {
    if (!progress || total <= 0) return;
    // A progress bar counts in int: scale totals beyond it down (the text keeps the real numbers).
    const std::int64_t scale = std::max<std::int64_t>(1, total / INT_MAX + 1);
    const QString what =
        updates ? QCoreApplication::translate("RunControl", "Simulating: update %1 of %2").arg(done).arg(total)
                : QCoreApplication::translate("RunControl", "Simulating: iteration %1 of %2").arg(done).arg(total);
    progress(static_cast<int>(done / scale), static_cast<int>(total / scale), what);
  }
};

// Thrown by a worker that saw RunControl::canceled; the runner turns it into its canceled() signal.
class RunCanceled : public std::exception {
 public:
  const char* what() const noexcept override { return "canceled"; }
};
