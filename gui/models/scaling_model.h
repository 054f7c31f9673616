#pragma once
// ScalingModel: a sweep's scaling points as a table — configuration, GPUs, throughput, ideal-linear throughput,
// efficiency — one row per point, series after series (sweep_csv.h).
#include <QAbstractTableModel>

#include "models/sweep_csv.h"

class ScalingModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { ConfigColumn, GpusColumn, ThroughputColumn, IdealColumn, EfficiencyColumn, ColumnCount };

  explicit ScalingModel(QObject* parent = nullptr);

  void setScaling(ScalingData data);
  const ScalingData& scaling() const { return m_data; }

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  ScalingData m_data;
  std::vector<std::pair<int, int>> m_rows;  // (series, point) per row
};
