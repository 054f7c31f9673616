#pragma once
// Pipeline schedules and their timing: the order in which each stage runs its micro-batches' forward and backward
// passes, and when each pass runs once the stages wait on one another.
//
// p stages (devices), m micro-batches, v model chunks per device (v > 1 only for the interleaved schedule): the
// model is cut into p x v chunks and device s holds chunks s, s + p, s + 2p, ... (Megatron-LM's virtual
// pipeline). Forward of micro-batch j through global chunk g needs its forward through chunk g - 1; backward
// through g needs backward through g + 1 (the last chunk's needs its own forward); a pass that follows one on
// another device also waits for the point-to-point transfer of the activation (or its gradient).
//
//   gpipe        all forwards, then all backwards (PyTorch's ScheduleGPipe)
//   1f1b         stage s runs min(p - s - 1, m) warm-up forwards, then one forward and one backward in turn, then
//                the remaining backwards (PipeDream-Flush, Megatron's default); its bubble with equal stages and
//                free transfers is (p - 1)/(m + p - 1) of the pipeline's time
//   interleaved  Megatron's interleaved 1F1B over m x v virtual micro-batches: (p - s - 1) x 2 + (v - 1) x p
//                warm-up passes, chunks taken p micro-batches at a time; bubble (p - 1)/(v m + p - 1). Needs m a
//                multiple of p, as Megatron does.
//
// Every device runs its passes in its schedule's order, each as early as its dependencies and its device allow.
#include <cstdint>
#include <vector>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/sim_time.hpp"

namespace syncsim {

struct PipelinePass {
  bool backward = false;
  std::int64_t micro_batch = 0;
  std::int64_t chunk = 0;  // the device's chunk, 0 .. v - 1 (global chunk chunk x p + stage)
};

// Device `stage`'s passes in order. Throws InputError for sizes below 1, v > 1 outside the interleaved schedule,
// or an interleaved schedule whose micro-batches are not a multiple of the stages.
std::vector<PipelinePass> pipeline_order(PipelineSchedule schedule, std::int64_t stage, std::int64_t stages,
                                         std::int64_t micro_batches, std::int64_t chunks);

struct PipelineTimingSetup {
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t stages = 1;
  std::int64_t micro_batches = 1;
  std::int64_t chunks = 1;  // v
  // [stage][chunk]: one micro-batch's pass through the device's chunk.
  std::vector<std::vector<SimTime>> forward;
  std::vector<std::vector<SimTime>> backward;
  SimTime transfer;  // an activation (or its gradient) from one device to the next
  // When each device may start (the end of its previous iteration), and [stage][chunk] when the chunk's
  // parameters are there (their all-gather); empty: zero.
  std::vector<SimTime> device_free;
  std::vector<std::vector<SimTime>> parameters_ready;
};

struct PipelineTiming {
  struct Span {
    PipelinePass pass;
    SimTime start;
    SimTime end;
  };
  std::vector<std::vector<Span>> passes;  // per device, in its order
  std::vector<SimTime> busy;              // per device: its passes' time
  std::vector<SimTime> first_start;       // per device
  std::vector<SimTime> last_end;          // per device
  // [stage][chunk]: the chunk's last backward pass on the device, where its gradients become complete.
  std::vector<std::vector<Span>> last_backward;
  SimTime end;  // the last pass's end
  // The mean over devices of the idle share of [earliest first start, end]: 1 - busy / span.
  double bubble_fraction = 0;
};

// Throws InputError for tables of the wrong shape or negative times.
PipelineTiming time_pipeline(const PipelineTimingSetup& setup);

}  // namespace syncsim
