// syncsim: simulate gradient synchronization. Exit codes: 0 success, 2 bad input or usage, 1 internal error,
// 130 interrupted (SIGINT; 143 for SIGTERM), earlier outputs left as they were.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "commands.hpp"
#include "help_format.hpp"
#include "report_error.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"

namespace {

// A plan point allocates and frees arrays of a few hundred thousand links' traffic thousands of times. glibc's
// defaults hand such blocks back to the kernel on free (the heap's top above 128 KiB is trimmed), so each next one
// faults its pages in again: a tenth of a 32,768-GPU point's time (docs/performance.md). Freed memory is kept for
// the next allocation instead; the peak resident size does not change (measured).
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest; above it a block is mapped alone and unmapped on free
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  syncsim::exit_cleanly_on_interrupt();
  syncsim::check_standard_output_writes();
  CLI::App app{
      "syncsim — a discrete-event simulator of distributed gradient synchronization.\n"
      "Simulates collectives (ring, tree, halving-doubling, ...) on GPU cluster topologies with a max-min fair\n"
      "flow model, prints the same tables as nccl-tests, and calibrates its model against nccl-tests logs.",
      "syncsim"};
  app.set_version_flag("--version", std::string("syncsim ") + SYNCSIM_VERSION);
  app.require_subcommand(1);
  app.formatter(std::make_shared<syncsim::app::HelpFormatter>());  // before the commands, which copy it
  app.footer(
      "Examples:\n"
      "  syncsim run examples/resnet50-dgx-8gpu.yaml -o out\n"
      "  syncsim memory examples/llama7b-sharding.yaml --set parallelism.sharding=full\n"
      "  syncsim sweep examples/bert-large-two-pods.yaml --vary cluster.workers=8,16,32 -o sweep.csv\n"
      "  syncsim plan examples/bert-large-two-pods.yaml --gpus 8:32 --prices examples/prices-example.yaml\n"
      "  syncsim collective --topology switch:n=8,bw=100Gbps,lat=5us --op allreduce --sizes 8:1G\n"
      "  syncsim topo dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps --dot dgx.dot\n"
      "  syncsim calibrate --nccl-tests all_reduce_perf.log --topology dgx:nodes=1,gpus=8 -o cal.yaml\n"
      "  syncsim validate --calibration cal.yaml --nccl-tests all_reduce_perf.log\n"
      "  syncsim import-model torchvision:resnet50 --input 3x224x224 -o resnet50.yaml\n"
      "Run 'syncsim COMMAND --help' for a command's options.");

  const auto collective = syncsim::app::add_collective_command(app);
  const auto topo = syncsim::app::add_topo_command(app);
  const auto calibrate = syncsim::app::add_calibrate_command(app);
  const auto validate = syncsim::app::add_validate_command(app);
  const auto run = syncsim::app::add_run_command(app);
  const auto memory = syncsim::app::add_memory_command(app);
  const auto sweep = syncsim::app::add_sweep_command(app);
  const auto plan = syncsim::app::add_plan_command(app);
  const auto import_model = syncsim::app::add_import_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, naming what was wrong; CLI11's own second line ("Run with --help") is left out on purpose.
    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' &&
        app.get_subcommands([&](CLI::App* c) { return c->get_name() == first; }).empty()) {
      std::cerr << "syncsim: error: unknown command '" << first
                << "': expected run, memory, sweep, plan, collective, topo, calibrate, validate or import-model (see "
                   "--help)\n";
    } else {
      std::cerr << "syncsim: error: " << e.what() << " (see --help)\n";
    }
    return 2;
  }
  try {
    const auto command = [&]() -> int {
      if (app.got_subcommand("collective")) return collective();
      if (app.got_subcommand("topo")) return topo();
      if (app.got_subcommand("calibrate")) return calibrate();
      if (app.got_subcommand("validate")) return validate();
      if (app.got_subcommand("run")) return run();
      if (app.got_subcommand("memory")) return memory();
      if (app.got_subcommand("sweep")) return sweep();
      if (app.got_subcommand("plan")) return plan();
      if (app.got_subcommand("import-model")) return import_model();
      return 2;
    };
    // Files are checked as they are written (syncsim/core/output_file.hpp); the standard output once the command is
    // done.
    return syncsim::finish_standard_output(command());
  } catch (const std::exception&) {
    return syncsim::app::report_error(std::current_exception());
  }
}
