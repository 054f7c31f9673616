#include "models/loaded_document.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <string>
#include <vector>

#include "models/trace_json_reader.h"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/run/gpu_node.hpp"
#include "syncsim/run/job_timeline.hpp"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/jobs_config.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace {

// A report.json opens with its "scenario" key; a trace with "traceEvents" (or is an array of events). The first
// bytes decide, so that a large trace is not read twice; what is neither goes to the trace reader, which says why.
constexpr qint64 kSniffBytes = 4096;

bool looksLikeReport(const QString& path) {
  // Opening a FIFO would block until a writer comes: what is not a regular file goes to the reader, which refuses it.
  if (!syncsim::non_regular_kind(path.toStdString()).empty()) return false;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return false;
  const QByteArray head = file.read(kSniffBytes).trimmed();
  if (head.startsWith('[') || head.contains("\"traceEvents\"")) return false;
  return head.contains("\"scenario\"") || head.contains("\"convergence\"") || head.contains("\"samples_per_s\"");
}

}  // namespace

QString runFolderFile(const QString& path) {
  const QFileInfo info(path);
  if (!info.isDir()) return path;
  const QDir dir(path);
  const QString job = QString::fromUtf8(syncsim::run::kJobTimelineFile.data(),
                                        static_cast<qsizetype>(syncsim::run::kJobTimelineFile.size()));
  if (dir.exists(job)) return dir.filePath(job);
  // A folder that holds no run's files is not a run folder: the readers refuse it as they refuse any folder.
  return dir.exists(QStringLiteral("trace.json")) ? dir.filePath(QStringLiteral("trace.json")) : path;
}

DocumentKind documentKindOf(const QString& given) {
  const QString path = runFolderFile(given);
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == u"json") return looksLikeReport(path) ? DocumentKind::Report : DocumentKind::Trace;
  if (suffix == u"csv") return DocumentKind::Sweep;
  return DocumentKind::Scenario;
}

std::optional<BucketRun> bucketRunOf(const LoadedDocument& doc, const TimelineSpan& span) {
  if (!span.has(TimelineSpan::HasBucket) || span.bucket < 0) return std::nullopt;
  const auto bucket = static_cast<std::size_t>(span.bucket);
  if (bucket >= doc.buckets.size()) return std::nullopt;
  return doc.buckets[bucket];
}

int ringRanksOf(const TimelineData& timeline) {
  for (const TimelineLane& lane : timeline.lanes()) {
    for (const TimelineRow& row : lane.rows) {
      for (const TimelineSpan& s : row.spans) {
        if (s.kind == SpanKind::Communication && s.has(TimelineSpan::HasPeers)) return std::max(2, int(s.peers));
      }
    }
  }
  return std::max(2, timeline.laneCount(LaneKind::Gpu));
}

namespace {

// The scenario's GPU's compute capability: an inline GPU says it or not; a catalog name is looked up (the run already
// resolved it, so the lookup cannot fail for a scenario that ran).
std::optional<int> computeCapabilityOf(const syncsim::Scenario& scenario) {
  const syncsim::GpuConfig& gpu = scenario.cluster.gpu;
  if (gpu.inline_spec) return gpu.inline_spec->compute_capability;
  try {
    return syncsim::find_gpu(gpu.name.value).compute_capability;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<BucketRun> bucketRunsOf(const syncsim::TrainingReport& report) {
  std::vector<BucketRun> runs;
  for (const syncsim::BucketReport& b : report.buckets) {
    runs.push_back({QString::fromStdString(b.algorithm), static_cast<int>(std::max<std::uint32_t>(1, b.channels)),
                    b.protocol ? QString::fromStdString(*b.protocol) : QString()});
  }
  return runs;
}

// The stages of opening a scenario, in order; a trace or sweep has only the reading one.
enum Stage { Reading, Simulating, BuildingTimeline, LayingOutTopology, StageCount };

void enter(const RunControl* control, Stage stage) {
  if (control == nullptr) return;
  if (control->canceled.load()) throw RunCanceled();
  static const char* const kWhat[] = {
      QT_TRANSLATE_NOOP("LoadedDocument", "Reading"),
      QT_TRANSLATE_NOOP("LoadedDocument", "Simulating"),
      QT_TRANSLATE_NOOP("LoadedDocument", "Building the timeline"),
      QT_TRANSLATE_NOOP("LoadedDocument", "Laying out the topology"),
  };
  control->report(stage, StageCount, QCoreApplication::translate("LoadedDocument", kWhat[stage]));
}

// The bar moves at most this many times during a simulation: a run of 100,000 iterations would otherwise post
// 100,000 events to the window's thread, and a bar is 200-odd pixels wide anyway.
constexpr std::int64_t kProgressSteps = 200;

// run_scenario with the control's progress (iterations, or worker updates for asynchronous strategies) and its
// cancel flag, which the simulator checks after every iteration: a canceled run stops within one iteration.
syncsim::run::RunOutput simulate(const syncsim::Scenario& scenario, const RunControl* control,
                                 syncsim::run::Workspace& workspace) {
  if (control == nullptr) return syncsim::run::run_scenario(scenario, workspace);
  syncsim::run::RunProgress progress;
  progress.stop = &control->canceled;
  // Asynchronous strategies count worker updates (each worker's own iterations), the others iterations.
  const syncsim::StrategyKind strategy = scenario.training.strategy.value;
  const bool updates = strategy == syncsim::StrategyKind::async || strategy == syncsim::StrategyKind::ssp ||
                       strategy == syncsim::StrategyKind::hybrid;
  std::int64_t lastStep = -1;
  progress.on_iteration = [control, updates, &lastStep](std::int64_t done, std::int64_t total) {
    if (total <= 0) return;
    const std::int64_t step = done * kProgressSteps / total;
    if (step == lastStep && done != total) return;
    lastStep = step;
    control->reportSimulation(done, total, updates);
  };
  try {
    return syncsim::run::run_scenario(scenario, workspace, &progress);
  } catch (const syncsim::run::RunCancelled&) {
    throw RunCanceled();
  }
}

// A scenario with `jobs:` as `syncsim run` runs it (run_jobs), with the control's progress (the jobs' measured
// iterations) and cancel; its timeline is the jobs' trace, its machine the jobs' (job_machine.h).
void loadJobs(LoadedDocument& doc, const syncsim::JobsScenario& scenario, const RunControl* control) {
  enter(control, Simulating);
  syncsim::run::RunProgress progress;
  syncsim::run::JobsRunOptions options;
  if (control != nullptr) {
    progress.stop = &control->canceled;
    progress.on_iteration = [control](std::int64_t done, std::int64_t total) {
      control->reportSimulation(done, total, false);
    };
    options.progress = &progress;
  }
  syncsim::JobsReport report;
  try {
    report = syncsim::run::run_jobs(scenario, options);
  } catch (const syncsim::run::RunCancelled&) {
    throw RunCanceled();
  }
  enter(control, BuildingTimeline);
  doc.timeline = std::make_shared<const TimelineData>(TimelineData::fromTrace(syncsim::run::jobs_trace(report)));
  enter(control, LayingOutTopology);
  // The topology run_jobs placed the jobs on and routed their rings over.
  auto layout = std::make_shared<const TopologyLayout>(*syncsim::scenario_topology(scenario.base),
                                                       static_cast<int>(report.workers));
  doc.jobs = std::make_shared<const JobMachine>(report, std::move(layout));
  QStringList jobs;
  for (const JobMachine::Job& j : doc.jobs->jobs()) {
    jobs << QCoreApplication::translate("LoadedDocument", "%1 %2 ms (%3x)")
                .arg(j.name)
                .arg(j.iterationMs, 0, 'f', 3)
                .arg(j.slowdown, 0, 'f', 3);
  }
  doc.summary = QCoreApplication::translate("LoadedDocument", "%1 jobs on %2 GPUs: %3")
                    .arg(report.jobs.size())
                    .arg(report.workers)
                    .arg(jobs.join(QStringLiteral(", ")));
}

}  // namespace

LoadedDocument loadDocument(const QString& given, const QStringList& overrides, const RunControl* control,
                            syncsim::run::Workspace* workspace) {
  const QString path = runFolderFile(given);
  LoadedDocument doc;
  enter(control, Reading);
  doc.kind = documentKindOf(path);
  doc.path = path;
  doc.title = QFileInfo(path).fileName();
  if (doc.kind == DocumentKind::Sweep) {
    doc.scaling = readSweepCsv(path);
    return doc;
  }
  if (doc.kind == DocumentKind::Report) {
    doc.convergence = readConvergenceReport(path);
    doc.title = doc.convergence->name();
    return doc;
  }
  std::vector<std::string> sets;
  for (const QString& o : overrides) sets.push_back(o.toStdString());
  std::optional<syncsim::JobsScenario> jobs;
  if (doc.kind == DocumentKind::Scenario) jobs = syncsim::load_jobs_scenario(path.toStdString(), sets);
  if (doc.kind == DocumentKind::Trace) {
    doc.timeline = std::make_shared<const TimelineData>(TimelineData::fromTrace(readTraceJson(path)));
  } else if (jobs) {
    loadJobs(doc, *jobs, control);
  } else {
    const syncsim::Scenario scenario = syncsim::load_scenario(path.toStdString(), sets);
    enter(control, Simulating);
    syncsim::run::Workspace own;  // a run of its own when the caller keeps no workspace
    syncsim::run::RunOutput out = simulate(scenario, control, workspace ? *workspace : own);
    enter(control, BuildingTimeline);
    doc.summary = QCoreApplication::translate("LoadedDocument", "%1 samples/s, %2% scaling efficiency, %3 GPUs")
                      .arg(out.report.samples_per_second, 0, 'f', 1)
                      .arg(out.report.scaling_efficiency * 100, 0, 'f', 1)
                      .arg(out.report.workers);
    doc.convergence = convergenceRunOf(out.report, path);
    doc.buckets = bucketRunsOf(out.report);
    doc.computeCapability = computeCapabilityOf(scenario);
    if (const auto& l = out.report.layout) {
      doc.layoutGroups = LayoutGroups({.tensor = static_cast<int>(l->tensor),
                                       .context = static_cast<int>(l->context),
                                       .pipeline = static_cast<int>(l->pipeline),
                                       .data = static_cast<int>(l->data),
                                       .expert = static_cast<int>(l->expert)});
    }
    doc.timeline = std::make_shared<const TimelineData>(TimelineData::fromTrace(out.trace));
    enter(control, LayingOutTopology);
    // The topology the run ran on: the loader's, with the GPU's own node rates where the spec leaves them out.
    doc.topology = std::make_shared<const TopologyLayout>(*syncsim::run::node_topology(scenario),
                                                          static_cast<int>(out.report.workers));
  }
  if (!doc.timeline->title().isEmpty()) doc.title = doc.timeline->title();
  doc.ringRanks = ringRanksOf(*doc.timeline);
  return doc;
}

ConvergenceRun loadConvergenceRun(const QString& path, const QStringList& overrides) {
  if (documentKindOf(path) != DocumentKind::Scenario) return readConvergenceReport(path);
  std::vector<std::string> sets;
  for (const QString& o : overrides) sets.push_back(o.toStdString());
  const syncsim::Scenario scenario = syncsim::load_scenario(path.toStdString(), sets);
  auto run = convergenceRunOf(syncsim::run::run_scenario(scenario).report, path);
  if (!run) {
    throw syncsim::InputError(
        QCoreApplication::translate("LoadedDocument",
                                    "no convergence section: add `convergence:` to the scenario (docs/convergence.md)")
            .toStdString(),
        syncsim::SourceLocation{path.toStdString(), 0, 0}, "convergence");
  }
  return std::move(*run);
}
