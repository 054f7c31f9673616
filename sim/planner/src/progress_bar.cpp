#include "syncsim/planner/progress_bar.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdlib>
#include <ostream>
#include <string_view>

namespace syncsim::planner {

namespace {

constexpr int kWidth = 30;
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

ProgressBar::ProgressBar(std::ostream* out, std::size_t total)
    : out_(out), total_(total), start_(std::chrono::steady_clock::now()), last_draw_(start_) {
  draw(true);
}

void ProgressBar::advance() {
  ++done_;
  draw(false);
}

void ProgressBar::finish() {
  draw(true);
  if (out_ != nullptr) *out_ << '\n' << std::flush;
  out_ = nullptr;
}

void ProgressBar::draw(bool force) {
  if (out_ == nullptr) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < kRedrawEvery && done_ != total_) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const int filled = total_ == 0 ? kWidth : static_cast<int>(kWidth * done_ / total_);
  const std::string eta =
      done_ == 0 ? "?" : clock_text(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_));
  fmt::print(*out_, "\r[{}{}] {:>4}/{} points  {} elapsed  ETA {}  ", std::string(filled, '#'),
             std::string(kWidth - filled, '.'), done_, total_, clock_text(elapsed), eta);
  *out_ << std::flush;
}

ProgressLines::ProgressLines(std::ostream* out, std::size_t total)
    : out_(out), total_(total), start_(std::chrono::steady_clock::now()) {
  const char* setting = std::getenv("SYNCSIM_PROGRESS");
  if (setting != nullptr && std::string_view(setting) == "none") out_ = nullptr;
}

void ProgressLines::point_done(const std::string& what) {
  ++done_;
  if (out_ == nullptr) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double left = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  fmt::print(*out_, "plan: {}/{} points  {} elapsed  ETA {}  ({})\n", done_, total_, clock_text(elapsed),
             clock_text(left), what);
  *out_ << std::flush;
}

}  // namespace syncsim::planner
