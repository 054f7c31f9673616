#pragma once
// Plan analysis: from simulated cluster sizes to a ranked table, the knee and one recommendation.
//
// A configuration is a (GPU type, network) pair; its points are cluster sizes n1 < n2 < ... For each point:
//
//   per-GPU baseline     t1     = throughput(n_s) / n_s, n_s the configuration's smallest count that fits (a
//                                 model too big for one GPU has no one-GPU run to compare with)
//   scaling efficiency   E(n)   = throughput(n) / (n x t1)                  (so E(n_s) = 1)
//   marginal efficiency  M(n_i) = (throughput(n_i) - throughput(n_{i-1})) / ((n_i - n_{i-1}) x t1)
//                                 with throughput(n_0) = 0 and n_0 = 0, so M(n1) = E(n1)
//
// M is what the last GPUs bought: 1 when they scale perfectly, 0 when they add nothing, negative when the cluster
// got slower. The knee is the largest n_i such that M stays >= the threshold for n1..n_i — past it, GPUs still
// cost full price but return less than the threshold's share. No knee: even the smallest size is below it.
//
// With failures counted (plan_failures.hpp) every throughput below is the effective one, samples/s x k (k the share
// of the wall time that trains iterations kept), and the GPU-hours and the cost count the hot spares' GPUs.
//
// Cost: $/hour = n x (gpu_hour + network_gpu_hour) from the user's price file; $ per million samples =
// $/hour / (throughput x 3600) x 1e6; time-to-train = samples / throughput; GPU-hours = n x time-to-train; cost to
// train = $/hour x time-to-train.
//
// Memory: points whose GPUs cannot hold their share of the model (memory_check.hpp) are listed after all the others
// and take no part in the knee or the recommendation; a configuration's marginal efficiencies run over its points
// that fit.
//
// Recommendation:
//   with a throughput target: the cheapest point that meets it, whatever its efficiency (cheapest by $/hour;
//     without prices, fewest GPUs): a rate sustained is paid by the hour;
//   with samples within a time (a deadline): the point that meets it at the lowest total cost to train (without
//     prices, the fewest GPU-hours), whatever its efficiency: a fixed amount of work is paid in full, and a faster
//     cluster rented for less time can cost less;
//   with a target loss (--objective time-to-accuracy): the point that reaches it soonest in simulated time
//     (with prices: at the lowest cost to reach it, $/hour x time-to-target), whatever its throughput — more GPUs
//     that run faster but learn less per sample, or stale asynchronous updates, can reach it later or never;
//   without one: among the configurations' knees, the best throughput per dollar (without prices: the fastest),
//     i.e. the biggest cluster of each kind that still scales, then the best buy among those.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace syncsim::planner {

// One point's throughput over several seeds (seed_spread.hpp): nearest-rank quantiles, samples/s.
struct SeedSpread {
  std::int64_t seeds = 0;
  double p10 = 0;
  double p50 = 0;
  double p90 = 0;
};

struct PlanPoint {
  std::string gpu;      // canonical catalog name
  std::string network;  // label: a --networks name, the spec, or "scenario"
  std::string layout;   // with --layouts auto: the layout that stands for the point (layout_search.hpp)
  std::int64_t gpus = 0;
  double samples_per_s = 0;
  // With a calibration: samples/s with every collective at its error band's high, then low edge (TrainingReport::
  // calibration_band); nullopt without one.
  std::optional<std::pair<double, double>> samples_per_s_band{};
  double single_gpu_samples_per_s = 0;   // analyze_plan: the smallest count's that fits, per GPU (the baseline t1)
  double scaling_efficiency = 0;         // analyze_plan: against the configuration's smallest count that fits
  std::string bottleneck;                // "compute", "communication: pod0 -> pod1 (network)", ...
  double bottleneck_share = 0;           // of the iteration: the bound cause's loss, or compute's share
  std::string bottleneck_summary;        // BottleneckReport::summary: the cause in words
  std::string bottleneck_cause;          // BottleneckReport::bound
  std::optional<double> price_per_hour;  // the whole cluster
  // One GPU's memory under the scenario's layout (report.json's memory): a point that does not fit is ranked after
  // every point that does, never recommended, and left out of its configuration's knee.
  bool fits = true;
  double memory_bytes = 0;
  double memory_capacity_bytes = 0;
  std::optional<SeedSpread> spread;  // with --seeds N > 1: the runs' spread; samples_per_s is the --risk run's
  // Filled by analyze_plan:
  double marginal_efficiency = 0;
  std::optional<double> price_per_million_samples;
  std::optional<double> time_to_train_s;
  std::optional<double> gpu_hours;      // with --samples (or --tokens): GPUs x time-to-train
  std::optional<double> cost_to_train;  // and with prices: $/hour x time-to-train
  bool meets_target = true;
  bool pareto = false;  // on the cost vs time-to-train front (needs prices)
  // With a target loss (report.json's convergence): when the proxy reached it, or its best loss when it did not.
  std::optional<double> time_to_target_s;
  double best_loss = 0;
  std::optional<double> cost_to_target;  // price_per_hour x time_to_target
  // What the report says of the run's use of its GPUs (plan_point), for plan.csv: MFU as the report counts it, the
  // time shares, a transformer's tokens/s per GPU.
  double model_flops_utilization = 0;
  std::optional<double> tokens_per_s_per_gpu;
  // The iteration's time shares (training_report.hpp's time_shares: compute, recompute, the pipeline bubble, each
  // group's exposed communication, ..., summing to 1), plan.csv's `NAME_share` columns.
  std::vector<std::pair<std::string, double>> time_shares = {};
  // Energy (plan_energy.hpp, add_energy): one GPU's board power (the catalog's, or the scenario's power limit);
  // with --samples, GPUs x board power x PUE x time-to-train, and with an energy price what it costs.
  std::optional<double> gpu_power_watts;
  std::optional<double> energy_mwh;
  std::optional<double> energy_cost;
  // With failures counted (plan_failures.hpp): ETTR, and the share of the wall time that trains iterations kept,
  // k; samples/s x k is the throughput the efficiencies, the knee, the ranking and the costs use. With a sample
  // count, the hours failures add to the time to train (filled by analyze_plan). The checkpoint interval used,
  // the largest badput cause (goodput_model.hpp's names) and its share of the GPU time paid for, and the hot
  // spares' GPUs, which are paid beside the job's.
  std::optional<double> ettr;
  std::optional<double> kept_share;
  std::optional<double> badput_hours;
  std::optional<double> checkpoint_interval_s;
  std::string badput_cause = {};
  double badput_cause_share = 0;
  double spare_gpus = 0;
  std::optional<double> marginal_without_failures;  // analyze_plan: the marginal efficiency of samples/s alone
  // With --checkpoint-intervals or --spares (plan_dimensions.hpp): the row's pair, its checkpoint interval as given
  // ("optimal", "30min"; "scenario" for the scenario's fixed one) and its hot spare nodes. A point has one row per
  // pair; analyze_plan marks all but its best pair `alternative`: those are listed after every point's best, take
  // no part in the knee, the charts or the recommendation, and stay in plan.csv.
  std::string checkpoint_choice = {};
  std::optional<std::int64_t> spares;
  bool alternative = false;
};

struct PlanGoal {
  double min_efficiency = 0.8;
  std::optional<double> target_samples_per_s;  // --target-throughput, or samples / time-to-train
  std::optional<double> samples;               // --samples (or --tokens / sequence): time-to-train, total cost
  std::optional<double> deadline_s;            // --time-to-train: target_samples_per_s = samples / deadline
  std::optional<double> target_loss;           // --objective time-to-accuracy --target-loss X
};

struct PlanConfiguration {
  std::string gpu;
  std::string network;
  std::vector<std::size_t> points;         // into Plan::points, by GPU count
  std::optional<std::size_t> knee;         // the knee's point
  std::optional<std::size_t> first_below;  // the first point past the knee
  // The first point past the knee would still scale without failures (its marginal efficiency of samples/s alone
  // at or above the threshold): failures, or checkpointing, are what stop it.
  bool failures_cause = false;
};

struct Plan {
  std::vector<PlanPoint> points;  // ranked: the recommendation first (when there is one)
  std::vector<PlanConfiguration> configurations;
  std::optional<std::size_t> recommended;  // index into points (0 when present)
  std::string recommendation;              // one sentence
};

Plan analyze_plan(std::vector<PlanPoint> points, const PlanGoal& goal, const std::string& currency);

std::string configuration_name(const PlanPoint& p);  // "A100-SXM4-80GB / ib400"

// An amount with its currency: whole above 100 ("1234 USD"), else to the cent ("28.80 USD").
std::string money_text(double value, const std::string& currency);
// $/hour / (samples/s x 3600) x 1e6: what a million samples cost at this rate.
double price_per_million_samples(double price_per_hour, double samples_per_s);

// samples/s x the share of the wall time that trains (1 without failures counted): what a point delivers.
double effective_samples_per_s(const PlanPoint& p);

// A target rate as the header and the recommendation print it: whole samples/s from 1 up ("3000"), three
// significant digits below (a time-to-train target of 1.5 samples in 36 h is 1.16e-05 samples/s, not "0").
std::string target_rate_text(double samples_per_s);

}  // namespace syncsim::planner
