#pragma once
// RingPanel: the ring view with its controls — a step slider, play/pause that animates the AllReduce step by step,
// the step's description, which algorithm to show: the one the simulator ran for the followed bucket (the
// default: `algorithm: auto` picks tree or ring per size) or ring, tree or halving-doubling for comparison — and
// which of the simulator's channels: all of them, their traffic summed on each link, or one (its strips and its
// share of the traffic). The channels are those the bucket ran on (report.json's buckets), or for another algorithm
// those the simulator would use. The step is the same one the timeline's cursor points at (MainWindow keeps the
// two in sync through stepChanged / setStep).
//
// A model-parallel run adds a group selector (layout_groups.h): which kind of group — tensor, context, pipeline or
// data — and which group of that kind; the view then animates that group's own collective (an AllReduce, a ring
// AllGather, the stage-to-stage transfer) on its own GPUs of the machine, as the simulator grouped it into nodes
// and channels. Expert all-to-alls are not drawn. "Buckets" goes back to following the timeline's AllReduce.
#include <QWidget>
#include <memory>
#include <optional>

#include "models/collective_schedule.h"
#include "models/collective_traffic.h"
#include "models/layout_groups.h"
#include "models/timeline_data.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class RingStepModel;
class RingView;
class TopologyLayout;

class RingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RingPanel(QWidget* parent = nullptr);

  RingStepModel* model() const { return m_model; }
  RingView* view() const { return m_view; }
  int step() const;
  int stepCount() const;
  int rankCount() const;
  CollectiveAlgorithm algorithm() const;
  int channelCount() const;
  std::optional<int> channel() const;  // none: all channels
  // The layout group shown (kind, index), none while following buckets.
  std::optional<std::pair<LayoutGroupKind, int>> group() const { return m_group; }

 public slots:
  // A ring on `ranks` ranks, with no bucket to follow.
  void setRankCount(int ranks);
  // Follow one AllReduce: its algorithm (unless overridden), its ranks (else `fallbackRanks`), its rates; `run`: what
  // the simulator ran it as (algorithm, channels, protocol), where known.
  void follow(const std::optional<TimelineSpan>& allReduce, int fallbackRanks,
              const std::optional<BucketRun>& run = std::nullopt);
  // None: the algorithm the followed bucket ran with.
  void setAlgorithmOverride(std::optional<CollectiveAlgorithm> algorithm);
  // The machine, and its GPUs' compute capability (LL and LL128's wire bytes on NVLink depend on it).
  void setTopology(std::shared_ptr<const TopologyLayout> topology, std::optional<int> computeCapability = std::nullopt);
  // One channel, or all (none); out of range: all.
  void setChannel(std::optional<int> channel);
  // The run's layout (none: not model-parallel): offers its groups in the selector, and follows buckets again.
  void setLayoutGroups(std::optional<LayoutGroups> groups);
  // Show group `index` of `kind` (clamped to the kind's groups); none: follow the buckets. Throws InputError for a
  // kind the layout does not run.
  void setGroup(std::optional<std::pair<LayoutGroupKind, int>> group);
  void setStep(int step);
  void setPlaying(bool playing);

 signals:
  void stepChanged(int step);
  // The schedule changed (another algorithm or rank count): the step count may differ.
  void scheduleChanged();

 private:
  void applySchedule();
  CollectiveTraffic::Spec groupSpec(bool& onMachine);
  CollectiveTraffic::Spec bucketSpec(bool& onMachine);
  void fillGroupBoxes();
  void showChannel();
  void advance();
  void updateStepLabel();

  RingStepModel* m_model;
  RingView* m_view;
  QComboBox* m_algorithmBox;
  QComboBox* m_channelBox;
  QLabel* m_channelLabel;
  QComboBox* m_groupKindBox;
  QSpinBox* m_groupIndexBox;
  QLabel* m_groupLabel;
  QSlider* m_slider;
  QPushButton* m_play;
  QLabel* m_stepLabel;
  QTimer* m_timer;
  CollectiveAlgorithm m_ranAlgorithm = CollectiveAlgorithm::Ring;  // what the followed bucket ran
  std::optional<CollectiveAlgorithm> m_override;
  std::optional<TimelineSpan> m_bucket;  // the followed AllReduce
  std::optional<BucketRun> m_run;        // what it ran as
  std::shared_ptr<const TopologyLayout> m_topology;
  std::optional<int> m_computeCapability;
  std::shared_ptr<const CollectiveTraffic> m_traffic;  // the channels of the algorithm shown
  std::optional<int> m_channel;
  int m_ranks = 8;
  std::optional<LayoutGroups> m_groups;
  std::optional<std::pair<LayoutGroupKind, int>> m_group;
};
