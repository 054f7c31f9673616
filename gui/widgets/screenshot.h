#pragma once
// Rendering a view of a loaded document offscreen, for `syncsim-gui --screenshot` and the tests: the view is
// built, laid out at `size` and grabbed without a window ever being shown (Qt::WA_DontShowOnScreen).
#include <QImage>
#include <QSize>
#include <QString>
#include <optional>

#include "models/loaded_document.h"

enum class ViewKind { Timeline, Ring, Scaling };

// "timeline", "ring" or "scaling".
std::optional<ViewKind> parseViewKind(const QString& name);
QSize defaultScreenshotSize(ViewKind view);

struct ScreenshotOptions {
  std::optional<int> step;                               // ring: the step shown; timeline: the cursor at that ring step
  QSize size;                                            // empty: defaultScreenshotSize()
  bool allLanes = false;                                 // timeline: link and collective lanes too, not only the GPUs
  std::optional<std::pair<qint64, qint64>> timeRangePs;  // timeline: this window instead of the whole run
};

struct Screenshot {
  QImage image;
  QString error;     // why there is no image (translated)
  int lanes = 0;     // timeline: lanes drawn
  int gpuLanes = 0;  // timeline: GPU lanes among them
  int ranks = 0;     // ring: ranks drawn
  int series = 0;    // scaling: configurations plotted
};

Screenshot renderScreenshot(const LoadedDocument& doc, ViewKind view, const ScreenshotOptions& options = {});
