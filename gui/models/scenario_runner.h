#pragma once
// ScenarioRunner: loads a document (loaded_document.h) on a worker thread and hands the whole result back by
// signal, so the window never blocks on a simulation (as hotspot's parser does).
//
// Cancel: run_scenario() has no cancellation point, so cancel() abandons the run — its result is dropped when it
// arrives and a newer start() is never overtaken by an older one. The destructor waits for runs still going.
#include <QObject>
#include <QStringList>
#include <memory>
#include <vector>

#include "models/loaded_document.h"

class QThread;

class ScenarioRunner : public QObject {
  Q_OBJECT
 public:
  explicit ScenarioRunner(QObject* parent = nullptr);
  ~ScenarioRunner() override;

  bool isRunning() const { return m_running; }

 public slots:
  void start(const QString& path, const QStringList& overrides = {});
  void cancel();

 signals:
  void started(const QString& path);
  void finished(std::shared_ptr<const LoadedDocument> document);
  void failed(const QString& path, const QString& message);
  void canceled();

 private:
  void deliver(quint64 generation, std::shared_ptr<const LoadedDocument> doc, const QString& path,
               const QString& error);

  quint64 m_generation = 0;
  bool m_running = false;
  std::vector<QThread*> m_threads;
};
