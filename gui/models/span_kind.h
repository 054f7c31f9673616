#pragma once
// SpanKind: what a span on the timeline is, from its trace category (docs/trace.md), with the colour and the
// (translated) name the legend shows. Colours are chosen to stay apart for readers with red-green colour
// blindness (Okabe-Ito palette): compute is blue, communication orange, idle light grey. The job timeline's kinds
// take Paul Tol's muted palette (also colour-blind safe), so they stay apart from the iteration's.
#include <QColor>
#include <QString>
#include <QtGlobal>
#include <string_view>

enum class SpanKind : quint8 {
  Forward,
  Backward,
  Communication,
  Idle,
  Optimizer,
  Collective,
  CollectiveStep,
  Fault,
  Other,
  // The job timeline (job_timeline.json, docs/faults.md "Goodput"): a long job's weeks, one sampled realization.
  JobTraining,
  CheckpointSave,
  CheckpointUpload,
  LostProgress,
  Failure,
  Detection,
  SpareSwap,
  RepairWait,
  Restart,
  Restore,
  SpareRepair
};
inline constexpr int kSpanKindCount = 20;

SpanKind spanKindFromCategory(std::string_view category);
QColor spanKindColor(SpanKind kind);
QString spanKindName(SpanKind kind);
