// Jobs in colour (docs/gui.md, "Several jobs"): a multi-job trace's GPU lanes take their job's colour, job i the i-th
// Okabe-Ito colour, the one palette the charts use too; the legend names the jobs. The assignment is asserted, not
// pixels.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "models/job_colors.h"
#include "models/loaded_document.h"
#include "models/okabe_ito.h"
#include "models/timeline_data.h"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"
#include "widgets/chart_palette.h"
#include "widgets/timeline_view.h"

namespace {

// Two DDP jobs of 4 GPUs spread over a 2:1 fat tree of 8: a on GPUs 0, 2, 4, 6 and b on 1, 3, 5, 7.
constexpr const char* kJobs = R"(seed: 3
cluster: {gpu: A100-SXM4-80GB, topology: "fattree:n=8,radix=4,bw=100Gbps,oversub=2"}
jobs:
  - {name: a, gpus: 4, model: {name: resnet50, batch_per_gpu: 64}}
  - {name: b, gpus: 4, model: {name: resnet50, batch_per_gpu: 32}}
placement: spread
window_iterations: 3
)";

}  // namespace

class TestJobColors : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    const std::optional<syncsim::JobsScenario> scenario = syncsim::parse_jobs_scenario(kJobs, "jobs.yaml");
    QVERIFY(scenario);
    const syncsim::trace::Trace trace = syncsim::run::jobs_trace(syncsim::run::run_jobs(*scenario));
    QVERIFY(m_dir.isValid());
    std::ofstream file(QDir(m_dir.path()).filePath("trace.json").toStdString());
    syncsim::trace::write_chrome_trace(trace, file);
  }

  void onePaletteOkabeIto() {
    QCOMPARE(jobColor(0), QColor(0x00, 0x72, 0xB2));  // blue
    QCOMPARE(jobColor(1), QColor(0xD5, 0x5E, 0x00));  // vermillion
    QCOMPARE(jobColor(8), jobColor(0));               // round and round
    for (std::size_t i = 0; i < 16; ++i) QCOMPARE(chartSeriesColor(i), jobColor(i));
  }

  void runFolderOpensOnTheJobsTrace() {
    const LoadedDocument doc = loadDocument(m_dir.path());
    QCOMPARE(doc.kind, DocumentKind::Trace);
    QVERIFY(doc.timeline);
    const std::vector<TimelineJob>& jobs = doc.timeline->jobs();
    QCOMPARE(jobs.size(), std::size_t{2});
    QCOMPARE(jobs[0].name, QStringLiteral("a"));
    QCOMPARE(jobs[0].gpus, (std::vector<qint64>{0, 2, 4, 6}));
    QCOMPARE(jobs[1].name, QStringLiteral("b"));
    QCOMPARE(jobs[1].gpus, (std::vector<qint64>{1, 3, 5, 7}));
  }

  void gpuLanesTakeTheirJobsColour() {
    const LoadedDocument doc = loadDocument(m_dir.path());
    const JobColors colors = JobColors::of(*doc.timeline);
    QCOMPARE(colors.jobs().size(), std::size_t{2});
    QCOMPARE(colors.jobs()[0].color, jobColor(0));
    QCOMPARE(colors.jobs()[1].color, jobColor(1));
    const std::vector<TimelineLane>& lanes = doc.timeline->lanes();
    QCOMPARE(lanes.size(), std::size_t{8});  // one lane per GPU, compute and communication rows
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      const int gpu = lanes[i].name.mid(4).toInt();  // "gpu N", in GPU order
      QCOMPARE(lanes[i].name, QStringLiteral("gpu %1").arg(i));
      QCOMPARE(colors.jobOfLane(static_cast<int>(i)), gpu % 2);
      QCOMPARE(colors.laneColor(static_cast<int>(i)),
               std::optional<QColor>(jobColor(static_cast<std::size_t>(gpu % 2))));
    }
    QCOMPARE(colors.jobOfLane(8), -1);  // no such lane
  }

  void legendNamesTheJobs() {
    TimelineView view;
    view.setTimeline(loadDocument(m_dir.path()).timeline);
    const std::vector<std::pair<QColor, QString>> items = view.legendItems();
    QVERIFY(items.size() >= 2);
    QCOMPARE(items[items.size() - 2], (std::pair<QColor, QString>(jobColor(0), QStringLiteral("job a"))));
    QCOMPARE(items.back(), (std::pair<QColor, QString>(jobColor(1), QStringLiteral("job b"))));
    QCOMPARE(view.jobColors().jobOfLane(3), 1);
  }

  void singleJobTraceHasNoJobColours() {
    const auto synthetic = std::make_shared<const TimelineData>(TimelineData::synthetic(4, 8));
    const JobColors colors = JobColors::of(*synthetic);
    QVERIFY(colors.jobs().empty());
    for (int lane = 0; lane < 4; ++lane) QVERIFY(!colors.laneColor(lane));
    TimelineView view;
    view.setTimeline(synthetic);
    for (const auto& [color, name] : view.legendItems()) QVERIFY(!name.startsWith(QStringLiteral("job ")));
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_MAIN(TestJobColors)
#include "tst_gui_job_colors.moc"
