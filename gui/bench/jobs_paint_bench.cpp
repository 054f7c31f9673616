// Jobs view benchmark: four jobs of 256 GPUs on 1,024, simulated by run_jobs as `syncsim run` does, then drawn by
// the Jobs view (docs/gui.md gives the figures and the target: a frame <= 50 ms). Two machines:
//   dgx       128 DGX servers (2,240 nodes, 4,096 links), the jobs placed at random, each an LLM in tensor 8 x data
//             32 (its data-parallel rings on the rails): every NIC link lit, servers collapsed
//   fattree   a 2:1 fat tree of 1,024 GPUs, the jobs spread over the leaves, each a DDP ResNet-50: every uplink
//             shared by two jobs (striped)
//
// Measured, each the median of --repeat runs (the simulation once):
//   machine     JobMachine: the jobs' GPUs, and each link's jobs, shares and sharing (once per run)
//   frame       JobsView::grab(): placement (cached after the first), links by job, servers, GPU cells, legend
//   expanded    the same with two servers shown with their GPUs (the placement rebuilt each time)
//
//   syncsim-gui-bench-jobs [--width 1400] [--height 860] [--repeat 9] [--max-ms 50]
// Prints wall and thread CPU time. Exits 1 when a frame's median CPU time is above --max-ms (if given).
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "bench_timing.h"
#include "models/job_machine.h"
#include "models/topology_layout.h"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/scenario/jobs_config.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "widgets/jobs_view.h"

namespace {

// One machine: its jobs run, laid out and drawn; false when a frame costs more than maxMs of CPU.
bool bench(const char* name, const std::string& yaml, int width, int height, int repeat, int maxMs) {
  const std::optional<syncsim::JobsScenario> scenario = syncsim::parse_jobs_scenario(yaml, name);
  QElapsedTimer simulated;
  simulated.start();
  const syncsim::JobsReport report = syncsim::run::run_jobs(*scenario);
  const double simulateMs = static_cast<double>(simulated.nsecsElapsed()) / 1e6;
  const auto layout = std::make_shared<const TopologyLayout>(*syncsim::scenario_topology(scenario->base),
                                                             static_cast<int>(report.workers));
  std::shared_ptr<const JobMachine> machine;
  const Timing machineMs =
      median(std::min(repeat, 3), [&] { machine = std::make_shared<const JobMachine>(report, layout); });
  std::printf(
      "%s: %zu jobs placed %s on %zu GPUs (%zu nodes, %zu links drawn, %d shared), frame %dx%d; run_jobs "
      "%.0f ms\n",
      name, report.jobs.size(), report.placement.c_str(), layout->gpuCount(), layout->boxes().size(),
      layout->edges().size(), machine->sharedEdgeCount(), width, height, simulateMs);
  JobsView view;
  view.setAttribute(Qt::WA_DontShowOnScreen);
  view.resize(width, height);
  view.show();
  view.setJobs(machine);
  QCoreApplication::processEvents();
  const Timing frameMs = median(repeat, [&] { (void)view.grab(); });
  std::optional<Timing> expandedMs;
  if (const auto& hosts = layout->hostBoxes(); !hosts.empty()) {
    expandedMs = median(repeat, [&] {
      view.setExpandedServers({hosts.front(), hosts[hosts.size() / 2]});
      (void)view.grab();
    });
  }
  std::printf("median of %d runs                             wall ms   cpu ms\n", repeat);
  printTiming("machine   (JobMachine, once per run)", machineMs);
  printTiming("frame     (JobsView::grab, every job lit)", frameMs);
  if (expandedMs) printTiming("expanded  (two servers opened, placed again)", *expandedMs);
  if (maxMs > 0 && frameMs.cpuMs > maxMs) {
    std::printf("FAIL: frame %.2f ms of CPU > %d ms\n", frameMs.cpuMs, maxMs);
    return false;
  }
  return true;
}

// Four jobs of 256 GPUs of `model` (and `parallelism`) on `topology`, placed by `placement`.
std::string fourJobs(const std::string& topology, const std::string& placement, const std::string& model,
                     const std::string& parallelism) {
  std::string yaml = "seed: 1\ncluster: {gpu: H100-SXM-80GB, topology: \"" + topology + "\"}\nplacement: " + placement +
                     "\nwindow_iterations: 2\njobs:\n";
  for (const char* job : {"a", "b", "c", "d"}) {
    yaml += std::string("  - {name: ") + job + ", gpus: 256, model: " + model + ", parallelism: " + parallelism + "}\n";
  }
  return yaml;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QStringList args = QApplication::arguments();
  const int width = benchIntArg(args, "--width", 1400);
  const int height = benchIntArg(args, "--height", 860);
  const int repeat = std::max(1, benchIntArg(args, "--repeat", 9));
  const int maxMs = benchIntArg(args, "--max-ms", 0);
  if (const QString file = benchArg(args, "--scenario", ""); !file.isEmpty()) {
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) {
      std::fprintf(stderr, "--scenario: cannot read %s\n", qPrintable(file));
      return 2;
    }
    const std::string name = QFileInfo(file).fileName().toStdString();
    return bench(name.c_str(), in.readAll().toStdString(), width, height, repeat, maxMs) ? 0 : 1;
  }
  const bool dgx =
      bench("dgx",
            fourJobs("dgx:nodes=128,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", "random",
                     "{name: llama3-8b, batch_per_gpu: 1, sequence_length: 2048, precision: bf16}", "{tensor: 8}"),
            width, height, repeat, maxMs);
  const bool fattree = bench(
      "fattree",
      fourJobs("fattree:n=1024,radix=64,bw=400Gbps,oversub=2", "spread", "{name: resnet50, batch_per_gpu: 64}", "{}"),
      width, height, repeat, maxMs);
  return dgx && fattree ? 0 : 1;
}
