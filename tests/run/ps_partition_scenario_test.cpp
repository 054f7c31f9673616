// Parameter servers as frameworks place them, end to end (run_scenario): whole tensors round robin make the server
// holding VGG-16's fc6 weight (102.8 M of its 138.4 M parameters) the hot spot the report names, its link carrying
// N x its tensors per step in each direction; greedy cannot split that tensor either; the per-message cost adds up
// per tensor per server.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "worker_compute.hpp"

namespace syncsim {
using worker_compute::compute_per_iteration;
namespace {

// vgg16 on one 100 Gbps switch, 8 workers, 4 dedicated servers, no overlap: every worker pushes its whole gradient
// at once (one message per tensor per server), so a round is C + 2 alpha + 2 N S_j / B + N a, with S_j the bytes
// of the busiest server (parameter_server_run.hpp).
constexpr const char* kPartitionScenario = R"(
name: ps-partition
seed: 7
cluster:
  gpu: A100-SXM4-80GB
  topology: "switch:n=8,bw=100Gbps,lat=5us"
model: {name: vgg16, batch_per_gpu: 32, precision: fp16}
training:
  strategy: sync
  communication: parameter_server
  parameter_servers: {count: 4, apply_time: 200us}
  overlap: false
  iterations: 3
)";

constexpr double kLink = 100e9 / 8;  // bytes per second
constexpr double kAlpha = 10e-6;     // GPU -> switch -> server: two 5 us links
constexpr double kApply = 200e-6;
constexpr int kWorkers = 8;
constexpr int kServers = 4;

TrainingReport run_partitioned(std::vector<std::string> overrides) {
  return run::run_scenario(parse_scenario(kPartitionScenario, "ps.yaml", overrides)).report;
}

// The fp16 gradient bytes of each tensor: one per vgg16 layer with parameters, in forward order.
std::vector<double> tensor_bytes() {
  std::vector<double> out;
  const ModelSpec vgg16 = find_model("vgg16");  // named: a temporary would die before the loop runs
  for (const Layer& layer : vgg16.layers()) {
    if (layer.params > 0) out.push_back(2.0 * static_cast<double>(layer.params));
  }
  return out;
}

double link_bytes(const TrainingReport& r, const std::string& from, const std::string& to) {
  for (const LinkReport& link : r.busiest_links) {
    if (link.from == from && link.to == to) return link.bytes;
  }
  return -1;
}

TEST_CASE("round_robin: the server holding the one large tensor is the bottleneck, at N x its bytes") {
  const std::vector<double> tensors = tensor_bytes();
  REQUIRE(tensors.size() == 16);  // 13 convolutions and 3 fully connected layers
  // Tensor t on server t mod 4: fc6 (tensor 13) on ps1, with conv1_2, conv3_2 and conv4_3 (tensors 1, 5, 9).
  double on_ps1 = 0;
  for (std::size_t t = 1; t < tensors.size(); t += kServers) on_ps1 += tensors[t];
  double model = 0;
  for (const double t : tensors) model += t;
  CHECK(tensors[13] > 0.74 * model);  // fc6 alone is three quarters of the model

  const TrainingReport r = run_partitioned({"training.parameter_servers.partition=round_robin"});
  CHECK(r.bottleneck.bound == "parameter_server");
  CHECK(r.bottleneck.resource.find("ps1") != std::string::npos);
  // ps1's NIC carries every worker's push of its tensors in, and their pull out, every step.
  const double expected = kWorkers * on_ps1 * static_cast<double>(r.iterations);
  CHECK(link_bytes(r, "sw0", "ps1") == Approx(expected).epsilon(1e-12));
  CHECK(link_bytes(r, "ps1", "sw0") == Approx(expected).epsilon(1e-12));
  CHECK(r.busiest_links.front().bytes == Approx(expected).epsilon(1e-12));
  // The round is the hot spot's closed form.
  const double round =
      compute_per_iteration(r).seconds() + 2 * kAlpha + 2 * kWorkers * on_ps1 / kLink + kWorkers * kApply;
  CHECK(r.iteration_mean.seconds() == Approx(round).epsilon(1e-6));

  // Evenly split, every server carries N S / 4 each way.
  const TrainingReport even = run_partitioned({});
  CHECK(link_bytes(even, "sw0", "ps0") == Approx(kWorkers * model / kServers * 3).epsilon(1e-12));
  CHECK(r.iteration_mean.seconds() > 2.5 * even.iteration_mean.seconds());
}

// VGG-16's tensors grow layer by layer (each convolution at least as large as the one before), so the emptiest
// server is always the next one in turn: greedy places it exactly as round robin does, fc6 on ps1.
TEST_CASE("greedy: VGG-16 placed as round robin places it, bound by the tensor it cannot split") {
  const TrainingReport rr = run_partitioned({"training.parameter_servers.partition=round_robin"});
  const TrainingReport greedy = run_partitioned({"training.parameter_servers.partition=greedy"});
  CHECK(greedy.iteration_mean == rr.iteration_mean);
  CHECK(greedy.busiest_links.front().bytes == rr.busiest_links.front().bytes);
  CHECK(greedy.bottleneck.resource == rr.bottleneck.resource);
}

// per_message p with no overlap: each worker sends k x T messages (every tensor to every server under even) and
// receives as many; each server receives N x T and sends N x T. The rounds differ by 2 k T p + 2 N T p exactly when
// every message cost adds to the critical path: one worker and one server here (N = k = 1).
TEST_CASE("per_message: 2 (k + N) T p per round, paid per tensor per server") {
  const std::vector<std::string> one = {"cluster.workers=1", "training.parameter_servers.count=1"};
  std::vector<std::string> priced = one;
  priced.push_back("training.parameter_servers.per_message=50us");
  const TrainingReport free = run_partitioned(one);
  const TrainingReport paid = run_partitioned(priced);
  const double messages = static_cast<double>(tensor_bytes().size());  // T = 16
  CHECK((paid.iteration_mean - free.iteration_mean).seconds() == Approx(2 * (1 + 1) * messages * 50e-6).epsilon(1e-9));

  // A worker talking to 4 servers under even pays 4 messages per tensor; round robin sends each tensor once.
  const auto overhead = [&](const std::string& partition) {
    const std::vector<std::string> base = {"training.parameter_servers.partition=" + partition,
                                           "training.parameter_servers.apply_time=0s", "cluster.workers=1"};
    std::vector<std::string> with = base;
    with.push_back("training.parameter_servers.per_message=1ms");
    return (run_partitioned(with).iteration_mean - run_partitioned(base).iteration_mean).seconds();
  };
  // even: client 2 x 4 x 16 messages; each server 2 x 16 in parallel with the others' (after the push) -> 160 ms.
  CHECK(overhead("even") == Approx(2 * 4 * 16e-3 + 2 * 16e-3).epsilon(1e-6));
}

// host: cpu applies an update at the host's memory bandwidth: the optimizer's step traffic over the shard's
// parameters, a = P x step bytes / bw (optimizer.hpp). One server and N = 2 workers pay N a per round, so going
// from 20 GB/s to 10 GB/s adds N x P x step bytes / 20 GB/s.
TEST_CASE("host: cpu applies updates at the host's memory bandwidth") {
  const auto round = [](const std::string& bw) {
    const Scenario s = parse_scenario(kPartitionScenario, "ps.yaml",
                                      {"cluster.workers=2",
                                       "training.parameter_servers={count: 1, host: cpu, "
                                       "host_memory_bw: " +
                                           bw + "}"});
    return run::run_scenario(s).report.iteration_mean.seconds();
  };
  const double params = static_cast<double>(find_model("vgg16").params());
  const Scenario s = parse_scenario(kPartitionScenario, "ps.yaml");
  const double step_bytes = static_cast<double>(optimizer_step_bytes(s.model.optimizer.value));
  const double apply_at_20 = params * step_bytes / 20e9;
  CHECK(round("10GB/s") - round("20GB/s") == Approx(2 * apply_at_20).epsilon(1e-6));
}

}  // namespace
}  // namespace syncsim
