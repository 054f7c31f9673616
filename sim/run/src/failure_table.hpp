#pragma once
// The components a job's failures come from, counted from its topology, and the default failure table.
//
// Components (docs/faults.md, "Goodput"): the job's GPUs (its workers); HBM, one set of stacks per GPU; the NICs of
// the job's hosts; every network switch of the topology (a job's traffic crosses the whole fabric; cables count with
// their switch); hosts, the nodes that hold the job's GPUs; software, one process per GPU.
//
// Failure domains: a GPU, HBM, NIC or host failure takes its node down; a leaf switch (one linked to the job's NICs
// or GPUs) the nodes under it; a switch above the leaves and a software failure no node (the job restarts where it
// was). Every failure interrupts the whole synchronous job.
//
// The default table is the Llama 3 paper's 54-day snapshot (Dubey et al. 2024, "The Llama 3 Herd of Models",
// §3.3.4, Table 5: 419 unexpected interruptions on 16,384 H100) spread over that cluster's components:
//
//   rate = interruptions of the class / (components x 54 days x 24 h)
//
// With the components of a 16,384-GPU dgx topology (2,048 hosts, 16,384 NICs, 1,280 switches) the expected count
// over 54 days is 419 by construction: the table's calibration point, not a validation.
#include <cstdint>
#include <string>
#include <vector>

#include "syncsim/scenario/reliability_config.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::run {

struct ClusterComponents {
  std::int64_t gpus = 0;
  std::int64_t nics = 0;
  std::int64_t switches = 0;
  std::int64_t leaf_switches = 0;
  std::int64_t hosts = 0;
  std::int64_t nodes_per_leaf = 0;  // the most job hosts under one leaf switch
};

// The job's components: the first `workers` GPUs of `topology`, their hosts (a GPU without a host is its own).
ClusterComponents count_components(const Topology& topology, std::int64_t workers);

// Per component-hour, from the Llama 3 table (see above).
FailureRates llama3_failure_rates();

// One class of failures in the job: how many components fail at which rate, and what one failure takes down.
struct FailureClass {
  std::string name;  // gpu | hbm | nic | switch | host | software
  std::int64_t components = 0;
  double rate_per_hour = 0;
  std::int64_t domain_nodes = 0;  // nodes one failure takes down
  double domain_share = 1;        // the fraction of its failures that take them down (switches: the leaves')
};

std::vector<FailureClass> failure_classes(const FailureRates& rates, const ClusterComponents& components);

// Sum of rate x components x hours: the expected interruptions in `hours` of wall time.
double expected_interruptions(const std::vector<FailureClass>& classes, double hours);

}  // namespace syncsim::run
