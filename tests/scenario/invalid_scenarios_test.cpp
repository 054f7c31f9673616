// Invalid scenarios, one per row: each is an InputError whose one line starts `file:line:column: key.path: `
// and says what was wrong. Lines and columns are 1-based and point at the offending key or value.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

// Lines 1 and 2 of most rows; the row's own lines follow from line 3.
const std::string kInvalidBase =
    "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps,lat=5us\"}\n"
    "model: {name: resnet50, batch_per_gpu: 32}\n";

struct Row {
  const char* what;
  std::string yaml;
  const char* expected;  // the start of the message
};

const std::vector<Row>& rows() {
  static const std::vector<Row> table{
      {"unknown top-level key, with a suggestion", kInvalidBase + "trainig: {iterations: 5}\n",
       "bad.yaml:3:1: trainig: unknown key 'trainig' (did you mean 'training'?)"},
      {"unknown nested key, with a suggestion", kInvalidBase + "training: {iteratons: 5}\n",
       "bad.yaml:3:12: training.iteratons: unknown key 'iteratons' (did you mean 'iterations'?)"},
      {"unknown key far from any valid one lists them", kInvalidBase + "stragglers: {foo: 1}\n",
       "bad.yaml:3:14: stragglers.foo: unknown key 'foo' (valid keys: jitter, slow)"},
      {"a list where a mapping belongs", kInvalidBase + "training: [sync]\n",
       "bad.yaml:3:11: training: expected a mapping (key: value), got a list"},
      {"text where a whole number belongs", kInvalidBase + "training: {iterations: abc}\n",
       "bad.yaml:3:24: training.iterations: expected a whole number, got 'abc'"},
      {"a fraction where a whole number belongs", kInvalidBase + "training: {iterations: 2.5}\n",
       "bad.yaml:3:24: training.iterations: expected a whole number, got '2.5'"},
      {"a mapping where a number belongs", kInvalidBase + "training: {iterations: {n: 5}}\n",
       "bad.yaml:3:24: training.iterations: expected a whole number, got a mapping"},
      {"size without its unit", kInvalidBase + "training:\n  bucket_size: 25\n",
       "bad.yaml:4:16: training.bucket_size: expected a size with a unit like 25MB or 64KiB, got '25' (a number "
       "without its unit)"},
      {"time without its unit", kInvalidBase + "detection_timeout: 30\n",
       "bad.yaml:3:20: detection_timeout: expected a time like 5us, 1.5ms or 2s, got '30' (a number without its "
       "unit)"},
      {"bandwidth without its unit", kInvalidBase + "training: {parameter_servers: {apply_rate: 100}}\n",
       "bad.yaml:3:44: training.parameter_servers.apply_rate: expected a bandwidth like 100Gbps or 12.5GB/s, got "
       "'100' (a number without its unit)"},
      {"unknown unit", kInvalidBase + "training: {bucket_size: 25XB}\n",
       "bad.yaml:3:25: training.bucket_size: unknown unit 'XB' in '25XB'"},
      {"negative time", kInvalidBase + "faults: [{at: -1s, kind: worker_down, rank: 1}]\n",
       "bad.yaml:3:15: faults[0].at: expected a time of zero or more, got '-1s'"},
      {"zero bandwidth", kInvalidBase + "training: {parameter_servers: {nic_bw: 0Gbps}}\n",
       "bad.yaml:3:40: training.parameter_servers.nic_bw: expected a bandwidth above zero, got '0Gbps'"},
      {"zero workers",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,lat=1us\", workers: 0}\n"
       "model: {name: resnet50, batch_per_gpu: 32}\n",
       "bad.yaml:1:72: cluster.workers: expected a whole number of at least 1, got 0"},
      {"zero batch",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,lat=1us\"}\n"
       "model: {name: resnet50, batch_per_gpu: 0}\n",
       "bad.yaml:2:40: model.batch_per_gpu: expected a whole number of at least 1, got 0"},
      {"more workers than GPUs",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,lat=1us\", workers: 9}\n"
       "model: {name: resnet50, batch_per_gpu: 32}\n",
       "bad.yaml:1:72: cluster.workers: 9 workers do not fit: the topology has 8 GPUs"},
      {"slow rank beyond the workers",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,lat=1us\", workers: 4}\n"
       "model: {name: resnet50, batch_per_gpu: 32}\n"
       "stragglers: {slow: [{rank: 4, factor: 2}]}\n",
       "bad.yaml:3:28: stragglers.slow[0].rank: rank 4 does not exist: cluster.workers is 4 (ranks 0..3)"},
      {"failed rank beyond the topology", kInvalidBase + "faults:\n  - {at: 1s, kind: worker_down, rank: 8}\n",
       "bad.yaml:4:39: faults[0].rank: rank 8 does not exist: the topology has 8 GPUs (ranks 0..7)"},
      {"async over allreduce", kInvalidBase + "training: {strategy: async, communication: allreduce}\n",
       "bad.yaml:3:44: training.communication: strategy async cannot use allreduce (it works with "
       "parameter_server"},
      {"local_sgd over parameter servers",
       kInvalidBase + "training: {strategy: local_sgd, sync_every: 4, "
                      "communication: parameter_server}\n",
       "bad.yaml:3:63: training.communication: strategy local_sgd cannot use parameter_server"},
      {"unknown strategy, with a suggestion", kInvalidBase + "training: {strategy: synch}\n",
       "bad.yaml:3:22: training.strategy: unknown value 'synch' (did you mean 'sync'?)"},
      {"a section given twice", kInvalidBase + "training: {}\nmodel: {name: x, batch_per_gpu: 1}\n",
       "bad.yaml:4:1: model: duplicate key 'model' (first given on line 2)"},
      {"TP communication overlap without tensor parallelism", kInvalidBase + "parallelism: {tp_comm_overlap: true}\n",
       "bad.yaml:3:32: parallelism.tp_comm_overlap: overlaps tensor-parallel collectives with GEMMs: it needs "
       "parallelism.tensor above 1"},
      {"a compiled loss without PyTorch's kernels",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps,lat=5us\"}\n"
       "model: {name: resnet50, batch_per_gpu: 32, compile_loss: true}\n",
       "bad.yaml:2:58: model.compile_loss: compiles PyTorch's loss function: it needs model.kernels: eager or "
       "compiled"},
      {"FP8 all-gather without sharding", kInvalidBase + "parallelism: {fp8_all_gather: true}\n",
       "bad.yaml:3:31: parallelism.fp8_all_gather: sends the sharded parameters' all-gathers in FP8 (FSDP's, or "
       "Megatron's distributed optimizer's): it needs parallelism.sharding: optimizer, gradients or full"},
      {"FP8 all-gather with a pipeline",
       kInvalidBase + "parallelism: {sharding: full, pipeline: 2, fp8_all_gather: true}\n",
       "bad.yaml:3:60: parallelism.fp8_all_gather: FP8 all-gathers are simulated for FSDP alone or beside tensor and "
       "context parallelism, not with a pipeline or expert parallelism"},
      {"FP8 all-gather without FP8", kInvalidBase + "parallelism: {sharding: full, fp8_all_gather: true}\n",
       "bad.yaml:3:47: parallelism.fp8_all_gather: FP8 all-gathers need model.precision: fp8 (torchao's and "
       "Transformer Engine's tensorwise FP8), got fp32"},
      {"a pipeline split without a pipeline", kInvalidBase + "parallelism: {decoder_first_pipeline_num_layers: 4}\n",
       "bad.yaml:3:50: parallelism.decoder_first_pipeline_num_layers: a pipeline split needs parallelism.pipeline of 2 "
       "or more"},
      {"two kinds of pipeline split together",
       kInvalidBase +
           "parallelism: {pipeline: 2, decoder_first_pipeline_num_layers: 4, account_for_loss_in_pipeline_split: "
           "true}\n",
       "bad.yaml:3:63: parallelism.decoder_first_pipeline_num_layers: decoder_first/last_pipeline_num_layers cannot be "
       "set with account_for_embedding/loss_in_pipeline_split (Megatron refuses the two kinds of split together)"},
      {"TP communication overlap that is not a yes or no",
       kInvalidBase + "parallelism: {tensor: 2, tp_comm_overlap: on}\n",
       "bad.yaml:3:43: parallelism.tp_comm_overlap: expected true, false, Transformer Engine's userbuffers "
       "configuration (a mapping of its layer names, as NeMo's ub_cfg files write it) or the path of a .yaml file "
       "holding it, got 'on'"},
      {"a userbuffers layer Transformer Engine does not have",
       kInvalidBase + "parallelism: {tensor: 2, tp_comm_overlap: {qkv_fprops: {method: ring_exchange}}}\n",
       "bad.yaml:3:44: parallelism.tp_comm_overlap.qkv_fprops: unknown key 'qkv_fprops' (did you mean 'qkv_fprop'?)"},
      {"a pipelined all-gather, which Transformer Engine refuses",
       kInvalidBase + "parallelism: {tensor: 2, tp_comm_overlap: {qkv_fprop: {method: pipeline}}}\n",
       "bad.yaml:3:64: parallelism.tp_comm_overlap.qkv_fprop.method: Transformer Engine refuses the pipeline method "
       "for "
       "an all-gather (qkv_fprop gathers; initialize_ub allows it for reduce-scatters only)"},
      {"a userbuffers flag that is neither 0 nor 1",
       kInvalidBase + "parallelism: {tensor: 2, tp_comm_overlap: {fc2_dgrad: {aggregate: 2}}}\n",
       "bad.yaml:3:67: parallelism.tp_comm_overlap.fc2_dgrad.aggregate: expected 0, 1, true or false, got '2'"},
      {"a ring in pairs on an odd tensor group",
       kInvalidBase + "parallelism: {tensor: 3, tp_comm_overlap: {fc2_dgrad: {aggregate: 1}}}\n",
       "bad.yaml:3:43: parallelism.tp_comm_overlap: fc2_dgrad: aggregate pairs a ring's chunks, and tensor 3 is odd"},
      {"a userbuffers configuration beside full sharding",
       kInvalidBase + "parallelism: {tensor: 2, sharding: full, tp_comm_overlap: {qkv_dgrad: {num_sm: 4}}}\n",
       "bad.yaml:3:59: parallelism.tp_comm_overlap: Transformer Engine's userbuffers configuration is Megatron's "
       "(sharding none, optimizer or gradients); PyTorch's async TP beside full sharding takes tp_comm_overlap: true"},
      {"an absurd SM count", kInvalidBase + "parallelism: {tensor: 2, tp_comm_overlap: {qkv_dgrad: {num_sm: 5000}}}\n",
       "bad.yaml:3:64: parallelism.tp_comm_overlap.qkv_dgrad.num_sm: expected at most 1024 SMs, got 5000"},
      {"unknown precision",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,lat=1us\"}\n"
       "model: {name: x, batch_per_gpu: 1, precision: int8}\n",
       "bad.yaml:2:47: model.precision: unknown value 'int8' (expected one of: fp32, tf32, fp16, bf16, fp8, mxfp8, "
       "nvfp4, mxfp4)"},
      {"YAML syntax error", kInvalidBase + "training: {iterations: 5\n",
       "bad.yaml:4:1: invalid YAML: end of map flow not found"},
      {"duplicate key", kInvalidBase + "seed: 1\nseed: 2\n",
       "bad.yaml:4:1: seed: duplicate key 'seed' (first given on line 3)"},
      {"duplicate nested key", kInvalidBase + "training:\n  iterations: 5\n  overlap: true\n  iterations: 6\n",
       "bad.yaml:6:3: training.iterations: duplicate key 'iterations' (first given on line 4)"},
      {"two documents", kInvalidBase + "---\nseed: 1\n", "bad.yaml:4:1: expected one YAML document, got several"},
      {"empty document", "# nothing here\n", "bad.yaml:1:1: expected a scenario mapping"},
      {"missing required key", "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,lat=1us\"}\nmodel: {name: x}\n",
       "bad.yaml:2:8: model.batch_per_gpu: missing required key 'batch_per_gpu'"},
      {"missing section", "model: {name: resnet50, batch_per_gpu: 32}\n",
       "bad.yaml:1:1: cluster: missing required key 'cluster'"},
      {"ssp without a staleness bound", kInvalidBase + "training:\n  strategy: ssp\n",
       "bad.yaml:4:13: training.staleness_bound: strategy ssp needs a staleness bound"},
      {"yes is not a boolean here", kInvalidBase + "training: {overlap: yes}\n",
       "bad.yaml:3:21: training.overlap: expected true or false, got 'yes'"},
      {"degradation factor above 1", kInvalidBase + "degraded_links: [{between: [gpu0, switch0], factor: 1.5}]\n",
       "bad.yaml:3:53: degraded_links[0].factor: expected a fraction of the bandwidth in [1e-06, 1], got 1.5"},
      // Valid-but-extreme values (issue 14): refused at their key before they can overflow the simulated clock.
      {"degradation factor of 1e-300", kInvalidBase + "degraded_links: [{between: [gpu0, switch0], factor: 1e-300}]\n",
       "bad.yaml:3:53: degraded_links[0].factor: expected a fraction of the bandwidth in [1e-06, 1], got 1e-300"},
      {"efficiency of 1e-300",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps\"}\n"
       "model: {name: resnet50, batch_per_gpu: 32, efficiency: 1e-300}\n",
       "bad.yaml:2:56: model.efficiency: expected a fraction of peak in [1e-06, 1], got 1e-300"},
      {"step time of two days",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps\"}\n"
       "model: {name: resnet50, batch_per_gpu: 32, step_time: 48h}\n",
       "bad.yaml:2:55: model.step_time: expected a measured iteration above 0 and at most 1 day, got '48h'"},
      {"step time and efficiency both",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps\"}\n"
       "model: {name: resnet50, batch_per_gpu: 32, efficiency: 0.5, step_time: 100ms}\n",
       "bad.yaml:2:72: model.step_time: fits the efficiency to a measurement: remove model.efficiency"},
      {"kernel overhead of an hour",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps\"}\n"
       "model: {name: resnet50, batch_per_gpu: 32, kernel_overhead: 1h}\n",
       "bad.yaml:2:61: model.kernel_overhead: expected a per-kernel overhead of at most 1s, got '1h'"},
      {"batch of 10^12",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps\"}\n"
       "model: {name: resnet50, batch_per_gpu: 1000000000000}\n",
       "bad.yaml:2:40: model.batch_per_gpu: expected at most 16777216 samples per GPU, got 1000000000000"},
      {"a billion micro-batches",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps\"}\n"
       "model: {name: resnet50, batch_per_gpu: 32, micro_batches: 1000000000}\n",
       "bad.yaml:2:59: model.micro_batches: expected at most 1048576 micro-batches, got 1000000000"},
      {"a count tagged as a string", kInvalidBase + "training: {iterations: !!str 20}\n",
       "bad.yaml:3:24: training.iterations: expected a whole number, got the string '20' (tagged !!str)"},
      {"a number tagged as a string", kInvalidBase + "stragglers: {slow: [{rank: 1, factor: !!str 1.5}]}\n",
       "bad.yaml:3:39: stragglers.slow[0].factor: expected a number, got the string '1.5' (tagged !!str)"},
      {"a boolean tagged as a string", kInvalidBase + "training: {overlap: !!str true}\n",
       "bad.yaml:3:21: training.overlap: expected true or false, got the string 'true' (tagged !!str)"},
      {"normal jitter of sigma 10", kInvalidBase + "stragglers: {jitter: {distribution: normal, sigma: 10}}\n",
       "bad.yaml:3:52: stragglers.jitter.sigma: expected a spread in [0, 0.5] for normal jitter, got 10"},
      {"lognormal jitter of sigma 2", kInvalidBase + "stragglers: {jitter: {distribution: lognormal, sigma: 2}}\n",
       "bad.yaml:3:55: stragglers.jitter.sigma: expected a spread in [0, 1] for lognormal jitter, got 2"},
      {"one worker failing twice at one instant",
       kInvalidBase + "faults:\n  - {at: 1s, kind: worker_down, rank: 1}\n  - {at: 1s, kind: worker_down, rank: 1}\n",
       "bad.yaml:5:5: faults[1]: rank 1 already fails at 1 s (faults[0]); a worker fails once at an instant"},
      {"more than 64 channels", kInvalidBase + "training: {channels: 65}\n",
       "bad.yaml:3:22: training.channels: expected at most 64 channels (NCCL's limit), got 65"},
      {"a layer repeated a billion times",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=100Gbps\"}\n"
       "model: {layers: [{name: fc, params: 10, forward_flops: 20, repeat: 1000000000}], batch_per_gpu: 1}\n",
       "bad.yaml:2:18: model.layers[0].repeat: the model would have more than 100000 layers"},
      {"degradation ending before it starts",
       kInvalidBase + "degraded_links: [{between: [gpu0, switch0], factor: 0.5, from: 2s, until: 1s}]\n",
       "bad.yaml:3:75: degraded_links[0].until: expected a time after `from`"},
      {"degraded link on an unknown node", kInvalidBase + "degraded_links: [{between: [gpu0, spine9], factor: 0.5}]\n",
       "bad.yaml:3:35: degraded_links[0].between[1]: the topology has no node 'spine9'"},
      {"link fault given a rank",
       kInvalidBase + "faults: [{at: 1s, kind: link_down, between: [gpu0, switch0], rank: 1}]\n",
       "bad.yaml:3:68: faults[0].rank: a link_down fault names a link (between), not a rank"},
      {"continue under sync", kInvalidBase + "faults: [{at: 1s, kind: worker_down, rank: 1, policy: continue}]\n",
       "bad.yaml:3:55: faults[0].policy: strategy sync waits for every worker"},
      {"calibrated latency without a calibration", kInvalidBase + "training: {latency_model: calibrated}\n",
       "bad.yaml:3:27: training.latency_model: the calibrated latency model needs a calibration file"},
      {"protocol without the nccl latency model", kInvalidBase + "training: {latency_model: physical, protocol: ll}\n",
       "bad.yaml:3:47: training.protocol: a protocol needs latency_model: nccl"},
      {"inline GPU without an fp32 peak",
       "cluster:\n  gpu: {peak_tflops: {fp16: 300}, mem_bw: 2TB/s, mem: 80GB}\n"
       "  topology: \"switch:n=8,bw=1Gbps,lat=1us\"\nmodel: {name: x, batch_per_gpu: 1}\n",
       "bad.yaml:2:22: cluster.gpu.peak_tflops.fp32: missing required key 'fp32'"},
      {"inline GPU without the model's precision",
       "cluster:\n  gpu: {peak_tflops: {fp32: 20, fp16: 300}, mem_bw: 2TB/s, mem: 80GB}\n"
       "  topology: \"switch:n=8,bw=1Gbps,lat=1us\"\nmodel: {name: x, batch_per_gpu: 1, precision: bf16}\n",
       "bad.yaml:4:47: model.precision: GPU 'custom-gpu' has no bf16 peak"},
      {"jitter without sigma", kInvalidBase + "stragglers:\n  jitter: {distribution: lognormal}\n",
       "bad.yaml:4:11: stragglers.jitter.sigma: missing required key 'sigma'"},
      {"the same slow rank twice", kInvalidBase + "stragglers: {slow: [{rank: 1, factor: 2}, {rank: 1, factor: 3}]}\n",
       "bad.yaml:3:50: stragglers.slow[1].rank: rank 1 is already listed as slow"},
      {"a model without parameters",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,lat=1us\"}\n"
       "model:\n  batch_per_gpu: 1\n  layers: [{name: relu, params: 0, activation_elements_moved: 10}]\n",
       "bad.yaml:4:11: model.layers: the model has no parameters"},
      {"a catalog shape on an inline model",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,lat=1us\"}\n"
       "model:\n  batch_per_gpu: 1\n  image_size: 32\n  layers: [{name: fc, params: 10, forward_flops: 20}]\n",
       "bad.yaml:4:15: model.image_size: shapes a catalog model; inline layers give their own"},
      {"topology mapping without a kind",
       "cluster: {gpu: A100, topology: {n: 8}}\nmodel: {name: x, batch_per_gpu: 1}\n",
       "bad.yaml:1:32: cluster.topology.kind: missing required key 'kind'"},
      {"unknown key inside a topology spec string",
       "cluster: {gpu: A100, topology: \"switch:n=8,bw=1Gbps,foo=1\"}\nmodel: {name: x, batch_per_gpu: 1}\n",
       "bad.yaml:1:57: cluster.topology.foo: unknown key 'foo' for switch"},
      {"hybrid groups that do not divide the workers", kInvalidBase + "training: {strategy: hybrid, group_size: 3}\n",
       "bad.yaml:3:42: training.group_size: groups of 3 do not divide the workers evenly: the topology has 8 GPUs"},
      {"apply_rate and apply_time together",
       kInvalidBase + "training: {strategy: async, parameter_servers: {apply_rate: 1GB/s, apply_time: 1ms}}\n",
       "bad.yaml:3:80: training.parameter_servers.apply_time: give apply_rate or apply_time, not both"},
      {"more colocated servers than workers",
       kInvalidBase +
           "training: {communication: parameter_server, parameter_servers: {count: 9, placement: colocated}}\n",
       "bad.yaml:3:72: training.parameter_servers.count: 9 colocated servers need as many workers, but the topology "
       "has 8 GPUs"},
      {"an unknown partition", kInvalidBase + "training: {parameter_servers: {partition: random}}\n",
       "bad.yaml:3:43: training.parameter_servers.partition: unknown value 'random' (expected one of: even, "
       "round_robin, greedy)"},
      {"a per-message cost without its unit", kInvalidBase + "training: {parameter_servers: {per_message: 20}}\n",
       "bad.yaml:3:45: training.parameter_servers.per_message: expected a time like 5us, 1.5ms or 2s, got '20' (a "
       "number without its unit)"},
      {"a per-message cost no RPC has", kInvalidBase + "training: {parameter_servers: {per_message: 2s}}\n",
       "bad.yaml:3:45: training.parameter_servers.per_message: expected at most 1s per message (gRPC's is tens of "
       "microseconds), got '2s'"},
      {"a negative per-message cost", kInvalidBase + "training: {parameter_servers: {per_message: -1us}}\n",
       "bad.yaml:3:45: training.parameter_servers.per_message: expected a time of zero or more, got '-1us'"},
      {"an unknown server host", kInvalidBase + "training: {parameter_servers: {host: tpu}}\n",
       "bad.yaml:3:38: training.parameter_servers.host: unknown value 'tpu' (did you mean 'gpu'?)"},
      {"host memory bandwidth for a GPU host",
       kInvalidBase + "training: {parameter_servers: {host_memory_bw: 100GB/s}}\n",
       "bad.yaml:3:48: training.parameter_servers.host_memory_bw: a host's memory bandwidth is for servers on CPU "
       "hosts (host: cpu)"},
      {"hybrid by node on a topology without nodes", kInvalidBase + "training: {strategy: hybrid}\n",
       "bad.yaml:3:22: training.strategy: hybrid groups workers by node by default, and this topology has no nodes"},
      {"a framework overhead past an hour", kInvalidBase + "training: {framework_overhead: 2h}\n",
       "bad.yaml:3:32: training.framework_overhead: expected a time per iteration from 0 to 1 hour"},
      {"an overlap slowdown past 10", kInvalidBase + "training: {overlap_slowdown: 11}\n",
       "bad.yaml:3:30: training.overlap_slowdown: expected a fraction from 0 to 10, got 11"},
      {"an overlap slowdown for asynchronous training",
       kInvalidBase + "training: {strategy: async, overlap_slowdown: 0.1}\n",
       "bad.yaml:3:47: training.overlap_slowdown: applies to the sync and local_sgd strategies, not async"},
      {"a layout size of zero", kInvalidBase + "parallelism: {tensor: 0}\n",
       "bad.yaml:3:23: parallelism.tensor: expected a whole number of at least 1, got 0"},
      {"an unknown sharding level", kInvalidBase + "parallelism: {sharding: zero3}\n",
       "bad.yaml:3:25: parallelism.sharding: unknown value 'zero3'"},
      {"a layout that does not divide the workers", kInvalidBase + "parallelism: {tensor: 3}\n",
       "bad.yaml:3:23: parallelism.tensor: tensor x pipeline x context = 3 does not divide the workers: the topology "
       "has 8 GPUs"},
      {"a data size that is not the rest", kInvalidBase + "parallelism: {tensor: 2, data: 2}\n",
       "bad.yaml:3:32: parallelism.data: expected 4 (or auto): the workers / (tensor x pipeline x context)"},
      {"a shard group without sharding", kInvalidBase + "parallelism: {shard_group: 2}\n",
       "bad.yaml:3:28: parallelism.shard_group: a shard group needs something to shard"},
      {"a shard group that does not divide data", kInvalidBase + "parallelism: {sharding: full, shard_group: 3}\n",
       "bad.yaml:3:44: parallelism.shard_group: a shard group of 3 does not divide the 8 data-parallel ranks"},
      {"pipeline micro-batches are the model's", kInvalidBase + "parallelism: {pipeline: 2, micro_batches: 8}\n",
       "bad.yaml:3:43: parallelism.micro_batches: the pipeline's micro-batches per iteration are model.micro_batches"},
      {"interleaved without virtual stages", kInvalidBase + "parallelism: {pipeline: 2, schedule: interleaved}\n",
       "bad.yaml:3:38: parallelism.schedule: schedule: interleaved needs virtual_stages"},
      {"a key that is not a string", kInvalidBase + "? [a, b]\n: 1\n",
       "bad.yaml:3:3: expected a plain key, got a list"},
      // Found by fuzzing: each of these ran, or failed late without a key.
      {"an unknown YAML tag", kInvalidBase + "training: {iterations: !custom 5}\n",
       "bad.yaml:3:24: training.iterations: the YAML tag '!custom' means nothing to syncsim"},
      {"a name of spaces", kInvalidBase + "name: \"  \"\n",
       "bad.yaml:3:7: name: expected a plain name of at most 200 bytes, without spaces at either end"},
      {"a count in a double's notation", kInvalidBase + "training: {iterations: 1e30}\n",
       "bad.yaml:3:24: training.iterations: expected a whole number in digits (at most 9223372036854775807), got "
       "'1e30'"},
      {"a count past int64", kInvalidBase + "training: {iterations: 9223372036854775808}\n",
       "bad.yaml:3:24: training.iterations: whole number '9223372036854775808' is too large"},
      // Found by fuzzing: the engine said so, with no place.
      {"interleaved micro-batches that are not groups of the stages",
       kInvalidBase + "parallelism: {pipeline: 2, schedule: interleaved, virtual_stages: 2}\n",
       "bad.yaml:3:38: parallelism.schedule: the interleaved schedule needs model.micro_batches in multiples of the 2 "
       "pipeline stages, got 1"},
      // Found by fuzzing: spares x GPUs per node overflowed, and the report printed inf%.
      {"spares past any cluster",
       kInvalidBase + "reliability: {failures: default, duration: 54d, spares: 9223372036854775807}\n",
       "bad.yaml:3:57: reliability.spares: expected at most 1048576 spare nodes, got 9223372036854775807"},
      // Found by fuzzing: a name in Latin-1 reached the report's JSON writer, which threw from inside the run.
      {"a byte that is not UTF-8", kInvalidBase + "name: caf\xE9\n",
       "bad.yaml:3:10: byte 0xE9 is not UTF-8 text (YAML files are UTF-8: save it as UTF-8)"},
      {"a NUL byte", kInvalidBase + std::string("name: a\0b\n", 10), "bad.yaml:3:8: a NUL byte: YAML text has none"},
  };
  return table;
}

}  // namespace

TEST_CASE("invalid scenarios fail with file:line:column, key path and what was wrong", "[scenario][invalid]") {
  for (const Row& row : rows()) {
    INFO(row.what);
    std::string message = "no error";
    try {
      parse_scenario(row.yaml, "bad.yaml");
    } catch (const InputError& error) {
      message = error.what();
      CHECK(message.find('\n') == std::string::npos);  // one line
    }
    CHECK_THAT(message, Catch::StartsWith(row.expected));
  }
}

TEST_CASE("a scenario file that cannot be read is an InputError naming it", "[scenario][invalid]") {
  CHECK_THROWS_WITH(load_scenario("/nonexistent/run.yaml"),
                    "/nonexistent/run.yaml: cannot open the scenario file: No such file or directory");
}
