#include "models/parameter_model.h"

ParameterModel::ParameterModel(QObject* parent) : QAbstractTableModel(parent) {
  // The keys people change most between runs (docs/scenarios.md).
  for (const char* key : {"training.iterations", "training.algorithm", "training.bucket_size", "training.overlap",
                          "model.batch_per_gpu", "cluster.topology.nodes", "cluster.topology.gpus"}) {
    m_rows.push_back({QString::fromLatin1(key), QString()});
  }
}

int ParameterModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ParameterModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ParameterModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Parameter& p = m_rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole || role == Qt::EditRole) return index.column() == KeyColumn ? p.key : p.value;
  if (role == Qt::ToolTipRole && index.column() == ValueColumn) {
    return tr("Empty: the value in the scenario file. Otherwise as --set %1=VALUE").arg(p.key);
  }
  return {};
}

bool ParameterModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return false;
  }
  Parameter& p = m_rows[static_cast<std::size_t>(index.row())];
  QString& field = index.column() == KeyColumn ? p.key : p.value;
  const QString text = value.toString().trimmed();
  if (field == text) return true;
  field = text;
  emit dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
  return true;
}

Qt::ItemFlags ParameterModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

QVariant ParameterModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  return section == KeyColumn ? tr("Parameter") : section == ValueColumn ? tr("Value") : QVariant();
}

void ParameterModel::addParameter(const QString& key, const QString& value) {
  const int row = rowCount();
  beginInsertRows(QModelIndex(), row, row);
  m_rows.push_back({key, value});
  endInsertRows();
}

QStringList ParameterModel::overrides() const {
  QStringList out;
  for (const Parameter& p : m_rows) {
    if (!p.key.isEmpty() && !p.value.isEmpty()) out << p.key + u'=' + p.value;
  }
  return out;
}

void ParameterModel::clearValues() {
  for (Parameter& p : m_rows) p.value.clear();
  if (rowCount() > 0) emit dataChanged(index(0, ValueColumn), index(rowCount() - 1, ValueColumn));
}
