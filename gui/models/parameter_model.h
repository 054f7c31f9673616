#pragma once
// ParameterModel: the side panel's scenario parameters — key paths and values that re-run the scenario as
// `syncsim run --set key.path=value` would (scenario_loader.hpp). A row with an empty value leaves the file's value.
// Both columns are editable; addParameter() appends a row for any other key path.
#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

class ParameterModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { KeyColumn, ValueColumn, ColumnCount };

  explicit ParameterModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  void addParameter(const QString& key, const QString& value = QString());
  // "key=value" for every row with a key and a value, in row order (a later one wins, as with --set).
  QStringList overrides() const;
  void clearValues();

 private:
  struct Parameter {
    QString key;
    QString value;
  };
  std::vector<Parameter> m_rows;
};
