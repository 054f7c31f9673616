#pragma once
// SimTimeOverflow: a simulated time that leaves SimTime's int64-picosecond clock (about 106 days).
//
// Valid inputs can ask for it: a 1 GiB transfer at 1 bps, a latency of 2000 h per hop, a kernel overhead of an
// hour on every layer of a long run. SimTime's conversions and arithmetic check for it and throw this instead of
// wrapping around (which once surfaced as "event scheduled in the past"). It is an InputError, so anything that
// lets it through still exits 2 with one line; a caller that knows which input led there (run_scenario, the
// collective command) catches it and rethrows at that input, keeping quantity() in the message:
//
//   try { ... } catch (const SimTimeOverflow& e) { throw InputError(e.message(), where, "cluster.topology"); }
//   // x.yaml: cluster.topology: the simulated time passes 106 days (the int64-picosecond clock): 1 GiB at 0.125 B/s
#include <string>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

class SimTimeOverflow : public InputError {
 public:
  // `quantity` says what overflowed, e.g. "moving 1 GiB at 0.125 B/s takes 8.59e+09 s".
  explicit SimTimeOverflow(std::string quantity);

  const std::string& quantity() const { return quantity_; }

 private:
  std::string quantity_;
};

}  // namespace syncsim
