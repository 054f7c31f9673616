#pragma once
// Rendering a view of a loaded document offscreen, for `syncsim-gui --screenshot` and the tests: the view is
// built, laid out at `size` and grabbed without a window ever being shown (Qt::WA_DontShowOnScreen).
#include <QImage>
#include <QSize>
#include <QString>
#include <optional>
#include <vector>

#include "models/loaded_document.h"

enum class ViewKind { Timeline, Ring, Jobs, Scaling, Convergence };

// "timeline", "ring", "jobs", "scaling" or "convergence".
std::optional<ViewKind> parseViewKind(const QString& name);
QSize defaultScreenshotSize(ViewKind view);

struct ScreenshotOptions {
  std::optional<int> step;  // ring: the step shown; timeline: the cursor at that ring step
  // ring, timeline --step: follow this bucket's first AllReduce; unset: the first bucket that ran as a ring (the
  // ring view's namesake; with `algorithm: auto` a small bucket may run as a tree), else bucket 0.
  std::optional<int> bucket;
  std::optional<CollectiveAlgorithm> algorithm;          // ring: this algorithm instead of the one the bucket ran
  std::optional<int> channel;                            // ring: this channel alone; unset: all, summed
  std::vector<int> expand;                               // ring, jobs: these servers (0, 1, ...) with their GPUs
  std::optional<std::pair<LayoutGroupKind, int>> group;  // ring: this layout group's collective (layout_groups.h)
  QSize size;                                            // empty: defaultScreenshotSize()
  bool allLanes = false;                                 // timeline: link and collective lanes too, not only the GPUs
  std::optional<std::pair<qint64, qint64>> timeRangePs;  // timeline: this window instead of the whole run
};

struct Screenshot {
  QImage image;
  QString error;           // why there is no image (translated)
  int lanes = 0;           // timeline: lanes drawn
  int gpuLanes = 0;        // timeline: GPU lanes among them
  int ranks = 0;           // ring: ranks drawn
  int channels = 0;        // ring: the AllReduce's channels
  int steps = 0;           // ring: steps of the algorithm shown
  bool topology = false;   // ring, jobs: drawn on the scenario's machine (else a circle)
  int jobs = 0;            // jobs: jobs drawn
  int series = 0;          // scaling: configurations plotted; convergence: runs plotted
  bool staleness = false;  // convergence: a staleness histogram drawn (the selected run is asynchronous)
};

Screenshot renderScreenshot(const LoadedDocument& doc, ViewKind view, const ScreenshotOptions& options = {});
// The Convergence view with these runs overlaid (several report.json files, or scenarios run first).
Screenshot renderConvergenceScreenshot(std::vector<ConvergenceRun> runs, QSize size = {});
