#include "mpi_collective.hpp"

#include <algorithm>

namespace syncsim {

namespace {

// Values each rank contributes: small integers, so that sums over up to a million ranks stay exact in float.
float value(int rank, std::int64_t index) {
  return static_cast<float>((3 * static_cast<std::int64_t>(rank) + index) % 11 + 1);
}

// What a destination holds before the operation, so that a result left over from an earlier run cannot pass.
constexpr float kJunk = -1.0f;

}  // namespace

MpiCollective::MpiCollective(CollectiveOp op, MPI_Comm comm, int root, std::int64_t max_count)
    : op_(op), comm_(comm), root_(root) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  const std::int64_t whole = count_is_per_rank(op_) ? max_count * ranks_ : max_count;
  send_.assign(static_cast<std::size_t>(std::max<std::int64_t>(whole, 1)), 0.0f);
  recv_.assign(static_cast<std::size_t>(std::max<std::int64_t>(whole, 1)), 0.0f);
}

float* MpiCollective::input(bool in_place) {
  return op_ == CollectiveOp::broadcast || in_place ? recv_.data() : send_.data();
}

void MpiCollective::run(std::int64_t count, bool in_place) {
  const int n = static_cast<int>(count);
  switch (op_) {
    case CollectiveOp::allreduce:
      MPI_Allreduce(in_place ? MPI_IN_PLACE : send_.data(), recv_.data(), n, MPI_FLOAT, MPI_SUM, comm_);
      break;
    case CollectiveOp::reduce_scatter:
      MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : send_.data(), recv_.data(), n, MPI_FLOAT, MPI_SUM, comm_);
      break;
    case CollectiveOp::all_gather:
      if (in_place) {
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv_.data(), n, MPI_FLOAT, comm_);
      } else {
        MPI_Allgather(send_.data(), n, MPI_FLOAT, recv_.data(), n, MPI_FLOAT, comm_);
      }
      break;
    case CollectiveOp::broadcast:
      MPI_Bcast(recv_.data(), n, MPI_FLOAT, root_, comm_);
      break;
    case CollectiveOp::reduce:
      if (!in_place) {
        MPI_Reduce(send_.data(), recv_.data(), n, MPI_FLOAT, MPI_SUM, root_, comm_);
      } else if (rank_ == root_) {
        MPI_Reduce(MPI_IN_PLACE, recv_.data(), n, MPI_FLOAT, MPI_SUM, root_, comm_);
      } else {
        MPI_Reduce(recv_.data(), nullptr, n, MPI_FLOAT, MPI_SUM, root_, comm_);
      }
      break;
    case CollectiveOp::alltoall:
      if (in_place) {
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv_.data(), n, MPI_FLOAT, comm_);
      } else {
        MPI_Alltoall(send_.data(), n, MPI_FLOAT, recv_.data(), n, MPI_FLOAT, comm_);
      }
      break;
  }
}

void MpiCollective::fill(std::int64_t count, bool in_place) {
  const std::int64_t whole = count_is_per_rank(op_) ? count * ranks_ : count;
  std::fill_n(recv_.begin(), whole, kJunk);
  // Where this rank's input sits and which global element its first value stands for.
  float* in = input(in_place);
  std::int64_t length = count;
  std::int64_t first = 0;
  if (op_ == CollectiveOp::reduce_scatter || op_ == CollectiveOp::alltoall) {
    length = whole;  // AllToAll: block d, value(rank, d count + k), goes to rank d
  } else if (op_ == CollectiveOp::all_gather) {
    first = rank_ * count;
    if (in_place) in += first;
  }
  if (op_ == CollectiveOp::broadcast && rank_ != root_) return;  // receivers keep junk
  for (std::int64_t i = 0; i < length; ++i) in[i] = value(rank_, first + i);
}

float MpiCollective::expected(std::int64_t index) const {
  float sum = 0;
  switch (op_) {
    case CollectiveOp::allreduce:
    case CollectiveOp::reduce:
    case CollectiveOp::reduce_scatter:
      for (int q = 0; q < ranks_; ++q) sum += value(q, index);
      return sum;
    case CollectiveOp::all_gather:
    case CollectiveOp::alltoall:
      return 0;  // handled by count_wrong, which knows the chunk size
    case CollectiveOp::broadcast:
      return value(root_, index);
  }
  return 0;
}

std::int64_t MpiCollective::count_wrong(std::int64_t count) const {
  if (op_ == CollectiveOp::reduce && rank_ != root_) return 0;  // only the root receives
  const float* out = recv_.data();
  std::int64_t wrong = 0;
  if (op_ == CollectiveOp::all_gather) {
    for (std::int64_t j = 0; j < count * ranks_; ++j) {
      if (out[j] != value(static_cast<int>(j / count), j)) ++wrong;
    }
    return wrong;
  }
  if (op_ == CollectiveOp::alltoall) {
    // Block q came from rank q: its block for this rank.
    for (std::int64_t j = 0; j < count * ranks_; ++j) {
      if (out[j] != value(static_cast<int>(j / count), rank_ * count + j % count)) ++wrong;
    }
    return wrong;
  }
  // ReduceScatter leaves this rank's reduced chunk, the elements rank * count ..., at the start of the output.
  const std::int64_t offset = op_ == CollectiveOp::reduce_scatter ? rank_ * count : 0;
  for (std::int64_t j = 0; j < count; ++j) {
    if (out[j] != expected(offset + j)) ++wrong;
  }
  return wrong;
}

}  // namespace syncsim
