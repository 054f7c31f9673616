#include "models/job_colors.h"

#include <QRegularExpression>
#include <map>

#include "models/okabe_ito.h"
#include "models/timeline_data.h"

QColor jobColor(std::size_t job) {
  return okabeItoColor(job);
}

JobColors JobColors::of(const TimelineData& timeline) {
  JobColors out;
  std::map<qint64, int> jobOfGpu;
  for (std::size_t j = 0; j < timeline.jobs().size(); ++j) {
    const TimelineJob& job = timeline.jobs()[j];
    out.m_jobs.push_back({job.name, jobColor(j)});
    for (const qint64 gpu : job.gpus) jobOfGpu.emplace(gpu, static_cast<int>(j));
  }
  static const QRegularExpression gpuLane(QStringLiteral("^gpu (\\d+)$"));
  for (const TimelineLane& lane : timeline.lanes()) {
    int job = -1;
    if (lane.kind == LaneKind::Gpu) {
      const QRegularExpressionMatch m = gpuLane.match(lane.name);
      if (m.hasMatch()) {
        const auto it = jobOfGpu.find(m.captured(1).toLongLong());
        if (it != jobOfGpu.end()) job = it->second;
      }
    }
    out.m_jobOfLane.push_back(job);
  }
  return out;
}

int JobColors::jobOfLane(int lane) const {
  if (lane < 0 || lane >= static_cast<int>(m_jobOfLane.size())) return -1;
  return m_jobOfLane[static_cast<std::size_t>(lane)];
}

std::optional<QColor> JobColors::laneColor(int lane) const {
  const int job = jobOfLane(lane);
  if (job < 0) return std::nullopt;
  return m_jobs[static_cast<std::size_t>(job)].color;
}
