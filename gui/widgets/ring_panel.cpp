#include "widgets/ring_panel.h"

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
      m_slider(new QSlider(Qt::Horizontal, this)),
      m_play(new QPushButton(tr("Play"), this)),
      m_stepLabel(new QLabel(this)),
      m_timer(new QTimer(this)) {
  auto* controls = new QHBoxLayout;
  controls->addWidget(m_play);
  controls->addWidget(new QLabel(tr("Step:"), this));
  controls->addWidget(m_slider, 1);
  controls->addWidget(m_stepLabel);
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
    m_stepLabel->setText(tr("%1 of %2 steps done").arg(step).arg(m_model->schedule().stepCount()));
    emit stepChanged(step);
  });
  setRankCount(8);
}

int RingPanel::step() const {
  return m_model->step();
}

int RingPanel::rankCount() const {
  return m_model->schedule().rankCount();
}

void RingPanel::setRankCount(int ranks) {
  m_model->setRankCount(std::max(ranks, 2));
  m_slider->setRange(0, m_model->schedule().stepCount());
  m_slider->setValue(0);
  m_stepLabel->setText(tr("%1 of %2 steps done").arg(0).arg(m_model->schedule().stepCount()));
}

void RingPanel::setStep(int step) {
  m_model->setStep(step);
}

void RingPanel::setLinkRate(std::optional<double> bytesPerSecond) {
  m_view->setLinkRate(bytesPerSecond);
}

void RingPanel::setPlaying(bool playing) {
  if (m_play->isChecked() != playing) m_play->setChecked(playing);
  m_play->setText(playing ? tr("Pause") : tr("Play"));
  if (playing) {
    if (step() >= m_model->schedule().stepCount()) m_model->setStep(0);
    m_timer->start();
  } else {
    m_timer->stop();
  }
}

void RingPanel::advance() {
  if (step() >= m_model->schedule().stepCount()) {
    setPlaying(false);
    return;
  }
  m_model->setStep(step() + 1);
}
