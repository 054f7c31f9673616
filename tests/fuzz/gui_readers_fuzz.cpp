// The GUI's readers of saved files, each given every input: a Chrome trace (parseTraceJson), a report.json's
// convergence section (parseConvergenceReport) and a sweep or plan CSV (parseSweepCsv). They take their bytes from
// read_input_file (the CLI's checked reader, fuzzed through every other target) and the JSON ones check the nesting
// first (check_json_nesting); what is fuzzed here is what lies after: their own parsing and conversions, where any
// exception but InputError escaping would end the GUI. Linked against Qt (syncsim::gui_models), so built only
// where the GUI is: not in the fuzz build, which leaves Qt out, but in every GUI build's replay.
#include <QString>

#include "fuzz_targets.hpp"
#include "models/convergence_run.h"
#include "models/sweep_csv.h"
#include "models/trace_json_reader.h"
#include "syncsim/core/input_error.hpp"

namespace syncsim::fuzz {

int fuzz_gui_readers(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  const QString source = QStringLiteral("fuzz.input");
  try {
    (void)parseTraceJson(text, source);
  } catch (const InputError&) {
  }
  try {
    (void)parseConvergenceReport(text, source);
  } catch (const InputError&) {
  }
  try {
    (void)parseSweepCsv(text, source);
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
