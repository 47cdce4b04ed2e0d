// Racecheck of block shared memory (issue 9 item 2; the hazard kinds are
// compute-sanitizer's: read-after-write, write-after-read, write-after-write).
// Two accesses to the same byte by different threads of a block, at least one
// of them a write, with no completed __syncthreads between them, are a hazard:
// on a GPU their order is not defined. The shadow keeps, per byte of the
// block's shared space, the last writer and up to two readers with the barrier
// epoch of their access; an epoch ends at every completed barrier.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tsr::cuda::emu {

// A thread's linear index in its block (threadIdx.x + x*(y + y*z)).
using ThreadId = uint16_t;

struct RaceHazard {
  const char* kind;        // "read-after-write", ...
  uint32_t offset;         // byte offset in the shared space
  ThreadId earlier;        // the thread whose access came first
  bool earlier_wrote;
};

class RaceShadow {
 public:
  // A shared space of `bytes`, every cell stale.
  void reset(size_t bytes);
  // A new block (its shared memory is fresh) or a completed barrier.
  void next_epoch() { ++epoch_; }

  // Records an access of `bytes` at `offset` by `thread` and returns true with
  // the first hazard it makes (one per access), or false when it makes none.
  bool access(uint32_t offset, uint32_t bytes, bool is_write, ThreadId thread, RaceHazard& hazard);

 private:
  static constexpr ThreadId kNobody = 0xffff;
  struct Cell {
    uint32_t write_epoch = 0, read_epoch = 0;
    ThreadId writer = kNobody, reader = kNobody, other_reader = kNobody;
  };
  std::vector<Cell> cells_;
  uint32_t epoch_ = 1;   // cells start at epoch 0: stale
};

}  // namespace tsr::cuda::emu
