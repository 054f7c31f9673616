#pragma once
// Opening a file: a scenario (YAML) is simulated, a trace (trace.json) is read, a sweep (CSV) is parsed, a
// report.json's convergence section is read (convergence_run.h); a scenario with `jobs:` is run as `syncsim run`
// runs it (run_jobs) — the one
// function the window, its worker thread and the --screenshot mode share. It blocks; ScenarioRunner runs it on a
// worker thread for the window.
//
// Errors throw (syncsim::InputError for bad input, with file, line and key); the caller shows them.
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

#include "models/collective_traffic.h"
#include "models/convergence_run.h"
#include "models/job_machine.h"
#include "models/layout_groups.h"
#include "models/run_control.h"
#include "models/sweep_csv.h"
#include "models/timeline_data.h"
#include "models/topology_layout.h"
#include "syncsim/run/workspace.hpp"

enum class DocumentKind { Scenario, Trace, Sweep, Report };

struct LoadedDocument {
  DocumentKind kind = DocumentKind::Trace;
  QString path;
  QString title;
  QString summary;                               // one line for the status bar (a scenario's throughput and scaling)
  std::shared_ptr<const TimelineData> timeline;  // scenarios and traces
  ScalingData scaling;                           // sweeps
  int ringRanks = 0;  // ranks in the AllReduce ring: a communication span's "ranks", else the GPU lanes
  // Scenarios: the machine they ran on, for the ring view (traces do not record it: the view draws a circle).
  std::shared_ptr<const TopologyLayout> topology;
  // Scenarios: what each bucket's AllReduce ran as (report.json's buckets, by bucket index: algorithm, channels,
  // protocol), and the GPUs' compute capability where the catalog knows it. Traces record neither.
  std::vector<BucketRun> buckets;
  std::optional<int> computeCapability;
  // Scenarios with a model-parallel layout: its groups, for the ring view's group selector.
  std::optional<LayoutGroups> layoutGroups;
  // Scenarios with `jobs:` (docs/jobs.md): the jobs on the machine, run by run_jobs as `syncsim run` runs them (its
  // timeline is the jobs' trace; `topology` stays null: the ring view has no single AllReduce to follow).
  std::shared_ptr<const JobMachine> jobs;
  // Reports, and scenarios with a `convergence:` section: the run for the Convergence view.
  std::optional<ConvergenceRun> convergence;
};

// A run folder (`syncsim run`'s output) stands for its job_timeline.json when it has one, else its trace.json; any
// other path (a folder with neither too) stands for itself.
QString runFolderFile(const QString& path);
// By extension (a run folder by runFolderFile): .csv is a sweep, .json a trace or, when its first bytes look like one
// (a "scenario" key and no "traceEvents"), a report.json; anything else a scenario.
DocumentKind documentKindOf(const QString& path);
// With `control`, reports each stage and throws RunCanceled between stages once it is canceled. A scenario runs
// with `workspace` when given (the document's: collectives its earlier runs simulated are reused), else alone.
LoadedDocument loadDocument(const QString& path, const QStringList& overrides = {}, const RunControl* control = nullptr,
                            syncsim::run::Workspace* workspace = nullptr);
// The convergence run of a report.json, or of a scenario (.yaml) simulated here; throws InputError when the file
// has no convergence section, as for any bad input.
ConvergenceRun loadConvergenceRun(const QString& path, const QStringList& overrides = {});
// What the AllReduce `span` ran as, when the document knows (a scenario's bucket); else none.
std::optional<BucketRun> bucketRunOf(const LoadedDocument& doc, const TimelineSpan& span);
// The ring size a timeline implies (at least 2).
int ringRanksOf(const TimelineData& timeline);
