#include "widgets/sweep_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

namespace {
// Keys a scaling sweep usually varies (docs/scenarios.md); any other key path can be typed.
const char* const kCommonKeys[] = {"cluster.workers",     "cluster.topology.nodes", "training.algorithm",
                                   "model.batch_per_gpu", "training.bucket_size",   "cluster.gpu"};
}  // namespace

SweepDialog::SweepDialog(const QString& scenario, QWidget* parent)
    : QDialog(parent),
      m_job(new SweepJob(this)),
      m_scenario(new QLineEdit(scenario, this)),
      m_key(new QComboBox(this)),
      m_values(new QLineEdit(this)),
      m_threads(new QSpinBox(this)),
      m_progress(new QProgressBar(this)),
      m_status(new QLabel(this)),
      m_run(new QPushButton(tr("Run"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this)) {
  setWindowTitle(tr("Run Sweep"));
  m_key->setEditable(true);
  for (const char* key : kCommonKeys) m_key->addItem(QString::fromLatin1(key));
  m_values->setPlaceholderText(tr("e.g. 8,16,32 (commas; ';' for values with commas)"));
  m_values->setText(QStringLiteral("4,8"));
  m_threads->setRange(1, std::max(1, QThread::idealThreadCount()));
  m_threads->setValue(m_threads->maximum());
  m_status->setWordWrap(true);
  auto* browse = new QPushButton(tr("Browse..."), this);
  auto* scenarioRow = new QHBoxLayout;
  scenarioRow->addWidget(m_scenario, 1);
  scenarioRow->addWidget(browse);
  auto* form = new QFormLayout;
  form->addRow(tr("Scenario:"), scenarioRow);
  form->addRow(tr("Vary key:"), m_key);
  form->addRow(tr("Values:"), m_values);
  form->addRow(tr("Threads:"), m_threads);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(m_run, QDialogButtonBox::ActionRole);
  buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("One simulation per value, as `syncsim sweep SCENARIO --vary KEY=VALUES`; the "
                                  "scaling chart plots throughput against GPU count."),
                               this));
  layout->addLayout(form);
  layout->addWidget(m_progress);
  layout->addWidget(m_status);
  layout->addWidget(buttons);
  m_progress->setRange(0, 1);
  m_progress->setValue(0);
  setRunning(false);

  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Scenario"), m_scenario->text(),
                                                      tr("Scenarios (*.yaml *.yml);;All files (*)"));
    if (!path.isEmpty()) m_scenario->setText(path);
  });
  connect(m_run, &QPushButton::clicked, this, &SweepDialog::run);
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    m_job->cancel();
    m_status->setText(tr("Canceling: no new point starts; the points running finish first ..."));
  });
  connect(buttons, &QDialogButtonBox::rejected, this, [this] {
    m_job->cancel();
    reject();
  });
  connect(m_job, &SweepJob::progress, this, [this](int done, int total, const QString& what) {
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setValue(done);
    m_status->setText(done == 0 ? tr("Checking %1 points ...").arg(total)
                                : tr("%1 of %2 points done (last: %3)").arg(done).arg(total).arg(what));
  });
  connect(m_job, &SweepJob::finished, this, [this](const SweepResult& r) {
    setRunning(false);
    m_status->setText(r.canceled ? tr("Canceled after %1 of %2 points.").arg(r.pointsDone).arg(r.pointsTotal)
                                 : tr("Done: %1 points.").arg(r.pointsDone));
    if (r.pointsDone > 0) {
      emit sweepFinished(r,
                         tr("sweep of %1 over %2").arg(QFileInfo(m_scenario->text()).fileName(), m_key->currentText()));
    }
  });
  connect(m_job, &SweepJob::failed, this, [this](const QString& message) {
    setRunning(false);
    m_status->setText(tr("Failed."));
    QMessageBox::critical(this, tr("Sweep failed"), message);
  });
}

void SweepDialog::setVary(const QString& key, const QString& values) {
  m_key->setCurrentText(key);
  m_values->setText(values);
}

void SweepDialog::run() {
  if (m_job->isRunning()) return;
  SweepRequest request;
  request.scenario = m_scenario->text();
  request.vary = m_key->currentText().trimmed() + u'=' + m_values->text().trimmed();
  request.threads = static_cast<unsigned>(m_threads->value());
  m_progress->setRange(0, 0);  // until the points are counted
  m_status->setText(tr("Starting ..."));
  setRunning(true);
  m_job->start(request);
}

void SweepDialog::setRunning(bool running) {
  m_run->setEnabled(!running);
  m_cancel->setEnabled(running);
}
