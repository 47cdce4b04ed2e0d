// The racecheck shadow (racecheck.h). One hazard per access is enough for a
// report; the shadow is still updated for every byte, so later accesses see
// this one.
#include "targets/cuda/emulator/racecheck.h"

namespace tsr::cuda::emu {

void RaceShadow::reset(size_t bytes) {
  cells_.assign(bytes, Cell{});
  epoch_ = 1;
}

bool RaceShadow::access(uint32_t offset, uint32_t bytes, bool is_write, ThreadId thread, RaceHazard& hazard) {
  bool found = false;
  for (uint32_t i = 0; i < bytes && offset + i < cells_.size(); ++i) {
    Cell& c = cells_[offset + i];
    const bool written = c.write_epoch == epoch_, read = c.read_epoch == epoch_;
    if (!found && written && c.writer != thread) {
      hazard = {is_write ? "write-after-write" : "read-after-write", offset + i, c.writer, true};
      found = true;
    }
    if (is_write) {
      // Any reader in this epoch other than the writer itself.
      const ThreadId other = !read ? kNobody : c.reader != thread ? c.reader : c.other_reader;
      if (!found && other != kNobody) {
        hazard = {"write-after-read", offset + i, other, false};
        found = true;
      }
      c.write_epoch = epoch_, c.writer = thread;
    } else if (!read) {
      c.read_epoch = epoch_, c.reader = thread, c.other_reader = kNobody;
    } else if (c.reader != thread && c.other_reader == kNobody) {
      c.other_reader = thread;
    }
  }
  return found;
}

}  // namespace tsr::cuda::emu
