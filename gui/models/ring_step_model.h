#pragma once
// RingStepModel: one step of a ring AllReduce as a table — a row per rank, a column per chunk — for the ring view
// and for anyone who wants the numbers (a QTableView shows it as is).
//
// At step k (0 .. stepCount) the model shows the state before step k's transfers (contributions after k
// completed steps) and marks which chunk each rank sends and receives during step k. k = stepCount is the end:
// every chunk reduced everywhere, nothing moving.
#include <QAbstractTableModel>
#include <vector>

#include "models/ring_schedule.h"

class RingStepModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Role {
    ContributionsRole = Qt::UserRole + 1,  // int: ranks summed into this rank's copy of the chunk
    ReducedRole,                           // bool: all n contributions (the fully reduced chunk)
    SendingRole,                           // bool: this rank sends this chunk during the step
    ReceivingRole,                         // bool: this rank receives this chunk during the step
  };

  explicit RingStepModel(int ranks, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  QHash<int, QByteArray> roleNames() const override;

  const RingSchedule& schedule() const { return m_schedule; }
  int step() const { return m_step; }
  int contributions(int rank, int chunk) const;
  // Transfers of the current step; empty at the end.
  const std::vector<RingTransfer>& currentTransfers() const;
  // Resets the ring to `ranks` ranks (at least 2) and step 0.
  void setRankCount(int ranks);

 public slots:
  void setStep(int step);

 signals:
  void stepChanged(int step);

 private:
  RingSchedule m_schedule;
  int m_step = -1;  // no step computed yet: the constructor's setStep(0) must run
  std::vector<int> m_state;
  std::vector<int> m_sending;    // chunk sent by each rank this step, or the rank count when none
  std::vector<int> m_receiving;  // chunk received by each rank this step
};
