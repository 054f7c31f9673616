// The `syncsim` Python module (docs/python.md): the command line's scenarios, runs, collectives and sweeps as
// Python calls, with the same key paths, the same results and the same error messages.
//
//   import syncsim
//   r = syncsim.run("examples/resnet50-dgx-8gpu.yaml", overrides={"training.iterations": 5})
//   r["samples_per_s"]                                   # report.json as a dict
//   out = syncsim.simulate(scenario); out.report_json     # report.json's exact text; out.trace_events()
//   syncsim.collective("switch:n=8,bw=100Gbps", sizes="1M:1G")["rows"]   # `syncsim collective --json`
//   syncsim.sweep(scenario, [{"cluster.topology.nodes": n} for n in (1, 2, 4)])  # rows (a DataFrame with pandas)
//   syncsim.import_model("torchvision:resnet50", "3x224x224", "resnet50.yaml")   # `syncsim import-model`
//
// A scenario is a path, YAML text (anything with a newline or a leading '{'), a dict, or a syncsim.Scenario.
// Overrides are a dict {key.path: value} or a list of "key.path=value" strings, as `--set` takes them. Bad input
// raises syncsim.InputError (a ValueError) carrying the command line's message: file:line:col, key, expected.
// The GIL is released while a scenario or a collective simulates.
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "collective_table.hpp"
#include "import_model.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/planner/sweep_table.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"

namespace py = pybind11;

namespace syncsim::python {

namespace {

// A scenario as given, so that overrides can be applied again on top: a file, or text with the name errors use.
struct ScenarioSource {
  std::string path;  // empty for text
  std::string text;
  std::string name;
  std::vector<std::string> overrides;

  Scenario load(const std::vector<std::string>& more) const {
    std::vector<std::string> all = overrides;
    all.insert(all.end(), more.begin(), more.end());
    return path.empty() ? parse_scenario(text, name, all) : load_scenario(path, all);
  }
};

// A Python value as `--set` would read it: booleans and None as YAML's, the rest as Python prints it.
std::string set_value(const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (value.is_none()) return "null";
  return py::str(value).cast<std::string>();
}

std::vector<std::string> overrides_of(const py::object& overrides) {
  std::vector<std::string> sets;
  if (overrides.is_none()) return sets;
  if (py::isinstance<py::dict>(overrides)) {
    for (const auto& [key, value] : overrides.cast<py::dict>()) {
      sets.push_back(py::str(key).cast<std::string>() + "=" + set_value(value));
    }
    return sets;
  }
  if (py::isinstance<py::str>(overrides)) throw py::type_error("overrides: a dict or a list of 'key.path=value'");
  for (const py::handle item : overrides) sets.push_back(py::str(item).cast<std::string>());
  return sets;
}

ScenarioSource source_of(const py::object& scenario) {
  if (py::isinstance<ScenarioSource>(scenario)) return scenario.cast<ScenarioSource>();
  ScenarioSource source;
  if (py::isinstance<py::dict>(scenario)) {
    // JSON is YAML: indented, so that an error's line and column still point somewhere readable.
    source.text = py::module_::import("json").attr("dumps")(scenario, py::arg("indent") = 2).cast<std::string>();
    source.name = "<dict>";
    return source;
  }
  // Text or a path (str, pathlib): anything else is a caller's mistake, not a file named "None" (found by fuzzing).
  const bool path_like = py::isinstance(scenario, py::module_::import("os").attr("PathLike"));
  if (!py::isinstance<py::str>(scenario) && !path_like) {
    throw py::type_error("scenario: expected a dict, YAML text or a path, got " +
                         py::str(py::type::of(scenario).attr("__name__")).cast<std::string>());
  }
  const std::string text = path_like ? py::str(py::module_::import("os").attr("fspath")(scenario)).cast<std::string>()
                                     : scenario.cast<std::string>();
  // YAML text: several lines, a flow mapping, or one `key: value` line that names no file (found by fuzzing:
  // "cluster: [" was opened as a file).
  const bool one_mapping_line = text.find(": ") != std::string::npos && !std::filesystem::exists(text);
  if (!path_like &&
      (text.find('\n') != std::string::npos || (!text.empty() && text.front() == '{') || one_mapping_line)) {
    source.text = text;
    source.name = "<string>";
  } else {
    source.path = text;
  }
  return source;
}

ScenarioSource load(const py::object& scenario, const py::object& overrides) {
  ScenarioSource source = source_of(scenario);
  const std::vector<std::string> more = overrides_of(overrides);
  (void)source.load(more);  // checked now, so that a bad key raises here
  source.overrides.insert(source.overrides.end(), more.begin(), more.end());
  return source;
}

// One run's outputs, as `syncsim run` writes them.
struct RunResult {
  std::string report_json;  // report.json's exact text
  std::string trace_json;   // trace.json's
};

RunResult simulate(const py::object& scenario, const py::object& overrides, bool symmetry) {
  const Scenario loaded = source_of(scenario).load(overrides_of(overrides));
  RunResult result;
  {
    const py::gil_scoped_release release;
    run::Workspace workspace;
    workspace.set_symmetry(symmetry);
    const run::RunOutput out = run::run_scenario(loaded, workspace);
    result.report_json = to_json(out.report).dump(2) + "\n";
    std::ostringstream trace;
    trace::write_chrome_trace(out.trace, trace);
    result.trace_json = trace.str();
  }
  return result;
}

py::object json_loads(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

py::object collective(const std::string& topology, const std::string& op, const std::string& sizes,
                      const std::string& algo, const std::string& protocol, const std::string& latency_model,
                      std::optional<std::int64_t> ranks, std::optional<std::int64_t> channels,
                      std::optional<std::int64_t> root, const std::string& pipeline, bool per_flow, bool symmetry,
                      const std::string& calibration, const std::string& gpu) {
  app::CollectiveOptions options;
  options.topology = topology;
  options.op = op;
  options.sizes = sizes;
  options.algo = algo;
  options.protocol = protocol;
  options.latency = latency_model;
  options.ranks = ranks;
  options.channels = channels;
  options.root = root;
  options.pipeline = pipeline;
  options.per_flow = per_flow;
  options.no_symmetry = !symmetry;
  options.calibration = calibration;
  options.gpu = gpu;
  std::string text;
  {
    const py::gil_scoped_release release;
    text = app::to_json(app::simulate_collective_table(options)).dump(2);
  }
  return json_loads(text);
}

// A sweep cell (sweep_table.hpp's report_cells) as Python: None, bool, int, float or str.
py::object cell_object(const nlohmann::ordered_json& cell) {
  if (cell.is_null()) return py::none();
  if (cell.is_boolean()) return py::bool_(cell.get<bool>());
  if (cell.is_number_integer()) return py::int_(cell.get<std::int64_t>());
  if (cell.is_number()) return py::float_(cell.get<double>());
  return py::str(cell.get<std::string>());
}

// One point's report cells, as the command line's sweep writes them (report_columns(), report_cells()).
std::vector<nlohmann::ordered_json> sweep_cells(const Scenario& loaded, bool symmetry) {
  const py::gil_scoped_release release;
  run::Workspace workspace;
  workspace.set_symmetry(symmetry);
  return planner::report_cells(run::run_scenario(loaded, workspace).report);
}

py::object sweep(const py::object& scenario, const py::list& points, const py::object& progress, bool symmetry) {
  const ScenarioSource base = source_of(scenario);
  const auto total = static_cast<std::int64_t>(points.size());
  py::list rows;
  std::int64_t done = 0;
  for (const py::handle point : points) {
    const py::object overrides = py::reinterpret_borrow<py::object>(point);
    const std::vector<nlohmann::ordered_json> cells = sweep_cells(base.load(overrides_of(overrides)), symmetry);
    py::dict row;
    if (py::isinstance<py::dict>(overrides)) {
      for (const auto& [key, value] : overrides.cast<py::dict>()) row[key] = value;
    } else {
      for (const std::string& set : overrides_of(overrides)) {
        const std::size_t eq = set.find('=');
        row[py::str(set.substr(0, eq))] = set.substr(eq == std::string::npos ? set.size() : eq + 1);
      }
    }
    // The command line's columns after the point's keys, in its order: `syncsim sweep`'s CSV row for the point.
    const std::vector<std::string>& columns = planner::report_columns();
    for (std::size_t c = 0; c < columns.size(); ++c) row[py::str(columns[c])] = cell_object(cells[c]);
    rows.append(row);
    ++done;
    if (py::isinstance<py::bool_>(progress) && progress.cast<bool>()) {
      py::module_::import("sys").attr("stderr").attr("write")("\rsyncsim.sweep: " + std::to_string(done) + "/" +
                                                              std::to_string(total) + (done == total ? "\n" : ""));
    } else if (!progress.is_none() && !py::isinstance<py::bool_>(progress)) {
      progress(done, total);
    }
  }
  try {
    return py::module_::import("pandas").attr("DataFrame")(rows);
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    return rows;
  }
}

// `syncsim import-model` in this interpreter: the same tracing script, run in-process so that it also takes an
// nn.Module object, and the same import (app/import_model.hpp). The layers as dicts; the file written when asked.
py::dict import_model(const py::object& model, const py::object& input, const py::object& output) {
  py::dict scope;
  scope["__name__"] = "syncsim_torch_trace";  // not "__main__": the script's command-line entry stays idle
  py::exec(std::string(torch_trace_script()), scope);
  const py::object shape = py::isinstance<py::str>(input) ? input : py::object(py::list(input));
  const std::string json = scope["trace_json"](model, shape).cast<std::string>();
  const std::string where =
      py::str(py::isinstance<py::str>(model) ? model : py::type::of(model).attr("__name__")).cast<std::string>();
  const ImportedModel imported = app::imported_model(json, where);
  if (!output.is_none()) app::write_imported_model(imported, py::str(output).cast<std::string>());
  py::list layers;
  std::int64_t params = 0;
  std::int64_t forward_flops = 0;
  for (const Layer& layer : imported.layers) {
    py::dict row;
    row["name"] = layer.name;
    row["params"] = layer.params;
    row["forward_flops"] = layer.forward_flops;
    row["weight_elements_read"] = layer.weight_elements_read;
    row["activation_elements_moved"] = layer.activation_elements_moved;
    row["saved_elements"] = layer.saved_elements;
    row["saved_mask_bytes"] = layer.saved_mask_bytes;
    layers.append(row);
    params += layer.params;
    forward_flops += layer.forward_flops;
  }
  py::dict result;
  result["name"] = imported.name;
  result["source"] = imported.source;
  result["input"] = imported.input;
  result["params"] = params;
  result["forward_flops"] = forward_flops;
  result["layers"] = layers;
  return result;
}

}  // namespace

}  // namespace syncsim::python

PYBIND11_MODULE(syncsim, m) {
  using namespace syncsim::python;
  namespace sp = syncsim::python;
  m.doc() = "syncsim: a simulator of distributed gradient synchronization (docs/python.md)";
  py::register_exception<syncsim::InputError>(m, "InputError", PyExc_ValueError);

  py::class_<ScenarioSource>(m, "Scenario", "A scenario as loaded: its source and the overrides applied on top")
      .def_property_readonly("name", [](const ScenarioSource& s) { return s.load({}).name; })
      .def_property_readonly("overrides", [](const ScenarioSource& s) { return s.overrides; })
      .def(
          "to_yaml", [](const ScenarioSource& s) { return syncsim::to_yaml(s.load({})); },
          "The scenario with its overrides applied, as YAML");

  py::class_<RunResult>(m, "RunResult", "One run's outputs: report.json and trace.json as `syncsim run` writes them")
      .def_readonly("report_json", &RunResult::report_json)
      .def_readonly("trace_json", &RunResult::trace_json)
      .def_property_readonly("report", [](const RunResult& r) { return json_loads(r.report_json); })
      .def("trace_events",
           [](const RunResult& r) {
             const py::object trace = json_loads(r.trace_json);
             return py::object(trace["traceEvents"]);  // a copy: the accessor refers to `trace`
           })
      .def(
          "write_trace",
          [](const RunResult& r, const std::string& path) {
            // As `syncsim run` writes it: whole or not at all (a failed write leaves the old file, no temporary).
            syncsim::write_file_atomically(path, [&](std::ostream& out) { out << r.trace_json; });
          },
          py::arg("path"),
          "Writes trace.json (opens in Perfetto and chrome://tracing) through a temporary file renamed into place; "
          "raises syncsim.InputError when it cannot, leaving any earlier file as it was");

  m.def("load", &sp::load, py::arg("scenario"), py::arg("overrides") = py::none(),
        "A scenario from a path, YAML text or a dict, with overrides (as --set); checked now");
  m.def("simulate", &sp::simulate, py::arg("scenario"), py::arg("overrides") = py::none(), py::arg("symmetry") = true,
        "Runs a scenario; its report and trace");
  m.def(
      "run",
      [](const py::object& scenario, const py::object& overrides) {
        return json_loads(sp::simulate(scenario, overrides, true).report_json);
      },
      py::arg("scenario"), py::arg("overrides") = py::none(), "Runs a scenario; report.json as a dict");
  m.def("collective", &sp::collective, py::arg("topology"), py::arg("op") = "allreduce", py::arg("sizes") = "8:1G",
        py::arg("algo") = "auto", py::arg("protocol") = "auto", py::arg("latency_model") = "nccl",
        py::arg("ranks") = py::none(), py::arg("channels") = py::none(), py::arg("root") = py::none(),
        py::arg("pipeline") = "auto", py::arg("per_flow") = false, py::arg("symmetry") = true,
        py::arg("calibration") = "", py::arg("gpu") = "",
        "One collective over a size range, as `syncsim collective --json` prints it (nccl-tests' rows)");
  m.def("sweep", &sp::sweep, py::arg("scenario"), py::arg("points"), py::arg("progress") = true,
        py::arg("symmetry") = true,
        "Runs the scenario once per overrides in `points`; one row per run (a pandas DataFrame when pandas is "
        "importable, else a list of dicts). progress: True (a line on stderr), False, or a callable(done, total)");
  m.def("import_model", &sp::import_model, py::arg("model"), py::arg("input"), py::arg("output") = py::none(),
        "Traces a PyTorch model (torchvision:NAME, module:callable, or an nn.Module) on an input shape "
        "('3x224x224' or (3, 224, 224)) and returns its layers by the catalog's rules; writes the layers file "
        "`syncsim import-model` writes when output is given");
}
