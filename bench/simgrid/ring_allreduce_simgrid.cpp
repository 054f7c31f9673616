// Ring AllReduce time on a single-switch star network, predicted by SimGrid's flow model, so syncsim's scale
// benchmark can put SimGrid's wall time and memory beside its own for the same prediction:
//   bench_ring_allreduce_simgrid --gpus N --size BYTES --bw-gbps G --lat-us L
// prints exactly one line:
//   simgrid ring allreduce: gpus=N size=BYTES simulated_s=... wall_s=... peak_rss_mb=...
//
// What it models. One host per GPU in a SimGrid star zone; each host has a private full-duplex (split-duplex) link of
// G Gbit/s and L us to the central switch, so a GPU-to-GPU route crosses the sender's uplink and the receiver's
// downlink: latency 2L, bottleneck G. The ring runs 2(N-1) steps (reduce-scatter, then all-gather); at each step
// rank i sends SIZE/N bytes to rank i+1 and receives SIZE/N bytes from rank i-1, and starts the next step only once
// both have completed. There is no reduction compute. One actor per rank.
//
// Why the configuration below makes SimGrid's flow model equal the alpha-beta closed form
//   time = 2(N-1) * (2L + (SIZE/N) / (G*1e9/8)):
//  - network/model:CM02 is the plain max-min model: a flow waits its route's latency, then shares bandwidth max-min.
//    The default (LV08) and the SMPI model scale latency and bandwidth with calibration factors fitted to real TCP.
//  - network/latency-factor:1 and network/bandwidth-factor:1 remove any calibration left, so a flow's latency is the
//    sum of its links' latencies and its rate is the bottleneck link's bandwidth.
//  - network/weight-S:0 makes max-min shares independent of route latency (RTT-unfairness weighting is off). In this
//    ring each link carries one flow at a time anyway; this keeps the model the closed form's even if it did not.
//  - network/TCP-gamma:0 disables the TCP window bound rate <= gamma / (2 * latency), which the closed form lacks
//    and which would bind at the default 4 MiB window once the payload unit below is fine.
//  - network/crosstraffic:0 stops each flow from loading the reverse links with its acknowledgements; with it on,
//    rank i+1 -> i+2 data would share rank i+1's uplink with rank i -> i+1's acknowledgements.
//  - No loopback is configured: no rank sends to itself (N >= 2).
// SimGrid counts payloads in whole units (uint64_t). When N does not divide SIZE, the program simulates in units of
// 1/u byte with u = N / gcd(SIZE, N): each chunk is then SIZE / gcd(SIZE, N) units and each link carries u times as
// many units per second, so every transfer takes exactly (SIZE/N) / (G*1e9/8) seconds, as in the closed form, instead
// of rounding the chunk to a whole byte. When N divides SIZE, u is 1 and the platform is in plain bytes.
#include <sys/resource.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct Options {
  std::uint64_t gpus = 0;
  std::uint64_t size = 0;  // bytes of the whole buffer being all-reduced
  double bw_gbps = 0.0;
  double lat_us = 0.0;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "bench_ring_allreduce_simgrid: %s\n"
               "usage: bench_ring_allreduce_simgrid --gpus N --size BYTES --bw-gbps G --lat-us L\n"
               "  N >= 2 GPUs, BYTES a positive whole number (100e6 is accepted), G > 0 Gbit/s per link,\n"
               "  L >= 0 microseconds per link (a GPU-to-GPU route crosses two links)\n",
               message.c_str());
  std::exit(2);
}

// strtod on the whole text, so "5us" or "" are errors rather than silently 5 or 0.
std::optional<double> parse_number(const char* text) {
  if (*text == '\0') return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Whole numbers as doubles, so "100e6" works; above 2^53 a double no longer holds every integer.
std::uint64_t parse_whole(const char* flag, const char* text, double min) {
  const auto value = parse_number(text);
  if (!value || *value < min || *value > 9007199254740992.0 || std::floor(*value) != *value) {
    usage_error(std::string(flag) + " wants a whole number >= " + std::to_string(static_cast<long long>(min)) +
                ", got '" + text + "'");
  }
  return static_cast<std::uint64_t>(*value);
}

Options parse_options(int argc, char** argv) {
  Options options;
  bool seen[4] = {false, false, false, false};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::printf("usage: bench_ring_allreduce_simgrid --gpus N --size BYTES --bw-gbps G --lat-us L\n");
      std::exit(0);
    }
    if (i + 1 >= argc) usage_error("missing value after '" + flag + "'");
    const char* value = argv[++i];
    if (flag == "--gpus") {
      // An actor and a host per GPU: far beyond 2^24 the run would not fit in memory anyway.
      options.gpus = parse_whole("--gpus", value, 2);
      if (options.gpus > (std::uint64_t{1} << 24)) usage_error("--gpus is at most 16777216");
      seen[0] = true;
    } else if (flag == "--size") {
      options.size = parse_whole("--size", value, 1);
      seen[1] = true;
    } else if (flag == "--bw-gbps") {
      const auto bw = parse_number(value);
      if (!bw || *bw <= 0.0) usage_error(std::string("--bw-gbps wants a number > 0, got '") + value + "'");
      options.bw_gbps = *bw;
      seen[2] = true;
    } else if (flag == "--lat-us") {
      const auto lat = parse_number(value);
      if (!lat || *lat < 0.0) usage_error(std::string("--lat-us wants a number >= 0, got '") + value + "'");
      options.lat_us = *lat;
      seen[3] = true;
    } else {
      usage_error("unknown argument '" + flag + "'");
    }
  }
  const char* names[4] = {"--gpus", "--size", "--bw-gbps", "--lat-us"};
  for (int k = 0; k < 4; ++k) {
    if (!seen[k]) usage_error(std::string("missing ") + names[k]);
  }
  return options;
}

// prefix + number by append: GCC 12 warns falsely (-Wrestrict, its bug 105651) on "literal" + std::string&& at -O3.
std::string numbered(const char* prefix, std::uint64_t number) {
  std::string name = prefix;
  name += std::to_string(number);
  return name;
}

// Every put needs a payload pointer; the data itself is never looked at, only its simulated size.
int token = 0;

void rank_actor(std::uint64_t rank, std::uint64_t gpus, std::uint64_t chunk_units) {
  // Mailbox r<i> is rank i's inbox: rank i-1 puts into it, rank i gets from it, so each mailbox has one sender and
  // one receiver and the FIFO matching pairs step s with step s.
  sg4::Mailbox* outbox = sg4::Mailbox::by_name(numbered("r", (rank + 1) % gpus));
  sg4::Mailbox* inbox = sg4::Mailbox::by_name(numbered("r", rank));
  const std::uint64_t steps = 2 * (gpus - 1);
  for (std::uint64_t step = 0; step < steps; ++step) {
    sg4::CommPtr send = outbox->put_async(&token, chunk_units);
    int* received = nullptr;
    sg4::CommPtr recv = inbox->get_async<int>(&received);
    // The next step's chunk depends on both: the one received is reduced/forwarded, and the send buffer is reused.
    send->wait();
    recv->wait();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  const auto wall_start = std::chrono::steady_clock::now();

  // SimGrid reads only argv[0]; our flags are not its --cfg/--log ones.
  int sg_argc = 1;
  char* sg_argv[] = {argv[0], nullptr};
  sg4::Engine engine(&sg_argc, sg_argv);
  // Before any set_config, which would log each change at INFO: stdout must hold only the result line.
  xbt_log_control_set("root.threshold:critical");
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/latency-factor:1");
  sg4::Engine::set_config("network/bandwidth-factor:1");
  sg4::Engine::set_config("network/weight-S:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config("network/crosstraffic:0");

  // Payload unit of 1/unit byte so that the chunk SIZE/N is a whole number of units (see the header comment).
  const std::uint64_t common = std::gcd(options.size, options.gpus);
  const double unit = static_cast<double>(options.gpus / common);
  const std::uint64_t chunk_units = options.size / common;
  const double link_bandwidth = unit * options.bw_gbps * 1e9 / 8.0;  // units per second, each direction
  const double link_latency = options.lat_us * 1e-6;

  // The first zone created becomes the platform's root.
  sg4::NetZone* zone = sg4::create_star_zone("switch");
  std::vector<sg4::Host*> hosts;
  hosts.reserve(options.gpus);
  for (std::uint64_t i = 0; i < options.gpus; ++i) {
    sg4::Host* host = zone->create_host(numbered("gpu-", i), 1e9);  // CPU speed unused: no compute is simulated
    // Split-duplex: the up and down directions are separate resources, so rank i's send and its receive (from
    // rank i-1) do not share bandwidth, as on a full-duplex NIC.
    sg4::Link* link = zone->create_split_duplex_link(numbered("link-", i), link_bandwidth)->set_latency(link_latency);
    // A star zone's route from a host to any other is its own link UP then the destination's link DOWN
    // (symmetrical: the reverse route takes the DOWN direction).
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, true);
    hosts.push_back(host);
  }
  zone->seal();

  for (std::uint64_t i = 0; i < options.gpus; ++i) {
    sg4::Actor::create(numbered("rank-", i), hosts[i], rank_actor, i, options.gpus, chunk_units);
  }
  engine.run();

  const double simulated = sg4::Engine::get_clock();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  // ru_maxrss is in KiB on Linux; divided by 1024 like bench_collective, so the two peak_rss columns compare.
  std::printf("simgrid ring allreduce: gpus=%llu size=%llu simulated_s=%.9f wall_s=%.3f peak_rss_mb=%.1f\n",
              static_cast<unsigned long long>(options.gpus), static_cast<unsigned long long>(options.size), simulated,
              wall, static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
