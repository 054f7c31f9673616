#include "models/convergence_model.h"

#include <QColor>
#include <cmath>

#include "models/time_scale.h"

namespace {

QString formatTimeUs(double us) {
  return TimeScale::formatDuration(static_cast<qint64>(std::llround(us * 1e6)));
}

// A diverged run's final loss is NaN: "-" reads better than "nan".
QString formatLoss(double loss) {
  return std::isfinite(loss) ? QString::number(loss, 'f', 4) : QStringLiteral("-");
}

}  // namespace

ConvergenceModel::ConvergenceModel(QObject* parent) : QAbstractTableModel(parent) {}

int ConvergenceModel::addRun(ConvergenceRun run) {
  const QString name = run.name();
  for (std::size_t i = 0; i < m_runs.size(); ++i) {
    if (m_runs[i].name() == name) {
      m_runs[i] = std::move(run);
      const int row = static_cast<int>(i);
      emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
      return row;
    }
  }
  const int row = static_cast<int>(m_runs.size());
  beginInsertRows({}, row, row);
  m_runs.push_back(std::move(run));
  endInsertRows();
  return row;
}

void ConvergenceModel::removeRun(int row) {
  if (row < 0 || row >= rowCount()) return;
  beginRemoveRows({}, row, row);
  m_runs.erase(m_runs.begin() + row);
  endRemoveRows();
}

void ConvergenceModel::clear() {
  if (m_runs.empty()) return;
  beginResetModel();
  m_runs.clear();
  endResetModel();
}

int ConvergenceModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int ConvergenceModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ConvergenceModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ConvergenceRun& r = m_runs[static_cast<std::size_t>(index.row())];
  if (role == Qt::ToolTipRole) return r.source;
  if (role == Qt::ForegroundRole) {
    // Diverged runs in red, wherever the row is read.
    return r.diverged() ? QVariant(QColor(0xC0, 0x20, 0x20)) : QVariant();
  }
  const bool edit = role == Qt::EditRole;
  if (role != Qt::DisplayRole && !edit) return {};
  switch (index.column()) {
    case NameColumn:
      return r.name();
    case StrategyColumn:
      return r.strategy;
    case WorkersColumn:
      return r.workers;
    case UpdatesColumn:
      return r.updates;
    case FinalLossColumn:
      return edit ? QVariant(r.finalLoss) : QVariant(formatLoss(r.finalLoss));
    case BestLossColumn:
      return edit ? QVariant(r.bestLoss) : QVariant(formatLoss(r.bestLoss));
    case FinalAccuracyColumn:
      if (edit) return r.finalAccuracy;
      return std::isfinite(r.finalAccuracy) ? QStringLiteral("%1 %").arg(r.finalAccuracy * 100, 0, 'f', 1)
                                            : QStringLiteral("-");
    case TimeToTargetColumn:
      if (edit) return r.timeToTargetUs ? QVariant(*r.timeToTargetUs) : QVariant();
      if (!r.targetLoss) return tr("no target");
      return r.timeToTargetUs ? formatTimeUs(*r.timeToTargetUs) : tr("not reached");
    case UpdatesToTargetColumn:
      if (r.updatesToTarget) return *r.updatesToTarget;
      return edit ? QVariant() : QVariant(QStringLiteral("-"));
    case DivergedColumn:
      if (edit) return r.divergedAtUs ? QVariant(*r.divergedAtUs) : QVariant();
      if (!r.diverged()) return tr("no");
      return r.divergedAtUs
                 ? tr("at %1 (update %2)").arg(formatTimeUs(*r.divergedAtUs)).arg(r.divergedAtUpdate.value_or(0))
                 : tr("yes");
    case StalenessColumn:
      if (!r.staleness) return edit ? QVariant() : QVariant(tr("synchronous"));
      if (edit) return r.staleness->mean;
      return tr("%1 mean, %2 max").arg(r.staleness->mean, 0, 'f', 1).arg(r.staleness->max);
    default:
      return {};
  }
}

QVariant ConvergenceModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case NameColumn:
      return tr("Run");
    case StrategyColumn:
      return tr("Strategy");
    case WorkersColumn:
      return tr("Workers");
    case UpdatesColumn:
      return tr("Updates");
    case FinalLossColumn:
      return tr("Final loss");
    case BestLossColumn:
      return tr("Best loss");
    case FinalAccuracyColumn:
      return tr("Final accuracy");
    case TimeToTargetColumn:
      return tr("Time to target");
    case UpdatesToTargetColumn:
      return tr("Updates to target");
    case DivergedColumn:
      return tr("Diverged");
    case StalenessColumn:
      return tr("Staleness");
    default:
      return {};
  }
}
