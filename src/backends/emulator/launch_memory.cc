// Memcheck and racecheck of one launch's memory (launch_memory.h).
#include "emulator/launch_memory.h"

#include <algorithm>
#include <cstring>

namespace tsr::cuda::emu {

namespace {

// Shared memory is filled with this byte at every block start: f32 and bf16
// NaN, so data read before it was written (a missing wait or barrier) shows.
constexpr uint8_t kSharedPoison = 0xff;

std::string dim3_text(const tsr_emu_dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

}  // namespace

LaunchMemory::LaunchMemory(uint8_t* static_begin, uint8_t* static_end, const std::vector<SharedSymbol>& static_names,
                           uint32_t dynamic_bytes, const std::vector<GlobalBuffer>& buffers,
                           const tsr_emu_dim3& block_dim)
    : static_begin_(static_begin),
      static_end_(static_end > static_begin ? static_end : static_begin),
      static_names_(static_names),
      dynamic_bytes_(dynamic_bytes),
      dynamic_(dynamic_bytes ? dynamic_bytes + 2 * kDynamicGuard : 0),
      buffers_(buffers),
      block_dim_(block_dim) {
  race_.reset(static_cast<size_t>(static_end_ - static_begin_) + dynamic_bytes_);
}

void LaunchMemory::begin_block(const tsr_emu_dim3& block_idx) {
  block_idx_ = block_idx;
  std::memset(static_begin_, kSharedPoison, static_cast<size_t>(static_end_ - static_begin_));
  std::fill(dynamic_.begin(), dynamic_.end(), kSharedPoison);
  race_.next_epoch();
}

std::string LaunchMemory::who(ThreadId t) const {
  const tsr_emu_dim3 idx{t % block_dim_.x, t / block_dim_.x % block_dim_.y, t / (block_dim_.x * block_dim_.y)};
  return "thread " + dim3_text(idx) + " of block " + dim3_text(block_idx_);
}

std::string LaunchMemory::check_global(const void* p, uint64_t bytes, bool is_write, ThreadId by,
                                       uint64_t alignment) const {
  if (alignment == 0) alignment = bytes;
  const uint8_t* at = static_cast<const uint8_t*>(p);
  const char* kind = is_write ? "write" : "read";
  // The report names the buffer whose extent is nearest to the access.
  const GlobalBuffer* nearest = nullptr;
  long long offset = 0;
  uintptr_t nearest_gap = UINTPTR_MAX;
  for (const GlobalBuffer& b : buffers_) {
    const long long off = at - b.base;
    const uintptr_t gap = at < b.base ? static_cast<uintptr_t>(b.base - at)
                                      : static_cast<uintptr_t>(std::max<long long>(0, off - static_cast<long long>(b.size)));
    if (gap < nearest_gap) nearest = &b, offset = off, nearest_gap = gap;
    if (at < b.base || at + bytes > b.base + b.size) continue;
    if (is_write && b.input)
      return "memcheck: global write of " + std::to_string(bytes) + " bytes to input buffer '" + b.name +
             "' at offset " + std::to_string(off) + " by " + who(by);
    if (reinterpret_cast<uintptr_t>(at) % alignment != 0)
      return "memcheck: misaligned global " + std::string(kind) + " of " + std::to_string(bytes) +
             " bytes at offset " + std::to_string(off) + " of buffer '" + b.name + "' by " + who(by);
    return "";
  }
  return "memcheck: out-of-bounds global " + std::string(kind) + " of " + std::to_string(bytes) + " bytes " +
         (nearest ? "at offset " + std::to_string(offset) + " of buffer '" + nearest->name + "' (" +
                        std::to_string(nearest->size) + " bytes)"
                  : std::string("(the launch has no buffers)")) +
         " by " + who(by);
}

int64_t LaunchMemory::shared_offset(const uint8_t* p, uint64_t bytes) const {
  if (p >= static_begin_ && p + bytes <= static_end_) return p - static_begin_;
  const uint8_t* dyn = dynamic_bytes_ ? dynamic_.data() + kDynamicGuard : nullptr;
  if (dyn && p >= dyn && p + bytes <= dyn + dynamic_bytes_) return (static_end_ - static_begin_) + (p - dyn);
  return -1;
}

std::string LaunchMemory::shared_name(int64_t offset) const {
  const int64_t static_bytes = static_end_ - static_begin_;
  if (offset >= static_bytes) return "dynamic shared offset " + std::to_string(offset - static_bytes);
  const std::string name = shared_symbol_at(static_names_, static_cast<uint64_t>(offset));
  return "static shared offset " + std::to_string(offset) + (name.empty() ? "" : " (" + name + ")");
}

std::string LaunchMemory::check_shared_row(const void* p, const char* what, ThreadId by) const {
  const uint8_t* at = static_cast<const uint8_t*>(p);
  const int64_t offset = shared_offset(at, 16);
  if (offset >= 0 && reinterpret_cast<uintptr_t>(at) % 16 == 0) return "";
  return std::string("memcheck: ") + what + " address " +
         (offset >= 0 ? "not 16-byte aligned (" + shared_name(offset) + ")"
                      : "outside shared memory (" + std::to_string(static_end_ - static_begin_) + " static, " +
                            std::to_string(dynamic_bytes_) + " dynamic bytes)") +
         " by " + who(by);
}

std::string LaunchMemory::record_shared(const void* p, uint32_t bytes, bool is_write, ThreadId by) {
  const int64_t offset = shared_offset(static_cast<const uint8_t*>(p), bytes);
  RaceHazard h;
  if (offset < 0 || !race_.access(static_cast<uint32_t>(offset), bytes, is_write, by, h)) return "";
  return hazard_text(h, is_write, false, by);
}

std::string LaunchMemory::issue_copy(const void* p, ThreadId by) {
  const int64_t offset = shared_offset(static_cast<const uint8_t*>(p), 16);
  RaceHazard h;
  if (offset < 0 || !race_.issue_copy(static_cast<uint32_t>(offset), 16, by, h)) return "";
  return hazard_text(h, true, true, by);
}

void LaunchMemory::land_copy(const void* p, ThreadId by) {
  const int64_t offset = shared_offset(static_cast<const uint8_t*>(p), 16);
  if (offset >= 0) race_.land_copy(static_cast<uint32_t>(offset), 16, by);
}

std::string LaunchMemory::hazard_text(const RaceHazard& h, bool is_write, bool copy, ThreadId by) const {
  const std::string mine = std::string(copy ? "cp.async write" : is_write ? "write" : "read") + " by " + who(by);
  const std::string theirs =
      std::string(h.earlier_copied ? "cp.async write" : h.earlier_wrote ? "write" : "read") + " by " + who(h.earlier);
  const std::string start = "racecheck: " + std::string(h.kind) + " hazard at " + shared_name(h.offset) + ": " + mine;
  if (h.in_flight) return start + " while the " + theirs + " is in flight (before its wait_group)";
  return start + " after " + theirs + " with no __syncthreads between";
}

std::string LaunchMemory::plain_access(const void* p, uint64_t bytes, bool is_write, ThreadId by, bool& fatal) {
  const uint8_t* at = static_cast<const uint8_t*>(p);
  const char* kind = is_write ? "write" : "read";
  if (shared_offset(at, bytes) >= 0) return record_shared(p, static_cast<uint32_t>(bytes), is_write, by);
  if (at + bytes > static_begin_ && at < static_end_) {
    fatal = true;
    return "memcheck: " + std::string(kind) + " of " + std::to_string(bytes) +
           " bytes straddles the end of static shared memory (offset " + std::to_string(at - static_begin_) + " of " +
           std::to_string(static_end_ - static_begin_) + " bytes) by " + who(by);
  }
  if (dynamic_bytes_ && at + bytes > dynamic_.data() && at < dynamic_.data() + dynamic_.size()) {
    fatal = true;
    return "memcheck: out-of-bounds dynamic shared " + std::string(kind) + " of " + std::to_string(bytes) +
           " bytes at offset " + std::to_string(at - dynamic_shared()) + " (" + std::to_string(dynamic_bytes_) +
           " bytes) by " + who(by);
  }
  if (!is_write) return "";
  for (const GlobalBuffer& b : buffers_)
    if (b.input && at + bytes > b.base && at < b.base + b.size)
      return "memcheck: global write of " + std::to_string(bytes) + " bytes to input buffer '" + b.name +
             "' at offset " + std::to_string(at - b.base) + " by " + who(by);
  return "";
}

}  // namespace tsr::cuda::emu
