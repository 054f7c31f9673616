#pragma once
// The end of `syncsim import-model`, shared by the command and the Python module's syncsim.import_model: the traced
// graph (the tracing script's JSON) into layers by the catalog's rules (compute/torch_import.hpp), checked as a
// scenario would check them, then written as a layers file and summed up.
#include <filesystem>
#include <string>
#include <string_view>

#include "syncsim/compute/torch_import.hpp"

namespace syncsim::app {

// Throws InputError at `where` (the model spec) for the script's own error or a graph the checks refuse.
ImportedModel imported_model(std::string_view json, const std::string& where);

// The layers file, written atomically: nothing half-written is left behind.
void write_imported_model(const ImportedModel& model, const std::filesystem::path& path);

// What the command prints: the model, its layers, parameters, forward FLOPs and saved activations per sample.
std::string import_summary(const ImportedModel& model);

}  // namespace syncsim::app
