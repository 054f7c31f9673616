#pragma once
// The journal of a plan in progress (`syncsim plan`'s OUTDIR/plan.resume.jsonl): one line per finished point, written
// and flushed as the point finishes, so that a plan stopped part-way (Ctrl-C, a lost session, a killed job) runs
// again from where it was, as `syncsim sweep -o` resumes from its table.
//
//   {"syncsim_plan_journal": 1, "fingerprint": "..."}            the first line: which question this journal answers
//   {"point": 3, "labels": [...], "runs": [[ROW, ...], ...], "search": {...}}     one line per finished point
//
// The fingerprint covers the scenario file's content and every flag that changes what a point's runs give (plan.cpp
// says which); a journal of another question is not read, and this plan's first point replaces it. A point's runs
// are its seeds' rows as the plan keeps them before the analysis (PlanPoint, every field; doubles as JSON writes
// them, which read back to the same bits), so a resumed plan prints and writes what an uninterrupted one does. The
// journal is removed once the plan's outputs are written: a finished plan plans afresh when run again. A last line
// cut short by the interruption is dropped; any other line that is not a point is an error at its line.
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/plan_analysis.hpp"

namespace syncsim::planner {

struct JournalPoint {
  std::size_t point = 0;
  std::vector<std::string> labels;           // the point's grid labels (SweepPoint::labels), checked on resume
  std::vector<std::vector<PlanPoint>> runs;  // per seed, the run's rows
  std::optional<std::string> layout;         // with --layouts auto: the chosen layout
  std::optional<LayoutSearchStats> search;   // and what the search did
};

class PlanJournal {
 public:
  // Reads `path` when it is this question's journal (`fingerprint`). Throws InputError at a line that is not one.
  PlanJournal(std::filesystem::path path, std::string fingerprint);

  const std::filesystem::path& path() const { return path_; }
  // The points an earlier, interrupted run of this plan finished, by point index.
  const std::map<std::size_t, JournalPoint>& resumed() const { return resumed_; }
  // Appends the point (the first append of a new journal writes it afresh), flushed before it returns.
  void append(const JournalPoint& point);
  // The plan is complete: the journal goes.
  void remove();

 private:
  std::filesystem::path path_;
  std::string fingerprint_;
  std::map<std::size_t, JournalPoint> resumed_;
  bool started_ = false;  // this run has written the header
};

// Every field of a row, and back (plan_journal.cpp).
nlohmann::ordered_json plan_point_json(const PlanPoint& p);
PlanPoint plan_point_from_json(const nlohmann::ordered_json& j);

}  // namespace syncsim::planner
