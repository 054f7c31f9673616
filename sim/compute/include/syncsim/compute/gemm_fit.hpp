#pragma once
// gemm_fit: the kernel model's GEMM constant from the GEMMs a GPU profile timed (docs/calibration.md, "The GPU's
// compute, measured"), so that the user's own GPU replaces the published best-shape anchor (GpuSpec::best_gemm).
//
// The kernel model times a GEMM of F = 2·M·N·K FLOPs as F / (peak x core x f(shape)), f the tile, wave and K-start
// factors (kernel_model.hpp). A timed GEMM also pays a fixed start and drain (t0: the launch's ramp and the last
// tiles' tail) that a small GEMM shows and a large one hides. With x = F / (peak x f) and the measured time t:
//
//   t ≈ x / core + t0      least squares on the relative error, Σ ((t - x/core - t0) / t)², core > 0, t0 >= 0
//
// (t0 = 0 when the shapes are too alike to tell it from the rate, or when the best t0 would be negative). Weighting
// by 1/t² keeps a 10 µs GEMM and a 10 ms one equally heard. t0 is reported, not added to a layer: a layer already
// costs kernel_overhead per kernel (5 µs, more than the 2-3 µs an H200 shows), and a training GEMM runs milliseconds.
#include <cstddef>
#include <optional>
#include <span>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/kernel_model.hpp"

namespace syncsim {

struct GemmFit {
  double core = 0;           // the kernel model's constant (efficiency = core x the shape factors)
  double fixed_seconds = 0;  // t0
  double rms_error = 0;      // root mean square of the fitted times' relative errors
  std::size_t shapes = 0;    // measured GEMMs fitted
};

// Fits the measured GEMMs of `precision` in `gemms` on `model`'s shape factors (k_scale: the format's peak over
// BF16's, as KernelModel::gemm takes it) against `peak` FLOP/s. nullopt when none was measured at that precision.
// Requires model to shape GEMMs' factors (a GPU with multiprocessors).
std::optional<GemmFit> fit_gemm_core(const KernelModel& model, std::span<const MeasuredGemm> gemms, Precision precision,
                                     double peak, double k_scale);

}  // namespace syncsim
