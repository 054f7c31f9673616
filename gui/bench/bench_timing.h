#pragma once
// What the GUI benchmarks share: the median of repeated runs in wall and this thread's CPU time (what a frame
// costs when other processes share the cores), after one warm-up run (allocations, caches); their flags and rows.
#include <time.h>
#include <QElapsedTimer>
#include <QStringList>

#include <cstdio>

#include <algorithm>
#include <functional>
#include <vector>

inline double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Timing {
  double wallMs;
  double cpuMs;
};

inline Timing median(int repeat, const std::function<void()>& run) {
  std::vector<double> wall;
  std::vector<double> cpu;
  run();  // warm-up
  for (int i = 0; i < repeat; ++i) {
    QElapsedTimer t;
    const double c0 = threadCpuMs();
    t.start();
    run();
    wall.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    cpu.push_back(threadCpuMs() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

// The value after flag `name` on the command line, else `fallback`.
inline QString benchArg(const QStringList& args, const char* name, const char* fallback) {
  const qsizetype i = args.indexOf(QLatin1String(name));
  return i >= 0 && i + 1 < args.size() ? args[i + 1] : QString::fromLatin1(fallback);
}

inline int benchIntArg(const QStringList& args, const char* name, int fallback) {
  bool ok = false;
  const int v = benchArg(args, name, "").toInt(&ok);
  return ok ? v : fallback;
}

// One row of a benchmark's table: what, wall ms, CPU ms.
inline void printTiming(const char* what, const Timing& t) {
  std::printf("%-44s %8.2f %8.2f\n", what, t.wallMs, t.cpuMs);
}
