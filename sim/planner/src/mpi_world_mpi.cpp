// MpiWorld over MPI: joined only under an MPI launcher (see mpi_world.hpp).
#include <mpi.h>

#include <cstdlib>
#include <stdexcept>

#include "syncsim/planner/mpi_world.hpp"

namespace syncsim::planner {

namespace {

bool started_by_launcher() {
  // Open MPI, then the PMI/PMIx variables that MPICH's and Slurm's launchers set.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI call failed: ") + what);
}

}  // namespace

MpiWorld::MpiWorld() {
  if (!started_by_launcher()) return;
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  joined_ = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
}

MpiWorld::~MpiWorld() {
  if (joined_) MPI_Finalize();
}

void MpiWorld::broadcast(std::vector<std::int64_t>& values) const {
  if (size_ == 1) return;
  auto count = static_cast<std::int64_t>(values.size());
  check(MPI_Bcast(&count, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  values.resize(static_cast<std::size_t>(count));
  check(MPI_Bcast(values.data(), static_cast<int>(count), MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

void MpiWorld::barrier() const {
  if (size_ == 1) return;
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

std::vector<std::string> MpiWorld::gather(const std::string& mine) const {
  if (size_ == 1) return {mine};
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_));
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> offsets(static_cast<std::size_t>(size_), 0);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(rank_ == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank_ != 0) return out;
  for (int r = 0; r < size_; ++r) {
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  }
  return out;
}

bool MpiWorld::built_with_mpi() {
  return true;
}

}  // namespace syncsim::planner
