#include "widgets/ring_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include "models/ring_step_model.h"
#include "widgets/ring_view.h"

namespace {
constexpr int kAnimationStepMs = 700;
}

RingPanel::RingPanel(QWidget* parent)
    : QWidget(parent),
      m_model(new RingStepModel(8, this)),
      m_view(new RingView(m_model, this)),
      m_algorithmBox(new QComboBox(this)),
      m_slider(new QSlider(Qt::Horizontal, this)),
      m_play(new QPushButton(tr("Play"), this)),
      m_stepLabel(new QLabel(this)),
      m_timer(new QTimer(this)) {
  // Item data: -1 follows the bucket, else a CollectiveAlgorithm.
  m_algorithmBox->addItem(tr("As run"), -1);
  m_algorithmBox->addItem(tr("Ring"), static_cast<int>(CollectiveAlgorithm::Ring));
  m_algorithmBox->addItem(tr("Tree"), static_cast<int>(CollectiveAlgorithm::Tree));
  m_algorithmBox->addItem(tr("Halving-doubling"), static_cast<int>(CollectiveAlgorithm::HalvingDoubling));
  m_algorithmBox->setToolTip(
      tr("Which algorithm to animate: the one the simulator ran for this bucket, or another "
         "on the same ranks for comparison"));
  auto* controls = new QHBoxLayout;
  controls->addWidget(m_play);
  controls->addWidget(new QLabel(tr("Step:"), this));
  controls->addWidget(m_slider, 1);
  controls->addWidget(m_stepLabel);
  controls->addWidget(new QLabel(tr("Algorithm:"), this));
  controls->addWidget(m_algorithmBox);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_view, 1);
  layout->addLayout(controls);

  m_play->setCheckable(true);
  m_timer->setInterval(kAnimationStepMs);
  m_slider->setPageStep(1);
  connect(m_play, &QPushButton::toggled, this, &RingPanel::setPlaying);
  connect(m_timer, &QTimer::timeout, this, &RingPanel::advance);
  connect(m_slider, &QSlider::valueChanged, m_model, &RingStepModel::setStep);
  connect(m_model, &RingStepModel::stepChanged, this, [this](int step) {
    m_slider->setValue(step);
    updateStepLabel();
    emit stepChanged(step);
  });
  connect(m_algorithmBox, &QComboBox::activated, this, [this](int index) {
    const int value = m_algorithmBox->itemData(index).toInt();
    setAlgorithmOverride(value < 0 ? std::nullopt : std::optional(static_cast<CollectiveAlgorithm>(value)));
  });
  setRankCount(8);
}

int RingPanel::step() const {
  return m_model->step();
}

int RingPanel::stepCount() const {
  return m_model->schedule().stepCount();
}

int RingPanel::rankCount() const {
  return m_model->schedule().rankCount();
}

CollectiveAlgorithm RingPanel::algorithm() const {
  return m_model->schedule().algorithm();
}

void RingPanel::setRankCount(int ranks) {
  m_ranAlgorithm = CollectiveAlgorithm::Ring;
  m_ranks = std::max(ranks, 2);
  m_bucket.reset();
  applySchedule();
}

void RingPanel::follow(const std::optional<TimelineSpan>& allReduce, int fallbackRanks) {
  m_ranAlgorithm =
      allReduce && allReduce->has(TimelineSpan::HasAlgorithm) ? allReduce->algorithm : CollectiveAlgorithm::Ring;
  m_ranks = std::max(allReduce && allReduce->has(TimelineSpan::HasPeers) ? allReduce->peers : fallbackRanks, 2);
  m_bucket = allReduce;
  applySchedule();
}

void RingPanel::setAlgorithmOverride(std::optional<CollectiveAlgorithm> algorithm) {
  m_override = algorithm;
  const int index = m_algorithmBox->findData(algorithm ? static_cast<int>(*algorithm) : -1);
  if (index >= 0) m_algorithmBox->setCurrentIndex(index);
  applySchedule();
}

void RingPanel::setTopology(std::shared_ptr<const TopologyLayout> topology) {
  m_view->setTopology(std::move(topology));
}

void RingPanel::applySchedule() {
  const CollectiveAlgorithm wanted = m_override.value_or(m_ranAlgorithm);
  m_algorithmBox->setItemText(0, tr("As run (%1)").arg(collectiveAlgorithmName(m_ranAlgorithm)));
  // The bucket's duration is the ran algorithm's: another one's steps would take other times, so no rates.
  m_view->setBucket(wanted == m_ranAlgorithm ? m_bucket : std::nullopt);
  // Unchanged: keep the step (the cursor moving within buckets of one algorithm must not restart it).
  if (wanted == algorithm() && m_ranks == rankCount() && m_slider->maximum() == stepCount()) return;
  m_model->setSchedule(wanted, m_ranks);
  m_slider->setRange(0, stepCount());
  m_slider->setValue(0);
  updateStepLabel();
  emit scheduleChanged();
}

void RingPanel::updateStepLabel() {
  m_stepLabel->setText(tr("%1 of %2 steps done").arg(step()).arg(stepCount()));
}

void RingPanel::setStep(int step) {
  m_model->setStep(step);
}

void RingPanel::setPlaying(bool playing) {
  if (m_play->isChecked() != playing) m_play->setChecked(playing);
  m_play->setText(playing ? tr("Pause") : tr("Play"));
  if (playing) {
    if (step() >= stepCount()) m_model->setStep(0);
    m_timer->start();
  } else {
    m_timer->stop();
  }
}

void RingPanel::advance() {
  if (step() >= stepCount()) {
    setPlaying(false);
    return;
  }
  m_model->setStep(step() + 1);
}
