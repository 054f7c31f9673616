#pragma once
// What the GUI benchmarks share: the median of repeated runs in wall and this thread's CPU time (what a frame
// costs when other processes share the cores), after one warm-up run (allocations, caches).
#include <time.h>
#include <QElapsedTimer>

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
