#pragma once
// ScalingChartView: a sweep's scaling, in two Qt Charts stacked: throughput against GPU count per configuration
// with each configuration's ideal-linear line (dashed), and scaling efficiency with the 100 % line. The GPU axis
// runs from the data's smallest count to its largest, kAxisMargin beyond each; the legend names configurations by
// their values, and a tooltip gives the rest: the configuration's columns over its legend entry, a point's numbers
// and details (pareto, bottleneck) over the point.
#include <QWidget>

#include "models/sweep_csv.h"

class QChart;
class QChartView;
class QLabel;

class ScalingChartView : public QWidget {
  Q_OBJECT
 public:
  explicit ScalingChartView(QWidget* parent = nullptr);

  // The GPU axis extends this factor (it is a log axis) below the smallest count and above the largest.
  static constexpr double kAxisMargin = 1.15;
  static double axisMinimum(int minGpus);
  static double axisMaximum(int maxGpus);

  void setScaling(const ScalingData& scaling);
  QChart* throughputChart() const;
  QChart* efficiencyChart() const;
  // The tooltips: over a configuration's legend entry, and over its point nearest `gpus`.
  QString seriesToolTip(std::size_t series) const;
  QString pointToolTip(std::size_t series, double gpus) const;

  QSize sizeHint() const override { return {1000, 800}; }

 private:
  QChartView* m_throughput;
  QChartView* m_efficiency;
  QLabel* m_empty;
  ScalingData m_scaling;
};
