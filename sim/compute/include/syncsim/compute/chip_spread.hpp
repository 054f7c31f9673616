#pragma once
// The slowest chip paces a synchronous job.
//
// Chips of one SKU do not run at one speed: at the board's power limit each settles to the clock its own silicon
// (leakage, voltage curve) and cooling allow. Sinha et al. (SC'22, "Not All GPUs Are Created Equal: Characterizing
// Variability in Large-Scale, Accelerator-Rich Systems", arXiv 2208.11035) timed over 90% of the GPUs of Summit,
// Vortex, Frontera, Longhorn and Corona: an average 8% (up to 22%) between a cluster's fastest and slowest GPU of one
// SKU, whatever the application, the vendor or the cooling.
//
// Model: chip i's compute time is the median chip's times (1 + s Z_i), Z_i independent standard normals, s the speed
// spread. Every collective of a synchronous step waits for its slowest member, and the job's groups chain to all of
// its GPUs (a tensor group inside a pass, a pipeline through its stages, the data-parallel reduction at the end), so
// the job computes at its slowest chip's pace:
//
//     factor(N) = 1 + s E[max(Z_1 .. Z_N)],   E[max] = ∫ x N φ(x) Φ(x)^(N-1) dx
//
// E[max] is 0 for one GPU, 1.42 for 8, 2.59 for 128, 3.44 for 2,048, 3.97 for 16,384 and 4.86 for 1,000,000. The
// default spread is the one whose expected range over Summit's 27,648 GPUs, 2 E[max] s with E[max] = 4.09, is
// Sinha's 8%: s = 0.98%, rounded to 1%.
// For a pipeline it is an upper bound (a slow chip on a light stage can hide in the others' time), within
// s (E[max over N] - E[max over N / stages]).
#include <cstdint>

namespace syncsim {

inline constexpr double kDefaultSpeedSpread = 0.01;
inline constexpr double kMaxSpeedSpread = 0.2;  // a spread past 20% is a fleet of different parts, not one SKU

// E[max of n independent standard normals]; 0 for n = 1. Throws InputError for n < 1.
double expected_max_standard_normal(std::int64_t n);

// The job's compute time over the median chip's: 1 + spread x expected_max_standard_normal(gpus). Throws InputError
// when spread is not in [0, kMaxSpeedSpread] or gpus < 1.
double slowest_chip_factor(double spread, std::int64_t gpus);

}  // namespace syncsim
