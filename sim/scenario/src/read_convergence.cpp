// The `convergence:` section (convergence_config.hpp): the proxy learning problem and its optimizer.
#include <fmt/format.h>

#include "enum_names.hpp"
#include "field_reader.hpp"
#include "sections.hpp"

namespace syncsim::scenario_detail {

namespace {

// Sizes the proxy can train in a fraction of the simulation's time; far larger ones are a typo, not a plan.
constexpr std::int64_t kMaxDimension = 4096;
constexpr std::int64_t kMaxSamples = 1 << 22;

std::int64_t read_bounded(const MapReader& reader, std::string_view key, std::int64_t minimum, std::int64_t maximum,
                          std::int64_t value) {
  const ConfigNode* node = reader.get(key);
  if (node == nullptr) return value;
  const std::string path = reader.path(key);
  const std::int64_t read = read_count(*node, path, minimum);
  if (read > maximum) fail(*node, path, fmt::format("expected at most {}, got {}", maximum, read));
  return read;
}

}  // namespace

ConvergenceConfig read_convergence(const ConfigNode& node) {
  const MapReader reader(
      node, "convergence",
      {"problem", "features", "classes", "hidden", "train_samples", "eval_samples", "separation", "batch_per_worker",
       "learning_rate", "base_batch", "lr_scaling", "warmup_updates", "target_loss", "eval_every"});
  ConvergenceConfig c;
  c.where = node.where;
  if (const ConfigNode* problem = reader.get("problem")) {
    c.problem = read_choice(*problem, reader.path("problem"), kProblemNames);
  }
  c.features = read_bounded(reader, "features", 1, kMaxDimension, c.features);
  c.classes = read_bounded(reader, "classes", 2, kMaxDimension, c.classes);
  c.hidden = read_bounded(reader, "hidden", 1, kMaxDimension, c.hidden);
  if (reader.get("hidden") && c.problem != ProxyProblem::mlp) {
    fail(*reader.get("hidden"), reader.path("hidden"), "hidden units are for problem: mlp");
  }
  c.train_samples = read_bounded(reader, "train_samples", 1, kMaxSamples, c.train_samples);
  c.eval_samples = read_bounded(reader, "eval_samples", 1, kMaxSamples, c.eval_samples);
  if (const ConfigNode* separation = reader.get("separation")) {
    c.separation = read_number_in(*separation, reader.path("separation"), 0, 100, false, "[0, 100]");
  }
  c.batch_per_worker = read_bounded(reader, "batch_per_worker", 1, kMaxSamples, c.batch_per_worker);
  if (const ConfigNode* rate = reader.get("learning_rate")) {
    c.learning_rate = read_number_in(*rate, reader.path("learning_rate"), 0, 1000, true, "(0, 1000]");
  }
  if (reader.get("base_batch")) c.base_batch = read_bounded(reader, "base_batch", 1, kMaxSamples, 1);
  if (const ConfigNode* scaling = reader.get("lr_scaling")) {
    c.lr_scaling = read_choice(*scaling, reader.path("lr_scaling"), kLrScalingNames);
  }
  c.warmup_updates = read_bounded(reader, "warmup_updates", 0, std::int64_t{1} << 40, 0);
  if (const ConfigNode* target = reader.get("target_loss")) {
    const std::string path = reader.path("target_loss");
    c.target_loss = located(read_number_in(*target, path, 0, 1000, true, "(0, 1000]"), *target, path);
  }
  if (reader.get("eval_every")) c.eval_every = read_bounded(reader, "eval_every", 1, std::int64_t{1} << 40, 1);
  return c;
}

}  // namespace syncsim::scenario_detail
