// MpiWorld without MPI (SYNCSIM_MPI_ENABLED off): always a world of one, so sweeps run on threads only.
#include "syncsim/planner/mpi_world.hpp"

namespace syncsim::planner {

MpiWorld::MpiWorld() = default;
MpiWorld::~MpiWorld() = default;

void MpiWorld::broadcast(std::vector<std::int64_t>& /*values*/) const {}

void MpiWorld::barrier() const {}

std::vector<std::string> MpiWorld::gather(const std::string& mine) const {
  return {mine};
}

bool MpiWorld::built_with_mpi() {
  return false;
}

}  // namespace syncsim::planner
