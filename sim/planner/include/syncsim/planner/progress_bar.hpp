#pragma once
// ProgressBar: `[#########...........]  45/200 points  0:12 elapsed  ETA 0:31` on one terminal line, redrawn at
// most every 0.2 s. The ETA is elapsed / done x remaining: sweep points of one sweep cost roughly alike, and a
// smarter guess would still be wrong for the one 1,024-GPU point at the end.
#include <chrono>
#include <cstddef>
#include <iosfwd>

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

}  // namespace syncsim::planner
