#pragma once
// Whether a layout's Chakra traces fit the output folder's file system, asked before they are written: one trace per
// rank of a frontier layout is tens to hundreds of GB (docs/chakra.md), and encoding them all takes minutes before
// a full disk would say so.
#include <cstddef>
#include <filesystem>

#include "syncsim/run/chakra_workload.hpp"

namespace syncsim::app {

// Throws InputError when even the fewest bytes the traces can take, rank 0's bytes per node (`first_trace_bytes`
// over its nodes) times the fewest nodes a rank holds times the ranks, pass what `dir`'s file system has free.
// Nothing is refused where the free space cannot be read. Tests set SYNCSIM_TEST_FREE_BYTES to stand for it.
void check_chakra_space(const std::filesystem::path& dir, const run::ChakraExport& workload,
                        std::size_t first_trace_nodes, std::size_t first_trace_bytes);

}  // namespace syncsim::app
