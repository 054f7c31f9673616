#include "models/span_kind.h"

#include <QCoreApplication>

#include "syncsim/trace/trace.hpp"

namespace cat = syncsim::trace::category;

SpanKind spanKindFromCategory(std::string_view category) {
  if (category == cat::forward) return SpanKind::Forward;
  if (category == cat::backward) return SpanKind::Backward;
  if (category == cat::communication) return SpanKind::Communication;
  if (category == cat::idle) return SpanKind::Idle;
  if (category == cat::optimizer) return SpanKind::Optimizer;
  if (category == cat::collective) return SpanKind::Collective;
  if (category == cat::collective_step) return SpanKind::CollectiveStep;
  if (category == cat::fault) return SpanKind::Fault;
  return SpanKind::Other;
}

QColor spanKindColor(SpanKind kind) {
  switch (kind) {
    case SpanKind::Forward:
      return QColor(0x56, 0xB4, 0xE9);  // sky blue
    case SpanKind::Backward:
      return QColor(0x00, 0x72, 0xB2);  // blue
    case SpanKind::Communication:
      return QColor(0xE6, 0x9F, 0x00);  // orange
    case SpanKind::Idle:
      return QColor(0xD0, 0xD0, 0xD0);  // light grey
    case SpanKind::Optimizer:
      return QColor(0x00, 0x9E, 0x73);  // bluish green
    case SpanKind::Collective:
      return QColor(0xD5, 0x5E, 0x00);  // vermillion
    case SpanKind::CollectiveStep:
      return QColor(0xCC, 0x79, 0xA7);  // reddish purple
    case SpanKind::Fault:
      return QColor(0x20, 0x20, 0x20);  // near black
    case SpanKind::Other:
      break;
  }
  return QColor(0x99, 0x99, 0x66);
}

QString spanKindName(SpanKind kind) {
  switch (kind) {
    case SpanKind::Forward:
      return QCoreApplication::translate("SpanKind", "Forward");
    case SpanKind::Backward:
      return QCoreApplication::translate("SpanKind", "Backward");
    case SpanKind::Communication:
      return QCoreApplication::translate("SpanKind", "Communication");
    case SpanKind::Idle:
      return QCoreApplication::translate("SpanKind", "Idle");
    case SpanKind::Optimizer:
      return QCoreApplication::translate("SpanKind", "Optimizer");
    case SpanKind::Collective:
      return QCoreApplication::translate("SpanKind", "Collective");
    case SpanKind::CollectiveStep:
      return QCoreApplication::translate("SpanKind", "Collective step");
    case SpanKind::Fault:
      return QCoreApplication::translate("SpanKind", "Fault");
    case SpanKind::Other:
      break;
  }
  return QCoreApplication::translate("SpanKind", "Other");
}
