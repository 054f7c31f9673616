#pragma once
// Reading a sweep's CSV (one row per simulated point) into scaling series: throughput and scaling efficiency
// against GPU count, one series per configuration.
//
// The first line is a header; columns are found by name (case-insensitive), in any order, others ignored:
//
//   GPU count    gpus | workers | ranks | n
//   throughput   samples_per_second | samples_per_s | throughput | samples/s
//   efficiency   scaling_efficiency | efficiency   (optional, cells may be empty; a fraction, or percent if any > 1.5)
//   config       config | configuration | label | name     (optional; else see below)
//
// `syncsim sweep -o results.csv` writes such a file (workers, samples_per_s, scaling_efficiency), `syncsim plan` its
// plan.csv (gpu, network, gpus, ..., pareto, bottleneck). Without a config column, a configuration is the value of
// every candidate column that takes more than one value at one GPU count (training.algorithm, model.batch_per_gpu;
// a plan's gpu and network) but not of those that only follow it (cluster.topology.nodes); candidates are the varied
// keys (the columns before "scenario") in a syncsim sweep, else the non-numeric columns — never a point's results
// (pareto, bottleneck, meets_target, fits: kDetailColumns), which would split one configuration in several. Its name
// is the values, as `syncsim plan` names configurations ("ring", "H100-SXM-80GB / scenario"); the columns and the
// point's results go to the chart's tooltip.
//
// Without an efficiency column it is computed per configuration against its smallest GPU count g0 with
// throughput T0:  efficiency(g) = (T(g) / g) / (T0 / g0).  The ideal-linear line is T0 * g / g0.
// Bad input (no header, a missing GPU or throughput column, a value that is not a number) throws
// syncsim::InputError with the file and line.
#include <QString>
#include <QStringList>
#include <string_view>
#include <vector>

// A point's results that say something about it but are no part of its configuration.
inline constexpr const char* kDetailColumns[] = {"rank",
                                                 "pareto",
                                                 "meets_target",
                                                 "fits",
                                                 "bottleneck",
                                                 "bottleneck_resource",
                                                 "bottleneck_link_class",
                                                 "bottleneck_share"};

struct ScalingPoint {
  int gpus = 0;
  double throughput = 0;
  double efficiency = 0;  // fraction, 1 = linear
  QStringList details;    // "pareto: true", "bottleneck: communication: ..." (the kDetailColumns it has)
};

struct ScalingSeries {
  QString config;                    // the legend's name: the configuration's values ("ring")
  QString description;               // the columns too ("training.algorithm=ring"); empty with a config column
  std::vector<ScalingPoint> points;  // sorted by gpus
  double idealThroughput(int gpus) const;
  // The tooltip of point i: the configuration, the point's numbers and its details.
  QString toolTip(std::size_t point) const;
};

struct ScalingData {
  std::vector<ScalingSeries> series;
  QStringList configurationColumns;  // the columns that tell configurations apart ("training.algorithm"), if any
  std::size_t pointCount() const;
};

ScalingData readSweepCsv(const QString& path);
ScalingData parseSweepCsv(std::string_view text, const QString& source);
