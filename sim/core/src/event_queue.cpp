#include "syncsim/core/event_queue.hpp"

#include <algorithm>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::uint64_t kSequenceBits = 56;
constexpr std::uint64_t kMaxSequence = (std::uint64_t{1} << kSequenceBits) - 1;
// A 4-ary heap: half the levels of a binary one, and a node's children share two cache lines. A large simulation's
// queue (a tree AllReduce on thousands of GPUs keeps a hundred thousand flows' events) no longer fits in cache, and
// there a pop's misses, one per level, are most of its cost. The order is the same total order (sequence numbers
// are unique), so the events run in exactly the same order as with any other heap.
constexpr std::size_t kArity = 4;
}  // namespace

// Sift with a hole instead of swaps: one move per level instead of three.
void EventQueue::push(SimTime time, EventPriority priority, EventHandler& handler, std::uint64_t payload) {
  SYNCSIM_INVARIANT(next_sequence_ < kMaxSequence, "event sequence numbers exhausted");
  const Event event{time, (static_cast<std::uint64_t>(priority) << kSequenceBits) | next_sequence_++, &handler,
                    payload};
  std::size_t hole = heap_.size();
  heap_.push_back(event);
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!before(event, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = event;
}

Event EventQueue::pop() {
  SYNCSIM_INVARIANT(!heap_.empty(), "pop from an empty event queue");
  const Event result = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return result;
  std::size_t hole = 0;
  for (;;) {
    const std::size_t first = kArity * hole + 1;
    if (first >= n) break;
    std::size_t child = first;
    const std::size_t end = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < end; ++c) {
      if (before(heap_[c], heap_[child])) child = c;
    }
    if (!before(heap_[child], last)) break;
    heap_[hole] = heap_[child];
    hole = child;
  }
  heap_[hole] = last;
  return result;
}

}  // namespace syncsim
