#pragma once
// How the catalogs match a model's name: case, '-', '_' and spaces ignored ("ResNet-50" is resnet50).
#include <cctype>
#include <string>
#include <string_view>

namespace syncsim::compute_detail {

inline std::string normalize_model_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace syncsim::compute_detail
