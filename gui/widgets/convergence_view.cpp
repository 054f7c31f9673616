#include "widgets/convergence_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <set>

#include "widgets/chart_palette.h"

namespace {

// One diverging run (its loss up to 2^20 before it stops) would flatten every other curve: the loss axis stops at
// this multiple of the largest starting loss, and the chart clips above it.
constexpr double kLossAxisCapOverStart = 3.0;

QChart* makeChart() {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  // On the right, a legend stacks its entries and keeps their whole names (at the bottom it elides them).
  chart->legend()->setAlignment(Qt::AlignRight);
  return chart;
}

void clearChart(QChart* chart) {
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
}

void attach(QChart* chart, QAbstractSeries* series, QAbstractAxis* x, QAbstractAxis* y) {
  chart->addSeries(series);
  series->attachAxis(x);
  series->attachAxis(y);
}

void hideFromLegend(QChart* chart, QAbstractSeries* series) {
  for (QLegendMarker* m : chart->legend()->markers(series)) m->setVisible(false);
}

}  // namespace

ConvergenceView::ConvergenceView(QWidget* parent)
    : QWidget(parent),
      m_model(new ConvergenceModel(this)),
      m_axisBox(new QComboBox(this)),
      m_accuracyBox(new QCheckBox(tr("Accuracy (right axis)"), this)),
      m_curves(new QChartView(makeChart(), this)),
      m_table(new QTableView(this)),
      m_staleness(new QChartView(makeChart(), this)),
      m_noStaleness(new QLabel(this)),
      m_empty(new QLabel(tr("Open report.json files written by `syncsim run` with a convergence section, or run a "
                            "scenario that has one, to compare how runs converge."),
                         this)) {
  m_axisBox->addItem(tr("Simulated time"));
  m_axisBox->addItem(tr("Updates"));
  m_axisBox->setCurrentIndex(m_xAxis == ConvergenceXAxis::Updates ? 1 : 0);
  m_accuracyBox->setChecked(m_showAccuracy);
  auto* add = new QPushButton(tr("Add Reports..."), this);
  auto* remove = new QPushButton(tr("Remove Run"), this);
  auto* clear = new QPushButton(tr("Clear"), this);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("X axis:"), this));
  controls->addWidget(m_axisBox);
  controls->addWidget(m_accuracyBox);
  controls->addStretch(1);
  controls->addWidget(add);
  controls->addWidget(remove);
  controls->addWidget(clear);

  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setWordWrap(false);
  m_curves->setRenderHint(QPainter::Antialiasing);
  m_staleness->setRenderHint(QPainter::Antialiasing);
  m_staleness->chart()->legend()->hide();
  m_noStaleness->setAlignment(Qt::AlignCenter);
  m_noStaleness->setWordWrap(true);
  m_empty->setAlignment(Qt::AlignCenter);
  m_empty->setWordWrap(true);

  auto* lower = new QSplitter(Qt::Horizontal, this);
  lower->addWidget(m_table);
  auto* histogram = new QWidget(this);
  auto* histogramLayout = new QVBoxLayout(histogram);
  histogramLayout->setContentsMargins(0, 0, 0, 0);
  histogramLayout->addWidget(m_staleness, 1);
  histogramLayout->addWidget(m_noStaleness, 1);
  lower->addWidget(histogram);
  // The table's first columns (name, time to target, losses) and a histogram's labels both fit.
  lower->setSizes({600, 400});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(m_empty, 1);
  layout->addWidget(m_curves, 3);
  layout->addWidget(lower, 2);

  connect(m_axisBox, &QComboBox::currentIndexChanged, this,
          [this](int i) { setXAxis(i == 1 ? ConvergenceXAxis::Updates : ConvergenceXAxis::Time); });
  connect(m_accuracyBox, &QCheckBox::toggled, this, &ConvergenceView::setShowAccuracy);
  connect(add, &QPushButton::clicked, this, &ConvergenceView::addReportsRequested);
  connect(remove, &QPushButton::clicked, this, [this] { m_model->removeRun(m_selected); });
  connect(clear, &QPushButton::clicked, m_model, &ConvergenceModel::clear);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (current.isValid() && current.row() != m_selected) selectRun(current.row());
  });
  // Any change of the runs redraws both charts; a removed or cleared selection falls back to the first run.
  const auto changed = [this] {
    if (m_selected >= m_model->rowCount()) m_selected = m_model->rowCount() - 1;
    if (m_selected < 0 && m_model->rowCount() > 0) m_selected = 0;
    rebuildCurves();
    rebuildStaleness();
    m_table->resizeColumnsToContents();
  };
  connect(m_model, &QAbstractItemModel::rowsInserted, this, changed);
  connect(m_model, &QAbstractItemModel::rowsRemoved, this, changed);
  connect(m_model, &QAbstractItemModel::modelReset, this, changed);
  connect(m_model, &QAbstractItemModel::dataChanged, this, changed);
  rebuildCurves();
  rebuildStaleness();
}

QChart* ConvergenceView::curveChart() const {
  return m_curves->chart();
}

QChart* ConvergenceView::stalenessChart() const {
  return m_staleness->chart();
}

bool ConvergenceView::showsStaleness() const {
  return !m_staleness->isHidden();
}

int ConvergenceView::addRun(ConvergenceRun run) {
  const int row = m_model->addRun(std::move(run));
  selectRun(row);
  return row;
}

void ConvergenceView::setRuns(std::vector<ConvergenceRun> runs) {
  m_model->clear();
  for (ConvergenceRun& r : runs) m_model->addRun(std::move(r));
  // The stalest run: its histogram says most about what asynchrony costs (the first run when all are synchronous).
  const auto& all = m_model->runs();
  const auto stalest = std::max_element(all.begin(), all.end(), [](const ConvergenceRun& a, const ConvergenceRun& b) {
    return (a.staleness ? a.staleness->mean : -1.0) < (b.staleness ? b.staleness->mean : -1.0);
  });
  selectRun(stalest != all.end() ? static_cast<int>(stalest - all.begin()) : 0);
}

void ConvergenceView::setXAxis(ConvergenceXAxis axis) {
  if (axis == m_xAxis) return;
  m_xAxis = axis;
  m_axisBox->setCurrentIndex(axis == ConvergenceXAxis::Updates ? 1 : 0);
  rebuildCurves();
}

void ConvergenceView::setShowAccuracy(bool show) {
  if (show == m_showAccuracy) return;
  m_showAccuracy = show;
  m_accuracyBox->setChecked(show);
  rebuildCurves();
}

void ConvergenceView::selectRun(int row) {
  if (row < 0 || row >= m_model->rowCount()) return;
  m_selected = row;
  m_table->selectRow(row);
  rebuildCurves();
  rebuildStaleness();
}

void ConvergenceView::rebuildCurves() {
  QChart* chart = curveChart();
  clearChart(chart);
  const std::vector<ConvergenceRun>& runs = m_model->runs();
  m_empty->setVisible(runs.empty());
  m_curves->setVisible(!runs.empty());
  if (runs.empty()) return;

  const ConvergenceTimeUnit unit = convergenceTimeUnit(maxCurveTimeUs(runs));
  double maxX = 0;
  double maxLoss = 0;
  double maxStartLoss = 0;
  for (const ConvergenceRun& r : runs) {
    for (const QPointF& p : convergenceCurve(r, m_xAxis, ConvergenceMetric::Loss, unit)) {
      maxX = std::max(maxX, p.x());
      maxLoss = std::max(maxLoss, p.y());
    }
    if (!r.curve.empty()) maxStartLoss = std::max(maxStartLoss, r.curve.front().loss);
    if (r.targetLoss) maxLoss = std::max(maxLoss, *r.targetLoss);
  }
  if (maxStartLoss > 0) maxLoss = std::min(maxLoss, maxStartLoss * kLossAxisCapOverStart);

  chart->setTitle(m_xAxis == ConvergenceXAxis::Time ? tr("Held-out loss against simulated time")
                                                    : tr("Held-out loss against updates"));
  auto* x = new QValueAxis;
  x->setTitleText(m_xAxis == ConvergenceXAxis::Time ? tr("Simulated time (%1)").arg(unit.label) : tr("Updates"));
  x->setRange(0, maxX > 0 ? maxX : 1);
  x->applyNiceNumbers();
  x->setLabelFormat(m_xAxis == ConvergenceXAxis::Time ? QStringLiteral("%.4g") : QStringLiteral("%.0f"));
  auto* y = new QValueAxis;
  y->setTitleText(tr("Held-out loss"));
  y->setRange(0, maxLoss > 0 ? maxLoss * 1.05 : 1);
  y->applyNiceNumbers();
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  QValueAxis* yAccuracy = nullptr;
  if (m_showAccuracy) {
    yAccuracy = new QValueAxis;
    yAccuracy->setTitleText(tr("Held-out accuracy (%, dotted)"));
    yAccuracy->setRange(0, 100);
    yAccuracy->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(yAccuracy, Qt::AlignRight);
  }

  auto* reached = new QScatterSeries;
  reached->setName(tr("Reached the target"));
  reached->setMarkerShape(QScatterSeries::MarkerShapeCircle);
  reached->setMarkerSize(12);
  reached->setColor(Qt::white);
  reached->setBorderColor(Qt::black);
  auto* diverged = new QScatterSeries;
  diverged->setName(tr("Diverged"));
  diverged->setMarkerShape(QScatterSeries::MarkerShapeStar);
  diverged->setMarkerSize(16);
  diverged->setColor(QColor(0xC0, 0x20, 0x20));
  diverged->setBorderColor(QColor(0xC0, 0x20, 0x20));
  std::set<double> targets;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ConvergenceRun& r = runs[i];
    const QColor colour = chartSeriesColor(i);
    const bool selected = static_cast<int>(i) == m_selected;
    auto* loss = new QLineSeries;
    loss->setName(r.diverged() ? tr("%1 (diverged)").arg(r.name()) : r.name());
    for (const QPointF& p : convergenceCurve(r, m_xAxis, ConvergenceMetric::Loss, unit)) loss->append(p);
    loss->setPen(QPen(colour, selected && runs.size() > 1 ? 2.5 : 1.5));
    attach(chart, loss, x, y);
    if (yAccuracy != nullptr) {
      auto* accuracy = new QLineSeries;
      for (QPointF p : convergenceCurve(r, m_xAxis, ConvergenceMetric::Accuracy, unit)) {
        accuracy->append(p.x(), p.y() * 100);
      }
      accuracy->setPen(QPen(colour, 1.5, Qt::DotLine));
      attach(chart, accuracy, x, yAccuracy);
      hideFromLegend(chart, accuracy);
    }
    if (const auto m = timeToTargetMarker(r, m_xAxis, unit)) reached->append(*m);
    // A loss above the axis (it diverged upwards) puts the marker just under the top, where it is still seen.
    if (const auto m = divergenceMarker(r, m_xAxis, unit)) diverged->append(m->x(), std::min(m->y(), y->max() * 0.98));
    if (r.targetLoss) targets.insert(*r.targetLoss);
  }
  for (const double target : targets) {
    auto* line = new QLineSeries;
    line->setName(tr("Target loss %1").arg(target));
    line->append(0, target);
    line->append(x->max(), target);
    line->setPen(QPen(Qt::darkGray, 1.5, Qt::DashLine));
    attach(chart, line, x, y);
  }
  // Markers last, so they sit on top of the curves.
  attach(chart, reached, x, y);
  attach(chart, diverged, x, y);
  if (reached->count() == 0) hideFromLegend(chart, reached);
  if (diverged->count() == 0) hideFromLegend(chart, diverged);
}

void ConvergenceView::rebuildStaleness() {
  QChart* chart = stalenessChart();
  clearChart(chart);
  const bool has = m_selected >= 0 && m_selected < m_model->rowCount();
  const ConvergenceRun* run = has ? &m_model->run(m_selected) : nullptr;
  const bool bars = run != nullptr && run->staleness && !run->staleness->counts.empty();
  m_staleness->setVisible(bars);
  m_noStaleness->setVisible(!bars);
  if (!bars) {
    m_noStaleness->setText(run == nullptr ? tr("Select a run to see its staleness.")
                                          : tr("%1 is synchronous: every update is computed on the current "
                                               "parameters (staleness 0).")
                                                .arg(run->name()));
    return;
  }
  const StalenessHistogram& h = *run->staleness;
  chart->setTitle(tr("Staleness of %1").arg(run->name()));
  auto* set = new QBarSet(tr("Updates"));
  set->setColor(chartSeriesColor(static_cast<std::size_t>(m_selected)));
  set->setBorderColor(Qt::transparent);
  QStringList labels;
  qint64 maxCount = 0;
  for (const StalenessBin& b : stalenessBins(h)) {
    set->append(static_cast<double>(b.count));
    labels << b.label();
    maxCount = std::max(maxCount, b.count);
  }
  auto* series = new QBarSeries;
  series->setBarWidth(0.9);
  series->append(set);
  auto* x = new QBarCategoryAxis;
  x->append(labels);
  x->setTitleText(tr("Staleness (updates behind): mean %1, max %2").arg(h.mean, 0, 'f', 1).arg(h.max));
  // Sixteen bars' labels ("48-51") fit across half a window in a smaller font.
  if (labels.size() > 8) {
    QFont font = x->labelsFont();
    font.setPointSizeF(font.pointSizeF() * 0.8);
    x->setLabelsFont(font);
  }
  auto* y = new QValueAxis;
  y->setTitleText(tr("Updates"));
  y->setRange(0, static_cast<double>(std::max<qint64>(1, maxCount)) * 1.05);
  y->applyNiceNumbers();
  y->setLabelFormat(QStringLiteral("%.0f"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  attach(chart, series, x, y);
}
