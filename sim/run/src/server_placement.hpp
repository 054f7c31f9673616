#pragma once
// Where the parameter servers sit in the network.
//
//   dedicated  servers are machines of their own: node "ps<j>" (a CPU host) joined by one duplex link of the
//              server NIC's bandwidth (parameter_servers.nic_bw; default: the bandwidth of a GPU's network link,
//              the narrowest network link on GPU 0's path into the fabric) to the network switch with the most
//              links (a spine or the core switch, so no server sits behind a worker's leaf), with that switch's
//              link latency. A topology without a network switch cannot host dedicated servers.
//   colocated  server j runs on worker j's GPU and uses its links (parameter_servers.count <= workers).
#include <vector>

#include "syncsim/scenario/training_config.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::run {

struct PlacedServers {
  Topology topology;            // the scenario's, with dedicated servers added
  std::vector<NodeId> servers;  // server j's node
  Bandwidth server_link;        // a dedicated server's link; zero for colocated
};

// Throws InputError at parameter_servers.count (too many colocated servers, no switch to attach dedicated ones).
PlacedServers place_servers(const Topology& topology, const ParameterServerConfig& config, std::int64_t workers);

}  // namespace syncsim::run
