#pragma once
// JobsPainter: the Jobs view's picture of a machine with several jobs on it (job_machine.h) — every GPU filled with
// its job's colour (idle GPUs neutral), a server framed in its job's colour when all its GPUs are one job's, each
// link a job's AllReduce crosses in that job's colour, and a link shared by several jobs (or a job and background
// traffic) striped in the colours of all of them (background: dark grey). Links no job crosses stay thin and grey.
//
// A shared link is labelled with each job's share of it where there is room (up to kLabelledSharedLinks of them; the
// tooltip says it for every link). Fast at any size: links are drawn in batches of one pen (colour, width, stripe),
// aliased above kAntialiasedJobLinks.
#include <QRectF>
#include <QTransform>
#include <vector>

class QPainter;
class JobMachine;
class TopologyPlacement;

class JobsPainter {
 public:
  JobsPainter(const JobMachine& machine, const TopologyPlacement& placement)
      : m_machine(machine), m_placement(placement) {}

  // `map`: the placement's coordinates to the widget's (TopologyPlacement::transform).
  void paint(QPainter& p, const QTransform& map) const;

  // The colour background traffic takes in a stripe, and an idle GPU's fill.
  static QColor backgroundColor();
  static QColor idleColor();

 private:
  void paintLinks(QPainter& p, const std::vector<QRectF>& px, bool insideServers) const;
  void paintBoxes(QPainter& p, const std::vector<QRectF>& px) const;
  void paintLabels(QPainter& p, const std::vector<QRectF>& px) const;

  const JobMachine& m_machine;
  const TopologyPlacement& m_placement;
};
