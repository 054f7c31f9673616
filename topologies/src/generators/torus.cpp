// torus: GPUs on a 2D or 3D grid with wraparound, each linked to its + neighbour in every dimension.
//
//   torus:dims=3x3 (row-major GPU index; the wraparound links are drawn at the edges)
//
//      :      :      :
//   .. 0 ---- 1 ---- 2 ..
//      |      |      |
//   .. 3 ---- 4 ---- 5 ..
//      |      |      |
//   .. 6 ---- 7 ---- 8 ..
//      :      :      :
//
// A dimension of size 2 would link each pair twice (+1 and the wraparound are the same neighbour); it gets one.
#include <fmt/format.h>

#include <string>

#include "generators.hpp"

namespace syncsim::topology_detail {

namespace {

std::vector<std::int64_t> parse_dims(const SpecParams& params) {
  const std::string text = params.text("dims");
  std::vector<std::int64_t> dims;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find_first_of("xX", start);
    const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::int64_t size = 0;
    try {
      size = parse_count(part);
    } catch (const InputError&) {
      params.fail("dims", fmt::format("expected sizes like 4x4 or 4x4x4, got '{}'", text));
    }
    if (size < 2) params.fail("dims", fmt::format("every dimension must be at least 2, got '{}'", text));
    if (size > kMaxGpus) params.fail("dims", fmt::format("dimension {} is too large", size));
    dims.push_back(size);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (dims.size() < 2 || dims.size() > 3) {
    params.fail("dims", fmt::format("expected 2 or 3 dimensions like 4x4 or 4x4x4, got '{}'", text));
  }
  std::int64_t total = 1;
  for (const std::int64_t size : dims) {
    total *= size;
    if (total > kMaxGpus) params.fail("dims", fmt::format("'{}' has more than {} GPUs", text, kMaxGpus));
  }
  return dims;
}

}  // namespace

Topology build_torus(const SpecParams& params) {
  const std::vector<std::int64_t> dims = parse_dims(params);
  const Bandwidth bw = params.bandwidth("bw");
  const SimTime lat = params.duration("lat", SimTime::zero());
  const LinkKind kind = params.link_kind("link_kind", LinkKind::network);
  std::int64_t total = 1;
  for (const std::int64_t size : dims) total *= size;

  Topology topology;
  const std::vector<NodeId> gpus = add_gpus(topology, total);
  // Row-major: the last dimension varies fastest, so its stride is 1.
  std::vector<std::int64_t> stride(dims.size(), 1);
  for (std::size_t d = dims.size() - 1; d > 0; --d) stride[d - 1] = stride[d] * dims[d];
  for (std::int64_t index = 0; index < total; ++index) {
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::int64_t coordinate = (index / stride[d]) % dims[d];
      if (dims[d] == 2 && coordinate == 1) continue;  // the pair's single link was added from coordinate 0
      const std::int64_t next = coordinate + 1 == dims[d] ? index - coordinate * stride[d] : index + stride[d];
      topology.add_duplex_link(gpus[static_cast<std::size_t>(index)], gpus[static_cast<std::size_t>(next)], bw, lat,
                               kind);
    }
  }
  return topology;
}

}  // namespace syncsim::topology_detail
