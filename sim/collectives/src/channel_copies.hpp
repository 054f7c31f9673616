#pragma once
// Channels that are copies of one another: the same plan on the same GPUs, so the same transfers on the same routes
// at the same times. A group with one GPU per server is the common case: NCCL still runs several channels, and each
// channel's ring crosses the same NIC, so its transfers share every link with their copies. k copies of a transfer
// start together and get equal shares of every link they cross, so they take exactly what one transfer of k times
// the bytes takes alone (max-min rates scale with the bytes when every flow is k-fold); the channels' reductions
// stay per channel, as each channel reduces its own slice. Timing one channel of each class with k-fold wire bytes
// then gives the collective's time and its links' traffic, at a k-th of the cost — and the bulk path, which the
// copies' shared links would break, applies again.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "syncsim/collectives/collective_executor.hpp"

namespace syncsim::collectives_detail {

struct ChannelCopies {
  std::vector<std::size_t> kept;  // the plans to time, one per class of copies, in the plans' order
  std::uint32_t copies = 1;       // how many copies each kept plan stands for (1: no classes)
};

// Classes of plans that are relabellings of each other under the identity (CollectivePlan::relabelling_of), every
// class of one size; one class per plan when the sizes differ or no two plans are copies.
ChannelCopies channel_copies(std::span<const std::unique_ptr<CollectivePlan>> plans);

// `stats` of the kept channels, counted for all their copies.
ExecutorStats for_all_copies(ExecutorStats stats, std::uint32_t copies);

}  // namespace syncsim::collectives_detail
