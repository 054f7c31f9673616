#pragma once
// A model's layers matched to the module calls of a profiler trace (profile_trace.hpp), for `model.profile`: each
// layer's forward and backward become the measured ones, in place of the roofline's (compute_model.hpp).
//
// The layers and the trace's forward calls are walked together, in order; the layer at hand takes the next call
//
//   by name   when it is named as the module (a module called once):  conv1 <- nn.Module: conv1
//   by call   when it is the module's name with the call's number, for a module called several times:
//             layer1.0.relu1, relu2, relu3 <- the 1st, 2nd, 3rd call of nn.Module: layer1.0.relu
//   by order  when neither is named by the other and both sit in the same parent module (the same name up to the
//             last '.'): layer1.0.downsample.conv <- nn.Module: layer1.0.downsample.0 (an nn.Sequential's index)
//
// A layer with no parameters that no call is named for is an operation with no module (a residual add, a
// flatten): it takes the forward time between the previous call and the next one (`gap_before`) and no backward
// (autograd runs its backward inside the range of the module before it). Any other layer that does not match the
// next call, or a call left over at the end, is an InputError naming the first layer (its index and name) and the
// call the trace has there.
//
// Conserved: the layers' forwards and the unattributed forward (the gaps no layer took, the loss after the last
// module) add up to the trace's forward phase; the layers' backwards and the unattributed backward to its backward
// phase.
//
// The times are the trace's, at the batch it was taken at. At another batch each layer is scaled by the roofline's
// own batch dependence (profiled_times): t(B) = t(b) x roofline(B) / roofline(b), so a compute-bound layer scales
// with the batch and a launch-bound one stays; at the profile's batch the measurement is kept exactly.
#include <cstdint>
#include <string>
#include <vector>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/compute/profile_trace.hpp"
#include "syncsim/core/sim_time.hpp"

namespace syncsim {

enum class ProfileMatch { name, call, order, between };

struct LayerProfile {
  std::string source;            // the trace file
  std::vector<SimTime> forward;  // per layer of the model, at the trace's batch
  std::vector<SimTime> backward;
  std::vector<ProfileMatch> matched;  // how each layer found its time
  std::size_t module_calls = 0;       // the trace's forward calls, every one matched to a layer
  SimTime unattributed_forward;       // forward time no layer took
  SimTime unattributed_backward;      // backward time outside the module ranges
  bool kernel_times = false;          // the trace's times are GPU kernels' (profile_trace.hpp)

  std::size_t count(ProfileMatch how) const;
  SimTime total_forward() const;
  SimTime total_backward() const;
};

// Throws InputError (at the trace's file) naming the first layer that matches no call, or the first call left over.
LayerProfile match_layers(const ModelSpec& model, const ProfileTrace& trace);

struct ProfiledTimes {
  std::vector<SimTime> forward;
  std::vector<SimTime> backward;
};

// The profile's layer times at `batch`, scaled from `profile_batch` by `roofline`'s forward of each layer.
ProfiledTimes profiled_times(const LayerProfile& profile, const ComputeModel& roofline, const ModelSpec& model,
                             std::int64_t profile_batch, std::int64_t batch);

}  // namespace syncsim
