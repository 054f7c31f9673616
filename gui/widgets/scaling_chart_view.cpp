#include "widgets/scaling_chart_view.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "widgets/chart_palette.h"

namespace {

// GPU counts usually double from point to point: a log2 axis spaces them evenly.
QLogValueAxis* gpuAxis(int maxGpus) {
  auto* axis = new QLogValueAxis;
  axis->setBase(2);
  axis->setLabelFormat(QStringLiteral("%d"));
  axis->setRange(1, std::max(2, maxGpus) * 1.2);
  axis->setTitleText(QObject::tr("GPUs"));
  return axis;
}

QChart* makeChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignRight);
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

  int maxGpus = 1;
  double maxThroughput = 0;
  double maxEfficiency = 1;
  for (const ScalingSeries& s : scaling.series) {
    for (const ScalingPoint& p : s.points) {
      maxGpus = std::max(maxGpus, p.gpus);
      maxThroughput = std::max({maxThroughput, p.throughput, s.idealThroughput(p.gpus)});
      maxEfficiency = std::max(maxEfficiency, p.efficiency);
    }
  }

  auto* tx = gpuAxis(maxGpus);
  auto* ty = new QValueAxis;
  ty->setTitleText(tr("Samples per second"));
  ty->setRange(0, maxThroughput * 1.05);
  ty->applyNiceNumbers();
  ty->setLabelFormat(QStringLiteral("%.0f"));
  tput->addAxis(tx, Qt::AlignBottom);
  tput->addAxis(ty, Qt::AlignLeft);
  auto* ex = gpuAxis(maxGpus);
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
    ideal->setName(tr("%1 (ideal linear)").arg(s.config));
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
    // Same colour for a configuration everywhere; its ideal line dashed.
    const QColor colour = chartSeriesColor(i);
    measured->setPen(QPen(colour, 2));
    dots->setColor(colour);
    dots->setBorderColor(colour);
    QPen dashed(colour, 1.5, Qt::DashLine);
    ideal->setPen(dashed);
    efficiency->setPen(QPen(colour, 2));
    tput->legend()->markers(dots).front()->setVisible(false);
  }
  auto* hundred = new QLineSeries;
  hundred->setName(tr("Ideal linear (100 %)"));
  hundred->append(1, 100);
  hundred->append(std::max(2, maxGpus) * 1.2, 100);
  hundred->setPen(QPen(Qt::gray, 1.5, Qt::DashLine));
  attach(eff, hundred, ex, ey);
}
