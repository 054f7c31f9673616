#pragma once
// What one transfer of a collective costs on its route: the one costing the executor and the lockstep runner share,
// so that an uncontended step takes the same picoseconds on either path.
//
//   class(route)  network if the route crosses a network link, else pcie if it crosses a PCIe link, else nvlink
//   wire bytes    bytes / efficiency[class]     a protocol delivering a fraction of the link rate is modelled as
//                                               moving proportionally more bytes at the full rate
//   latency       step_latency[class]           paid once per transfer, after its last byte left; the route's
//                 (or, physical, route.latency) own latency when the cost has no per-class step latencies
//   reduction     bytes / reduction_rate        a receiving rank's reduction of its input; free without a rate
#include <optional>

#include "syncsim/collectives/latency_model.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

// The class of a route (see above): the index into TransferCost's per-class arrays.
LinkKind classify(const Topology& topology, const Route& route);

double wire_bytes(const TransferCost& cost, const Topology& topology, const Route& route, double bytes);
SimTime step_latency(const TransferCost& cost, const Topology& topology, const Route& route);
// The same for a route whose class is already known (a caller that sends on one route many times classifies it
// once).
double wire_bytes(const TransferCost& cost, LinkKind route_class, double bytes);
SimTime step_latency(const TransferCost& cost, LinkKind route_class, const Route& route);
SimTime reduction_time(const std::optional<Bandwidth>& reduction_rate, double bytes);

}  // namespace syncsim
