#pragma once
// SweepJob: a small sweep run from the window — one scenario, one `--vary key=v1,v2,...` axis — on a worker thread
// through the planner library (the same points, checks and table as `syncsim sweep`, docs/planner.md), with
// progress per finished point and a cancel that stops starting new points. The result is the sweep's CSV text and
// its scaling series (sweep_csv.h), as if `syncsim sweep ... -o results.csv` had been opened.
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "models/run_control.h"
#include "models/sweep_csv.h"

class QThread;

struct SweepRequest {
  QString scenario;  // path of the scenario file
  QString vary;      // "key.path=v1,v2,..." exactly as `syncsim sweep --vary` takes it
  unsigned threads = 1;
};

struct SweepResult {
  QString csv;          // `syncsim sweep -o results.csv` text, rows of the points that finished, in point order
  ScalingData scaling;  // parsed from csv
  int pointsDone = 0;
  int pointsTotal = 0;
  bool canceled = false;  // stopped early: the rows are the points that finished before
};

// Blocking. Throws syncsim::InputError for a bad axis or override (before any simulation) or a failing point;
// with `control`, reports each finished point and stops starting points once canceled.
SweepResult runSweep(const SweepRequest& request, const RunControl* control = nullptr);

class SweepJob : public QObject {
  Q_OBJECT
 public:
  explicit SweepJob(QObject* parent = nullptr);
  ~SweepJob() override;  // cancels and waits for the worker

  bool isRunning() const { return m_thread != nullptr; }

 public slots:
  void start(const SweepRequest& request);  // ignored while a sweep is running
  void cancel();

 signals:
  void progress(int done, int total, const QString& what);
  void finished(const SweepResult& result);  // also after cancel, with the points that finished
  void failed(const QString& message);

 private:
  QThread* m_thread = nullptr;
  std::shared_ptr<RunControl> m_control;
};
