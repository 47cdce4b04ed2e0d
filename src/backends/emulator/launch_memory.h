// The memory a launch's threads can touch, and its checks (docs/emulator.md,
// "Memcheck" and "Racecheck"): the global buffers, the module's static
// __shared__ section and the block's dynamic shared region. Every check
// returns "" when the access is fine, else the report line; the caller (the
// scheduler) decides whether the access happens and whether the launch stops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/emulator_abi.h"
#include "emulator/racecheck.h"
#include "emulator/shared_symbols.h"

namespace tsr::cuda::emu {

// The largest cuda.shared_bytes a launch may ask for: sm_90's largest opt-in
// shared allocation per block.
constexpr uint64_t kMaxDynamicSharedBytes = 228 * 1024;

// A global buffer of the launch, for memcheck.
struct GlobalBuffer {
  const uint8_t* base;
  size_t size;
  std::string name;
  bool input;   // written only by the host
};

class LaunchMemory {
 public:
  LaunchMemory(uint8_t* static_begin, uint8_t* static_end, const std::vector<SharedSymbol>& static_names,
               uint32_t dynamic_bytes, const std::vector<GlobalBuffer>& buffers, const tsr_emu_dim3& block_dim);

  // A block starts: its shared memory is poisoned and a fresh racecheck epoch begins.
  void begin_block(const tsr_emu_dim3& block_idx);
  // A __syncthreads completed: accesses before it are ordered before those after it.
  void barrier() { race_.next_epoch(); }
  uint8_t* dynamic_shared() { return dynamic_.data() + kDynamicGuard; }

  // An access by a primitive (tsr_ldg, cp.async source, ...), aligned to
  // `alignment` bytes (0: its own size).
  std::string check_global(const void* p, uint64_t bytes, bool is_write, ThreadId by, uint64_t alignment = 0) const;
  // A 16-byte shared row of ldmatrix or cp.async: aligned and inside shared memory.
  std::string check_shared_row(const void* p, const char* what, ThreadId by) const;
  // A shared access by a collective, for racecheck only.
  std::string record_shared(const void* p, uint32_t bytes, bool is_write, ThreadId by);
  // A 16-byte cp.async destination, for racecheck: the copy's write is in
  // flight from its issue until the issuing thread's wait_group lands it.
  std::string issue_copy(const void* p, ThreadId by);
  void land_copy(const void* p, ThreadId by);
  // A plain C++ access the instrumentation reported, before it happens:
  // racecheck and bounds of shared memory, writes to input buffers. Anything
  // else (the thread's own stack, the emulator's registers) is not the
  // kernel's business. `fatal` is set when the access must not happen (it
  // would land outside shared memory): the launch has to stop.
  std::string plain_access(const void* p, uint64_t bytes, bool is_write, ThreadId by, bool& fatal);

  std::string who(ThreadId t) const;

 private:
  // Bytes of poison before and after the dynamic region, so an overflow lands
  // somewhere memcheck can name (one further out is not recognised).
  static constexpr uint32_t kDynamicGuard = 4096;
  // Offset in the shared space (static section, then dynamic region) or -1.
  int64_t shared_offset(const uint8_t* p, uint64_t bytes) const;
  std::string shared_name(int64_t offset) const;
  std::string hazard_text(const RaceHazard& h, bool is_write, bool copy, ThreadId by) const;

  uint8_t* static_begin_;
  uint8_t* static_end_;
  const std::vector<SharedSymbol>& static_names_;
  uint32_t dynamic_bytes_;
  std::vector<uint8_t> dynamic_;   // guard, region, guard
  const std::vector<GlobalBuffer>& buffers_;
  tsr_emu_dim3 block_dim_, block_idx_{};
  RaceShadow race_;
};

}  // namespace tsr::cuda::emu
