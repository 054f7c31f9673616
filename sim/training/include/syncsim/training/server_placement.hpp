#pragma once
// Where the parameter servers sit in the network.
//
//   dedicated  servers are machines of their own: node "ps<j>" (a CPU host) joined by one duplex link of the
//              server NIC's bandwidth (parameter_servers.nic_bw; default: the bandwidth of a GPU's network link,
//              the narrowest network link on GPU 0's path into the fabric) to the network switch with the most
//              links (a spine or the core switch, so no server sits behind a worker's leaf), with that switch's
//              link latency. A topology without a network switch cannot host dedicated servers.
//   colocated  server j runs on worker j's GPU and uses its links (count <= workers).
#include <cstdint>
#include <optional>
#include <vector>

#include "syncsim/core/units.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

// The scenario's `parameter_servers.placement` (its names: scenario_enums.cpp).
enum class ServerPlacement { dedicated, colocated };

struct PlacedServers {
  Topology topology;            // the given one, with dedicated servers added
  std::vector<NodeId> servers;  // server j's node
  Bandwidth server_link;        // a dedicated server's link; zero for colocated
};

// `count` servers for `workers` workers in `network`'s topology (its routes find a GPU's network link); `nic` is a
// dedicated server's link (nullopt: a GPU's network link). Throws InputError for more colocated servers than
// workers, or dedicated servers without a switch to attach to.
PlacedServers place_servers(Router& network, std::int64_t count, ServerPlacement placement,
                            std::optional<Bandwidth> nic, std::int64_t workers);

}  // namespace syncsim
