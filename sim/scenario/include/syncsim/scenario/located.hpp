#pragma once
// Located<T>: a scenario value together with where it was written and its key path.
//
// A later stage that finds a value wrong (an unknown model name, a rank the topology does not have) reports it
// at the value's place in the file, as the loader would have:
//
//   if (!catalog.contains(scenario.model.name.value)) throw scenario.model.name.error("unknown model 'gpt3'");
//   // scenario.yaml:7:17: model.name: unknown model 'gpt3'
#include <optional>
#include <string>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

template <typename T>
struct Located {
  T value{};
  // Where the value was written; for a default, the scenario's source with line and column 0.
  SourceLocation where;
  std::string key;  // key path, e.g. "training.bucket_size" or "stragglers.slow[0].rank"

  const T& operator*() const { return value; }
  const T* operator->() const { return &value; }

  InputError error(std::string message) const {
    std::optional<SourceLocation> at;
    if (!where.source.empty()) at = where;
    return InputError(std::move(message), std::move(at), key);
  }
};

}  // namespace syncsim
