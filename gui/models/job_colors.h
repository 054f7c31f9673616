#pragma once
// JobColors: the colour of each job of a multi-job trace (`syncsim run` of a scenario with `jobs:`, docs/jobs.md "The
// trace"), and which timeline lanes are its GPUs. Job i takes the i-th Okabe-Ito colour (okabe_ito.h), in the jobs'
// order as the trace lists them (metadata "job NAME": the GPU indices of its lanes); a GPU lane is "gpu N".
//
//   JobColors colors = JobColors::of(*timeline);
//   colors.jobOfLane(lane);        // -1: no job (a link lane, or a single-job trace)
//   colors.laneColor(lane);        // its job's colour
//   colors.jobs();                 // the legend: each job's name and colour
#include <QColor>
#include <QString>
#include <optional>
#include <vector>

class TimelineData;

class JobColors {
 public:
  struct Job {
    QString name;
    QColor color;
  };

  static JobColors of(const TimelineData& timeline);

  const std::vector<Job>& jobs() const { return m_jobs; }
  int jobOfLane(int lane) const;
  std::optional<QColor> laneColor(int lane) const;

 private:
  std::vector<Job> m_jobs;
  std::vector<int> m_jobOfLane;  // per lane of the timeline
};

// The colour of the i-th job: okabeItoColor(i).
QColor jobColor(std::size_t job);
