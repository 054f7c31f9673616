// The jobs on the machine (docs/gui.md, "Several jobs"): a scenario with `jobs:` opened in the GUI runs as `syncsim
// run` runs it (run_jobs), in the background runner with its progress and cancel; the Jobs view fills each GPU with
// its job's colour (idle ones neutral), marks as shared exactly the links the report names, with each job's share
// from the report; a bad jobs scenario is the loader's clear error.
//
// The system: two DDP jobs of 3 GPUs spread over a 2:1 fat tree of 8 GPUs (`syncsim topo`: four leaves of 2 GPUs,
// each with one uplink to the one spine): spread deals GPUs over the leaves in turn, so a is on GPUs 0, 2, 4 and b
// on 1, 3, 6, and GPUs 5 and 7 are idle. a's ring crosses the uplinks of leaves 0, 1 and 2, b's those of leaves 0,
// 1 and 3: the uplinks of leaves 0 and 1, both directions, are shared (4 links, each job's shared_link_count).
#include <QDir>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <map>
#include <set>

#include "models/job_colors.h"
#include "models/job_machine.h"
#include "models/loaded_document.h"
#include "models/scenario_runner.h"
#include "models/topology_placement.h"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/topology/topology.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"
#include "widgets/jobs_painter.h"
#include "widgets/jobs_view.h"
#include "widgets/main_window.h"
#include "widgets/screenshot.h"
#include "widgets/timeline_view.h"

namespace {

constexpr const char* kJobs = R"(seed: 3
cluster: {gpu: A100-SXM4-80GB, topology: "fattree:n=8,radix=4,bw=100Gbps,oversub=2"}
jobs:
  - {name: a, gpus: 3, model: {name: resnet50, batch_per_gpu: 64}}
  - {name: b, gpus: 3, model: {name: resnet50, batch_per_gpu: 32}}
placement: spread
window_iterations: 3
)";

// The same with a key misspelt inside a job.
constexpr const char* kBadJobs = R"(seed: 3
cluster: {gpu: A100-SXM4-80GB, topology: "fattree:n=8,radix=4,bw=100Gbps,oversub=2"}
jobs:
  - {name: a, gpus: 3, modle: {name: resnet50, batch_per_gpu: 64}}
)";

QString write(const QTemporaryDir& dir, const char* name, const char* text) {
  const QString path = dir.filePath(QLatin1String(name));
  std::ofstream(path.toStdString()) << text;
  return path;
}

using DirectedLink = std::pair<std::string, std::string>;  // from, to: topology node names

}  // namespace

class TestJobMachine : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_path = write(m_dir, "jobs.yaml", kJobs);
    m_report = syncsim::run::run_jobs(*syncsim::parse_jobs_scenario(kJobs, "jobs.yaml"));
    m_doc = loadDocument(m_path);
    QVERIFY(m_doc.jobs);
  }

  // One answer: the GUI runs the file as `syncsim run` does, so each job's figures are run_jobs's own.
  void sameIterationTimesAsRunJobs() {
    const std::vector<JobMachine::Job>& jobs = m_doc.jobs->jobs();
    QCOMPARE(jobs.size(), m_report.jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const syncsim::JobReport& r = m_report.jobs[j];
      QCOMPARE(jobs[j].name, QString::fromStdString(r.name));
      QCOMPARE(jobs[j].iterationMs, r.iteration_time.us() / 1e3);
      QCOMPARE(jobs[j].aloneMs, r.alone_iteration_time.us() / 1e3);
      QCOMPARE(jobs[j].slowdown, r.slowdown);
      QCOMPARE(jobs[j].sharedLinks, r.shared_link_count);
      // The summary's row says the same, as `syncsim run` prints it.
      const QString row = m_doc.jobs->summary()[3 + static_cast<qsizetype>(j)];
      QVERIFY2(row.contains(QString::asprintf("%12.3f", r.iteration_time.us() / 1e3)), qPrintable(row));
    }
    // The timeline is the jobs' trace, its lanes coloured by job.
    QCOMPARE(m_doc.timeline->jobs().size(), std::size_t{2});
  }

  void nodesTakeTheirJobsColour() {
    const JobMachine& machine = *m_doc.jobs;
    std::map<int, int> jobOf;
    for (std::size_t j = 0; j < m_report.jobs.size(); ++j) {
      for (const std::int64_t gpu : m_report.jobs[j].gpu_indices) jobOf[static_cast<int>(gpu)] = static_cast<int>(j);
    }
    QCOMPARE(jobOf.size(), std::size_t{6});
    QCOMPARE(machine.layout().gpuCount(), std::size_t{8});
    // Painted: each GPU box is filled with its job's colour, an idle one with the neutral colour.
    JobsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1200, 860);
    view.show();
    view.setJobs(m_doc.jobs);
    QCoreApplication::processEvents();
    const QImage image = view.grab().toImage();
    const QTransform map = view.topologyTransform();
    int idle = 0;
    for (int gpu = 0; gpu < 8; ++gpu) {
      const auto it = jobOf.find(gpu);
      const int job = it == jobOf.end() ? -1 : it->second;
      idle += job < 0 ? 1 : 0;
      QCOMPARE(machine.jobOfGpu(gpu), job);
      const int box = machine.layout().gpuBox(gpu);
      QCOMPARE(machine.jobOfBox(box), job);
      const QRectF r = map.mapRect(view.placement()->rect(box));
      QVERIFY(r.width() > 8 && r.height() > 8);
      const QColor expected = job < 0 ? JobsPainter::idleColor() : jobColor(static_cast<std::size_t>(job));
      QCOMPARE(image.pixelColor(QPoint(static_cast<int>(r.left()) + 3, static_cast<int>(r.bottom()) - 3)), expected);
    }
    QCOMPARE(idle, 2);
    QCOMPARE(machine.jobOfGpu(5), -1);
    QCOMPARE(machine.jobOfGpu(7), -1);
    // The legend names the jobs in their colours, then idle.
    const auto legend = view.legendItems();
    QVERIFY(legend.size() >= 3);
    QCOMPARE(legend[0].first, jobColor(0));
    QVERIFY(legend[0].second.startsWith(QStringLiteral("a: ")));
    QCOMPARE(legend[1].first, jobColor(1));
    QCOMPARE(legend[2].second, QStringLiteral("idle"));
  }

  // The shared links are exactly those the report names (each job's count fits its five busiest, so the report
  // names them all), each job's share of one the report's utilization_by_job; all are uplinks (switch to switch).
  void sharedLinksAreTheReports() {
    std::set<DirectedLink> reported;
    std::map<std::pair<DirectedLink, std::string>, double> share;
    for (const syncsim::JobReport& j : m_report.jobs) {
      QVERIFY(j.shared_link_count > 0);
      QVERIFY(j.shared_link_count <= static_cast<std::int64_t>(syncsim::kSharedLinksReported));
      for (const syncsim::SharedLinkReport& l : j.shared_links) {
        reported.insert({l.from, l.to});
        for (const auto& [job, u] : l.utilization_by_job) share[{{l.from, l.to}, job}] = u;
      }
    }
    const JobMachine& machine = *m_doc.jobs;
    const syncsim::Topology& t = machine.layout().topology();
    std::set<DirectedLink> shared;
    std::set<int> sharedEdges;
    for (std::uint32_t i = 0; i < t.link_count(); ++i) {
      const syncsim::Link& link = t.link(syncsim::LinkId{i});
      const EdgeUse use = machine.layout().useOfLink(i);
      const JobMachine::DirectedUse& u = machine.use(use.directed());
      if (!u.shared) continue;
      const DirectedLink names{t.node(link.src).name, t.node(link.dst).name};
      shared.insert(names);
      sharedEdges.insert(use.edge);
      QCOMPARE(t.node(link.src).kind, syncsim::NodeKind::network_switch);
      QCOMPARE(t.node(link.dst).kind, syncsim::NodeKind::network_switch);
      QCOMPARE(u.jobs.size(), std::size_t{2});
      for (const JobMachine::Use& job : u.jobs) {
        const std::string name = machine.jobs()[static_cast<std::size_t>(job.job)].name.toStdString();
        QVERIFY(std::abs(job.utilization - share.at({names, name})) <= 1e-8);
      }
    }
    QCOMPARE(shared, reported);
    QCOMPARE(shared.size(), std::size_t{4});
    QCOMPARE(machine.sharedEdgeCount(), static_cast<int>(sharedEdges.size()));
    // A shared link's label gives each job's share (a ring loads both directions of an uplink alike: one text), and
    // its tooltip says so per direction.
    const QString label = machine.edgeLabel(*sharedEdges.begin(), true);
    QVERIFY2(label.startsWith(QStringLiteral("a ")) && label.contains(QStringLiteral(" · b ")) &&
                 !label.contains(QStringLiteral("↑")),
             qPrintable(label));
    const QString tip = machine.edgeTip(*sharedEdges.begin());
    QVERIFY2(tip.contains(QStringLiteral("shared")) && tip.contains(QStringLiteral("a ")) &&
                 tip.contains(QStringLiteral("b ")),
             qPrintable(tip));
  }

  // An idle GPU's links carry no job; each working GPU's link to its leaf carries its own job only.
  void idleLinksCarryNoJob() {
    const JobMachine& machine = *m_doc.jobs;
    const auto& edges = machine.layout().edges();
    for (std::size_t e = 0; e < edges.size(); ++e) {
      for (const int end : {edges[e].a, edges[e].b}) {
        if (machine.layout().boxes()[static_cast<std::size_t>(end)].kind != TopologyBox::Kind::Gpu) continue;
        const int job = machine.jobOfBox(end);
        const std::vector<int> jobs = machine.edgeJobs(static_cast<int>(e));
        QCOMPARE(jobs, job < 0 ? std::vector<int>{} : std::vector<int>{job});
        QVERIFY(!machine.sharedEdge(static_cast<int>(e)));
      }
    }
  }

  // Through the window's worker thread: the stages and the jobs' iterations as progress, then the document.
  void runsInTheBackgroundRunner() {
    ScenarioRunner runner;
    QSignalSpy finished(&runner, &ScenarioRunner::finished);
    QSignalSpy progress(&runner, &ScenarioRunner::progress);
    runner.start(m_path);
    QVERIFY(finished.wait(60000));
    const auto doc = finished.first().first().value<std::shared_ptr<const LoadedDocument>>();
    QVERIFY(doc->jobs);
    QCOMPARE(doc->jobs->jobs()[1].iterationMs, m_report.jobs[1].iteration_time.us() / 1e3);
    bool iterations = false;
    for (const QList<QVariant>& p : progress) {
      iterations = iterations || p[2].toString().startsWith(QStringLiteral("Simulating: iteration"));
    }
    QVERIFY(iterations);
  }

  // Cancel mid-run: the simulation stops (RunCancelled inside run_jobs), its thread ends, nothing is delivered.
  void cancelStopsTheJobs() {
    QString text = QString::fromLatin1(kJobs);
    text.replace(QStringLiteral("window_iterations: 3"), QStringLiteral("window_iterations: 10000"));
    const QString path = write(m_dir, "long-jobs.yaml", text.toUtf8().constData());
    ScenarioRunner runner;
    QSignalSpy finished(&runner, &ScenarioRunner::finished);
    QSignalSpy canceled(&runner, &ScenarioRunner::canceled);
    bool simulating = false;
    connect(&runner, &ScenarioRunner::progress, this, [&](int, int, const QString& what) {
      if (!simulating && what.startsWith(QStringLiteral("Simulating: iteration"))) {
        simulating = true;
        runner.cancel();
      }
    });
    runner.start(path);
    QTRY_VERIFY_WITH_TIMEOUT(simulating, 60000);
    QCOMPARE(canceled.size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(runner.workerCount(), 0, 20000);
    QCOMPARE(finished.size(), 0);
  }

  // A bad jobs scenario: the loader's error, naming the file and the job's key; the runner reports it, no crash.
  void badJobsScenarioIsAClearError() {
    const QString path = write(m_dir, "bad-jobs.yaml", kBadJobs);
    try {
      (void)loadDocument(path);
      QFAIL("a misspelt key loaded");
    } catch (const syncsim::InputError& e) {
      QVERIFY2(e.key().starts_with("jobs[0]"), e.what());
      QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("bad-jobs.yaml")), e.what());
    }
    ScenarioRunner runner;
    QSignalSpy failed(&runner, &ScenarioRunner::failed);
    runner.start(path);
    QVERIFY(failed.wait(30000));
    QVERIFY(failed.first()[1].toString().contains(QStringLiteral("modle")));
  }

  // The window: the Jobs tab appears for a scenario with jobs, and is current; another document hides it.
  void windowShowsTheJobsTab() {
    MainWindow window;
    window.showDocument(std::make_shared<const LoadedDocument>(m_doc));
    const int tab = window.tabs()->indexOf(window.jobsView());
    QVERIFY(window.tabs()->isTabVisible(tab));
    QCOMPARE(window.tabs()->currentWidget(), window.jobsView());
    QCOMPARE(window.jobsView()->jobs(), m_doc.jobs.get());
    LoadedDocument single;
    single.timeline = std::make_shared<const TimelineData>(TimelineData::synthetic(4, 8));
    window.showDocument(std::make_shared<const LoadedDocument>(single));
    QVERIFY(!window.tabs()->isTabVisible(tab));
    QCOMPARE(window.tabs()->currentWidget(), window.timelineView());
    QCOMPARE(window.jobsView()->jobs(), nullptr);
  }

  // A run folder's trace records neither the machine nor every link: the Jobs view needs the scenario, and says so.
  void runFolderHasNoMachine() {
    const syncsim::trace::Trace trace = syncsim::run::jobs_trace(m_report);
    QTemporaryDir folder;
    {
      std::ofstream file(QDir(folder.path()).filePath(QStringLiteral("trace.json")).toStdString());
      syncsim::trace::write_chrome_trace(trace, file);
    }
    const LoadedDocument doc = loadDocument(folder.path());
    QVERIFY(!doc.jobs);
    QCOMPARE(doc.timeline->jobs().size(), std::size_t{2});
    const Screenshot shot = renderScreenshot(doc, ViewKind::Jobs);
    QVERIFY(shot.image.isNull());
    QVERIFY(shot.error.contains(QStringLiteral("jobs:")));
  }

 private:
  QTemporaryDir m_dir;
  QString m_path;
  syncsim::JobsReport m_report;
  LoadedDocument m_doc;
};

QTEST_MAIN(TestJobMachine)
#include "tst_gui_job_machine.moc"
