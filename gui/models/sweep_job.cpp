#include "models/sweep_job.h"

#include <QCoreApplication>
#include <QThread>
#include <exception>
#include <mutex>

#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/planner/sweep_table.hpp"

namespace pl = syncsim::planner;

SweepResult runSweep(const SweepRequest& request, const RunControl* control) {
  const pl::VaryAxis axis = pl::parse_vary(request.vary.toStdString());
  const std::vector<pl::SweepPoint> points = pl::expand_points({axis}, false);
  const std::filesystem::path scenario = request.scenario.toStdString();
  // Every override is checked before the first simulation, as `syncsim sweep` does.
  pl::check_overrides(scenario, points);

  pl::SweepTable table;
  table.columns = {axis.key};
  table.columns.insert(table.columns.end(), pl::report_columns().begin(), pl::report_columns().end());
  std::vector<std::size_t> which(points.size());
  for (std::size_t i = 0; i < which.size(); ++i) which[i] = i;
  const int total = static_cast<int>(points.size());
  if (control) control->report(0, total, QString());
  // run_points calls back under its own lock, one point at a time.
  pl::run_points(
      scenario, points, which, std::max(1u, request.threads),
      [&](std::size_t index, const syncsim::TrainingReport& report) {
        std::vector<nlohmann::ordered_json> row(points[index].labels.begin(), points[index].labels.end());
        for (auto& cell : pl::report_cells(report)) row.push_back(std::move(cell));
        table.rows[index] = std::move(row);
        if (control) {
          control->report(static_cast<int>(table.rows.size()), total,
                          QString::fromStdString(points[index].overrides.front()));
        }
      },
      control ? &control->canceled : nullptr);

  SweepResult result;
  result.pointsTotal = total;
  result.pointsDone = static_cast<int>(table.rows.size());
  result.canceled = result.pointsDone < total;
  result.csv = QString::fromStdString(pl::write_csv(table));
  if (result.pointsDone > 0) {
    result.scaling =
        parseSweepCsv(pl::write_csv(table),
                      QCoreApplication::translate("SweepJob", "sweep of %1").arg(QString::fromStdString(axis.key)));
  }
  return result;
}

SweepJob::SweepJob(QObject* parent) : QObject(parent) {
  qRegisterMetaType<SweepResult>();
}

SweepJob::~SweepJob() {
  if (m_thread) {
    m_control->canceled = true;
    m_thread->wait();
    delete m_thread;
  }
}

void SweepJob::start(const SweepRequest& request) {
  if (m_thread) return;
  m_control = std::make_shared<RunControl>();
  const std::shared_ptr<RunControl> control = m_control;
  control->progress = [this](int done, int total, const QString& what) {
    QMetaObject::invokeMethod(
        this, [this, done, total, what] { emit progress(done, total, what); }, Qt::QueuedConnection);
  };
  m_thread = QThread::create([this, request, control] {
    SweepResult result;
    QString error;
    try {
      result = runSweep(request, control.get());
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        this,
        [this, result, error] {
          m_thread->wait();
          delete m_thread;
          m_thread = nullptr;
          if (error.isEmpty()) {
            emit finished(result);
          } else {
            emit failed(error);
          }
        },
        Qt::QueuedConnection);
  });
  m_thread->start();
}

void SweepJob::cancel() {
  if (m_control) m_control->canceled = true;
}
