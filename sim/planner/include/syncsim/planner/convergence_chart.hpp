#pragma once
// Charts of the convergence proxy (report.json's `convergence` and `staleness`), drawn like the plan's
// (chart.hpp): `syncsim run` writes them next to report.json, `syncsim plan --objective time-to-accuracy` for the
// configurations it compares.
#include <string>
#include <utility>
#include <vector>

#include "syncsim/chart/chart.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::planner {

// Held-out loss against simulated seconds, one series per run (name, report), with the target as a rule when
// the first run has one.
chart::Chart loss_chart(const std::vector<std::pair<std::string, const ConvergenceReport*>>& runs);

// Updates applied against their staleness (how many other updates landed in between).
chart::Chart staleness_chart(const StalenessReport& staleness);

}  // namespace syncsim::planner
