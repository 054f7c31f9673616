#pragma once
// MpiCollective: one collective on float buffers over MPI, run out-of-place or in-place as nccl-tests runs its
// NCCL counterpart, with rank-dependent inputs and a check of the result.
//
//   op               MPI call                      count (as nccl-tests prints it)   in-place
//   allreduce        MPI_Allreduce                  elements of the whole buffer      MPI_IN_PLACE
//   reduce_scatter   MPI_Reduce_scatter_block       elements each rank receives       MPI_IN_PLACE, input n x count
//   all_gather       MPI_Allgather                  elements each rank sends          MPI_IN_PLACE, own chunk
//   broadcast        MPI_Bcast                      elements of the buffer            (always in place)
//   reduce           MPI_Reduce                     elements of the buffer            MPI_IN_PLACE at the root
//
// MPI_Bcast has no out-of-place form: both columns of a broadcast time the same call.
//
// Inputs are small integers (value(rank, i) = (3 rank + i) mod 11 + 1), so sums over ranks are exact in float
// and the check compares for equality.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"

namespace syncsim {

class MpiCollective {
 public:
  // Buffers sized for `max_count` elements (the largest row's count).
  MpiCollective(CollectiveOp op, MPI_Comm comm, int root, std::int64_t max_count);

  // One operation on `count` elements.
  void run(std::int64_t count, bool in_place);
  // Inputs for a checked run: each rank's own values where the operation reads them, junk where it writes.
  void fill(std::int64_t count, bool in_place);
  // Elements of this rank's result that differ from the expected values after fill() and run().
  std::int64_t count_wrong(std::int64_t count) const;

 private:
  float* input(bool in_place);  // where this rank's input starts (its own chunk comes later for AllGather)
  float expected(std::int64_t index) const;

  CollectiveOp op_;
  MPI_Comm comm_;
  int root_ = 0;
  int rank_ = 0;
  int ranks_ = 1;
  std::vector<float> send_;
  std::vector<float> recv_;
};

}  // namespace syncsim
