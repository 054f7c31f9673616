#include "models/job_machine.h"

#include <QCoreApplication>
#include <algorithm>
#include <map>

#include "models/job_colors.h"
#include "syncsim/topology/topology.hpp"
#include "syncsim/training/jobs_report.hpp"

namespace {

constexpr int kMixed = -2;  // a server whose GPUs are of several jobs (or some idle), while it is being decided

// The nodes `syncsim run` lists in its table: the first 8, then the count (the rest are in report.json).
QString nodeList(const std::vector<std::int64_t>& nodes) {
  constexpr std::size_t kShown = 8;
  QStringList shown;
  for (std::size_t i = 0; i < nodes.size() && i < kShown; ++i) shown << QString::number(nodes[i]);
  QString out = shown.join(QLatin1Char(','));
  if (nodes.size() > kShown) out += QStringLiteral(",... (%1 nodes)").arg(nodes.size());
  return out;
}

// syncsim run's summary of a jobs run (sim/app/jobs_text.cpp), line for line but the files it wrote.
QStringList summaryOf(const syncsim::JobsReport& r) {
  QStringList out;
  out << QString::asprintf("# syncsim run %s: %zu jobs on %lld GPUs, placement %s, %lld background flows",
                           r.scenario.c_str(), r.jobs.size(), static_cast<long long>(r.workers), r.placement.c_str(),
                           static_cast<long long>(r.background_flows));
  out << QString::asprintf(
      "window           %.3f ms .. %.3f ms (%.3f ms): at least %lld iterations of each job (%s last)",
      r.window_start.us() / 1e3, r.window_end.us() / 1e3, (r.window_end - r.window_start).us() / 1e3,
      static_cast<long long>(r.window_iterations), r.slowest_job.c_str());
  out << QString::asprintf("%-16s %6s %12s %12s %9s %7s  %s", "job", "gpus", "iter (ms)", "alone (ms)", "slowdown",
                           "shared", "nodes");
  for (const syncsim::JobReport& j : r.jobs) {
    out << QString::asprintf("%-16s %6lld %12.3f %12.3f %8.3fx %7lld  %s", j.name.c_str(),
                             static_cast<long long>(j.gpus), j.iteration_time.us() / 1e3,
                             j.alone_iteration_time.us() / 1e3, j.slowdown, static_cast<long long>(j.shared_link_count),
                             qPrintable(nodeList(j.nodes)));
  }
  return out;
}

}  // namespace

JobMachine::JobMachine(const syncsim::JobsReport& report, std::shared_ptr<const TopologyLayout> layout)
    : m_layout(std::move(layout)),
      m_jobOfGpu(m_layout->gpuCount(), -1),
      m_jobOfBox(m_layout->boxes().size(), -1),
      m_uses(2 * m_layout->edges().size()),
      m_summary(summaryOf(report)) {
  for (std::size_t j = 0; j < report.jobs.size(); ++j) {
    const syncsim::JobReport& r = report.jobs[j];
    Job job{QString::fromStdString(r.name),
            jobColor(j),
            {},
            r.iteration_time.us() / 1e3,
            r.alone_iteration_time.us() / 1e3,
            r.slowdown,
            r.shared_link_count,
            nodeList(r.nodes)};
    for (const std::int64_t gpu : r.gpu_indices) {
      job.gpus.push_back(static_cast<int>(gpu));
      m_jobOfGpu[static_cast<std::size_t>(gpu)] = static_cast<int>(j);
    }
    for (const syncsim::JobLinkUse& l : r.links) {
      DirectedUse& u = m_uses[static_cast<std::size_t>(m_layout->useOfLink(l.link).directed())];
      u.jobs.push_back({static_cast<int>(j), l.utilization});
      u.shared = u.shared || l.shared;
      u.background = u.background || l.background;
    }
    m_jobs.push_back(std::move(job));
  }
  // Servers: one job's when all their GPUs are; what they hold (NICs, NVSwitch) goes with them.
  std::map<int, int> hostJob;
  for (std::size_t gpu = 0; gpu < m_jobOfGpu.size(); ++gpu) {
    const int box = m_layout->gpuBox(static_cast<int>(gpu));
    m_jobOfBox[static_cast<std::size_t>(box)] = m_jobOfGpu[gpu];
    const int host = m_layout->hostOf(box);
    if (host < 0) continue;
    const auto [it, first] = hostJob.emplace(host, m_jobOfGpu[gpu]);
    if (!first && it->second != m_jobOfGpu[gpu]) it->second = kMixed;
  }
  for (std::size_t box = 0; box < m_jobOfBox.size(); ++box) {
    const auto kind = m_layout->boxes()[box].kind;
    if (kind == TopologyBox::Kind::Gpu) continue;
    const auto it = hostJob.find(m_layout->hostOf(static_cast<int>(box)));
    if (it != hostJob.end()) m_jobOfBox[box] = std::max(-1, it->second);
  }
}

int JobMachine::jobOfGpu(int gpu) const {
  if (gpu < 0 || gpu >= static_cast<int>(m_jobOfGpu.size())) return -1;
  return m_jobOfGpu[static_cast<std::size_t>(gpu)];
}

int JobMachine::jobOfBox(int box) const {
  if (box < 0 || box >= static_cast<int>(m_jobOfBox.size())) return -1;
  return m_jobOfBox[static_cast<std::size_t>(box)];
}

std::vector<int> JobMachine::edgeJobs(int edge) const {
  std::vector<int> jobs;
  for (const int directed : {2 * edge, 2 * edge + 1}) {
    for (const Use& u : use(directed).jobs) jobs.push_back(u.job);
  }
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  return jobs;
}

int JobMachine::sharedEdgeCount() const {
  int n = 0;
  for (std::size_t e = 0; e < m_layout->edges().size(); ++e) n += sharedEdge(static_cast<int>(e)) ? 1 : 0;
  return n;
}

QStringList JobMachine::sharesOf(const DirectedUse& u) const {
  QStringList out;
  for (const Use& job : u.jobs) {
    out << QStringLiteral("%1 %2 %")
               .arg(m_jobs[static_cast<std::size_t>(job.job)].name)
               .arg(100 * job.utilization, 0, 'f', 1);
  }
  if (u.background) out << QCoreApplication::translate("JobMachine", "background");
  return out;
}

QString JobMachine::edgeLabel(int edge, bool forwardUp) const {
  const auto shares = [&](const DirectedUse& u) { return sharesOf(u).join(QStringLiteral(" · ")); };
  const QString forward = shares(use(2 * edge));
  const QString backward = shares(use(2 * edge + 1));
  if (forward == backward || backward.isEmpty()) return forward;
  if (forward.isEmpty()) return backward;
  return QStringLiteral("↑%1 ↓%2").arg(forwardUp ? forward : backward, forwardUp ? backward : forward);
}

QString JobMachine::edgeTip(int edge) const {
  const TopologyEdge& e = m_layout->edges()[static_cast<std::size_t>(edge)];
  const auto& boxes = m_layout->boxes();
  QStringList lines;
  for (const bool forward : {true, false}) {
    const DirectedUse& u = use(2 * edge + (forward ? 0 : 1));
    if (u.jobs.empty()) continue;
    const QStringList shares = sharesOf(u);
    const QString& from = boxes[static_cast<std::size_t>(forward ? e.a : e.b)].label;
    const QString& to = boxes[static_cast<std::size_t>(forward ? e.b : e.a)].label;
    lines << (u.shared ? QCoreApplication::translate("JobMachine", "%1 → %2: shared — %3")
                       : QCoreApplication::translate("JobMachine", "%1 → %2: %3"))
                 .arg(from, to, shares.join(QStringLiteral(", ")));
  }
  return lines.join(QLatin1Char('\n'));
}
