#pragma once
// The local GPUs as one NCCL communicator, and one collective run on them as nccl-tests runs it.
//
// NcclDevices drives every local GPU from this one process (ncclCommInitAll): rank r is device devices[r], with its
// own stream. NcclCollective holds float send and receive buffers on each device and runs its operation on all
// ranks inside one ncclGroupStart/End, out-of-place or in-place with nccl-tests' buffer layout:
//
//   op               count (as printed)      in-place
//   allreduce        whole buffer            recv = send
//   reduce_scatter   elements per rank       recv = send + rank x count
//   all_gather       elements per rank       send = recv + rank x count
//   broadcast        whole buffer            recv = send
//   reduce           whole buffer            recv = send (the root receives)
//   alltoall         elements per peer       recv = send: unchecked, as nccl-tests' alltoall_perf prints N/A (a
//                                            grouped exchange within one buffer overwrites blocks still to be sent)
//
// Times come from CUDA events around the timed iterations on each rank's stream, averaged over ranks.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"

namespace syncsim::cuda {

class NcclDevices {
 public:
  explicit NcclDevices(std::vector<int> devices);
  ~NcclDevices();
  NcclDevices(const NcclDevices&) = delete;
  NcclDevices& operator=(const NcclDevices&) = delete;

  int ranks() const { return static_cast<int>(devices_.size()); }
  int device(int rank) const { return devices_[static_cast<std::size_t>(rank)]; }
  ncclComm_t comm(int rank) const { return comms_[static_cast<std::size_t>(rank)]; }
  cudaStream_t stream(int rank) const { return streams_[static_cast<std::size_t>(rank)]; }
  // Makes rank's device current (kernels and events go to the current device).
  void select(int rank) const;

 private:
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

class NcclCollective {
 public:
  // Buffers for up to `max_count` elements (the largest row's count) on every rank.
  NcclCollective(CollectiveOp op, NcclDevices& devices, int root, std::int64_t max_count);
  ~NcclCollective();
  NcclCollective(const NcclCollective&) = delete;
  NcclCollective& operator=(const NcclCollective&) = delete;

  // One operation on all ranks (asynchronous).
  void run(std::int64_t count, bool in_place);
  // Rank-dependent inputs where the operation reads, junk where it writes (asynchronous).
  void fill(std::int64_t count, bool in_place);
  // Seconds per operation: `warmup` untimed runs, then `iters` between CUDA events, averaged over ranks.
  double time(std::int64_t count, bool in_place, int warmup, int iters);
  // Whether check() applies: not to an in-place alltoall (see above).
  bool checks(bool in_place) const;
  // fill(), run(), then the elements of all ranks' results that differ from the expected ones.
  std::int64_t check(std::int64_t count, bool in_place);

 private:
  struct Rank {
    float* send = nullptr;
    float* recv = nullptr;
    unsigned long long* wrong = nullptr;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
  };
  std::int64_t whole(std::int64_t count) const;

  CollectiveOp op_;
  NcclDevices& devices_;
  int root_ = 0;
  std::vector<Rank> ranks_;
};

}  // namespace syncsim::cuda
