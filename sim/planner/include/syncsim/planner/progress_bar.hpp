#pragma once
// ProgressBar: `[#########...........]  45/200 points  0:12 elapsed  ETA 0:31` on one terminal line, redrawn at
// most every 0.2 s. The ETA is elapsed / done x remaining: sweep points of one sweep cost roughly alike, and a
// smarter guess would still be wrong for the one 1,024-GPU point at the end.
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace syncsim::planner {

class ProgressBar {
 public:
  // Draws nothing when `out` is null (stderr is not a terminal, or an MPI rank other than 0).
  ProgressBar(std::ostream* out, std::size_t total);
  void advance();  // one more point done
  void finish();   // the final state and a newline

 private:
  void draw(bool force);
  std::ostream* out_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// ProgressLines: off a terminal (a log, CI, a pipe), one line per finished point:
//   `plan: 3/20 points  0:12 elapsed  ETA 1:08  (H100-SXM-80GB / ib400 / 4096 GPUs: TP8 PP16 DP32 ...)`
// Nothing when `out` is null, or when the environment sets SYNCSIM_PROGRESS=none (the docs tour, whose pages show
// stdout and stderr as they are, without times that change from run to run).
class ProgressLines {
 public:
  ProgressLines(std::ostream* out, std::size_t total);
  void point_done(const std::string& what);

 private:
  std::ostream* out_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace syncsim::planner
