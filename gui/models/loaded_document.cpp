#include "models/loaded_document.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <algorithm>
#include <string>
#include <vector>

#include "models/trace_json_reader.h"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

DocumentKind documentKindOf(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == u"json") return DocumentKind::Trace;
  if (suffix == u"csv") return DocumentKind::Sweep;
  return DocumentKind::Scenario;
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

LoadedDocument loadDocument(const QString& path, const QStringList& overrides) {
  LoadedDocument doc;
  doc.kind = documentKindOf(path);
  doc.path = path;
  doc.title = QFileInfo(path).fileName();
  if (doc.kind == DocumentKind::Sweep) {
    doc.scaling = readSweepCsv(path);
    return doc;
  }
  if (doc.kind == DocumentKind::Trace) {
    doc.timeline = std::make_shared<const TimelineData>(TimelineData::fromTrace(readTraceJson(path)));
  } else {
    std::vector<std::string> sets;
    for (const QString& o : overrides) sets.push_back(o.toStdString());
    const syncsim::Scenario scenario = syncsim::load_scenario(path.toStdString(), sets);
    syncsim::run::RunOutput out = syncsim::run::run_scenario(scenario);
    doc.summary = QCoreApplication::translate("LoadedDocument", "%1 samples/s, %2% scaling efficiency, %3 GPUs")
                      .arg(out.report.samples_per_second, 0, 'f', 1)
                      .arg(out.report.scaling_efficiency * 100, 0, 'f', 1)
                      .arg(out.report.workers);
    doc.timeline = std::make_shared<const TimelineData>(TimelineData::fromTrace(out.trace));
  }
  if (!doc.timeline->title().isEmpty()) doc.title = doc.timeline->title();
  doc.ringRanks = ringRanksOf(*doc.timeline);
  return doc;
}
