// Paint benchmark: one frame of a 1,024-lane, 1 M-span timeline (docs/gui.md states the target: <= 50 ms).
//
// Frames measured, each the median of --repeat runs:
//   fit      the whole time range, every lane 1 px high: every span is visited (the worst case for culling)
//   zoomed   1 % of the time range, 32-px lanes: culling and labels
//   widget   a full TimelineView::grab() at fit (legend, axis, lane headers, span area)
//
//   syncsim-gui-bench-paint [--lanes 1024] [--spans-per-lane 1024] [--width 1920] [--height 1080] [--repeat 9]
//                           [--max-ms 50]
// Prints wall and thread CPU time (on a shared machine the wall time includes waiting for a core). Exits 1 when the
// fit frame's median CPU time is above --max-ms (if given), so it can guard against regressions.
#include <QApplication>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "bench_timing.h"
#include "widgets/timeline_renderer.h"
#include "widgets/timeline_view.h"

namespace {

int intArg(const QStringList& args, const char* name, int fallback) {
  const qsizetype i = args.indexOf(QLatin1String(name));
  return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

}  // namespace

int main(int argc, char* argv[]) {
  // Nothing is shown: no display is needed.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QStringList args = QApplication::arguments();
  const int lanes = intArg(args, "--lanes", 1024);
  const int spansPerLane = intArg(args, "--spans-per-lane", 1024);
  const int width = intArg(args, "--width", 1920);
  const int height = intArg(args, "--height", 1080);
  const int repeat = std::max(1, intArg(args, "--repeat", 9));
  const int maxMs = intArg(args, "--max-ms", 0);

  QElapsedTimer build;
  build.start();
  auto data = std::make_shared<const TimelineData>(TimelineData::synthetic(lanes, spansPerLane));
  std::printf("timeline: %d lanes, %zu spans (built in %.0f ms), frame %dx%d\n", lanes, data->spanCount(),
              static_cast<double>(build.elapsed()), width, height);

  QImage target(width, height, QImage::Format_RGB32);
  QImage scratch;
  TimelineFrame fit;
  fit.data = data.get();
  for (int i = 0; i < lanes; ++i) fit.lanes.push_back(i);
  fit.laneHeight = std::max(1, height / lanes);
  fit.scale = TimeScale::fit(data->beginPs(), data->endPs(), width);
  const Timing fitMs = median(repeat, [&] {
    QPainter p(&target);
    TimelineRenderer::paint(p, target.rect(), fit, scratch);
  });

  TimelineFrame zoomed = fit;
  zoomed.laneHeight = 32;
  zoomed.scrollPx = lanes / 2 * zoomed.laneHeight;
  zoomed.scale = TimeScale::fit(
      data->beginPs() + (data->endPs() - data->beginPs()) / 2,
      data->beginPs() + (data->endPs() - data->beginPs()) / 2 + (data->endPs() - data->beginPs()) / 100, width);
  zoomed.selected = SpanRef{lanes / 2, 0, static_cast<std::size_t>(spansPerLane / 2)};
  const Timing zoomedMs = median(repeat, [&] {
    QPainter p(&target);
    TimelineRenderer::paint(p, target.rect(), zoomed, scratch);
  });

  TimelineView view;
  view.setAttribute(Qt::WA_DontShowOnScreen);
  view.resize(width, height);
  view.show();
  view.setTimeline(data);
  const Timing widgetMs = median(repeat, [&] { (void)view.grab(); });

  std::printf("median of %d frames            wall ms   cpu ms\n", repeat);
  std::printf("fit     (all %4d lanes, whole range) %7.2f  %7.2f\n", lanes, fitMs.wallMs, fitMs.cpuMs);
  std::printf("zoomed  (1%% of the range, 32 px)     %7.2f  %7.2f\n", zoomedMs.wallMs, zoomedMs.cpuMs);
  std::printf("widget  (TimelineView::grab at fit)  %7.2f  %7.2f\n", widgetMs.wallMs, widgetMs.cpuMs);
  if (maxMs > 0 && fitMs.cpuMs > maxMs) {
    std::printf("FAIL: fit frame %.2f ms of CPU > %d ms\n", fitMs.cpuMs, maxMs);
    return 1;
  }
  return 0;
}
