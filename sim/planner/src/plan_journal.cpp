#include "syncsim/planner/plan_journal.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"

namespace syncsim::planner {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kHeaderKey = "syncsim_plan_journal";
constexpr int kFormat = 1;

template <typename T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

template <typename T>
std::optional<T> optional_from(const Json& j, const char* key) {
  const Json& v = j.at(key);
  return v.is_null() ? std::nullopt : std::optional<T>(v.get<T>());
}

Json stats_json(const LayoutSearchStats& s) {
  Json skipped = Json::object();
  for (const auto& [reason, count] : s.skipped) skipped[reason] = count;
  return {{"candidates", s.candidates}, {"skipped", skipped}, {"not_fitting", s.not_fitting},
          {"simulated", s.simulated},   {"pruned", s.pruned}, {"unexplored", s.unexplored}};
}

LayoutSearchStats stats_from(const Json& j) {
  LayoutSearchStats s;
  s.candidates = j.at("candidates").get<std::int64_t>();
  for (const auto& [reason, count] : j.at("skipped").items()) s.skipped[reason] = count.get<std::int64_t>();
  s.not_fitting = j.at("not_fitting").get<std::int64_t>();
  s.simulated = j.at("simulated").get<std::int64_t>();
  s.pruned = j.at("pruned").get<std::int64_t>();
  s.unexplored = j.at("unexplored").get<std::int64_t>();
  return s;
}

Json point_json(const JournalPoint& p) {
  Json runs = Json::array();
  for (const std::vector<PlanPoint>& run : p.runs) {
    Json rows = Json::array();
    for (const PlanPoint& row : run) rows.push_back(plan_point_json(row));
    runs.push_back(std::move(rows));
  }
  return {{"point", p.point},
          {"labels", p.labels},
          {"runs", std::move(runs)},
          {"layout", optional_json(p.layout)},
          {"search", p.search ? stats_json(*p.search) : Json(nullptr)}};
}

JournalPoint point_from(const Json& j) {
  JournalPoint p;
  p.point = j.at("point").get<std::size_t>();
  p.labels = j.at("labels").get<std::vector<std::string>>();
  for (const Json& run : j.at("runs")) {
    std::vector<PlanPoint>& rows = p.runs.emplace_back();
    for (const Json& row : run) rows.push_back(plan_point_from_json(row));
  }
  p.layout = optional_from<std::string>(j, "layout");
  if (!j.at("search").is_null()) p.search = stats_from(j.at("search"));
  return p;
}

}  // namespace

Json plan_point_json(const PlanPoint& p) {
  Json band = nullptr;
  if (p.samples_per_s_band) band = {p.samples_per_s_band->first, p.samples_per_s_band->second};
  Json spread = nullptr;
  if (p.spread) spread = {p.spread->seeds, p.spread->p10, p.spread->p50, p.spread->p90};
  Json shares = Json::array();
  for (const auto& [name, share] : p.time_shares) shares.push_back({name, share});
  return {{"gpu", p.gpu},
          {"network", p.network},
          {"layout", p.layout},
          {"gpus", p.gpus},
          {"samples_per_s", p.samples_per_s},
          {"samples_per_s_band", band},
          {"single_gpu_samples_per_s", p.single_gpu_samples_per_s},
          {"scaling_efficiency", p.scaling_efficiency},
          {"bottleneck", p.bottleneck},
          {"bottleneck_share", p.bottleneck_share},
          {"bottleneck_summary", p.bottleneck_summary},
          {"bottleneck_cause", p.bottleneck_cause},
          {"price_per_hour", optional_json(p.price_per_hour)},
          {"fits", p.fits},
          {"memory_bytes", p.memory_bytes},
          {"memory_capacity_bytes", p.memory_capacity_bytes},
          {"spread", spread},
          {"marginal_efficiency", p.marginal_efficiency},
          {"price_per_million_samples", optional_json(p.price_per_million_samples)},
          {"time_to_train_s", optional_json(p.time_to_train_s)},
          {"gpu_hours", optional_json(p.gpu_hours)},
          {"cost_to_train", optional_json(p.cost_to_train)},
          {"meets_target", p.meets_target},
          {"pareto", p.pareto},
          {"time_to_target_s", optional_json(p.time_to_target_s)},
          {"best_loss", p.best_loss},
          {"cost_to_target", optional_json(p.cost_to_target)},
          {"model_flops_utilization", p.model_flops_utilization},
          {"tokens_per_s_per_gpu", optional_json(p.tokens_per_s_per_gpu)},
          {"time_shares", shares},
          {"gpu_power_watts", optional_json(p.gpu_power_watts)},
          {"energy_mwh", optional_json(p.energy_mwh)},
          {"energy_cost", optional_json(p.energy_cost)},
          {"ettr", optional_json(p.ettr)},
          {"kept_share", optional_json(p.kept_share)},
          {"badput_hours", optional_json(p.badput_hours)},
          {"checkpoint_interval_s", optional_json(p.checkpoint_interval_s)},
          {"badput_cause", p.badput_cause},
          {"badput_cause_share", p.badput_cause_share},
          {"spare_gpus", p.spare_gpus},
          {"marginal_without_failures", optional_json(p.marginal_without_failures)},
          {"checkpoint_choice", p.checkpoint_choice},
          {"spares", optional_json(p.spares)},
          {"alternative", p.alternative}};
}

PlanPoint plan_point_from_json(const Json& j) {
  PlanPoint p;
  p.gpu = j.at("gpu").get<std::string>();
  p.network = j.at("network").get<std::string>();
  p.layout = j.at("layout").get<std::string>();
  p.gpus = j.at("gpus").get<std::int64_t>();
  p.samples_per_s = j.at("samples_per_s").get<double>();
  if (const Json& band = j.at("samples_per_s_band"); !band.is_null()) {
    p.samples_per_s_band = std::pair(band.at(0).get<double>(), band.at(1).get<double>());
  }
  p.single_gpu_samples_per_s = j.at("single_gpu_samples_per_s").get<double>();
  p.scaling_efficiency = j.at("scaling_efficiency").get<double>();
  p.bottleneck = j.at("bottleneck").get<std::string>();
  p.bottleneck_share = j.at("bottleneck_share").get<double>();
  p.bottleneck_summary = j.at("bottleneck_summary").get<std::string>();
  p.bottleneck_cause = j.at("bottleneck_cause").get<std::string>();
  p.price_per_hour = optional_from<double>(j, "price_per_hour");
  p.fits = j.at("fits").get<bool>();
  p.memory_bytes = j.at("memory_bytes").get<double>();
  p.memory_capacity_bytes = j.at("memory_capacity_bytes").get<double>();
  if (const Json& s = j.at("spread"); !s.is_null()) {
    p.spread =
        SeedSpread{s.at(0).get<std::int64_t>(), s.at(1).get<double>(), s.at(2).get<double>(), s.at(3).get<double>()};
  }
  p.marginal_efficiency = j.at("marginal_efficiency").get<double>();
  p.price_per_million_samples = optional_from<double>(j, "price_per_million_samples");
  p.time_to_train_s = optional_from<double>(j, "time_to_train_s");
  p.gpu_hours = optional_from<double>(j, "gpu_hours");
  p.cost_to_train = optional_from<double>(j, "cost_to_train");
  p.meets_target = j.at("meets_target").get<bool>();
  p.pareto = j.at("pareto").get<bool>();
  p.time_to_target_s = optional_from<double>(j, "time_to_target_s");
  p.best_loss = j.at("best_loss").get<double>();
  p.cost_to_target = optional_from<double>(j, "cost_to_target");
  p.model_flops_utilization = j.at("model_flops_utilization").get<double>();
  p.tokens_per_s_per_gpu = optional_from<double>(j, "tokens_per_s_per_gpu");
  for (const Json& share : j.at("time_shares")) {
    p.time_shares.emplace_back(share.at(0).get<std::string>(), share.at(1).get<double>());
  }
  p.gpu_power_watts = optional_from<double>(j, "gpu_power_watts");
  p.energy_mwh = optional_from<double>(j, "energy_mwh");
  p.energy_cost = optional_from<double>(j, "energy_cost");
  p.ettr = optional_from<double>(j, "ettr");
  p.kept_share = optional_from<double>(j, "kept_share");
  p.badput_hours = optional_from<double>(j, "badput_hours");
  p.checkpoint_interval_s = optional_from<double>(j, "checkpoint_interval_s");
  p.badput_cause = j.at("badput_cause").get<std::string>();
  p.badput_cause_share = j.at("badput_cause_share").get<double>();
  p.spare_gpus = j.at("spare_gpus").get<double>();
  p.marginal_without_failures = optional_from<double>(j, "marginal_without_failures");
  p.checkpoint_choice = j.at("checkpoint_choice").get<std::string>();
  p.spares = optional_from<std::int64_t>(j, "spares");
  p.alternative = j.at("alternative").get<bool>();
  return p;
}

PlanJournal::PlanJournal(std::filesystem::path path, std::string fingerprint)
    : path_(std::move(path)), fingerprint_(std::move(fingerprint)) {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) return;
  const std::string source = path_.string();
  const std::string text = read_input_file(path_, "plan journal");
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const auto parsed = [&](std::size_t i) -> std::optional<Json> {
    try {
      check_json_nesting(lines[i], source);
    } catch (const InputError&) {
      return std::nullopt;  // nested too deep for a journal's line: not one (refused at its own line below)
    }
    Json j = Json::parse(lines[i], nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
  };
  if (lines.empty()) return;
  const std::optional<Json> header = parsed(0);
  // Another question's journal (or another format's) is this plan's to replace, not to read.
  const auto ours = [&] {
    try {
      return header && header->value(kHeaderKey, 0) == kFormat &&
             header->value("fingerprint", std::string()) == fingerprint_;
    } catch (const nlohmann::json::exception&) {
      return false;  // a key of another type
    }
  };
  if (!ours()) return;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const bool last = i + 1 == lines.size();
    const auto refuse = [&](const std::string& what) {
      throw InputError(fmt::format("{}; delete the file to plan afresh", what),
                       SourceLocation{source, static_cast<int>(i + 1), 1});
    };
    const std::optional<Json> j = parsed(i);
    if (!j) {
      if (last) break;  // cut short by the interruption
      refuse("not a finished point of this plan");
    }
    try {
      JournalPoint p = point_from(*j);
      if (!resumed_.emplace(p.point, std::move(p)).second) refuse("a point finished twice: the file was edited");
    } catch (const nlohmann::json::exception&) {
      if (last) break;
      refuse("not a finished point of this plan");
    }
  }
}

void PlanJournal::append(const JournalPoint& point) {
  // This run's first point writes the journal afresh, with the points it resumed: a line the interruption cut short
  // goes, and nothing is appended to half a line.
  std::error_code ec;
  if (!started_) std::filesystem::create_directories(path_.parent_path(), ec);  // the plan's -o, checked writable
  std::ofstream out(path_, started_ ? std::ios::app : std::ios::trunc);
  if (!started_) {
    out << Json{{kHeaderKey, kFormat}, {"fingerprint", fingerprint_}}.dump() << '\n';
    for (const auto& [index, resumed] : resumed_) out << point_json(resumed).dump() << '\n';
  }
  out << point_json(point).dump() << '\n';
  out.flush();
  if (!out) throw InputError(fmt::format("cannot write the plan journal '{}'", path_.string()), SourceLocation{"-o"});
  started_ = true;
}

void PlanJournal::remove() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);  // a journal that cannot be removed is only resumed again: no error
}

}  // namespace syncsim::planner
