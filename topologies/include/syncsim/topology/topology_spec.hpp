#pragma once
// Topology specs: `KIND:key=value,...` strings (docs/topologies.md) and the generators behind them.
//
//   ring:n=8,bw=100Gbps,lat=1us          switch:n=8,bw=100Gbps,lat=5us
//   mesh:n=8,bw=300GB/s,lat=700ns        torus:dims=4x4x4,bw=50GB/s,lat=1us
//   fattree:n=128,radix=16,tiers=2,bw=100Gbps,lat=1us,oversub=4
//   dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps,net_lat=2us
//   file:path=cluster.dot
//
// Scenario files give the same keys as a mapping; both paths end in build_topology(TopologySpec).
#include <map>
#include <string>
#include <string_view>

#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

struct TopologySpec {
  std::string kind;
  // key -> value text, in key order; units are parsed by the generator that knows what each key means.
  std::map<std::string, std::string> params;
  // Where each value came from, for error messages (column of the value in a spec string, or file:line:col).
  std::map<std::string, SourceLocation> param_locations;
  SourceLocation location;  // where the spec itself came from
};

// Parses `KIND:key=value,...`. `source` names where the text came from (e.g. "--topology"); errors carry the
// 1-based column of the offending part.
TopologySpec parse_topology_spec(std::string_view text, std::string_view source = "topology spec");

// Builds the topology; every unknown kind or key, missing unit, impossible value or disconnected GPU set is an
// InputError naming the key and its location.
Topology build_topology(const TopologySpec& spec);
Topology build_topology(std::string_view spec_text, std::string_view source = "topology spec");

}  // namespace syncsim
