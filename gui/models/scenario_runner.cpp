#include "models/scenario_runner.h"

#include <QThread>
#include <exception>

ScenarioRunner::ScenarioRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const LoadedDocument>>();
}

ScenarioRunner::~ScenarioRunner() {
  ++m_generation;
  for (auto& [generation, control] : m_controls) control->canceled = true;
  for (QThread* t : m_threads) {
    t->wait();
    delete t;
  }
}

void ScenarioRunner::start(const QString& path, const QStringList& overrides) {
  // An older run still going is overtaken: it stops at its next stage and its result is dropped.
  if (const auto it = m_controls.find(m_generation); it != m_controls.end()) it->second->canceled = true;
  const quint64 generation = ++m_generation;
  m_running = true;
  auto control = std::make_shared<RunControl>();
  control->progress = [this, generation](int done, int total, const QString& what) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, done, total, what] {
          if (generation == m_generation) emit progress(done, total, what);
        },
        Qt::QueuedConnection);
  };
  m_controls[generation] = control;
  if (!m_workspace || path != m_workspacePath) {
    m_workspace = std::make_shared<syncsim::run::Workspace>();
    m_workspacePath = path;
  }
  QThread* thread = QThread::create([this, generation, path, overrides, control, workspace = m_workspace] {
    std::shared_ptr<const LoadedDocument> doc;
    QString error;
    try {
      doc = std::make_shared<const LoadedDocument>(loadDocument(path, overrides, control.get(), workspace.get()));
    } catch (const RunCanceled&) {
      // cancel() has told the window already; nothing to deliver.
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    // Back on the runner's thread; queued, so it runs after this thread's function returned.
    QMetaObject::invokeMethod(
        this, [this, generation, doc, path, error] { deliver(generation, doc, path, error); }, Qt::QueuedConnection);
  });
  m_threads.push_back(thread);
  connect(thread, &QThread::finished, this, [this, thread] {
    std::erase(m_threads, thread);
    thread->deleteLater();
  });
  thread->start();
  emit started(path);
}

void ScenarioRunner::cancel() {
  if (!m_running) return;
  if (const auto it = m_controls.find(m_generation); it != m_controls.end()) it->second->canceled = true;
  ++m_generation;
  m_running = false;
  emit canceled();
}

void ScenarioRunner::deliver(quint64 generation, std::shared_ptr<const LoadedDocument> doc, const QString& path,
                             const QString& error) {
  m_controls.erase(generation);
  if (generation != m_generation) return;  // canceled, or overtaken by a newer start()
  m_running = false;
  if (doc) {
    emit finished(std::move(doc));
  } else {
    emit failed(path, error);
  }
}
