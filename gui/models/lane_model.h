#pragma once
// LaneModel: the timeline's lanes as a list (name, kind, span count) — what the lane header paints and what a
// lane filter or a test reads. Columns: name, kind, spans.
#include <QAbstractTableModel>
#include <memory>

#include "models/timeline_data.h"

class LaneModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { NameColumn, KindColumn, SpansColumn, ColumnCount };
  enum Role { LaneKindRole = Qt::UserRole + 1, RowCountRole };

  explicit LaneModel(QObject* parent = nullptr);

  void setTimeline(std::shared_ptr<const TimelineData> data);
  const std::shared_ptr<const TimelineData>& timeline() const { return m_data; }

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  static QString laneKindName(LaneKind kind);

 private:
  std::shared_ptr<const TimelineData> m_data;
};
