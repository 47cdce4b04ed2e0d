// The racecheck shadow (racecheck.h). One hazard per access is enough for a
// report; the shadow is still updated for every byte, so later accesses see
// this one.
#include "emulator/racecheck.h"

namespace tsr::cuda::emu {

void RaceShadow::reset(size_t bytes) {
  cells_.assign(bytes, Cell{});
  epoch_ = 1;
}

bool RaceShadow::record(uint32_t offset, uint32_t bytes, Access access, ThreadId thread, RaceHazard& hazard) {
  const bool is_write = access != Access::read;
  bool found = false;
  for (uint32_t i = 0; i < bytes && offset + i < cells_.size(); ++i) {
    Cell& c = cells_[offset + i];
    const bool written = c.in_flight || c.write_epoch == epoch_, read = c.read_epoch == epoch_;
    // A copy in flight conflicts with every access, its issuer's own included:
    // nothing orders the two before the issuer's wait_group.
    if (!found && written && (c.writer != thread || c.in_flight)) {
      hazard = {is_write ? "write-after-write" : "read-after-write", offset + i, c.writer, true, c.copied, c.in_flight};
      found = true;
    }
    if (is_write) {
      // Any reader in this epoch other than the writer itself.
      const ThreadId other = !read ? kNobody : c.reader != thread ? c.reader : c.other_reader;
      if (!found && other != kNobody) {
        hazard = {"write-after-read", offset + i, other, false, false, false};
        found = true;
      }
      c.write_epoch = epoch_, c.writer = thread;
      c.copied = c.in_flight = access == Access::copy;
    } else if (!read) {
      c.read_epoch = epoch_, c.reader = thread, c.other_reader = kNobody;
    } else if (c.reader != thread && c.other_reader == kNobody) {
      c.other_reader = thread;
    }
  }
  return found;
}

void RaceShadow::land_copy(uint32_t offset, uint32_t bytes, ThreadId thread) {
  for (uint32_t i = 0; i < bytes && offset + i < cells_.size(); ++i) {
    Cell& c = cells_[offset + i];
    if (c.in_flight && c.writer == thread) c.in_flight = false, c.write_epoch = epoch_;
  }
}

}  // namespace tsr::cuda::emu
