// The job timeline in the GUI (docs/gui.md): a run folder with job_timeline.json opens on it; its spans take the
// job's kinds (failure, detection, restart, restore, repair wait, checkpoint save, lost progress), each with its own
// colour and name; the job lane tiles the job; and the axis reads hours and days at its scale.
#include <QDir>
#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "models/loaded_document.h"
#include "models/span_kind.h"
#include "models/time_scale.h"
#include "models/timeline_data.h"
#include "syncsim/run/job_timeline.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"

namespace {

constexpr SpanKind kJobKinds[] = {SpanKind::JobTraining,  SpanKind::CheckpointSave, SpanKind::CheckpointUpload,
                                  SpanKind::LostProgress, SpanKind::Failure,        SpanKind::Detection,
                                  SpanKind::SpareSwap,    SpanKind::RepairWait,     SpanKind::Restart,
                                  SpanKind::Restore,      SpanKind::SpareRepair};

}  // namespace

class TestJobTimeline : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    const syncsim::Scenario scenario =
        syncsim::load_scenario(SYNCSIM_SOURCE_DIR "/tests/run/data/job-timeline.yaml", {});
    syncsim::run::RunOutput out = syncsim::run::run_scenario(scenario);
    QVERIFY(out.job_timeline);
    m_trace = std::move(*out.job_timeline);
    QVERIFY(m_dir.isValid());
    std::ofstream file(QDir(m_dir.path()).filePath("job_timeline.json").toStdString());
    syncsim::trace::write_chrome_trace(m_trace, file);
    std::ofstream trace(QDir(m_dir.path()).filePath("trace.json").toStdString());
    syncsim::trace::write_chrome_trace(out.trace, trace);
  }

  void runFolderOpensOnTheJobTimeline() {
    const LoadedDocument doc = loadDocument(m_dir.path());
    QCOMPARE(doc.kind, DocumentKind::Trace);
    QVERIFY(doc.path.endsWith(QStringLiteral("job_timeline.json")));
    QVERIFY(doc.timeline);
    QCOMPARE(doc.timeline->lanes().front().name, QStringLiteral("job"));
  }

  void spansTakeTheJobKindsAndTileTheJob() {
    const TimelineData d = TimelineData::fromTrace(m_trace);
    int failures = 0;
    for (const syncsim::trace::Span& s : m_trace.spans()) {
      failures += m_trace.str(s.category) == syncsim::run::job_category::failure ? 1 : 0;
    }
    QVERIFY(failures > 0);
    int shown = 0;
    for (const TimelineLane& lane : d.lanes()) {
      for (const TimelineRow& row : lane.rows) {
        for (const TimelineSpan& s : row.spans) {
          QVERIFY(std::find(std::begin(kJobKinds), std::end(kJobKinds), s.kind) != std::end(kJobKinds));
          shown += s.kind == SpanKind::Failure ? 1 : 0;
        }
      }
    }
    QCOMPARE(shown, failures);
    const TimelineRow& job = d.lanes().front().rows.front();
    qint64 end = 0;
    for (const TimelineSpan& s : job.spans) {
      QCOMPARE(s.startPs, end);  // no gap, no overlap
      end = s.endPs();
    }
    QCOMPARE(end, d.endPs());
    QCOMPARE(d.beginPs(), qint64(0));
  }

  void eachJobKindHasItsOwnColourAndName() {
    QSet<QRgb> colours;
    QSet<QString> names;
    for (const SpanKind k : kJobKinds) {
      colours.insert(spanKindColor(k).rgb());
      names.insert(spanKindName(k));
    }
    for (int k = 0; k < static_cast<int>(SpanKind::JobTraining); ++k) {
      colours.insert(spanKindColor(static_cast<SpanKind>(k)).rgb());
    }
    QCOMPARE(names.size(), int(std::size(kJobKinds)));
    QCOMPARE(colours.size(), int(std::size(kJobKinds)) + static_cast<int>(SpanKind::JobTraining));
  }

  void theAxisReadsDaysAndHoursAtTheJobsScale() {
    const qint64 day = 86400LL * 1'000'000'000'000LL;
    const TimeScale weeks = TimeScale::fit(0, 30 * day, 1000);
    const std::vector<TimeTick> ticks = weeks.ticks(1000);
    QVERIFY(ticks.size() >= 2);
    QCOMPARE(ticks[1].timePs - ticks[0].timePs, 7 * day);  // 30 days over 1000 px, 90 px apart: a week
    QCOMPARE(ticks[1].label, QStringLiteral("7 d"));
    const TimeScale hours = TimeScale::fit(0, day, 1000);
    QCOMPARE(hours.ticks(1000)[1].label, QStringLiteral("3 h"));
    QCOMPARE(TimeScale::formatDuration(90 * 60 * 1'000'000'000'000LL), QStringLiteral("1.5 h"));
  }

 private:
  QTemporaryDir m_dir;
  syncsim::trace::Trace m_trace;
};

QTEST_GUILESS_MAIN(TestJobTimeline)
#include "tst_gui_job_timeline.moc"
