// `training.gradient_compression`: a kind alone (`powersgd`), or a mapping with the kind's own knobs.
#include <fmt/format.h>

#include "field_reader.hpp"
#include "sections.hpp"

namespace syncsim::scenario_detail {

namespace {

// A rank past this compresses nothing that matters: every matrix of a real model is narrower.
constexpr std::int64_t kMaxRank = 1024;
constexpr double kMaxCompressionRate = 1e6;

// Refuses `key` when the kind has no use for it.
void refuse_unless(const MapReader& reader, std::string_view key, bool applies, std::string_view which) {
  if (const ConfigNode* given = reader.get(key); given != nullptr && !applies) {
    fail(*given, reader.path(key), fmt::format("applies to {} only", which));
  }
}

}  // namespace

Located<GradientCompression> read_compression(const ConfigNode& node, const std::string& path) {
  GradientCompression c;
  if (node.kind != ConfigNode::Kind::mapping) {
    c.kind = read_choice(node, path, kCompressionNames);
    return located(c, node, path);
  }
  const MapReader reader(node, path,
                         {"kind", "rank", "min_compression_rate", "ratio", "error_feedback", "start_iteration"});
  c.kind =
      read_choice(reader.require("kind", "none, fp16, bf16, powersgd or topk"), reader.path("kind"), kCompressionNames);
  const bool powersgd = c.kind == CompressionKind::powersgd;
  const bool topk = c.kind == CompressionKind::topk;
  refuse_unless(reader, "rank", powersgd, "powersgd");
  refuse_unless(reader, "min_compression_rate", powersgd, "powersgd");
  refuse_unless(reader, "ratio", topk, "topk");
  refuse_unless(reader, "error_feedback", powersgd || topk, "powersgd and topk");
  if (const ConfigNode* rank = reader.get("rank")) {
    c.rank = read_count(*rank, reader.path("rank"), 1);
    if (c.rank > kMaxRank) {
      fail(*rank, reader.path("rank"), fmt::format("expected a rank from 1 to {}, got {}", kMaxRank, c.rank));
    }
  }
  if (const ConfigNode* rate = reader.get("min_compression_rate")) {
    c.min_compression_rate = read_number_in(*rate, reader.path("min_compression_rate"), 0, kMaxCompressionRate, true,
                                            "a factor above 0 (PyTorch's default is 2)");
  }
  if (const ConfigNode* ratio = reader.get("ratio")) {
    c.ratio = read_number_in(*ratio, reader.path("ratio"), 0, 1, true, "a fraction in (0, 1]");
  }
  if (const ConfigNode* feedback = reader.get("error_feedback")) {
    c.error_feedback = read_bool(*feedback, reader.path("error_feedback"));
  }
  if (const ConfigNode* start = reader.get("start_iteration")) {
    c.start_iteration = read_count(*start, reader.path("start_iteration"), 0);
  }
  return located(c, node, path);
}

}  // namespace syncsim::scenario_detail
