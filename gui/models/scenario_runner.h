#pragma once
// ScenarioRunner: loads a document (loaded_document.h) on a worker thread and hands the whole result back by
// signal, so the window never blocks on a simulation (as hotspot's parser does).
//
// Progress and cancel go through a RunControl (run_control.h): progress() reports each stage (reading, simulating,
// building the timeline, laying out the topology) and, while simulating, each iteration (worker update for
// asynchronous strategies, at most a few hundred reports a run). cancel() sets the flag that the worker checks
// between stages and that run_scenario checks after every iteration, so a canceled simulation stops within one
// iteration and its thread ends; canceled() is emitted at once. A newer start() is never overtaken by an older
// one; the destructor cancels and waits for runs still going.
//
// The document's workspace (run/workspace.hpp) lives here: runs of the same file (re-run, other overrides) reuse
// the collectives its earlier runs simulated; another file starts a new one. Runs still going keep theirs alive.
#include <QObject>
#include <QStringList>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/loaded_document.h"
#include "syncsim/run/workspace.hpp"

class QThread;

class ScenarioRunner : public QObject {
  Q_OBJECT
 public:
  explicit ScenarioRunner(QObject* parent = nullptr);
  ~ScenarioRunner() override;

  bool isRunning() const { return m_running; }
  // Worker threads not yet finished, canceled ones included (a canceled simulation ends within an iteration).
  int workerCount() const { return static_cast<int>(m_threads.size()); }

 public slots:
  void start(const QString& path, const QStringList& overrides = {});
  void cancel();

 signals:
  void started(const QString& path);
  // done of total stages, or of the simulation's iterations; what: what is running now (translated).
  void progress(int done, int total, const QString& what);
  void finished(std::shared_ptr<const LoadedDocument> document);
  void failed(const QString& path, const QString& message);
  void canceled();

 private:
  void deliver(quint64 generation, std::shared_ptr<const LoadedDocument> doc, const QString& path,
               const QString& error);

  quint64 m_generation = 0;
  bool m_running = false;
  std::vector<QThread*> m_threads;
  std::unordered_map<quint64, std::shared_ptr<RunControl>> m_controls;  // by generation, while running
  QString m_workspacePath;                                              // the document m_workspace belongs to
  std::shared_ptr<syncsim::run::Workspace> m_workspace;
};
