#pragma once
// JobMachine: the jobs of a scenario with `jobs:` (docs/jobs.md) on the machine they ran on, for the Jobs view —
// which job each GPU (and each server whose GPUs are all one job's) trains, which jobs' AllReduces cross each link
// and each one's share of it, and which links are shared (another job's or the background's traffic crosses them
// too). Every figure is the simulator's: run_jobs's JobReport gives each job's GPUs and every link its AllReduce
// crosses with its utilization (report.json's utilization_by_job figure) and whether it is shared (the links
// shared_link_count counts). Nothing is recomputed here; job i takes jobColor(i), as on the timeline.
//
//   JobMachine machine(report, layout);
//   machine.jobOfGpu(3);          // 1: job b; -1: idle
//   machine.edgeJobs(e);          // the jobs on either direction of drawn edge e
//   machine.sharedEdge(e);        // crossed by two jobs, or a job and the background
//   machine.edgeTip(e);           // "leaf0 → spine0: shared — a 16.3 %, b 51.6 %"
#include <QColor>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "models/topology_layout.h"

namespace syncsim {
struct JobsReport;
}

class JobMachine {
 public:
  struct Job {
    QString name;
    QColor color;
    std::vector<int> gpus;  // cluster GPU indices, rank order
    // The report's figures, as `syncsim run` prints them.
    double iterationMs = 0;
    double aloneMs = 0;
    double slowdown = 0;
    qint64 sharedLinks = 0;  // shared_link_count
    QString nodes;           // "0,1,4,5" (the first 8, then the count)
  };
  struct Use {
    int job = 0;
    double utilization = 0;  // the job's mean share of the link's capacity
  };
  // One direction of a drawn edge.
  struct DirectedUse {
    std::vector<Use> jobs;  // in job order
    bool shared = false;
    bool background = false;
  };

  JobMachine(const syncsim::JobsReport& report, std::shared_ptr<const TopologyLayout> layout);

  const TopologyLayout& layout() const { return *m_layout; }
  const std::shared_ptr<const TopologyLayout>& layoutPointer() const { return m_layout; }
  const std::vector<Job>& jobs() const { return m_jobs; }
  // -1: idle (no job trains on it).
  int jobOfGpu(int gpu) const;
  // A GPU box: its GPU's job; a server, or a NIC or NVSwitch in it: the job of all its GPUs (-1 when they are idle
  // or of several jobs); a network switch: -1.
  int jobOfBox(int box) const;
  // Per directed edge (EdgeUse::directed()).
  const DirectedUse& use(int directed) const { return m_uses[static_cast<std::size_t>(directed)]; }
  // The jobs on either direction of edge `edge`, in job order.
  std::vector<int> edgeJobs(int edge) const;
  bool sharedEdge(int edge) const { return use(2 * edge).shared || use(2 * edge + 1).shared; }
  bool backgroundEdge(int edge) const { return use(2 * edge).background || use(2 * edge + 1).background; }
  int sharedEdgeCount() const;
  // What `syncsim run` prints for the jobs (its summary less the files it wrote): the title, the window and one row
  // per job, in its columns.
  const QStringList& summary() const { return m_summary; }
  // A shared edge's label: each job's share of it in per cent, and background traffic ("a 16.3 % · b 51.6 %"; the
  // two directions apart, "↑... ↓...", where they differ: `forwardUp` says whether a -> b runs up the screen).
  QString edgeLabel(int edge, bool forwardUp) const;
  // The edge's tooltip: each direction a job crosses, its jobs and their shares (translated).
  QString edgeTip(int edge) const;

 private:
  // Each job's share of one direction ("a 16.3 %"), then "background" when it crosses it.
  QStringList sharesOf(const DirectedUse& u) const;

  std::shared_ptr<const TopologyLayout> m_layout;
  std::vector<Job> m_jobs;
  std::vector<int> m_jobOfGpu;
  std::vector<int> m_jobOfBox;
  std::vector<DirectedUse> m_uses;
  QStringList m_summary;
};
