#include "nccl_collective.hpp"

#include <algorithm>

#include "cuda_check.hpp"
#include "kernels.hpp"

namespace syncsim::cuda {

namespace {
// What a destination holds before the operation, so that an earlier run's result cannot pass the check.
constexpr float kJunk = -1.0f;

}  // namespace

NcclDevices::NcclDevices(std::vector<int> devices)
    : devices_(std::move(devices)), comms_(devices_.size()), streams_(devices_.size()) {
  SYNCSIM_NCCL(ncclCommInitAll(comms_.data(), ranks(), devices_.data()));
  for (int r = 0; r < ranks(); ++r) {
    select(r);
    SYNCSIM_CUDA(cudaStreamCreateWithFlags(&streams_[static_cast<std::size_t>(r)], cudaStreamNonBlocking));
  }
}

NcclDevices::~NcclDevices() {
  // Teardown reports nothing: an error here would hide the one that got us here.
  for (int r = 0; r < ranks(); ++r) {
    cudaSetDevice(device(r));
    if (streams_[static_cast<std::size_t>(r)] != nullptr) cudaStreamDestroy(streams_[static_cast<std::size_t>(r)]);
    if (comms_[static_cast<std::size_t>(r)] != nullptr) ncclCommDestroy(comms_[static_cast<std::size_t>(r)]);
  }
}

void NcclDevices::select(int rank) const {
  SYNCSIM_CUDA(cudaSetDevice(device(rank)));
}

NcclCollective::NcclCollective(CollectiveOp op, NcclDevices& devices, int root, std::int64_t max_count)
    : op_(op), devices_(devices), root_(root), ranks_(static_cast<std::size_t>(devices.ranks())) {
  const auto bytes = static_cast<std::size_t>(std::max<std::int64_t>(whole(max_count), 4)) * sizeof(float);
  for (int r = 0; r < devices_.ranks(); ++r) {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    devices_.select(r);
    SYNCSIM_CUDA(cudaMalloc(&rank.send, bytes));
    SYNCSIM_CUDA(cudaMalloc(&rank.recv, bytes));
    SYNCSIM_CUDA(cudaMalloc(&rank.wrong, sizeof(unsigned long long)));
    SYNCSIM_CUDA(cudaEventCreate(&rank.start));
    SYNCSIM_CUDA(cudaEventCreate(&rank.stop));
  }
}

NcclCollective::~NcclCollective() {
  for (int r = 0; r < devices_.ranks(); ++r) {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    cudaSetDevice(devices_.device(r));
    cudaFree(rank.send);
    cudaFree(rank.recv);
    cudaFree(rank.wrong);
    if (rank.start != nullptr) cudaEventDestroy(rank.start);
    if (rank.stop != nullptr) cudaEventDestroy(rank.stop);
  }
}

std::int64_t NcclCollective::whole(std::int64_t count) const {
  return count_is_per_rank(op_) ? count * devices_.ranks() : count;
}

void NcclCollective::run(std::int64_t count, bool in_place) {
  const auto n = static_cast<std::size_t>(count);
  SYNCSIM_NCCL(ncclGroupStart());
  for (int r = 0; r < devices_.ranks(); ++r) {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    float* chunk = rank.recv + static_cast<std::ptrdiff_t>(r) * count;
    const ncclComm_t comm = devices_.comm(r);
    const cudaStream_t stream = devices_.stream(r);
    switch (op_) {
      case CollectiveOp::allreduce:
        SYNCSIM_NCCL(ncclAllReduce(in_place ? rank.recv : rank.send, rank.recv, n, ncclFloat, ncclSum, comm, stream));
        break;
      case CollectiveOp::reduce_scatter:
        SYNCSIM_NCCL(ncclReduceScatter(in_place ? rank.recv : rank.send, in_place ? chunk : rank.recv, n, ncclFloat,
                                       ncclSum, comm, stream));
        break;
      case CollectiveOp::all_gather:
        SYNCSIM_NCCL(ncclAllGather(in_place ? chunk : rank.send, rank.recv, n, ncclFloat, comm, stream));
        break;
      case CollectiveOp::broadcast:
        SYNCSIM_NCCL(ncclBroadcast(in_place ? rank.recv : rank.send, rank.recv, n, ncclFloat, root_, comm, stream));
        break;
      case CollectiveOp::reduce:
        SYNCSIM_NCCL(
            ncclReduce(in_place ? rank.recv : rank.send, rank.recv, n, ncclFloat, ncclSum, root_, comm, stream));
        break;
      case CollectiveOp::alltoall: {
        // Block p of the send buffer to peer p, block p of the receive buffer from peer p, as nccl-tests'
        // alltoall_perf does with ncclSend/ncclRecv (ncclAlltoAll, NCCL 2.28+, appends the same tasks).
        const float* from = in_place ? rank.recv : rank.send;
        for (int peer = 0; peer < devices_.ranks(); ++peer) {
          const std::ptrdiff_t block = static_cast<std::ptrdiff_t>(peer) * count;
          SYNCSIM_NCCL(ncclSend(from + block, n, ncclFloat, peer, comm, stream));
          SYNCSIM_NCCL(ncclRecv(rank.recv + block, n, ncclFloat, peer, comm, stream));
        }
        break;
      }
    }
  }
  SYNCSIM_NCCL(ncclGroupEnd());
}

void NcclCollective::fill(std::int64_t count, bool in_place) {
  for (int r = 0; r < devices_.ranks(); ++r) {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    const cudaStream_t stream = devices_.stream(r);
    devices_.select(r);
    SYNCSIM_CUDA(fill_constant(rank.recv, whole(count), kJunk, stream));
    float* input = in_place ? rank.recv : rank.send;
    switch (op_) {
      case CollectiveOp::allreduce:
      case CollectiveOp::reduce:
        SYNCSIM_CUDA(fill_values(input, count, r, 0, stream));
        break;
      case CollectiveOp::reduce_scatter:
      case CollectiveOp::alltoall:  // block d of rank r holds value(r, d count + k)
        SYNCSIM_CUDA(fill_values(input, whole(count), r, 0, stream));
        break;
      case CollectiveOp::all_gather:
        if (in_place) input += static_cast<std::ptrdiff_t>(r) * count;
        SYNCSIM_CUDA(fill_values(input, count, r, r * count, stream));
        break;
      case CollectiveOp::broadcast:
        if (r == root_) SYNCSIM_CUDA(fill_values(input, count, r, 0, stream));
        break;
    }
  }
}

double NcclCollective::time(std::int64_t count, bool in_place, int warmup, int iters) {
  for (int i = 0; i < warmup; ++i) run(count, in_place);
  for (int r = 0; r < devices_.ranks(); ++r) {
    devices_.select(r);
    SYNCSIM_CUDA(cudaEventRecord(ranks_[static_cast<std::size_t>(r)].start, devices_.stream(r)));
  }
  for (int i = 0; i < iters; ++i) run(count, in_place);
  double total_ms = 0;
  for (int r = 0; r < devices_.ranks(); ++r) {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    devices_.select(r);
    SYNCSIM_CUDA(cudaEventRecord(rank.stop, devices_.stream(r)));
  }
  for (int r = 0; r < devices_.ranks(); ++r) {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    float ms = 0;
    SYNCSIM_CUDA(cudaEventSynchronize(rank.stop));
    SYNCSIM_CUDA(cudaEventElapsedTime(&ms, rank.start, rank.stop));
    total_ms += ms;
  }
  return total_ms * 1e-3 / devices_.ranks() / iters;
}

bool NcclCollective::checks(bool in_place) const {
  return !(op_ == CollectiveOp::alltoall && in_place);
}

std::int64_t NcclCollective::check(std::int64_t count, bool in_place) {
  fill(count, in_place);
  run(count, in_place);
  const int ranks = devices_.ranks();
  for (int r = 0; r < ranks; ++r) {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    const cudaStream_t stream = devices_.stream(r);
    devices_.select(r);
    SYNCSIM_CUDA(cudaMemsetAsync(rank.wrong, 0, sizeof(unsigned long long), stream));
    switch (op_) {
      case CollectiveOp::allreduce:
        SYNCSIM_CUDA(count_wrong(rank.recv, count, Expect::sum_over_ranks, ranks, root_, 0, count, rank.wrong, stream));
        break;
      case CollectiveOp::reduce:
        if (r == root_) {
          SYNCSIM_CUDA(
              count_wrong(rank.recv, count, Expect::sum_over_ranks, ranks, root_, 0, count, rank.wrong, stream));
        }
        break;
      case CollectiveOp::reduce_scatter: {
        const float* out = in_place ? rank.recv + static_cast<std::ptrdiff_t>(r) * count : rank.recv;
        SYNCSIM_CUDA(
            count_wrong(out, count, Expect::sum_over_ranks, ranks, root_, r * count, count, rank.wrong, stream));
        break;
      }
      case CollectiveOp::all_gather:
        SYNCSIM_CUDA(
            count_wrong(rank.recv, whole(count), Expect::gathered, ranks, root_, 0, count, rank.wrong, stream));
        break;
      case CollectiveOp::broadcast:
        SYNCSIM_CUDA(count_wrong(rank.recv, count, Expect::root_values, ranks, root_, 0, count, rank.wrong, stream));
        break;
      case CollectiveOp::alltoall:  // block q from rank q: its block r, value(q, r count + k)
        SYNCSIM_CUDA(count_wrong(rank.recv, whole(count), Expect::exchanged, ranks, root_, r * count, count, rank.wrong,
                                 stream));
        break;
    }
  }
  std::int64_t wrong = 0;
  for (int r = 0; r < ranks; ++r) {
    unsigned long long found = 0;
    devices_.select(r);
    SYNCSIM_CUDA(cudaMemcpyAsync(&found, ranks_[static_cast<std::size_t>(r)].wrong, sizeof(found),
                                 cudaMemcpyDeviceToHost, devices_.stream(r)));
    SYNCSIM_CUDA(cudaStreamSynchronize(devices_.stream(r)));
    wrong += static_cast<std::int64_t>(found);
  }
  return wrong;
}

}  // namespace syncsim::cuda
