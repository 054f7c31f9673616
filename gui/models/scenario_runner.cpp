#include "models/scenario_runner.h"

#include <QThread>
#include <exception>

ScenarioRunner::ScenarioRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const LoadedDocument>>();
}

ScenarioRunner::~ScenarioRunner() {
  ++m_generation;
  for (QThread* t : m_threads) {
    t->wait();
    delete t;
  }
}

void ScenarioRunner::start(const QString& path, const QStringList& overrides) {
  const quint64 generation = ++m_generation;
  m_running = true;
  QThread* thread = QThread::create([this, generation, path, overrides] {
    std::shared_ptr<const LoadedDocument> doc;
    QString error;
    try {
      doc = std::make_shared<const LoadedDocument>(loadDocument(path, overrides));
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
  ++m_generation;
  m_running = false;
  emit canceled();
}

void ScenarioRunner::deliver(quint64 generation, std::shared_ptr<const LoadedDocument> doc, const QString& path,
                             const QString& error) {
  if (generation != m_generation) return;  // canceled, or overtaken by a newer start()
  m_running = false;
  if (doc) {
    emit finished(std::move(doc));
  } else {
    emit failed(path, error);
  }
}
