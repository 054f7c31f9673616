#include "syncsim/planner/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <map>
#include <mutex>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/progress_bar.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::planner {

namespace {

using Json = nlohmann::ordered_json;

constexpr auto kSaveEvery = std::chrono::seconds(1);
constexpr std::int64_t kAbort = -1;

std::string point_key(const std::vector<std::string>& labels) {
  std::string key;
  for (const std::string& l : labels) key += l + '\x1f';
  return key;
}

// Rows of the previous output that belong to this sweep's points, by point index.
std::map<std::size_t, std::vector<Json>> resumed_rows(const SweepOptions& o, const std::vector<std::string>& columns) {
  if (!o.output || !std::filesystem::exists(*o.output)) return {};
  return match_rows(read_table(*o.output, table_format_of(*o.output), columns, o.fingerprint), o.points,
                    o.varied_keys.size(), o.output->string());
}

// What a rank sends to rank 0: its rows, or the error that stopped it.
Json rank_payload(const std::map<std::size_t, std::vector<Json>>& rows, std::exception_ptr error) {
  Json out;
  out["rows"] = Json::array();
  for (const auto& [index, cells] : rows) out["rows"].push_back({index, cells});
  out["error"] = nullptr;
  if (!error) return out;
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    Json where = nullptr;
    if (e.where()) where = {e.where()->source, e.where()->line, e.where()->column};
    out["error"] = {{"input", true}, {"message", e.message()}, {"where", where}, {"key", e.key()}};
  } catch (const std::exception& e) {
    out["error"] = {{"input", false}, {"message", e.what()}};
  }
  return out;
}

[[noreturn]] void rethrow_payload_error(const Json& error) {
  const std::string message = error.at("message").get<std::string>();
  if (!error.at("input").get<bool>()) throw std::runtime_error(message);
  std::optional<SourceLocation> where;
  if (!error.at("where").is_null()) {
    const Json& w = error.at("where");
    where = SourceLocation{w[0].get<std::string>(), w[1].get<int>(), w[2].get<int>()};
  }
  throw InputError(message, where, error.at("key").get<std::string>());
}

}  // namespace

std::map<std::size_t, std::vector<Json>> match_rows(std::vector<std::vector<Json>> rows,
                                                    const std::vector<SweepPoint>& points, std::size_t varied,
                                                    const std::string& file) {
  std::map<std::string, std::size_t> index_of;
  for (const SweepPoint& p : points) index_of.emplace(point_key(p.labels), p.index);
  std::map<std::size_t, std::vector<Json>> out;
  for (auto& row : rows) {
    std::vector<std::string> labels;
    for (std::size_t c = 0; c < varied && c < row.size(); ++c) labels.push_back(cell_text(row[c]));
    const auto it = index_of.find(point_key(labels));
    // A point no longer in the grid (a value dropped from --vary) is left out; one point twice is an edited file.
    if (it == index_of.end()) continue;
    if (!out.emplace(it->second, std::move(row)).second) {
      throw InputError(fmt::format("point {} ({}) has two rows: the file was edited; delete it, or choose another -o, "
                                   "to start again",
                                   it->second, fmt::join(labels, ", ")),
                       SourceLocation{file});
    }
  }
  return out;
}

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash) {
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string sweep_fingerprint(const std::filesystem::path& scenario, const std::vector<std::string>& varied_keys) {
  std::uint64_t hash = fnv1a(to_yaml(load_scenario(scenario)));
  // Each key ends in a byte no key holds, so that {"a.b", "c"} and {"a", "b.c"} differ.
  for (const std::string& key : varied_keys) hash = fnv1a(key + '\x1f', fnv1a("\n--vary ", hash));
  return fmt::format("{:016x}", hash);
}

SweepTable run_sweep(const SweepOptions& o, const MpiWorld& world) {
  SweepTable table;
  table.fingerprint = o.fingerprint;
  table.columns = o.varied_keys;
  table.columns.insert(table.columns.end(), report_columns().begin(), report_columns().end());

  // Rank 0 decides what is left to run; a failure there must still reach the other ranks, or they would wait.
  std::vector<std::int64_t> pending;
  std::exception_ptr resume_error;
  if (world.rank() == 0) {
    try {
      table.rows = resumed_rows(o, table.columns);
      for (const SweepPoint& p : o.points) {
        if (!table.rows.contains(p.index)) pending.push_back(static_cast<std::int64_t>(p.index));
      }
    } catch (...) {
      resume_error = std::current_exception();
      pending = {kAbort};
    }
  }
  world.broadcast(pending);
  if (resume_error) std::rethrow_exception(resume_error);
  if (!pending.empty() && pending.front() == kAbort) {
    throw InputError("rank 0 could not read the previous output", SourceLocation{"-o"});
  }

  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(world.size())) == world.rank()) {
      mine.push_back(static_cast<std::size_t>(pending[i]));
    }
  }

  // Saving while running only makes sense where one process holds all the rows.
  const bool save_while_running = world.size() == 1 && o.save;
  ProgressBar progress(world.rank() == 0 ? o.progress : nullptr, mine.size());
  std::map<std::size_t, std::vector<Json>> new_rows;
  auto last_save = std::chrono::steady_clock::now();
  std::exception_ptr error;
  try {
    run_points(o.scenario, o.points, mine, o.threads, [&](std::size_t index, const TrainingReport& report) {
      std::vector<Json> row;
      for (const std::string& label : o.points.at(index).labels) row.emplace_back(label);
      for (Json& cell : report_cells(report)) row.push_back(std::move(cell));
      if (save_while_running) {
        table.rows[index] = row;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_save >= kSaveEvery) {
          o.save(table);
          last_save = now;
        }
      }
      new_rows[index] = std::move(row);
      progress.advance();
    });
  } catch (...) {
    error = std::current_exception();
  }
  progress.finish();

  if (world.size() == 1) {
    if (error) {
      // What finished is kept (a valid table of whole rows), so running again resumes after it.
      if (save_while_running && !new_rows.empty()) o.save(table);
      std::rethrow_exception(error);
    }
    for (auto& [index, row] : new_rows) table.rows[index] = std::move(row);
    return table;
  }

  const std::vector<std::string> payloads = world.gather(rank_payload(new_rows, error).dump());
  if (world.rank() != 0) {
    if (error) std::rethrow_exception(error);
    return {};
  }
  for (const std::string& text : payloads) {
    const Json payload = Json::parse(text);
    if (!payload.at("error").is_null()) rethrow_payload_error(payload.at("error"));
    for (const Json& entry : payload.at("rows")) {
      std::vector<Json> cells;
      for (const Json& c : entry[1]) cells.push_back(c);
      table.rows[entry[0].get<std::size_t>()] = std::move(cells);
    }
  }
  return table;
}

}  // namespace syncsim::planner
