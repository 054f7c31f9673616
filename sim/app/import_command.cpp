// `syncsim import-model MODEL --input CxHxW -o FILE`: a PyTorch module traced on CPU (torch.fx, in a child Python)
// and written as the layers file a scenario's model.layers reads (docs/import.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "help_format.hpp"
#include "import_model.hpp"
#include "python_child.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"

namespace syncsim::app {

namespace {

// A traced graph is tens of KB per hundred layers; far more is a script gone wrong, not a model.
constexpr std::size_t kMaxTraceBytes = std::size_t{64} << 20;

// Tracing a model takes seconds (most of it importing torch); a script still running after this is stuck.
constexpr std::int64_t kDefaultTimeoutSeconds = 600;
constexpr std::int64_t kMaxTimeoutSeconds = 86'400;

struct ImportOptions {
  std::string model;
  std::string input;
  std::string output;
  std::int64_t timeout_seconds = kDefaultTimeoutSeconds;
};

// "3x224x224": three whole numbers above zero, checked before Python starts.
void check_input_shape(const std::string& text) {
  const auto fail = [&] {
    throw InputError(fmt::format("expected a per-sample input shape C x H x W like 3x224x224, got '{}'", text),
                     SourceLocation{"--input", 0, 0});
  };
  int dimensions = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('x', start), text.size());
    const std::string part = text.substr(start, end - start);
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(part) == 0) {
      fail();
    }
    ++dimensions;
    start = end + 1;
  }
  if (dimensions != 3) fail();
}

int import_model(const ImportOptions& options) {
  check_input_shape(options.input);
  if (options.model.find(':') == std::string::npos) {
    throw InputError(fmt::format("expected torchvision:NAME or module:callable, got '{}'", options.model),
                     SourceLocation{"MODEL", 0, 0});
  }
  check_output_file(options.output, "-o");
  if (options.timeout_seconds < 1 || options.timeout_seconds > kMaxTimeoutSeconds) {
    throw InputError(fmt::format("expected 1 to {} seconds, got {}", kMaxTimeoutSeconds, options.timeout_seconds),
                     SourceLocation{"--timeout", 0, 0});
  }
  const std::string python = python_interpreter();
  const ChildOutput child = run_python(python, torch_trace_script(), {options.model, options.input}, kMaxTraceBytes,
                                       std::chrono::seconds{options.timeout_seconds});
  if (child.out.find('{') == std::string::npos) {
    throw InputError(fmt::format("the tracing script failed under {} (exit {}){}", python, child.exit_code,
                                 child.last_error_line.empty() ? "" : ": " + child.last_error_line),
                     SourceLocation{options.model, 0, 0});
  }
  const ImportedModel model = imported_model(child.out, options.model);
  write_imported_model(model, options.output);
  std::cout << import_summary(model) << "written          " << options.output << '\n';
  return 0;
}

}  // namespace

ImportedModel imported_model(std::string_view json, const std::string& where) {
  ImportedModel model = import_torch_graph(json, where);
  try {
    const ModelSpec check(model.name, model.layers);  // names unique, every layer doing some work
  } catch (const InputError& e) {
    throw InputError(e.message(), SourceLocation{where, 0, 0}, e.key());
  }
  return model;
}

void write_imported_model(const ImportedModel& model, const std::filesystem::path& path) {
  write_file_atomically(path, [&](std::ostream& out) { write_layers_file(model, out); });
}

std::string import_summary(const ImportedModel& model) {
  const ModelSpec spec(model.name, model.layers);
  std::int64_t saved_bytes_fp32 = 0;
  for (const Layer& layer : model.layers) saved_bytes_fp32 += 4 * layer.saved_elements + layer.saved_mask_bytes;
  return fmt::format(
      "model            {} ({}, input {})\n"
      "layers           {}\n"
      "params           {}\n"
      "forward          {:.3f} GFLOP per sample\n"
      "saved            {:.1f} MB per sample in fp32\n",
      model.name, model.source, fmt::join(model.input, "x"), model.layers.size(), spec.params(),
      static_cast<double>(spec.forward_flops()) / 1e9, static_cast<double>(saved_bytes_fp32) / 1e6);
}

Action add_import_command(CLI::App& app) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* command = app.add_subcommand(
      "import-model", "Trace a PyTorch model on CPU and write its layers for a scenario's model.layers");
  set_examples(command, {"syncsim import-model torchvision:resnet50 --input 3x224x224 -o resnet50.yaml",
                         "syncsim import-model mymodels:tiny_net --input 3x32x32 -o tiny.yaml"});
  command
      ->add_option("MODEL", options->model,
                   "torchvision:NAME, or module:callable (a function or class returning an nn.Module, imported "
                   "from the current folder or PYTHONPATH); traced by $SYNCSIM_PYTHON, else " SYNCSIM_DEFAULT_PYTHON
                   ", with torch and torchvision")
      ->required();
  command->add_option("--input", options->input, "Per-sample input shape, C x H x W, e.g. 3x224x224")->required();
  command->add_option("-o,--output", options->output, "The layers file to write (YAML)")->required();
  command
      ->add_option("--timeout", options->timeout_seconds,
                   "Seconds the tracing script may run before it is stopped (1 to 86400)")
      ->capture_default_str();
  return [options]() { return import_model(*options); };
}

}  // namespace syncsim::app
