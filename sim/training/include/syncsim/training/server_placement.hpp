#pragma once
// Where the parameter servers sit in the network.
//
//   dedicated  servers are machines of their own: node "ps<j>" (a CPU host) joined by one duplex link of the
//              server NIC's bandwidth (parameter_servers.nic_bw; default: the bandwidth of a GPU's network link,
//              the narrowest network link on GPU 0's path into the fabric) to a top-tier switch (the network
//              switches farthest from every GPU: spines or cores, so no server sits behind a worker's leaf), with
//              that switch's link latency; server j on the (j mod k)-th of the k top-tier switches, so the
//              servers spread over the fabric. A topology without a network switch cannot host dedicated servers.
//   colocated  server j runs on client j's (first) GPU and uses its links (count <= clients): worker j's, or with
//              clients that are groups of workers, group j's first GPU, so the servers spread over the machines.
#include <cstdint>
#include <optional>
#include <vector>

#include "syncsim/core/units.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

// The scenario's `parameter_servers.placement` (its names: scenario_enums.cpp).
enum class ServerPlacement { dedicated, colocated };

// What applies a server's updates (`parameter_servers.host`): a GPU of the workers' kind, or the host's CPU at its
// memory bandwidth (TensorFlow's parameter servers are CPU processes).
enum class ServerHost { gpu, cpu };

// A CPU host's memory bandwidth by default: two sockets of four DDR4-2400 channels at 19.2 GB/s each (JEDEC
// JESD79-4), the theoretical peak of a two-socket Xeon E5 v4 server such as AWS p2.8xlarge's E5-2686 v4.
inline constexpr Bandwidth kDefaultHostMemoryBandwidth{153.6e9};

struct PlacedServers {
  Topology topology;            // the given one, with dedicated servers added
  std::vector<NodeId> servers;  // server j's node
  Bandwidth server_link;        // a dedicated server's link; zero for colocated
};

// `count` servers for `clients` clients of `client_gpus` consecutive GPUs each in `network`'s topology (its routes
// find a GPU's network link); `nic` is a dedicated server's link (nullopt: a GPU's network link). Throws InputError
// for more colocated servers than clients, or dedicated servers without a switch to attach to.
PlacedServers place_servers(Router& network, std::int64_t count, ServerPlacement placement,
                            std::optional<Bandwidth> nic, std::int64_t clients, std::int64_t client_gpus = 1);

}  // namespace syncsim
