#pragma once
// ScalingChartView: a sweep's scaling, in two Qt Charts stacked: throughput against GPU count per configuration
// with each configuration's ideal-linear line (dashed), and scaling efficiency with the 100 % line.
#include <QWidget>

#include "models/sweep_csv.h"

class QChart;
class QChartView;
class QLabel;

class ScalingChartView : public QWidget {
  Q_OBJECT
 public:
  explicit ScalingChartView(QWidget* parent = nullptr);

  void setScaling(const ScalingData& scaling);
  QChart* throughputChart() const;
  QChart* efficiencyChart() const;

  QSize sizeHint() const override { return {1000, 800}; }

 private:
  QChartView* m_throughput;
  QChartView* m_efficiency;
  QLabel* m_empty;
};
