#pragma once
// RingStepModel: one step of an AllReduce (ring, tree or halving-doubling: collective_schedule.h) as a table — a
// row per rank, a column per piece of the buffer — for the ring view and for anyone who wants the numbers (a
// QTableView shows it as is). The name stays from the ring it first showed; the Ring tab shows all three.
//
// At step k (0 .. stepCount) the model shows the state before step k's transfers (contributions after k
// completed steps) and marks which pieces each rank sends and receives during step k. k = stepCount is the end:
// every piece reduced everywhere, nothing moving.
#include <QAbstractTableModel>
#include <vector>

#include "models/collective_schedule.h"

class RingStepModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Role {
    ContributionsRole = Qt::UserRole + 1,  // int: ranks summed into this rank's copy of the chunk
    ReducedRole,                           // bool: all n contributions (the fully reduced chunk)
    SendingRole,                           // bool: this rank sends this chunk during the step
    ReceivingRole,                         // bool: this rank receives this chunk during the step
  };

  // A ring on `ranks` ranks.
  explicit RingStepModel(int ranks, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  QHash<int, QByteArray> roleNames() const override;

  const CollectiveSchedule& schedule() const { return m_schedule; }
  int step() const { return m_step; }
  int contributions(int rank, int chunk) const;
  // Transfers of the current step; empty at the end.
  const std::vector<CollectiveTransfer>& currentTransfers() const;
  // Resets to `algorithm` on `ranks` ranks (at least 2) and step 0.
  void setSchedule(CollectiveAlgorithm algorithm, int ranks);
  // Resets to `schedule` (one channel of what the simulator ran: collective_traffic.h) and step 0.
  void setSchedule(const CollectiveSchedule& schedule);
  void setRankCount(int ranks) { setSchedule(m_schedule.algorithm(), ranks); }

 public slots:
  void setStep(int step);

 signals:
  void stepChanged(int step);

 private:
  CollectiveSchedule m_schedule;
  int m_step = -1;  // no step computed yet: the constructor's setStep(0) must run
  std::vector<int> m_state;
  std::vector<bool> m_sending;    // [rank * pieces + piece]: sent this step
  std::vector<bool> m_receiving;  // [rank * pieces + piece]: received this step
};
