#pragma once
// TrainingReport: what `syncsim run` found for one scenario, and its report.json form (to_json).
//
// Time shares (compute_shares): each worker's time split from its engine's timeline, averaged over the workers
// (every worker spans the run, so the average is of the run's worker time), summing to 1:
//
//   compute               forward and backward, less the recomputation below
//   recompute             the forward run again in backward under activation checkpointing
//   pipeline_bubble       waiting on other pipeline stages (model-parallel layouts), their transfers excepted
//   exposed_tensor        tensor-parallel collectives on the compute stream (the passes' own, as run)
//   exposed_context       context-parallel K, V gathers and their gradients' scatters (likewise)
//   exposed_expert        expert parallelism's all-to-alls (likewise)
//   exposed_pipeline      waiting on stage-to-stage transfers: the iteration's causal loss to them (the run again
//                         with them free), at most the stage's waiting time
//   exposed_data          the rest of the exposed communication: data-parallel (AllReduce, ReduceScatter,
//                         AllGather) or parameter-server traffic the compute did not hide
//   optimizer             the optimizer step
//   framework_overhead    the framework's own work (training.framework_overhead)
//   overlap_interference  backward's extra time beside the AllReduces (training.overlap_slowdown)
//   idle                  waiting for slower workers, stalled by faults, or any other time a worker does none of the
//                         above (RankRunStats::straggler_wait and the remainder)
//
// exposed_communication is the sum of the five exposed kinds. Until issue 40 `compute` held the recomputation too:
// compute + recompute is the old compute.
//
// Scaling efficiency = samples/s / (workers x single-GPU samples/s), where one GPU of the same kind runs the same
// per-GPU batch and micro-batches with no communication: samples per iteration / (k(F + B) + optimizer step).
//
// JSON: keys in a fixed order, units in the key names (_us, _bytes, _per_s); times are printed from integer
// picoseconds as ps / 1e6 (exact decimal microseconds), so equal reports dump to identical bytes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/training/faults.hpp"
#include "syncsim/training/goodput_report.hpp"

namespace syncsim {

struct BucketReport {
  Bytes bytes;
  SimTime allreduce_time;
  std::string algorithm;                // what ran ("none" with one worker)
  std::optional<std::string> protocol;  // with the nccl latency model
  std::uint32_t channels = 0;
  // Under gradient compression: what the bucket's synchronization sends, its encoding on the compute stream,
  // and its whole chain of collectives and kernels on the intact network (allreduce_time stays the plain one's).
  struct Compressed {
    Bytes wire_bytes;
    SimTime encode;
    SimTime sync_time;
  };
  std::optional<Compressed> compressed = std::nullopt;
};

// A bucket of `bytes` whose AllReduce ran as `outcome` says (the time, algorithm, protocol and channels).
BucketReport allreduce_bucket_report(Bytes bytes, const CollectiveOutcome& outcome);

// One parallel group kind's communication: the bus bytes one GPU moves per iteration, in nccl-tests' busbw
// accounting (an AllReduce of S: 2 (d - 1)/d x S; a ReduceScatter or AllGather: (d - 1)/d x S), whatever algorithm
// runs, and how long an iteration waits on it (the mean over workers).
// A link that carried the run's communication, busiest (highest utilization) first.
struct LinkReport {
  std::string from;  // topology node names, as `syncsim topo` prints them
  std::string to;
  std::string link_class;  // nvlink, pcie, network, ... (topology.hpp's LinkKind)
  double bytes = 0;        // carried over the whole run
  SimTime busy;            // time with traffic on it
  double utilization = 0;  // bytes / (bandwidth x total), degraded bandwidth counted as such
};

struct GroupCommunication {
  std::string group;         // data (tensor, pipeline and expert with model-parallel layouts)
  std::string collectives;   // what runs, e.g. "reduce_scatter + all_gather per unit"
  double bytes_per_gpu = 0;  // per iteration
  SimTime exposed;           // per iteration
  // Layouts: the busiest link this kind's collectives alone load (the one a bound on this kind names).
  std::optional<LinkReport> busiest_link = std::nullopt;
};

struct WorkerReport {
  SimTime compute;
  SimTime optimizer;
  SimTime exposed_communication;
  SimTime straggler_wait;
  SimTime framework_overhead;    // the framework's own work per iteration (training.framework_overhead)
  SimTime overlap_interference;  // backward's extra time beside the AllReduces (training.overlap_slowdown)
  SimTime pipeline_bubble;       // waiting on other pipeline stages and their transfers (model-parallel layouts)
  // Updates this worker completed when workers progress at their own pace (async, ssp, hybrid); nullopt when
  // every worker does every iteration.
  std::optional<std::int64_t> updates;
  SimTime recompute{};  // the part of compute that is forward run again under activation checkpointing
  // The parts of exposed_communication by group kind; the rest of it is data-parallel (or parameter-server).
  SimTime exposed_tensor{};
  SimTime exposed_context{};
  SimTime exposed_pipeline{};
  SimTime exposed_expert{};
};

// Asynchronous strategies: how many updates from other workers landed between the moment a worker read the
// parameters and the moment its own update was applied (0: as fresh as synchronous SGD).
struct StalenessReport {
  std::int64_t updates = 0;
  double mean = 0;
  std::int64_t max = 0;
  std::vector<std::int64_t> histogram;  // histogram[s]: updates applied with staleness s
};

// A recommendation model's table updated asynchronously (parameter_servers.embeddings: async): how stale a row is
// when a batch reads it.
struct TableStaleness {
  std::string table;
  std::int64_t iterations = 0;  // iterations of every worker's updates a read misses
  double missed_updates = 0;    // of those, the batches that touched the row read, on average (read_touched_share)
};

// One fault and what it cost.
struct FaultReport {
  FaultKind kind = FaultKind::worker_down;
  std::string target;  // "rank 5" or "nic2 - leaf0"
  FaultPolicy policy = FaultPolicy::restart_from_checkpoint;
  SimTime at;
  SimTime detected;                  // at + detection timeout (sync policies); at for continue
  SimTime resumed;                   // training made progress again
  std::int64_t iterations_lost = 0;  // iterations computed again after a restart
  SimTime lost_work;                 // time from the checkpoint's end to the failure, thrown away
  SimTime downtime;                  // from the failure to the resumption
  std::int64_t workers_after = 0;    // workers training after recovery
};

// One of Transformer Engine's userbuffers overlaps of a Megatron layout under tp_comm_overlap (tensor_overlap.hpp),
// per block and micro-batch as the layout's first transformer block runs it.
struct TensorOverlapReport {
  std::string layer;     // TE's name: qkv_fprop, proj_fprop, fc1_fprop, fc2_fprop, qkv_dgrad, ..., fc2_dgrad
  std::string method;    // ring_exchange, ring_exchange (aggregate), pipeline, pipeline (set_sm_margin), bulk
  std::int64_t sms = 0;  // its kernels' SMs; 0 on the copy engines
  SimTime collective;    // its time: at its own rate, or its SMs' where they are slower
  SimTime own_rate;      // at its own rate: half the tensor group's simulated AllReduce of its buffer
  SimTime gemm;          // the GEMM it runs beside
  SimTime exposed;       // what it shows on the compute stream
  SimTime sm_cost;       // what its SMs take from the GEMM
  // The GEMM beside it as the products it runs in (1: whole), and what running it so adds to it (in `gemm`), by the
  // pieces' tile and wave quantization (split_gemms.cpp); a backward run's on the collective that splits it.
  std::int64_t pieces = 1;
  SimTime split_cost = SimTime::zero();
  // The fewest SMs that move it at its own rate (nullopt on the copy engines, or without an SM ceiling).
  std::optional<std::int64_t> sms_to_keep_pace = std::nullopt;
};

// A model-parallel layout's run (the model-parallel engine): the layout, the pipeline's bubble and the model FLOP
// utilisation, 3 x forward FLOPs x samples / (time x GPUs x peak): MFU as Megatron-LM and the Llama 3 paper count
// it, without recomputation.
struct LayoutReport {
  std::int64_t tensor = 1;
  std::int64_t context = 1;
  std::int64_t pipeline = 1;
  std::int64_t data = 1;
  std::int64_t expert = 1;  // expert-parallel size, inside the data-parallel ranks
  std::string schedule;
  std::int64_t virtual_stages = 1;
  std::string sharding;
  double bubble_fraction = 0;  // the pipeline's idle share (pipeline_schedule.hpp)
  double bubble_share = 0;     // of the run's worker time, beside the other shares
  double model_flops_utilization = 0;
  // The same with full checkpointing's recomputed forward counted (Megatron-LM's SC'21 figures count it).
  double hardware_flops_utilization = 0;
  std::vector<TensorOverlapReport> tensor_overlap = {};  // Megatron's layouts under tp_comm_overlap
};

// Gradient compression (DDP communication hooks, gradient_compression.hpp): what it saves on the wire and what its
// kernels cost, per iteration once it has started (start_iteration).
struct CompressionReport {
  std::string kind;
  std::int64_t rank = 0;  // powersgd
  double ratio = 0;       // topk
  bool error_feedback = false;
  std::int64_t start_iteration = 0;
  Bytes gradient_bytes;                  // the buckets' gradients
  Bytes wire_bytes;                      // the collectives' sizes summed
  double bus_bytes_per_gpu = 0;          // nccl-tests' accounting, summed over the collectives
  double plain_bus_bytes_per_gpu = 0;    // the same for the plain AllReduces: 2 (d - 1)/d x gradient bytes
  SimTime encode;                        // kernels on the compute stream
  SimTime stream_compute;                // kernels between and after the collectives, on the communication stream
  std::int64_t compressed_matrices = 0;  // powersgd
  std::int64_t uncompressed_params = 0;  // powersgd: vectors and matrices too small to gain
  std::string note;                      // when the kind changes nothing, why
};

// What bounds the iteration, derived from the run (sim/run/src/bottleneck.hpp says how). Shares are of the run's
// worker time, averaged over workers: compute (forward, backward, optimizer), exposed communication and
// straggler wait; they sum to 1 (0 with no time).
struct BottleneckReport {
  // compute | communication | parameter_server | stragglers | pipeline_bubble | overlap_interference |
  // framework_overhead
  std::string bound;
  std::string resource;    // "compute", "straggler wait", or the link: "pod0 -> pod1 (inter-node network)"
  std::string link_class;  // the busiest link's class for communication bounds, else empty
  double compute_share = 0;
  double communication_share = 0;
  double straggler_share = 0;
  double bound_share = 0;  // of the iteration: the bound cause's loss, or the compute share when compute-bound
  std::string summary;     // the bound in words: "33% of the iteration is exposed data-parallel communication on ..."
};

// One cause of lost time and what an iteration would gain without it, largest first (sim/run/src/bottleneck.hpp
// says how each is measured): the run repeated without it where the engine can (measured), else its time on
// the critical path from the time shares.
struct CauseReport {
  // communication | parameter_server | stragglers | failures | restarts | checkpoint_saves | pipeline_bubble |
  // overlap_interference | framework_overhead
  std::string cause{};
  std::string group{};     // communication: data, tensor, context, pipeline or expert; else empty
  std::string resource{};  // communication: the busiest link that carried it; else empty
  SimTime per_iteration;
  double share = 0;  // of the mean iteration
  bool measured = false;
};

// The convergence proxy's run (sim/convergence): held-out loss and accuracy against simulated time and updates.
struct ConvergenceSample {
  std::int64_t update = 0;
  SimTime at;
  std::int64_t samples = 0;
  double loss = 0;
  double accuracy = 0;
};

struct ConvergenceReport {
  std::string problem;  // logistic | mlp
  std::int64_t parameters = 0;
  std::int64_t batch_per_worker = 0;
  double learning_rate = 0;
  std::string lr_scaling;
  std::int64_t warmup_updates = 0;
  std::int64_t updates = 0;  // applied: sync steps, async server updates, local SGD steps
  std::int64_t samples = 0;
  std::int64_t eval_every = 0;
  std::optional<double> target_loss;
  std::optional<SimTime> time_to_target;  // the first evaluation at or below target_loss
  std::optional<std::int64_t> updates_to_target;
  std::optional<SimTime> diverged_at;  // the loss or a gradient stopped being finite and bounded
  std::optional<std::int64_t> diverged_at_update;
  double final_loss = 0;
  double final_accuracy = 0;
  double best_loss = 0;
  std::vector<ConvergenceSample> curve;
};

struct TrainingReport {
  std::string scenario;
  std::string strategy;
  std::string communication;
  std::string algorithm;  // as requested: a name, "auto" or "best"
  std::string latency_model;
  std::int64_t workers = 1;
  std::string gpu;
  std::string model;
  std::int64_t params = 0;
  std::string precision;
  std::int64_t batch_per_gpu = 1;
  std::int64_t micro_batches = 1;
  std::int64_t global_batch = 1;
  std::int64_t iterations = 1;
  bool overlap = true;

  SimTime total;
  SimTime iteration_mean;
  SimTime iteration_p50;
  SimTime iteration_p99;
  SimTime single_gpu_iteration;  // k(F + B) + optimizer step, no communication
  // With a measured step time (model.step_time): the efficiency it implies and the kernel overheads no efficiency
  // scales (compute/step_time_fit.hpp); nullopt when the compute model is the roofline's with a given efficiency.
  struct ComputeFit {
    SimTime measured_step;
    double implied_efficiency = 0;
    SimTime kernel_overheads;
  };
  std::optional<ComputeFit> compute_fit;
  // With a profiler trace (model.profile): where the layer times came from and how they compare with the
  // roofline's (compute/layer_profile_match.hpp); nullopt when the layers are the roofline's.
  struct ComputeProfile {
    std::string file;  // the trace's file name
    std::int64_t profile_batch = 0;
    bool kernel_times = false;  // GPU kernels' times, not CPU ranges'
    std::size_t layers = 0;
    std::size_t module_calls = 0;
    std::size_t by_name = 0;
    std::size_t by_call = 0;
    std::size_t by_order = 0;
    std::size_t between_modules = 0;
    SimTime forward;  // the layers' measured times at the scenario's batch, one micro-batch
    SimTime backward;
    SimTime roofline_forward;  // the roofline's, for comparison
    SimTime roofline_backward;
    SimTime unattributed_forward;  // the trace's time no layer took, at the profile's batch
    SimTime unattributed_backward;
  };
  std::optional<ComputeProfile> compute_profile;
  // Kernels by shape on a profiled GPU (gpu_profile.hpp, measured_kernel_gpu): the anchors its measurements gave.
  struct KernelAnchors {
    double gemm_core = 0;           // the fitted GEMM constant, x the sustained fraction
    std::size_t fitted_shapes = 0;  // BF16 GEMMs it was fitted to (0: the published anchor, no BF16 shapes)
    double fit_rms_error = 0;
    SimTime fixed = {};                            // the fit's start and drain per GEMM (not added to layers)
    std::optional<double> scaled_gemm_ratio = {};  // FP8's fitted constant over BF16's
    double streaming_fraction = 0;                 // the copy kernel's rate over the datasheet bandwidth
    double sustained = 1;                          // of a GEMM's quiet rate, under a whole step's power
    bool sustained_measured = false;               // by the profile's training-like loop (else published)
  };
  std::optional<KernelAnchors> kernel_anchors = std::nullopt;
  // With model.kernels (and no model.efficiency): what the kernel model ran the shaped layers at (docs/compute.md,
  // "Kernels by shape"), each rate of the dense peak or the bandwidth.
  struct KernelModelReport {
    std::string style;                      // fused, eager or compiled
    std::optional<double> gemm_core = {};   // GEMM efficiency = this x the tile and wave factors; nullopt: the
                                            // GPU has no SM count or best GEMM, its GEMMs on the constant roofline
    std::optional<double> attention = {};   // flash attention, head dimension 128, 16k tokens, no mask
    double streaming_fraction = 0;          // memory-bound kernels
    double sustained = 1;                   // what the burst anchors keep at the board's power limit
    std::string sustained_source = "none";  // published, measured (a profile's loop) or none (burst rates)
    double clock_factor = 1;                // a cluster.gpu.power_limit's
  };
  std::optional<KernelModelReport> kernel_model = std::nullopt;
  // The job's slowest chip (compute/chip_spread.hpp): every compute time x factor = 1 + speed_spread x the expected
  // maximum of `gpus` standard normals; nullopt where the factor is 1 (one GPU, no spread, an execution trace).
  struct SlowestChip {
    double speed_spread = 0;
    std::int64_t gpus = 0;
    double factor = 1;
  };
  std::optional<SlowestChip> slowest_chip = std::nullopt;
  // With model.collectives: the job's collective sequence the run replayed (its first log's file name; the step's
  // collective calls, each communicator's counted once; rank 0's gaps, its compute a step).
  struct CollectiveSequenceReport {
    std::string file = {};
    std::int64_t ranks = 0;
    std::int64_t communicators = 0;
    std::int64_t calls_per_step = 0;
    std::int64_t steps_in_log = 0;
    SimTime rank0_gaps_per_step = {};
    std::vector<std::string> warnings = {};  // the extraction's, one sentence each
  };
  std::optional<CollectiveSequenceReport> collective_sequence = std::nullopt;
  double samples_per_second = 0;
  double single_gpu_samples_per_second = 0;
  // With a calibration (training.latency_model: calibrated): the iteration with every calibrated collective at the
  // low, then the high edge of the calibration's error band at its size (collectives/calibration.hpp, ErrorBand),
  // and the throughput at each; nullopt without one.
  struct CalibrationBand {
    SimTime iteration_low;
    SimTime iteration_high;
    double samples_per_second_low = 0;
    double samples_per_second_high = 0;
  };
  std::optional<CalibrationBand> calibration_band{};
  double scaling_efficiency = 0;
  // Every engine's FLOP utilisation (docs/compute.md, "FLOP utilisation"): model FLOPs are 3 x forward per sample,
  // as Megatron-LM and the Llama 3 paper count them; both ratios are of the dense peak of the run's 16-bit (or
  // fp32, tf32) arithmetic, a scaled precision's companion, so that an FP8 run compares with a BF16 one.
  struct Utilization {
    double peak_tflops = 0;                 // per GPU, the peak the ratios are of
    double model_tflops_per_gpu = 0;        // model FLOPs per GPU per second, in TFLOP/s
    double model_flops_utilization = 0;     // model_tflops_per_gpu / peak_tflops
    double hardware_flops_utilization = 0;  // the same with full checkpointing's recomputed forward counted
    double tokens_per_second_per_gpu = 0;   // a transformer's tokens (sequence x samples); 0 for other models
  } utilization;

  // The time shares (see the top of this file); the leaves sum to 1, exposed_communication_share is the sum of
  // the five exposed kinds.
  double compute_share = 0;
  double optimizer_share = 0;
  double exposed_communication_share = 0;
  double idle_share = 0;
  double framework_overhead_share = 0;
  double overlap_interference_share = 0;
  double pipeline_bubble_share = 0;  // model-parallel layouts only; also in layout->bubble_share
  double recompute_share = 0;
  double exposed_tensor_share = 0;
  double exposed_context_share = 0;
  double exposed_pipeline_share = 0;
  double exposed_data_share = 0;
  double exposed_expert_share = 0;

  // Asynchronous strategies (async, ssp, hybrid across groups); nullopt for the synchronous ones.
  std::optional<StalenessReport> staleness;
  std::vector<TableStaleness> table_staleness = {};  // asynchronous embedding tables, in the model's order
  std::vector<FaultReport> faults;                   // in time order
  SimTime lost_work;                                 // sum over faults
  SimTime downtime;                                  // sum over faults
  std::vector<LinkReport> busiest_links;             // at most kBusiestLinks, busiest first
  BottleneckReport bottleneck;
  std::vector<CauseReport> causes;

  Bytes bucket_cap;
  std::vector<BucketReport> buckets;  // in launch order
  // Per group kind: data parallelism over AllReduce (sync, local_sgd) and sharded; empty with parameter servers.
  std::vector<GroupCommunication> group_communication;
  std::optional<LayoutReport> layout;            // model-parallel layouts
  std::optional<CompressionReport> compression;  // with training.gradient_compression
  std::vector<WorkerReport> per_worker;
  MemoryReport memory;
  std::optional<ConvergenceReport> convergence;  // with a `convergence:` section
  std::optional<GoodputReport> goodput;          // with a `reliability:` section
};

inline constexpr std::size_t kBusiestLinks = 5;

// Fills the shares from per_worker and total (all zero when total is zero).
void compute_shares(TrainingReport& report);

// The leaf shares, which sum to 1 (0 with no time): compute, recompute, pipeline bubble, the five exposed kinds,
// optimizer, framework overhead, overlap interference and idle.
double sum_of_shares(const TrainingReport& report);

nlohmann::ordered_json to_json(const TrainingReport& report);

// The iteration's time shares as report.json's "shares" names them, in its order (they sum to 1): the columns of
// a plan's and a sweep's CSV.
std::vector<std::pair<std::string, double>> time_shares(const TrainingReport& report);

}  // namespace syncsim
