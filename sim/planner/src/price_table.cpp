#include "syncsim/planner/price_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/closest_name.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim::planner {

namespace {

SourceLocation at(const std::string& source, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  // yaml-cpp counts from 0 and reports -1 for nodes it made up.
  return SourceLocation{source, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

double read_price(const std::string& source, const YAML::Node& node, const std::string& key) {
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  double value = 0;
  try {
    value = parse_number(text);
  } catch (const InputError&) {
    const std::string got = node.IsSequence() ? "a list" : node.IsMap() ? "a mapping" : fmt::format("'{}'", text);
    throw InputError(fmt::format("expected a price per GPU-hour (a number >= 0), got {}", got), at(source, node), key);
  }
  if (!std::isfinite(value) || value < 0) {
    throw InputError(fmt::format("a price must be >= 0, got '{}'", text), at(source, node), key);
  }
  if (value > kMaxPrice) {
    throw InputError(fmt::format("a price must be at most {:g} per GPU-hour (so that every cost stays a finite "
                                 "number), got '{}'",
                                 kMaxPrice, text),
                     at(source, node), key);
  }
  return value;
}

// A number in [lo, hi], or an error at the value saying what the key means.
double read_bounded(const std::string& source, const YAML::Node& node, const std::string& key, const char* what,
                    double lo, double hi) {
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  double value = 0;
  try {
    value = parse_number(text);
  } catch (const InputError&) {
    throw InputError(fmt::format("expected {} (a number from {:g} to {:g}), got '{}'", what, lo, hi, text),
                     at(source, node), key);
  }
  if (!std::isfinite(value) || value < lo || value > hi) {
    throw InputError(fmt::format("{} must be from {:g} to {:g}, got '{}'", what, lo, hi, text), at(source, node), key);
  }
  return value;
}

void require_map(const std::string& source, const YAML::Node& node, const std::string& key) {
  if (!node.IsMap()) throw InputError("expected a mapping of names to prices", at(source, node), key);
}

}  // namespace

double PriceTable::gpu_price(const std::string& canonical_gpu) const {
  const auto it = gpu_hour.find(canonical_gpu);
  if (it == gpu_hour.end()) {
    throw InputError(fmt::format("{} has no gpu_hour entry for {}", source, canonical_gpu), SourceLocation{"--prices"});
  }
  return it->second;
}

double PriceTable::network_price(const std::string& network) const {
  const auto it = network_gpu_hour.find(network);
  return it == network_gpu_hour.end() ? 0.0 : it->second;
}

double PriceTable::cluster_price_per_hour(const std::string& canonical_gpu, const std::string& network,
                                          double gpus) const {
  return gpus * (gpu_price(canonical_gpu) + network_price(network));
}

void PriceTable::check_networks(const std::vector<std::string>& planned) const {
  if (network_gpu_hour.empty()) return;  // no network prices at all: every network adds 0, as documented
  std::vector<std::string_view> priced;
  for (const auto& [name, price] : network_gpu_hour) priced.push_back(name);
  for (const std::string& network : planned) {
    if (network_gpu_hour.contains(network)) continue;
    // A file that prices networks but not this one most likely misspells it (rial400 for rail400): silently the
    // network would cost nothing.
    const std::string guess(closest_name(network, priced));
    if (!guess.empty() && std::find(planned.begin(), planned.end(), guess) == planned.end()) {
      throw InputError(fmt::format("no planned network is called '{}', and network '{}' has no price: did you mean "
                                   "'{}'?",
                                   guess, network, network),
                       network_keys.at(guess), "network_gpu_hour." + guess);
    }
    throw InputError(fmt::format("{} has no network_gpu_hour entry for network '{}' (it prices {}; list this one too, "
                                 "at 0 if it adds nothing)",
                                 source, network, fmt::join(priced, ", ")),
                     SourceLocation{"--prices"});
  }
}

PriceTable parse_price_table(const std::string& yaml, const std::string& source) {
  PriceTable table;
  table.source = source;
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw InputError(e.msg, SourceLocation{source, e.mark.line + 1, e.mark.column + 1});
  }
  if (!root.IsMap()) {
    throw InputError("expected a mapping with gpu_hour (and optionally currency, network_gpu_hour)",
                     SourceLocation{source, 1, 1});
  }
  bool has_gpus = false;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    if (key == "currency") {
      if (!value.IsScalar()) throw InputError("expected a label such as USD", at(source, value), key);
      table.currency = value.Scalar();
    } else if (key == "gpu_hour") {
      require_map(source, value, key);
      for (const auto& gpu : value) {
        const std::string path = key + "." + gpu.first.Scalar();
        std::string name;
        try {
          name = find_gpu(gpu.first.Scalar()).name;
        } catch (const InputError& e) {
          throw InputError(e.message(), at(source, gpu.first), path);
        }
        // yaml-cpp keeps duplicate keys, and aliases (a100-80gb) name the same GPU: the second price is a mistake.
        if (!table.gpu_hour.emplace(name, read_price(source, gpu.second, path)).second) {
          throw InputError(fmt::format("{} is priced twice (names and aliases of one GPU share its price)", name),
                           at(source, gpu.first), path);
        }
        has_gpus = true;
      }
    } else if (key == "network_gpu_hour") {
      require_map(source, value, key);
      for (const auto& net : value) {
        const std::string path = key + "." + net.first.Scalar();
        if (!table.network_gpu_hour.emplace(net.first.Scalar(), read_price(source, net.second, path)).second) {
          throw InputError("network priced twice", at(source, net.first), path);
        }
        table.network_keys.emplace(net.first.Scalar(), at(source, net.first));
      }
    } else if (key == "pue") {
      table.pue = read_bounded(source, value, key, "a PUE (facility power over IT power)", 1, kMaxPue);
    } else if (key == "energy_price_per_kwh") {
      table.energy_price_per_kwh = read_bounded(source, value, key, "a price per kWh", 0, kMaxEnergyPrice);
    } else {
      throw InputError(fmt::format("unknown key '{}' (expected currency, gpu_hour, network_gpu_hour, pue or "
                                   "energy_price_per_kwh)",
                                   key),
                       at(source, entry.first), key);
    }
  }
  if (!has_gpus)
    throw InputError("no gpu_hour prices: give at least one GPU's price", SourceLocation{source, 1, 1}, "gpu_hour");
  return table;
}

PriceTable load_price_table(const std::filesystem::path& file) {
  return parse_price_table(read_input_file(file, "price file"), file.string());
}

}  // namespace syncsim::planner
