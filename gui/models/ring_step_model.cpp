#include "models/ring_step_model.h"

#include <algorithm>

RingStepModel::RingStepModel(int ranks, QObject* parent)
    : QAbstractTableModel(parent), m_schedule(CollectiveAlgorithm::Ring, ranks) {
  setStep(0);
}

void RingStepModel::setSchedule(CollectiveAlgorithm algorithm, int ranks) {
  setSchedule(CollectiveSchedule(algorithm, ranks));
}

void RingStepModel::setSchedule(const CollectiveSchedule& schedule) {
  beginResetModel();
  m_schedule = schedule;
  m_step = -1;
  setStep(0);
  endResetModel();
}

int RingStepModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_schedule.rankCount();
}

int RingStepModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_schedule.pieceCount();
}

int RingStepModel::contributions(int rank, int chunk) const {
  return m_state[static_cast<std::size_t>(rank * m_schedule.pieceCount() + chunk)];
}

const std::vector<CollectiveTransfer>& RingStepModel::currentTransfers() const {
  static const std::vector<CollectiveTransfer> kNone;
  return m_step < m_schedule.stepCount() ? m_schedule.transfers(m_step) : kNone;
}

void RingStepModel::setStep(int step) {
  step = std::clamp(step, 0, m_schedule.stepCount());
  if (step == m_step) return;
  m_step = step;
  m_state = m_schedule.stateAfter(step);
  const auto pieces = static_cast<std::size_t>(m_schedule.pieceCount());
  m_sending.assign(m_state.size(), false);
  m_receiving.assign(m_state.size(), false);
  for (const CollectiveTransfer& t : currentTransfers()) {
    for (int c = t.chunk; c < t.chunk + t.chunks; ++c) {
      m_sending[static_cast<std::size_t>(t.src) * pieces + static_cast<std::size_t>(c)] = true;
      m_receiving[static_cast<std::size_t>(t.dst) * pieces + static_cast<std::size_t>(c)] = true;
    }
  }
  if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
  emit stepChanged(m_step);
}

QVariant RingStepModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const int rank = index.row();
  const int chunk = index.column();
  const int c = contributions(rank, chunk);
  const auto cell = static_cast<std::size_t>(rank * m_schedule.pieceCount() + chunk);
  switch (role) {
    case Qt::DisplayRole:
      return tr("%1/%2").arg(c).arg(m_schedule.fullCount());
    case Qt::ToolTipRole:
      return tr("Rank %1 holds chunk %2 summed over %3 of %4 ranks")
          .arg(rank)
          .arg(chunk)
          .arg(c)
          .arg(m_schedule.fullCount());
    case ContributionsRole:
      return c;
    case ReducedRole:
      return c == m_schedule.fullCount();
    case SendingRole:
      return bool(m_sending[cell]);
    case ReceivingRole:
      return bool(m_receiving[cell]);
    default:
      return {};
  }
}

QVariant RingStepModel::headerData(int section, Qt::Orientation orientation, int role) const {
  const int count = orientation == Qt::Horizontal ? m_schedule.pieceCount() : m_schedule.rankCount();
  if (role != Qt::DisplayRole || section < 0 || section >= count) return {};
  return orientation == Qt::Horizontal ? tr("Chunk %1").arg(section) : tr("Rank %1").arg(section);
}

QHash<int, QByteArray> RingStepModel::roleNames() const {
  QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
  names.insert(ContributionsRole, "contributions");
  names.insert(ReducedRole, "reduced");
  names.insert(SendingRole, "sending");
  names.insert(ReceivingRole, "receiving");
  return names;
}
