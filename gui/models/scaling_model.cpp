#include "models/scaling_model.h"

ScalingModel::ScalingModel(QObject* parent) : QAbstractTableModel(parent) {}

void ScalingModel::setScaling(ScalingData data) {
  beginResetModel();
  m_data = std::move(data);
  m_rows.clear();
  for (std::size_t s = 0; s < m_data.series.size(); ++s) {
    for (std::size_t p = 0; p < m_data.series[s].points.size(); ++p) m_rows.emplace_back(int(s), int(p));
  }
  endResetModel();
}

int ScalingModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ScalingModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScalingModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  const auto [s, p] = m_rows[static_cast<std::size_t>(index.row())];
  const ScalingSeries& series = m_data.series[static_cast<std::size_t>(s)];
  const ScalingPoint& point = series.points[static_cast<std::size_t>(p)];
  switch (index.column()) {
    case ConfigColumn:
      return series.config;
    case GpusColumn:
      return point.gpus;
    case ThroughputColumn:
      return point.throughput;
    case IdealColumn:
      return series.idealThroughput(point.gpus);
    case EfficiencyColumn:
      return point.efficiency;
    default:
      return {};
  }
}

QVariant ScalingModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case ConfigColumn:
      return tr("Configuration");
    case GpusColumn:
      return tr("GPUs");
    case ThroughputColumn:
      return tr("Throughput (samples/s)");
    case IdealColumn:
      return tr("Ideal linear (samples/s)");
    case EfficiencyColumn:
      return tr("Scaling efficiency");
    default:
      return {};
  }
}
