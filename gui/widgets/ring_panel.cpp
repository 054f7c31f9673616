#include "widgets/ring_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStringList>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "models/ring_step_model.h"
#include "models/topology_layout.h"
#include "syncsim/core/input_error.hpp"
#include "widgets/ring_view.h"

namespace {
constexpr int kAnimationStepMs = 700;
}

RingPanel::RingPanel(QWidget* parent)
    : QWidget(parent),
      m_model(new RingStepModel(8, this)),
      m_view(new RingView(m_model, this)),
      m_algorithmBox(new QComboBox(this)),
      m_channelBox(new QComboBox(this)),
      m_channelLabel(new QLabel(tr("Channel:"), this)),
      m_groupKindBox(new QComboBox(this)),
      m_groupIndexBox(new QSpinBox(this)),
      m_groupLabel(new QLabel(tr("Group:"), this)),
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
  controls->addWidget(m_channelLabel);
  controls->addWidget(m_channelBox);
  controls->addWidget(m_groupLabel);
  controls->addWidget(m_groupKindBox);
  controls->addWidget(m_groupIndexBox);
  m_groupKindBox->setToolTip(
      tr("Which of the layout's groups to show: the buckets' AllReduce as the timeline "
         "runs it, or a tensor, context, pipeline or data group's own collective"));
  m_groupIndexBox->setToolTip(tr("Which group of that kind, numbered by its first GPU"));
  m_channelBox->setToolTip(
      tr("The simulator splits an AllReduce over channels (one ring or tree per rail): all of them, each link's "
         "traffic summed, or one channel"));
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
  connect(m_channelBox, &QComboBox::activated, this, [this](int index) {
    const int value = m_channelBox->itemData(index).toInt();
    setChannel(value < 0 ? std::nullopt : std::optional(value));
  });
  connect(m_groupKindBox, &QComboBox::activated, this, [this](int index) {
    const int value = m_groupKindBox->itemData(index).toInt();
    setGroup(value < 0 ? std::nullopt
                       : std::optional(std::pair(static_cast<LayoutGroupKind>(value), m_groupIndexBox->value())));
  });
  connect(m_groupIndexBox, &QSpinBox::valueChanged, this, [this](int index) {
    if (m_group && index != m_group->second) setGroup(std::pair(m_group->first, index));
  });
  fillGroupBoxes();
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

int RingPanel::channelCount() const {
  return m_traffic ? m_traffic->channelCount() : 1;
}

std::optional<int> RingPanel::channel() const {
  return m_channel;
}

void RingPanel::setRankCount(int ranks) {
  m_ranAlgorithm = CollectiveAlgorithm::Ring;
  m_ranks = std::max(ranks, 2);
  m_bucket.reset();
  m_run.reset();
  applySchedule();
}

void RingPanel::follow(const std::optional<TimelineSpan>& allReduce, int fallbackRanks,
                       const std::optional<BucketRun>& run) {
  // The report's algorithm where known (the trace records it only for small collectives), else the trace's.
  const std::optional<CollectiveAlgorithm> reported = run ? parseCollectiveAlgorithm(run->algorithm) : std::nullopt;
  m_ranAlgorithm = reported                                                          ? *reported
                   : allReduce && allReduce->has(TimelineSpan::HasAlgorithm) && !run ? allReduce->algorithm
                                                                                     : CollectiveAlgorithm::Ring;
  m_ranks = std::max(allReduce && allReduce->has(TimelineSpan::HasPeers) ? allReduce->peers : fallbackRanks, 2);
  m_bucket = allReduce;
  m_run = run;
  applySchedule();
}

void RingPanel::setAlgorithmOverride(std::optional<CollectiveAlgorithm> algorithm) {
  m_override = algorithm;
  const int index = m_algorithmBox->findData(algorithm ? static_cast<int>(*algorithm) : -1);
  if (index >= 0) m_algorithmBox->setCurrentIndex(index);
  applySchedule();
}

void RingPanel::setTopology(std::shared_ptr<const TopologyLayout> topology, std::optional<int> computeCapability) {
  m_topology = topology;
  m_computeCapability = computeCapability;
  m_view->setTopology(std::move(topology));
  applySchedule();
}

void RingPanel::setChannel(std::optional<int> channel) {
  if (channel && (*channel < 0 || *channel >= channelCount())) channel.reset();
  m_channel = channel;
  showChannel();
}

// The model shows the selected channel (all channels: channel 0's strips), at the same step.
void RingPanel::showChannel() {
  const int index = m_channelBox->findData(m_channel ? *m_channel : -1);
  if (index >= 0) m_channelBox->setCurrentIndex(index);
  const int step = m_model->step();
  const CollectiveSchedule& shown = m_traffic->schedule(m_channel.value_or(0));
  if (shown.channel() != m_model->schedule().channel() || m_slider->maximum() != shown.stepCount()) {
    m_model->setSchedule(shown);
    m_slider->setRange(0, stepCount());
    m_model->setStep(step);
  }
  m_view->setChannel(m_channel);
  updateStepLabel();
}

void RingPanel::setLayoutGroups(std::optional<LayoutGroups> groups) {
  m_groups = std::move(groups);
  m_group.reset();
  fillGroupBoxes();
  applySchedule();
}

void RingPanel::fillGroupBoxes() {
  m_groupKindBox->clear();
  m_groupKindBox->addItem(tr("Buckets"), -1);
  if (m_groups) {
    for (const LayoutGroupKind kind : m_groups->kinds()) {
      if (LayoutGroups::collective(kind) == syncsim::CollectiveOp::alltoall) continue;  // not drawn
      m_groupKindBox->addItem(LayoutGroups::kindName(kind), static_cast<int>(kind));
    }
  }
  const bool any = m_groupKindBox->count() > 1;
  m_groupKindBox->setVisible(any);
  m_groupLabel->setVisible(any);
  m_groupIndexBox->setVisible(any && m_group.has_value());
}

void RingPanel::setGroup(std::optional<std::pair<LayoutGroupKind, int>> group) {
  if (group) {
    const int kindIndex = m_groupKindBox->findData(static_cast<int>(group->first));
    if (!m_groups || kindIndex < 0) {
      throw syncsim::InputError("the run's layout has no " + LayoutGroups::kindName(group->first).toStdString() +
                                " groups to show");
    }
    group->second = std::clamp(group->second, 0, m_groups->groupCount(group->first) - 1);
    m_groupKindBox->setCurrentIndex(kindIndex);
    const QSignalBlocker quiet(m_groupIndexBox);
    m_groupIndexBox->setRange(0, m_groups->groupCount(group->first) - 1);
    m_groupIndexBox->setValue(group->second);
  } else {
    m_groupKindBox->setCurrentIndex(0);
  }
  m_group = group;
  m_groupIndexBox->setVisible(m_group.has_value());
  applySchedule();
}

// A layout group's collective on its own GPUs. There is no bucket to time it, so no rates.
CollectiveTraffic::Spec RingPanel::groupSpec(bool& onMachine) {
  const auto [kind, index] = *m_group;
  const std::vector<int> members = m_groups->members(kind, index);
  const syncsim::CollectiveOp op = LayoutGroups::collective(kind);
  // An AllGather and a stage-to-stage broadcast are the ring's: only an AllReduce has other algorithms to show.
  const CollectiveAlgorithm algorithm = op == syncsim::CollectiveOp::allreduce
                                            ? m_override.value_or(CollectiveAlgorithm::Ring)
                                            : CollectiveAlgorithm::Ring;
  const int ranks = static_cast<int>(members.size());
  onMachine = m_topology && !m_topology->isCircle() &&
              *std::max_element(members.begin(), members.end()) < static_cast<int>(m_topology->gpuCount());
  CollectiveTraffic::Spec spec{algorithm, ranks, 1, QString(), m_computeCapability, members, op};
  if (onMachine) spec.channels = CollectiveTraffic::defaultChannels(m_topology.get(), algorithm, ranks, members);
  m_algorithmBox->setItemText(0, tr("As run (%1)").arg(collectiveAlgorithmName(CollectiveAlgorithm::Ring)));
  m_view->setBucket(std::nullopt);
  m_view->setNote(QString());
  QStringList gpus;
  for (const int g : members) gpus << QString::number(g);
  m_view->setGroup(tr("%1 group %2 of %3 (GPUs %4): %5")
                       .arg(LayoutGroups::kindName(kind))
                       .arg(index)
                       .arg(m_groups->groupCount(kind))
                       .arg(gpus.join(QStringLiteral(", ")), LayoutGroups::collectiveText(kind)));
  return spec;
}

// The followed bucket's AllReduce as the simulator ran it, or another algorithm on the same ranks.
CollectiveTraffic::Spec RingPanel::bucketSpec(bool& onMachine) {
  const std::optional<CollectiveAlgorithm> reported = m_run ? parseCollectiveAlgorithm(m_run->algorithm) : std::nullopt;
  const bool drawable = !m_run || reported;  // a bucket that ran e.g. NVLS: the view shows a ring beside it
  const CollectiveAlgorithm wanted = m_override.value_or(m_ranAlgorithm);
  const QString ranName = drawable ? collectiveAlgorithmName(m_ranAlgorithm) : m_run->algorithm;
  m_algorithmBox->setItemText(0, tr("As run (%1)").arg(ranName));
  // The bucket's duration is the ran algorithm's: another one's steps would take other times, so no rates.
  const bool asRun = wanted == m_ranAlgorithm && drawable;
  m_view->setGroup(QString());
  m_view->setBucket(asRun ? m_bucket : std::nullopt);
  m_view->setNote(drawable ? QString() : tr("ran as %1, which the view does not draw").arg(m_run->algorithm));
  onMachine = m_topology && !m_topology->isCircle() && static_cast<int>(m_topology->gpuCount()) >= m_ranks;
  CollectiveTraffic::Spec spec{
      wanted, m_ranks, 1, QString(), m_computeCapability, {}, syncsim::CollectiveOp::allreduce};
  if (asRun && m_run) {
    spec.channels = m_run->channels;
    spec.protocol = m_run->protocol;
  } else if (onMachine) {
    spec.channels = CollectiveTraffic::defaultChannels(m_topology.get(), wanted, m_ranks);
  }
  return spec;
}

void RingPanel::applySchedule() {
  bool onMachine = false;
  const CollectiveTraffic::Spec spec = m_group && m_groups ? groupSpec(onMachine) : bucketSpec(onMachine);
  const TopologyLayout* machine = onMachine ? m_topology.get() : nullptr;
  // Unchanged: keep the step (the cursor moving within buckets of one algorithm must not restart it).
  if (m_traffic && m_traffic->spec() == spec && m_traffic->layout() == machine) {
    m_view->setTraffic(m_traffic);
    return;
  }
  m_traffic = std::make_shared<const CollectiveTraffic>(onMachine ? m_topology : nullptr, spec);
  m_channelBox->clear();
  m_channelBox->addItem(tr("All %1").arg(m_traffic->channelCount()), -1);
  for (int c = 0; c < m_traffic->channelCount(); ++c) m_channelBox->addItem(tr("%1").arg(c), c);
  m_channelBox->setVisible(m_traffic->channelCount() > 1);
  m_channelLabel->setVisible(m_traffic->channelCount() > 1);
  if (m_channel && *m_channel >= m_traffic->channelCount()) m_channel.reset();
  m_view->setTraffic(m_traffic);
  m_model->setSchedule(m_traffic->schedule(m_channel.value_or(0)));
  m_slider->setRange(0, stepCount());
  m_slider->setValue(0);
  showChannel();
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
