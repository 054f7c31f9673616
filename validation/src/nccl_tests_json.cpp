#include "syncsim/validation/nccl_tests_json.hpp"

#include <fmt/format.h>

#include <type_traits>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

using nlohmann::json;

json optional_json(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

json to_json(const NcclTestsPlacement& p) {
  return {{"time_us", p.time_us},
          {"algbw_gbps", p.algbw_gbps},
          {"busbw_gbps", p.busbw_gbps},
          {"wrong", optional_json(p.wrong)}};
}

// Reads fields of one JSON object, naming the key path of whatever is missing or mistyped.
class Fields {
 public:
  Fields(const json& object, std::string path, const std::string& source)
      : object_(object), path_(std::move(path)), source_(source) {
    if (!object_.is_object()) fail("", "expected an object");
  }

  template <class T>
  T get(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) fail(key, "missing");
    return as<T>(*it, key);
  }

  template <class T>
  std::optional<T> optional(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return std::nullopt;
    return as<T>(*it, key);
  }

  const json& array(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end() || !it->is_array()) fail(key, "expected an array");
    return *it;
  }

  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  template <class T>
  T as(const json& value, const char* key) const {
    const bool ok = std::is_same_v<T, std::string> ? value.is_string()
                    : std::is_floating_point_v<T>  ? value.is_number()
                                                   : value.is_number_integer();
    if (!ok) {
      fail(key, fmt::format("expected {}, got {}",
                            std::is_same_v<T, std::string> ? "a string"
                            : std::is_floating_point_v<T>  ? "a number"
                                                           : "a whole number",
                            value.dump()));
    }
    return value.get<T>();
  }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(message, SourceLocation{source_}, path(key));
  }

  const json& object_;
  std::string path_;
  const std::string& source_;
};

NcclTestsPlacement placement_from_json(const json& value, const std::string& path, const std::string& source) {
  const Fields f(value, path, source);
  NcclTestsPlacement p;
  p.time_us = f.get<double>("time_us");
  p.algbw_gbps = f.get<double>("algbw_gbps");
  p.busbw_gbps = f.get<double>("busbw_gbps");
  p.wrong = f.optional<double>("wrong");
  return p;
}

}  // namespace

nlohmann::json to_json(const NcclTestsLog& log) {
  json ranks = json::array();
  for (const NcclTestsRank& r : log.rank_list) {
    ranks.push_back({{"rank", r.rank},
                     {"host", r.host},
                     {"pid", r.pid},
                     {"device", r.device},
                     {"bus_id", r.bus_id},
                     {"device_name", r.device_name}});
  }
  json rows = json::array();
  for (const NcclTestsRow& row : log.rows) {
    rows.push_back({{"size_bytes", row.size_bytes},
                    {"count", row.count},
                    {"type", row.type},
                    {"redop", row.redop},
                    {"root", row.root ? json(*row.root) : json(nullptr)},
                    {"out_of_place", to_json(row.out_of_place)},
                    {"in_place", to_json(row.in_place)}});
  }
  return {{"source", log.source},
          {"collective", std::string(to_string(log.collective))},
          {"nccl_tests_name", std::string(nccl_tests_name(log.collective))},
          {"layout", std::string(to_string(log.layout))},
          {"ranks", log.ranks},
          {"ranks_per_host", log.ranks_per_host},
          {"hosts", log.hosts},
          {"gpu_names", log.gpu_names},
          {"rank_list", ranks},
          {"parameters", log.parameters},
          {"rows", rows},
          {"out_of_bounds", log.out_of_bounds ? json(*log.out_of_bounds) : json(nullptr)},
          {"avg_busbw_gbps", optional_json(log.avg_busbw_gbps)},
          {"warnings", log.warnings}};
}

NcclTestsLog nccl_tests_log_from_json(const nlohmann::json& value, const std::string& source) {
  const Fields f(value, "", source);
  NcclTestsLog log;
  log.source = f.optional<std::string>("source").value_or(source);
  try {
    log.collective = parse_collective_op(f.get<std::string>("collective"));
  } catch (const InputError& e) {
    throw InputError(e.message(), SourceLocation{source}, "collective");
  }
  const std::string layout = f.optional<std::string>("layout").value_or("with_root");
  if (layout != "with_root" && layout != "without_root") {
    throw InputError(fmt::format("expected with_root or without_root, got '{}'", layout), SourceLocation{source},
                     "layout");
  }
  log.layout = layout == "with_root" ? NcclTestsLayout::with_root : NcclTestsLayout::without_root;
  log.ranks = f.get<int>("ranks");
  if (log.ranks < 1) throw InputError("expected at least 1 rank", SourceLocation{source}, "ranks");
  log.ranks_per_host = f.optional<int>("ranks_per_host").value_or(log.ranks);
  log.hosts = f.optional<int>("hosts").value_or(1);
  log.parameters = f.optional<std::string>("parameters").value_or("");
  const auto strings = [&](const char* key, std::vector<std::string>& out) {
    if (!value.contains(key)) return;
    const json& items = f.array(key);
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_string()) {
        throw InputError("expected a string", SourceLocation{source}, fmt::format("{}[{}]", key, i));
      }
      out.push_back(items[i].get<std::string>());
    }
  };
  strings("gpu_names", log.gpu_names);
  strings("warnings", log.warnings);
  if (value.contains("rank_list")) {
    const json& ranks = f.array("rank_list");
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const Fields r(ranks[i], fmt::format("rank_list[{}]", i), source);
      log.rank_list.push_back({r.get<int>("rank"), r.get<std::string>("host"), r.get<std::int64_t>("pid"),
                               r.get<int>("device"), r.get<std::string>("bus_id"), r.get<std::string>("device_name")});
    }
  }
  const json& rows = f.array("rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string path = fmt::format("rows[{}]", i);
    const Fields r(rows[i], path, source);
    NcclTestsRow row;
    row.size_bytes = r.get<std::int64_t>("size_bytes");
    row.count = r.get<std::int64_t>("count");
    row.type = r.get<std::string>("type");
    row.redop = r.get<std::string>("redop");
    row.root = r.optional<int>("root");
    row.out_of_place = placement_from_json(rows[i].contains("out_of_place") ? rows[i]["out_of_place"] : json(),
                                           r.path("out_of_place"), source);
    row.in_place =
        placement_from_json(rows[i].contains("in_place") ? rows[i]["in_place"] : json(), r.path("in_place"), source);
    log.rows.push_back(std::move(row));
  }
  log.out_of_bounds = f.optional<std::int64_t>("out_of_bounds");
  log.avg_busbw_gbps = f.optional<double>("avg_busbw_gbps");
  return log;
}

}  // namespace syncsim
