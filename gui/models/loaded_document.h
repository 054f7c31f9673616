#pragma once
// Opening a file: a scenario (YAML) is simulated, a trace (trace.json) is read, a sweep (CSV) is parsed — the one
// function the window, its worker thread and the --screenshot mode share. It blocks; ScenarioRunner runs it on a
// worker thread for the window.
//
// Errors throw (syncsim::InputError for bad input, with file, line and key); the caller shows them.
#include <QString>
#include <QStringList>
#include <memory>

#include "models/sweep_csv.h"
#include "models/timeline_data.h"

enum class DocumentKind { Scenario, Trace, Sweep };

struct LoadedDocument {
  DocumentKind kind = DocumentKind::Trace;
  QString path;
  QString title;
  QString summary;                               // one line for the status bar (a scenario's throughput and scaling)
  std::shared_ptr<const TimelineData> timeline;  // scenarios and traces
  ScalingData scaling;                           // sweeps
  int ringRanks = 0;  // ranks in the AllReduce ring: a communication span's "ranks", else the GPU lanes
};

// By extension: .json is a trace, .csv a sweep, anything else a scenario.
DocumentKind documentKindOf(const QString& path);
LoadedDocument loadDocument(const QString& path, const QStringList& overrides = {});
// The ring size a timeline implies (at least 2).
int ringRanksOf(const TimelineData& timeline);
