#pragma once
// What the kernel model ran a scenario's shaped layers at (TrainingReport::KernelModelReport): `syncsim run`'s
// "kernels" line and report.json's "kernel_model", so that a prediction by shape says which anchors it stands on.
#include <optional>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

// nullopt unless the scenario runs kernels by shape (model.kernels without a model.efficiency or a fitted step).
std::optional<TrainingReport::KernelModelReport> kernel_model_report(const ComputeModel& compute);

}  // namespace syncsim::run
