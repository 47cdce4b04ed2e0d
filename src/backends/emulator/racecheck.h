// Racecheck of block shared memory (the hazard kinds are
// compute-sanitizer's: read-after-write, write-after-read, write-after-write).
// Two accesses to the same byte by different threads of a block, at least one
// of them a write, with no completed __syncthreads between them, are a hazard:
// on a GPU their order is not defined. The shadow keeps, per byte of the
// block's shared space, the last writer and up to two readers with the barrier
// epoch of their access; an epoch ends at every completed barrier.
//
// A cp.async copy writes its destination at some moment between its issue and
// the wait_group that completes it (PTX ISA 8.x, "cp.async": no ordering with
// any other access before that wait), and a barrier does not complete it. So
// the shadow records the write at issue and keeps it in flight until the
// issuing thread's wait: any access to the destination meanwhile, by any
// thread in any epoch, is a hazard. At the wait the copy lands: from then on
// it is an ordinary write of that epoch.
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
  bool earlier_copied;     // that write was a cp.async copy
  bool in_flight;          // ... which no wait_group had completed yet
};

class RaceShadow {
 public:
  // A shared space of `bytes`, every cell stale.
  void reset(size_t bytes);
  // A new block (its shared memory is fresh) or a completed barrier.
  void next_epoch() { ++epoch_; }

  // Records an access of `bytes` at `offset` by `thread` and returns true with
  // the first hazard it makes (one per access), or false when it makes none.
  bool access(uint32_t offset, uint32_t bytes, bool is_write, ThreadId thread, RaceHazard& hazard) {
    return record(offset, bytes, is_write ? Access::write : Access::read, thread, hazard);
  }
  // A cp.async by `thread` is issued: its write is in flight from now on.
  bool issue_copy(uint32_t offset, uint32_t bytes, ThreadId thread, RaceHazard& hazard) {
    return record(offset, bytes, Access::copy, thread, hazard);
  }
  // The wait_group of `thread` completed its copy to these bytes: a write of
  // the current epoch now. Bytes another access took over since keep theirs.
  void land_copy(uint32_t offset, uint32_t bytes, ThreadId thread);

 private:
  enum class Access { read, write, copy };
  bool record(uint32_t offset, uint32_t bytes, Access access, ThreadId thread, RaceHazard& hazard);

  static constexpr ThreadId kNobody = 0xffff;
  struct Cell {
    uint32_t write_epoch = 0, read_epoch = 0;
    ThreadId writer = kNobody, reader = kNobody, other_reader = kNobody;
    bool copied = false;      // the last write was a cp.async
    bool in_flight = false;   // ... not completed by a wait_group yet
  };
  std::vector<Cell> cells_;
  uint32_t epoch_ = 1;   // cells start at epoch 0: stale
};

}  // namespace tsr::cuda::emu
