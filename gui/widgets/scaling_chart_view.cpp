#include "widgets/scaling_chart_view.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/chart_palette.h"

namespace {

// GPU counts usually double from point to point: a log2 axis spaces them evenly, from the data's smallest count to
// its largest with a margin (a sweep of 16 to 128 GPUs fills the plot, not its right half).
QLogValueAxis* gpuAxis(int minGpus, int maxGpus) {
  auto* axis = new QLogValueAxis;
  axis->setBase(2);
  axis->setLabelFormat(QStringLiteral("%d"));
  const double low = ScalingChartView::axisMinimum(minGpus);
  axis->setRange(low, std::max(ScalingChartView::axisMaximum(maxGpus), low * 2));
  axis->setTitleText(QObject::tr("GPUs"));
  return axis;
}

QChart* makeChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // lines as lines: the ideal key dashed
  chart->setAnimationOptions(QChart::NoAnimation);
  return chart;
}

}  // namespace

ScalingChartView::ScalingChartView(QWidget* parent)
    : QWidget(parent),
      m_throughput(new QChartView(makeChart(tr("Throughput")), this)),
      m_efficiency(new QChartView(makeChart(tr("Scaling efficiency")), this)),
      m_empty(new QLabel(tr("Open a sweep CSV (syncsim sweep ... -o results.csv) to plot its scaling."), this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_empty);
  layout->addWidget(m_throughput, 3);
  layout->addWidget(m_efficiency, 2);
  m_throughput->setRenderHint(QPainter::Antialiasing);
  m_efficiency->setRenderHint(QPainter::Antialiasing);
  m_empty->setAlignment(Qt::AlignCenter);
  setScaling({});
}

QChart* ScalingChartView::throughputChart() const {
  return m_throughput->chart();
}

QChart* ScalingChartView::efficiencyChart() const {
  return m_efficiency->chart();
}

void ScalingChartView::setScaling(const ScalingData& scaling) {
  m_scaling = scaling;
  // The legend names configurations by their values; the title says which columns those are.
  const QString by = scaling.configurationColumns.join(QStringLiteral(", "));
  throughputChart()->setTitle(by.isEmpty() ? tr("Throughput") : tr("Throughput by %1").arg(by));
  efficiencyChart()->setTitle(by.isEmpty() ? tr("Scaling efficiency") : tr("Scaling efficiency by %1").arg(by));
  QChart* tput = throughputChart();
  QChart* eff = efficiencyChart();
  for (QChart* c : {tput, eff}) {
    c->removeAllSeries();
    for (QAbstractAxis* a : c->axes()) {
      c->removeAxis(a);
      delete a;
    }
  }
  m_empty->setVisible(scaling.series.empty());
  m_throughput->setVisible(!scaling.series.empty());
  m_efficiency->setVisible(!scaling.series.empty());
  if (scaling.series.empty()) return;

  int minGpus = std::numeric_limits<int>::max();
  int maxGpus = 1;
  double maxThroughput = 0;
  double maxEfficiency = 1;
  for (const ScalingSeries& s : scaling.series) {
    for (const ScalingPoint& p : s.points) {
      minGpus = std::min(minGpus, p.gpus);
      maxGpus = std::max(maxGpus, p.gpus);
      maxThroughput = std::max({maxThroughput, p.throughput, s.idealThroughput(p.gpus)});
      maxEfficiency = std::max(maxEfficiency, p.efficiency);
    }
  }

  auto* tx = gpuAxis(minGpus, maxGpus);
  auto* ty = new QValueAxis;
  ty->setTitleText(tr("Samples per second"));
  ty->setRange(0, maxThroughput * 1.05);
  ty->applyNiceNumbers();
  ty->setLabelFormat(QStringLiteral("%.0f"));
  tput->addAxis(tx, Qt::AlignBottom);
  tput->addAxis(ty, Qt::AlignLeft);
  auto* ex = gpuAxis(minGpus, maxGpus);
  auto* ey = new QValueAxis;
  ey->setTitleText(tr("Efficiency (%)"));
  // Steps of 20 %, up to at least 120 so the 100 % line never sits on the frame; finer ticks get elided ("...")
  // when the window leaves the chart little height.
  const int top = std::max(120, (static_cast<int>(std::ceil(maxEfficiency * 5)) + 1) * 20);
  ey->setRange(0, top);
  ey->setTickCount(top / 20 + 1);
  ey->setLabelFormat(QStringLiteral("%.0f"));
  eff->addAxis(ex, Qt::AlignBottom);
  eff->addAxis(ey, Qt::AlignLeft);

  const auto attach = [](QChart* chart, QAbstractSeries* series, QAbstractAxis* x, QAbstractAxis* y) {
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
  };
  for (std::size_t i = 0; i < scaling.series.size(); ++i) {
    const ScalingSeries& s = scaling.series[i];
    auto* measured = new QLineSeries;
    measured->setName(s.config);
    auto* ideal = new QLineSeries;
    auto* efficiency = new QLineSeries;
    efficiency->setName(s.config);
    auto* dots = new QScatterSeries;
    dots->setMarkerSize(8);
    for (const ScalingPoint& p : s.points) {
      measured->append(p.gpus, p.throughput);
      dots->append(p.gpus, p.throughput);
      ideal->append(p.gpus, s.idealThroughput(p.gpus));
      efficiency->append(p.gpus, p.efficiency * 100);
    }
    attach(tput, measured, tx, ty);
    attach(tput, dots, tx, ty);
    attach(tput, ideal, tx, ty);
    attach(eff, efficiency, ex, ey);
    // Same colour for a configuration everywhere; its ideal line dashed, in the legend once for all.
    const QColor colour = chartSeriesColor(i);
    measured->setPen(QPen(colour, 2));
    dots->setColor(colour);
    dots->setBorderColor(colour);
    QPen dashed(colour, 1.5, Qt::DashLine);
    ideal->setPen(dashed);
    efficiency->setPen(QPen(colour, 2));
    tput->legend()->markers(dots).front()->setVisible(false);
    tput->legend()->markers(ideal).front()->setVisible(false);
    // The details (the configuration's columns, each point's numbers, pareto, bottleneck) in tooltips.
    const auto tipAt = [this, i](const QPointF& at, bool inside) {
      if (inside) QToolTip::showText(QCursor::pos(), pointToolTip(i, at.x()), this);
    };
    connect(dots, &QScatterSeries::hovered, this, tipAt);
    connect(efficiency, &QLineSeries::hovered, this, tipAt);
    for (QLegendMarker* marker : tput->legend()->markers(measured) + eff->legend()->markers(efficiency)) {
      connect(marker, &QLegendMarker::hovered, this, [this, i](bool inside) {
        if (inside) QToolTip::showText(QCursor::pos(), seriesToolTip(i), this);
      });
    }
  }
  auto* idealKey = new QLineSeries;
  idealKey->setName(tr("ideal linear (dashed)"));
  idealKey->setPen(QPen(Qt::gray, 1.5, Qt::DashLine));
  attach(tput, idealKey, tx, ty);
  auto* hundred = new QLineSeries;
  hundred->setName(tr("Ideal linear (100 %)"));
  hundred->append(tx->min(), 100);
  hundred->append(tx->max(), 100);
  hundred->setPen(QPen(Qt::gray, 1.5, Qt::DashLine));
  attach(eff, hundred, ex, ey);
}

double ScalingChartView::axisMinimum(int minGpus) {
  return std::max(1, minGpus) / kAxisMargin;
}

double ScalingChartView::axisMaximum(int maxGpus) {
  return std::max(1, maxGpus) * kAxisMargin;
}

QString ScalingChartView::seriesToolTip(std::size_t series) const {
  if (series >= m_scaling.series.size()) return {};
  const ScalingSeries& s = m_scaling.series[series];
  return s.description.isEmpty() ? s.config : s.description;
}

QString ScalingChartView::pointToolTip(std::size_t series, double gpus) const {
  if (series >= m_scaling.series.size()) return {};
  const ScalingSeries& s = m_scaling.series[series];
  // The point nearest on the log axis.
  std::size_t best = 0;
  for (std::size_t k = 0; k < s.points.size(); ++k) {
    const auto distance = [&](std::size_t j) { return std::abs(std::log2(s.points[j].gpus / std::max(gpus, 1e-9))); };
    if (distance(k) < distance(best)) best = k;
  }
  return s.toolTip(best);
}
