#pragma once
// MpiWorld: the MPI ranks a sweep is split over, or a world of one.
//
//   mpirun -np 4 syncsim sweep s.yaml --vary ... -o out.csv
//
// MPI is joined only when the process was started by an MPI launcher (it sets OMPI_COMM_WORLD_SIZE, PMI_SIZE or
// PMIX_RANK) and syncsim was built with MPI (SYNCSIM_MPI_ENABLED); a plain `syncsim sweep` never initializes MPI,
// so it starts fast and does not need a launcher. Only the calling (main) thread talks to MPI: threads inside a
// rank run simulations, never MPI calls (MPI_THREAD_FUNNELED).
#include <cstdint>
#include <string>
#include <vector>

namespace syncsim::planner {

class MpiWorld {
 public:
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Rank 0's values, on every rank.
  void broadcast(std::vector<std::int64_t>& values) const;
  // Returns once every rank has called it.
  void barrier() const;
  // Every rank's text at rank 0, in rank order; an empty vector on the other ranks.
  std::vector<std::string> gather(const std::string& mine) const;

  static bool built_with_mpi();

 private:
  int rank_ = 0;
  int size_ = 1;
  [[maybe_unused]] bool joined_ = false;  // read by the MPI build only (mpi_world_mpi.cpp)
};

}  // namespace syncsim::planner
