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
// `syncsim sweep -o results.csv` writes such a file (workers, samples_per_s, scaling_efficiency). Without a config
// column, a configuration is the value of every candidate column that takes more than one value at one GPU count
// (training.algorithm, model.batch_per_gpu) but not of those that only follow it (cluster.topology.nodes);
// candidates are the varied keys (the columns before "scenario") in a syncsim sweep, else the non-numeric columns.
//
// Without an efficiency column it is computed per configuration against its smallest GPU count g0 with
// throughput T0:  efficiency(g) = (T(g) / g) / (T0 / g0).  The ideal-linear line is T0 * g / g0.
// Bad input (no header, a missing GPU or throughput column, a value that is not a number) throws
// syncsim::InputError with the file and line.
#include <QString>
#include <QStringList>
#include <string_view>
#include <vector>

struct ScalingPoint {
  int gpus = 0;
  double throughput = 0;
  double efficiency = 0;  // fraction, 1 = linear
};

struct ScalingSeries {
  QString config;
  std::vector<ScalingPoint> points;  // sorted by gpus
  double idealThroughput(int gpus) const;
};

struct ScalingData {
  std::vector<ScalingSeries> series;
  std::size_t pointCount() const;
};

ScalingData readSweepCsv(const QString& path);
ScalingData parseSweepCsv(std::string_view text, const QString& source);
