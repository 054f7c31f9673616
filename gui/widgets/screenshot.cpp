#include "widgets/screenshot.h"

#include <QApplication>
#include <QChart>
#include <QCoreApplication>
#include <algorithm>
#include <set>

#include "models/ring_sync.h"
#include "models/topology_layout.h"
#include "syncsim/core/input_error.hpp"
#include "widgets/convergence_view.h"
#include "widgets/jobs_view.h"
#include "widgets/ring_panel.h"
#include "widgets/ring_view.h"
#include "widgets/scaling_chart_view.h"
#include "widgets/timeline_view.h"

std::optional<ViewKind> parseViewKind(const QString& name) {
  if (name == u"timeline") return ViewKind::Timeline;
  if (name == u"ring") return ViewKind::Ring;
  if (name == u"jobs") return ViewKind::Jobs;
  if (name == u"scaling") return ViewKind::Scaling;
  if (name == u"convergence") return ViewKind::Convergence;
  return std::nullopt;
}

QSize defaultScreenshotSize(ViewKind view) {
  switch (view) {
    case ViewKind::Timeline:
      return {1400, 420};
    case ViewKind::Ring:
      return {900, 820};
    case ViewKind::Jobs:
      return {1200, 860};
    case ViewKind::Scaling:
      return {1100, 820};
    case ViewKind::Convergence:
      return {1200, 900};
  }
  return {1200, 800};
}

namespace {

QImage grabOffscreen(QWidget& w, QSize size) {
  w.setAttribute(Qt::WA_DontShowOnScreen);
  w.resize(size);
  w.show();  // lays out children and sends the resize; nothing reaches a screen
  QCoreApplication::processEvents();
  QImage image = w.grab().toImage();
  w.hide();
  return image;
}

// The bucket to follow: the one asked for, else the first (by index) whose first AllReduce ran as a ring (by the
// report where the document has one, else by the trace), else 0.
int followedBucket(const LoadedDocument& doc, const ScreenshotOptions& options) {
  if (options.bucket) return *options.bucket;
  const TimelineData& timeline = *doc.timeline;
  for (int bucket = 0;; ++bucket) {
    const auto ref = bucketSpan(timeline, bucket);
    if (!ref) return 0;
    const std::optional<BucketRun> run = bucketRunOf(doc, timeline.span(*ref));
    if (run ? run->algorithm == u"ring" : timeline.span(*ref).algorithm == CollectiveAlgorithm::Ring) return bucket;
  }
}

// The ring view's steps run from 0 (nothing sent yet) to the step count (all done), as its slider does.
QString stepOutOfRange(int step, int steps) {
  return QCoreApplication::translate("Screenshot",
                                     "--step: expected a step from 0 to %1 (the AllReduce shown has %1 "
                                     "steps), got %2")
      .arg(steps)
      .arg(step);
}

// The servers `--expand` names (0, 1, ... in host order) as host boxes of `layout`; an error for one it lacks.
std::optional<std::set<int>> expandedServers(const std::vector<int>& servers, const TopologyLayout* layout,
                                             QString& error) {
  std::set<int> expanded;
  const std::vector<int> hosts = layout ? layout->hostBoxes() : std::vector<int>();
  for (const int server : servers) {
    if (server < 0 || server >= static_cast<int>(hosts.size())) {
      error = QCoreApplication::translate("Screenshot", "--expand: expected servers from 0 to %1, got %2")
                  .arg(static_cast<int>(hosts.size()) - 1)
                  .arg(server);
      return std::nullopt;
    }
    expanded.insert(hosts[static_cast<std::size_t>(server)]);
  }
  return expanded;
}

Screenshot renderJobs(const LoadedDocument& doc, const ScreenshotOptions& options, QSize size) {
  Screenshot out;
  if (!doc.jobs) {
    out.error = QCoreApplication::translate("Screenshot",
                                            "--view jobs: %1 has no jobs on a machine: give a scenario with `jobs:` "
                                            "(a run folder's trace does not record the machine)")
                    .arg(doc.path);
    return out;
  }
  JobsView w;
  w.setJobs(doc.jobs);
  if (!options.expand.empty()) {
    const auto expanded = expandedServers(options.expand, &doc.jobs->layout(), out.error);
    if (!expanded) return out;
    w.setExpandedServers(*expanded);
  }
  out.jobs = static_cast<int>(doc.jobs->jobs().size());
  out.image = grabOffscreen(w, size);
  out.topology = w.placement() != nullptr;
  return out;
}

}  // namespace

Screenshot renderScreenshot(const LoadedDocument& doc, ViewKind view, const ScreenshotOptions& options) {
  Screenshot out;
  QSize size = options.size.isEmpty() ? defaultScreenshotSize(view) : options.size;
  if (options.size.isEmpty() && view == ViewKind::Timeline && doc.timeline) {
    // Tall enough for every GPU lane at full height (and no taller), up to a screen's worth.
    const int lanes =
        options.allLanes ? static_cast<int>(doc.timeline->lanes().size()) : doc.timeline->laneCount(LaneKind::Gpu);
    const int chrome = TimelineView::kLegendHeight + TimelineView::kAxisHeight + 4;
    size.setHeight(std::clamp(chrome + lanes * TimelineView::kDefaultLaneHeight, 200, 1000));
  }
  const std::optional<int> step = options.step;
  if (view == ViewKind::Convergence) {
    if (!doc.convergence) {
      out.error = QCoreApplication::translate("Screenshot", "%1 has no convergence section").arg(doc.path);
      return out;
    }
    return renderConvergenceScreenshot({*doc.convergence}, options.size);
  }
  if (view == ViewKind::Scaling) {
    if (doc.kind != DocumentKind::Sweep) {
      out.error = QCoreApplication::translate("Screenshot", "the scaling view needs a sweep CSV, not %1").arg(doc.path);
      return out;
    }
    ScalingChartView w;
    w.setScaling(doc.scaling);
    out.series = static_cast<int>(doc.scaling.series.size());
    out.image = grabOffscreen(w, size);
    return out;
  }
  if (view == ViewKind::Jobs) return renderJobs(doc, options, size);
  if (!doc.timeline) {
    out.error =
        QCoreApplication::translate("Screenshot", "the timeline and ring views need a scenario or a trace, not %1")
            .arg(doc.path);
    return out;
  }
  if (view == ViewKind::Timeline) {
    TimelineView w;
    w.resize(size);
    w.setShowLinkLanes(options.allLanes);
    w.setShowCollectiveLanes(options.allLanes);
    w.setTimeline(doc.timeline);
    if (options.timeRangePs) w.showTimeRange(options.timeRangePs->first, options.timeRangePs->second);
    if (step) {
      // The cursor at that step of the followed bucket, as the ring view would split it.
      if (const auto ref = bucketSpan(*doc.timeline, followedBucket(doc, options))) {
        RingPanel ring;
        ring.setTopology(doc.topology, doc.computeCapability);
        ring.follow(doc.timeline->span(*ref), doc.ringRanks, bucketRunOf(doc, doc.timeline->span(*ref)));
        if (options.algorithm) ring.setAlgorithmOverride(options.algorithm);
        if (*step > ring.stepCount()) {
          out.error = stepOutOfRange(*step, ring.stepCount());
          return out;
        }
        w.setCursorTime(collectiveStepTime(doc.timeline->span(*ref), *step, ring.stepCount()));
      } else {
        out.error =
            QCoreApplication::translate("Screenshot", "--step: %1 has no AllReduce to step through").arg(doc.path);
        return out;
      }
    }
    out.image = grabOffscreen(w, size);
    out.lanes = w.shownLaneCount();
    for (const int lane : w.frame().lanes) {
      out.gpuLanes += doc.timeline->lanes()[static_cast<std::size_t>(lane)].kind == LaneKind::Gpu ? 1 : 0;
    }
    return out;
  }
  RingPanel w;
  const auto ref = bucketSpan(*doc.timeline, followedBucket(doc, options));
  if (!ref && options.bucket) {
    out.error = QCoreApplication::translate("Screenshot", "--bucket: no AllReduce of bucket %1 in %2")
                    .arg(*options.bucket)
                    .arg(doc.path);
    return out;
  }
  w.setTopology(doc.topology, doc.computeCapability);
  if (ref) {
    w.follow(doc.timeline->span(*ref), doc.ringRanks, bucketRunOf(doc, doc.timeline->span(*ref)));
  } else {
    w.follow(std::nullopt, doc.ringRanks);
  }
  if (options.algorithm) w.setAlgorithmOverride(options.algorithm);
  w.setLayoutGroups(doc.layoutGroups);
  if (options.group) {
    try {
      w.setGroup(options.group);
    } catch (const syncsim::InputError& e) {
      out.error = QCoreApplication::translate("Screenshot", "--group: %1").arg(QString::fromStdString(e.message()));
      return out;
    }
  }
  if (options.channel) {
    if (*options.channel >= w.channelCount()) {
      out.error = QCoreApplication::translate("Screenshot",
                                              "--channel: expected a channel from 0 to %1 (the AllReduce shown ran "
                                              "on %2 channels) or all, got %3")
                      .arg(w.channelCount() - 1)
                      .arg(w.channelCount())
                      .arg(*options.channel);
      return out;
    }
    w.setChannel(options.channel);
  }
  if (step && *step > w.stepCount()) {
    out.error = stepOutOfRange(*step, w.stepCount());
    return out;
  }
  w.setStep(step.value_or(0));
  if (!options.expand.empty()) {
    const auto expanded = expandedServers(options.expand, doc.topology.get(), out.error);
    if (!expanded) return out;
    w.view()->setExpandedServers(*expanded);
  }
  out.ranks = w.rankCount();
  out.channels = w.channelCount();
  out.steps = w.stepCount();
  out.topology = w.view()->drawsTopology();
  out.image = grabOffscreen(w, size);
  return out;
}

Screenshot renderConvergenceScreenshot(std::vector<ConvergenceRun> runs, QSize size) {
  Screenshot out;
  ConvergenceView w;
  w.setRuns(std::move(runs));
  out.series = w.model()->rowCount();
  out.staleness = w.showsStaleness();
  out.image = grabOffscreen(w, size.isEmpty() ? defaultScreenshotSize(ViewKind::Convergence) : size);
  return out;
}
