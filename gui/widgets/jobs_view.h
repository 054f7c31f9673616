#pragma once
// JobsView: the Jobs tab — a scenario's jobs on its machine (JobsPainter: GPUs in their job's colour, idle ones
// neutral, links in the colour of the jobs that cross them, shared links striped), a legend naming the jobs with
// their iteration time and slowdown, and under the machine what `syncsim run` prints for the same file. Servers too
// many to show their GPUs are collapsed as in the ring view (topology_placement.h), a cell per GPU in its job's
// colour; a click expands or collapses one. Tooltips: a GPU's job; a link's jobs and each one's share of it.
//
// Without jobs (any other document), or on a machine drawn as a circle (ring, mesh, torus), it says so instead.
#include <QWidget>
#include <memory>
#include <optional>
#include <set>

class JobMachine;
class TopologyPlacement;

class JobsView : public QWidget {
  Q_OBJECT
 public:
  explicit JobsView(QWidget* parent = nullptr);
  ~JobsView() override;

  void setJobs(std::shared_ptr<const JobMachine> jobs);
  const JobMachine* jobs() const { return m_jobs.get(); }
  // These servers expanded, the others collapsed, whatever the size.
  void setExpandedServers(std::set<int> hostBoxes);
  bool serverExpanded(int hostBox) const;
  // The placement for the current size (null without a machine), and its layout-to-widget transform.
  const TopologyPlacement* placement() const;
  QTransform topologyTransform() const;
  QRectF drawingArea() const;
  // The legend: each job's colour and its entry ("a: 43.920 ms, 1.149x"), then idle, shared and background.
  std::vector<std::pair<QColor, QString>> legendItems() const;
  // The tooltip at `pos` (widget coordinates): a GPU's job, a link's jobs and shares; empty where there is none.
  QString tipAt(QPointF pos) const;

  QSize sizeHint() const override { return {1000, 800}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  int footerHeight() const;
  int serverAt(QPointF point) const;

  std::shared_ptr<const JobMachine> m_jobs;
  std::optional<std::set<int>> m_expanded;  // none: by size (collapsedByDefault)
  mutable std::unique_ptr<TopologyPlacement> m_placement;
  mutable QSizeF m_placedFor;
};
