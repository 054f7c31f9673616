#pragma once
// SpanKind: what a span on the timeline is, from its trace category (docs/trace.md), with the colour and the
// (translated) name the legend shows. Colours are chosen to stay apart for readers with red-green colour
// blindness (Okabe-Ito palette): compute is blue, communication orange, idle light grey.
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
  Other
};
inline constexpr int kSpanKindCount = 9;

SpanKind spanKindFromCategory(std::string_view category);
QColor spanKindColor(SpanKind kind);
QString spanKindName(SpanKind kind);
