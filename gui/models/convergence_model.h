#pragma once
// ConvergenceModel: the runs overlaid in the Convergence view, one row each — the legend name, time and updates to
// the target, best and final held-out loss, final accuracy, divergence, staleness, updates, strategy and workers. Rows
// are added (a report opened, a scenario run) and replaced by name: re-running the same scenario and strategy on the
// same workers replaces its curve instead of stacking a copy; another strategy adds a row.
//
// Display values are formatted for the table; Qt::EditRole gives the raw number (nothing for "none"), so a view
// can sort numerically.
#include <QAbstractTableModel>
#include <vector>

#include "models/convergence_run.h"

class ConvergenceModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // What decides between runs first (time to target), what the name already says last.
  enum Column {
    NameColumn,
    TimeToTargetColumn,
    UpdatesToTargetColumn,
    BestLossColumn,
    FinalLossColumn,
    FinalAccuracyColumn,
    DivergedColumn,
    StalenessColumn,
    UpdatesColumn,
    StrategyColumn,
    WorkersColumn,
    ColumnCount
  };

  explicit ConvergenceModel(QObject* parent = nullptr);

  // The row of the run, new or replaced.
  int addRun(ConvergenceRun run);
  void removeRun(int row);
  void clear();
  const std::vector<ConvergenceRun>& runs() const { return m_runs; }
  const ConvergenceRun& run(int row) const { return m_runs.at(static_cast<std::size_t>(row)); }

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<ConvergenceRun> m_runs;
};
