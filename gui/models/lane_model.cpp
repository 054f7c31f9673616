#include "models/lane_model.h"

LaneModel::LaneModel(QObject* parent) : QAbstractTableModel(parent) {}

void LaneModel::setTimeline(std::shared_ptr<const TimelineData> data) {
  beginResetModel();
  m_data = std::move(data);
  endResetModel();
}

int LaneModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_data ? 0 : static_cast<int>(m_data->lanes().size());
}

int LaneModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString LaneModel::laneKindName(LaneKind kind) {
  switch (kind) {
    case LaneKind::Gpu:
      return tr("GPU");
    case LaneKind::Link:
      return tr("Link");
    case LaneKind::Collective:
      return tr("Collective");
  }
  return {};
}

QVariant LaneModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const TimelineLane& lane = m_data->lanes()[static_cast<std::size_t>(index.row())];
  if (role == LaneKindRole) return static_cast<int>(lane.kind);
  if (role == RowCountRole) return static_cast<int>(lane.rows.size());
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case NameColumn:
      return lane.name;
    case KindColumn:
      return laneKindName(lane.kind);
    case SpansColumn:
      return static_cast<qulonglong>(lane.spanCount());
    default:
      return {};
  }
}

QVariant LaneModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case NameColumn:
      return tr("Lane");
    case KindColumn:
      return tr("Kind");
    case SpansColumn:
      return tr("Spans");
    default:
      return {};
  }
}
