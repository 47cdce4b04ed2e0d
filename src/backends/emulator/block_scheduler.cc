// The emulator's scheduler and the primitives that need it (block_scheduler.h).
// Scheduling is deterministic (warps in order, each as far as it can go, its
// lanes in order), so a result never depends on the host's timing.
#include "emulator/block_scheduler.h"

#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>

#include "spec/half.h"
#include "emulator/fiber_switch.h"

namespace tsr::cuda::emu {

namespace {

// 128 KiB per fiber plus a PROT_NONE page below it, so an overflow faults.
constexpr size_t kStackBytes = 128 * 1024, kGuardBytes = 4096;
// The watchdog reads the clock once per this many polls.
constexpr uint32_t kPollsPerClockRead = 4096;

enum class Wait { none, barrier, shfl, ldmatrix, mma, bpermute, mfma };

const char* wait_name(Wait w) {
  switch (w) {
    case Wait::none: return "running";
    case Wait::barrier: return "__syncthreads";
    case Wait::shfl: return "shfl.sync";
    case Wait::ldmatrix: return "ldmatrix";
    case Wait::mma: return "mma.sync";
    case Wait::bpermute: return "ds_bpermute";
    case Wait::mfma: return "v_mfma_f32_32x32x8";
  }
  return "?";
}

struct PendingCopy {
  uint8_t* dst;
  uint8_t bytes[16];
};

struct Fiber {
  FiberContext ctx;
  tsr_emu_thread_regs regs;
  ThreadId id = 0;
  bool exited = false;
  Wait wait = Wait::none;
  uint64_t mask = 0;
  // Operands and results of the collective this thread waits at.
  float value = 0.0f;
  int32_t addr = 0, data = 0;       // ds_bpermute
  const void* mfma_a = nullptr;     // 4 x 16 bits
  const void* mfma_b = nullptr;
  int lane_mask = 0;
  const uint16_t* row = nullptr;
  bool trans = false;
  unsigned* regs_out = nullptr;
  float* d = nullptr;
  const unsigned* a = nullptr;
  const unsigned* b = nullptr;
  std::vector<PendingCopy> open_group;
  std::deque<std::vector<PendingCopy>> groups;   // committed, oldest first
};

std::string dim3_text(const tsr_emu_dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

class Grid {
 public:
  Grid(const KernelModule& m, const LaunchShape& s, void* const* args, const std::vector<GlobalBuffer>& buffers,
       const LaunchLimits& limits, CopyLanding landing)
      : module_(m),
        shape_(s),
        args_(args),
        limits_(limits),
        landing_(landing),
        memory_(m.shared_begin, m.shared_end, m.shared_symbols, s.dynamic_shared_bytes, buffers,
                {s.block[0], s.block[1], s.block[2]}),
        deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(limits.timeout_s))) {}
  ~Grid() {
    if (stacks_) munmap(stacks_, stacks_bytes_);
  }

  std::string run();
  uint64_t copies() const { return copies_; }

  // The primitives (called from the kernel module through tsr_emu_api).
  int check_global(const void* p, unsigned long long bytes, bool is_write) {
    poll_watchdog();
    return record(memory_.check_global(p, bytes, is_write, current_->id));
  }
  void access(const void* p, unsigned long long bytes, bool is_write) {
    poll_watchdog();
    bool fatal = false;
    const std::string what = memory_.plain_access(p, bytes, is_write, current_->id, fatal);
    if (fatal) stop(what);
    record(what);
  }
  [[noreturn]] void index_out_of_bounds(const void* ubsan_data, unsigned long long index);
  uint8_t* dynamic_shared() { return memory_.dynamic_shared(); }
  void block_on(Wait w);
  void cp_async16(void* smem, const void* gmem, int src_bytes);
  void cp_async_commit() {
    current_->groups.push_back(std::move(current_->open_group));
    current_->open_group.clear();
  }
  void cp_async_wait_group(int pending);
  const uint16_t* shared_row(const void* p, const char* what);
  void ldmatrix_arrive(unsigned* r, const void* smem, bool trans);
  Fiber& current() { return *current_; }
  // Every lane of the wavefront: AMD collectives run with the whole EXEC mask.
  uint64_t whole_wave() const { return shape_.wave_size >= 64 ? ~0ull : (1ull << shape_.wave_size) - 1; }
  int wave_size() const { return shape_.wave_size; }
  void enter_kernel();
  void thread_exit();

 private:
  void error(const std::string& what);
  // Records a check's result; returns 1 when the check passed.
  int record(const std::string& what) {
    if (what.empty()) return 1;
    error(what);
    return 0;
  }
  void abort(const std::string& what) {
    error(what);
    aborted_ = true;
  }
  // Stops the launch from inside the running thread, which never resumes.
  [[noreturn]] void stop(const std::string& what);
  void poll_watchdog() {
    if (++polls_ % kPollsPerClockRead == 0 && std::chrono::steady_clock::now() > deadline_) timed_out();
  }
  [[noreturn]] void timed_out();
  std::string who(const Fiber& f) const { return memory_.who(f.id); }
  bool run_block(const tsr_emu_dim3& block_idx);
  bool resolve_warp(size_t first_lane, size_t lanes);
  void execute(Wait kind, Fiber** lanes);

  const KernelModule& module_;
  LaunchShape shape_;
  void* const* args_;
  LaunchLimits limits_;
  CopyLanding landing_;
  uint64_t copies_ = 0;
  LaunchMemory memory_;
  std::chrono::steady_clock::time_point deadline_;
  uint32_t polls_ = 0;
  std::vector<Fiber> fibers_;
  uint8_t* stacks_ = nullptr;
  size_t stacks_bytes_ = 0;
  FiberContext scheduler_;
  Fiber* current_ = nullptr;
  bool aborted_ = false;
  std::vector<std::string> errors_;
  size_t error_count_ = 0;
};

thread_local Grid* g_grid = nullptr;

void Grid::error(const std::string& what) {
  ++error_count_;
  if (errors_.size() < kMaxReportedErrors) errors_.push_back(what);
}

const uint16_t* Grid::shared_row(const void* p, const char* what) {
  return record(memory_.check_shared_row(p, what, current_->id)) ? static_cast<const uint16_t*>(p) : nullptr;
}

// The thread's stack is abandoned, not unwound: what lives on it (the message
// being built, a few bytes) is never freed, once per stopped launch.
void Grid::stop(const std::string& what) {
  abort(what);
  FiberContext::switch_to(current_->ctx, scheduler_);
  __builtin_unreachable();   // the scheduler never resumes a thread of a stopped launch
}

void Grid::timed_out() {
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", limits_.timeout_s);
  stop("watchdog: launch did not finish within " + std::string(limit) + " s (" + who(*current_) + " was running)");
}

// compiler-rt ubsan_handlers.h: OutOfBoundsData and the TypeDescriptor of an
// integer (TypeInfo: bit 0 signed, bits 1.. log2 of the width in bits).
void Grid::index_out_of_bounds(const void* ubsan_data, unsigned long long index) {
  struct SourceLocation {
    const char* file;
    uint32_t line, column;
  };
  struct TypeDescriptor {
    uint16_t kind, info;
    char name[1];
  };
  struct OutOfBoundsData {
    SourceLocation loc;
    const TypeDescriptor* array_type;
    const TypeDescriptor* index_type;
  };
  const auto* d = static_cast<const OutOfBoundsData*>(ubsan_data);
  const unsigned bits = 1u << (d->index_type->info >> 1);
  std::string value = std::to_string(index);
  if ((d->index_type->info & 1) && bits <= 64) {
    const int shift = 64 - static_cast<int>(bits);
    value = std::to_string(static_cast<long long>(index << shift) >> shift);
  }
  std::string array = d->array_type->name;   // quoted by the compiler: 'float[16][68]'
  stop("memcheck: index " + value + " out of bounds of " + array + " at " + d->loc.file + ":" +
       std::to_string(d->loc.line) + ":" + std::to_string(d->loc.column) + " by " + who(*current_));
}

void Grid::block_on(Wait w) {
  poll_watchdog();
  current_->wait = w;
  FiberContext::switch_to(current_->ctx, scheduler_);
}

void Grid::ldmatrix_arrive(unsigned* r, const void* smem, bool trans) {
  static const uint16_t zeros[8] = {};
  Fiber& f = *current_;
  const uint16_t* row = shared_row(smem, "ldmatrix row");
  if (row) record(memory_.record_shared(row, 16, false, f.id));
  f.mask = 0xffffffffull, f.row = row ? row : zeros, f.trans = trans, f.regs_out = r;
  block_on(Wait::ldmatrix);
}

void Grid::cp_async16(void* smem, const void* gmem, int src_bytes) {
  PendingCopy c{};
  c.dst = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(shared_row(smem, "cp.async destination")));
  if (!c.dst) return;
  ++copies_;
  if (src_bytes < 0 || src_bytes > 16) {
    error("cp.async: src-size " + std::to_string(src_bytes) + " is outside [0, 16] in " + who(*current_));
    src_bytes = 0;
  }
  // The source is read now. The destination is written over the copy's whole
  // flight (racecheck) and lands at the issue or at the matching wait_group
  // (CopyLanding).
  if (src_bytes > 0 && reinterpret_cast<uintptr_t>(gmem) % 16 != 0) {
    error("memcheck: cp.async source not 16-byte aligned by " + who(*current_));
  } else if (src_bytes > 0 && record(memory_.check_global(gmem, static_cast<unsigned long long>(src_bytes), false,
                                                         current_->id, 16))) {   // src-size bytes of a 16-aligned source
    std::memcpy(c.bytes, gmem, static_cast<size_t>(src_bytes));
  }
  record(memory_.issue_copy(c.dst, current_->id));
  if (landing_ == CopyLanding::eager) std::memcpy(c.dst, c.bytes, 16);
  current_->open_group.push_back(c);
}

void Grid::cp_async_wait_group(int pending) {
  Fiber& f = *current_;
  while (f.groups.size() > static_cast<size_t>(pending)) {
    // The copies have landed by now, as writes of the thread that issued them.
    for (const PendingCopy& c : f.groups.front()) {
      if (landing_ == CopyLanding::late) std::memcpy(c.dst, c.bytes, 16);
      memory_.land_copy(c.dst, f.id);
    }
    f.groups.pop_front();
  }
}

void Grid::thread_exit() {
  Fiber& f = *current_;
  size_t never_waited = f.open_group.size();
  for (const std::vector<PendingCopy>& g : f.groups) never_waited += g.size();
  if (never_waited)
    error("cp.async: " + who(f) + " exited with " + std::to_string(never_waited) +
          " copies that no wait_group completed");
  f.exited = true;
  FiberContext::switch_to(f.ctx, scheduler_);
}

// Fibers start here (makecontext passes no pointer portably): the kernel, then
// the exit bookkeeping, which switches back to the scheduler for good.
void fiber_main() {
  Grid& g = *g_grid;
  g.enter_kernel();
  g.thread_exit();
}

void Grid::enter_kernel() { module_.entry(args_); }

std::string Grid::run() {
  const uint32_t threads = shape_.block[0] * shape_.block[1] * shape_.block[2];
  if (threads == 0 || threads > 1024) return "launch: a block of " + std::to_string(threads) + " threads (1..1024)";
  stacks_bytes_ = threads * (kStackBytes + kGuardBytes);
  void* mem = mmap(nullptr, stacks_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) return "launch: cannot map " + std::to_string(stacks_bytes_) + " bytes of fiber stacks";
  stacks_ = static_cast<uint8_t*>(mem);
  for (uint32_t i = 0; i < threads; ++i) mprotect(stacks_ + i * (kStackBytes + kGuardBytes), kGuardBytes, PROT_NONE);
  fibers_.resize(threads);

  Grid* const saved = g_grid;
  g_grid = this;
  tsr_emu_api api{};
  api.check_global = [](const void* p, unsigned long long n, int w) { return g_grid->check_global(p, n, w != 0); };
  api.access = [](const void* p, unsigned long long n, int w) { g_grid->access(p, n, w != 0); };
  api.index_out_of_bounds = [](const void* data, unsigned long long index) { g_grid->index_out_of_bounds(data, index); };
  api.dynamic_shared = []() -> void* { return g_grid->dynamic_shared(); };
  api.syncthreads = [] { g_grid->block_on(Wait::barrier); };
  api.shfl_xor_sync = [](unsigned mask, float v, int lane_mask) {
    Fiber& f = g_grid->current();
    f.mask = mask, f.value = v, f.lane_mask = lane_mask;
    g_grid->block_on(Wait::shfl);
    return f.value;
  };
  api.cp_async16 = [](void* smem, const void* gmem, int n) { g_grid->cp_async16(smem, gmem, n); };
  api.cp_async_commit = [] { g_grid->cp_async_commit(); };
  api.cp_async_wait_group = [](int pending) { g_grid->cp_async_wait_group(pending); };
  api.ldmatrix_x4 = [](unsigned* r, const void* smem, int trans) { g_grid->ldmatrix_arrive(r, smem, trans != 0); };
  api.mma_m16n8k16 = [](float* d, const unsigned* a, const unsigned* b, int) {
    Fiber& f = g_grid->current();
    f.mask = 0xffffffffull, f.d = d, f.a = a, f.b = b;
    g_grid->block_on(Wait::mma);
  };
  api.ds_bpermute = [](int addr, int data) {
    Fiber& f = g_grid->current();
    f.mask = g_grid->whole_wave(), f.addr = addr, f.data = data;
    g_grid->block_on(Wait::bpermute);
    return f.data;
  };
  api.mfma_32x32x8 = [](float* d, const void* a, const void* b, int) {
    Fiber& f = g_grid->current();
    f.mask = g_grid->whole_wave(), f.d = d, f.mfma_a = a, f.mfma_b = b;
    g_grid->block_on(Wait::mfma);
  };
  api.f16_to_f32 = [](unsigned short h) { return f16_to_f32(h); };
  api.f32_to_f16 = [](float f) { return static_cast<unsigned short>(f32_to_f16(f)); };
  api.f32_to_bf16 = [](float f) { return static_cast<unsigned short>(f32_to_bf16(f)); };
  *module_.api_slot = &api;

  const tsr_emu_dim3 grid{shape_.grid[0], shape_.grid[1], shape_.grid[2]};
  for (uint32_t z = 0; z < grid.z && !aborted_; ++z)
    for (uint32_t y = 0; y < grid.y && !aborted_; ++y)
      for (uint32_t x = 0; x < grid.x && !aborted_; ++x) run_block({x, y, z});
  g_grid = saved;

  if (error_count_ == 0) return "";
  std::string report = std::to_string(error_count_) + (error_count_ == 1 ? " error" : " errors");
  if (aborted_) report += " (launch stopped)";
  for (const std::string& e : errors_) report += "\n  " + e;
  if (error_count_ > errors_.size()) report += "\n  ... " + std::to_string(error_count_ - errors_.size()) + " more";
  return report;
}

bool Grid::run_block(const tsr_emu_dim3& block_idx) {
  memory_.begin_block(block_idx);
  const tsr_emu_dim3 block_dim{shape_.block[0], shape_.block[1], shape_.block[2]};
  const tsr_emu_dim3 grid_dim{shape_.grid[0], shape_.grid[1], shape_.grid[2]};
  for (size_t i = 0; i < fibers_.size(); ++i) {
    Fiber& f = fibers_[i];
    f = Fiber{};
    const uint32_t t = static_cast<uint32_t>(i);
    f.id = static_cast<ThreadId>(t);
    f.regs = {{t % block_dim.x, t / block_dim.x % block_dim.y, t / (block_dim.x * block_dim.y)},
              block_idx, block_dim, grid_dim, t % static_cast<uint32_t>(shape_.wave_size)};
    f.ctx.prepare(stacks_ + i * (kStackBytes + kGuardBytes) + kGuardBytes, kStackBytes, fiber_main);
  }
  for (;;) {
    // Warp by warp, each as far as it can go before the next one moves: a
    // warp that reads shared data another warp has not written yet (a
    // missing barrier) sees the poison instead of the data.
    const size_t wave = static_cast<size_t>(shape_.wave_size);
    for (size_t w = 0; w < fibers_.size(); w += wave) {
      const size_t lanes = std::min<size_t>(wave, fibers_.size() - w);
      for (bool released = true; released;) {
        for (size_t l = w; l < w + lanes; ++l) {
          Fiber& f = fibers_[l];
          if (f.exited || f.wait != Wait::none) continue;
          current_ = &f;
          *module_.regs_slot = &f.regs;
          FiberContext::switch_to(scheduler_, f.ctx);
          if (aborted_) return false;
        }
        if (!resolve_warp(w, lanes)) return false;
        released = false;
        for (size_t l = w; l < w + lanes; ++l) released |= !fibers_[l].exited && fibers_[l].wait == Wait::none;
      }
    }
    size_t waiting = 0, exited = 0;
    const Fiber* first_exited = nullptr;
    for (const Fiber& f : fibers_) {
      if (f.exited) {
        ++exited;
        if (!first_exited) first_exited = &f;
      } else {
        ++waiting;   // only barriers remain: resolve_warp released or failed every collective
      }
    }
    if (waiting == 0) return true;
    if (exited > 0) {
      abort("barrier: " + std::to_string(waiting) + " threads of block " + dim3_text(block_idx) +
            " wait at __syncthreads while " + std::to_string(exited) + " have exited (first: " + who(*first_exited) +
            ")");
      return false;
    }
    for (Fiber& f : fibers_) f.wait = Wait::none;
    memory_.barrier();
  }
}

bool Grid::resolve_warp(size_t first_lane, size_t lanes) {
  Fiber* lead = nullptr;
  for (size_t l = 0; l < lanes && !lead; ++l) {
    Fiber& f = fibers_[first_lane + l];
    if (!f.exited && f.wait != Wait::none && f.wait != Wait::barrier) lead = &f;
  }
  if (!lead) return true;
  const size_t wave = static_cast<size_t>(shape_.wave_size);
  const std::string where = "warp " + std::to_string(first_lane / wave) + " of block " +
                            dim3_text(lead->regs.block_idx) + ": " + who(*lead) + " waits at " +
                            wait_name(lead->wait) + " (mask 0x";
  char mask_hex[24];
  std::snprintf(mask_hex, sizeof mask_hex, wave > 32 ? "%016llx" : "%08llx", static_cast<unsigned long long>(lead->mask));
  Fiber* group[kMaxWaveSize] = {};
  for (size_t l = 0; l < wave; ++l) {
    const bool named = (lead->mask >> l) & 1u;
    if (!named) continue;
    if (l >= lanes) {
      abort(where + mask_hex + ") naming lane " + std::to_string(l) + ", which this block does not have");
      return false;
    }
    Fiber& f = fibers_[first_lane + l];
    if (f.exited || f.wait != lead->wait || f.mask != lead->mask) {
      abort("divergence at a warp collective: " + where + mask_hex + ") but lane " + std::to_string(l) + " " +
            (f.exited ? std::string("has exited") : std::string("waits at ") + wait_name(f.wait)));
      return false;
    }
    group[l] = &f;
  }
  execute(lead->wait, group);
  for (Fiber* f : group)
    if (f) f->wait = Wait::none;
  return true;
}

void Grid::execute(Wait kind, Fiber** lanes) {
  switch (kind) {
    case Wait::shfl: {
      const int wave = shape_.wave_size;
      WaveFloats v{};
      for (int l = 0; l < wave; ++l) v[l] = lanes[l] ? lanes[l]->value : 0.0f;
      // A source lane outside the mask is undefined in CUDA; the lead's lane mask is shared by all.
      int lane_mask = 0;
      for (int l = 0; l < wave; ++l)
        if (lanes[l]) lane_mask = lanes[l]->lane_mask;
      const WaveFloats out = shfl_xor(v, lane_mask, wave);
      for (int l = 0; l < wave; ++l)
        if (lanes[l]) lanes[l]->value = out[l];
      break;
    }
    case Wait::bpermute: {   // every lane of the wave is in the group (whole_wave)
      const int wave = shape_.wave_size;
      WaveInts addr{}, data{};
      for (int l = 0; l < wave; ++l) addr[l] = lanes[l]->addr, data[l] = lanes[l]->data;
      const WaveInts out = ds_bpermute(addr, data, wave);
      for (int l = 0; l < wave; ++l) lanes[l]->data = out[l];
      break;
    }
    case Wait::mfma: {
      if (shape_.wave_size != kMaxWaveSize) {
        abort("v_mfma_f32_32x32x8 needs a 64-lane wavefront, the launch has " + std::to_string(shape_.wave_size));
        break;
      }
      std::array<MfmaLane, kMaxWaveSize> frag{};
      for (int l = 0; l < kMaxWaveSize; ++l) {
        std::memcpy(frag[l].a.data(), lanes[l]->mfma_a, 8);
        std::memcpy(frag[l].b.data(), lanes[l]->mfma_b, 8);
        std::memcpy(frag[l].d.data(), lanes[l]->d, 64);
      }
      mfma_32x32x8(frag, module_.bf16);
      for (int l = 0; l < kMaxWaveSize; ++l) std::memcpy(lanes[l]->d, frag[l].d.data(), 64);
      break;
    }
    case Wait::ldmatrix: {
      LdmatrixRows rows{};
      for (int l = 0; l < kWarpSize; ++l) rows[l] = lanes[l]->row;
      const auto out = ldmatrix_x4(rows, lanes[0]->trans);
      for (int l = 0; l < kWarpSize; ++l) std::memcpy(lanes[l]->regs_out, out[l].data(), 16);
      break;
    }
    case Wait::mma: {
      std::array<MmaLane, kWarpSize> frag{};
      for (int l = 0; l < kWarpSize; ++l) {
        std::memcpy(frag[l].a.data(), lanes[l]->a, 16);
        std::memcpy(frag[l].b.data(), lanes[l]->b, 8);
        std::memcpy(frag[l].d.data(), lanes[l]->d, 16);
      }
      mma_m16n8k16(frag, module_.bf16);
      for (int l = 0; l < kWarpSize; ++l) std::memcpy(lanes[l]->d, frag[l].d.data(), 16);
      break;
    }
    case Wait::none:
    case Wait::barrier: break;
  }
}

}  // namespace

GridRun run_grid(const KernelModule& module, const LaunchShape& shape, void* const* args,
                 const std::vector<GlobalBuffer>& buffers, const LaunchLimits& limits, CopyLanding landing) {
  Grid grid(module, shape, args, buffers, limits, landing);
  GridRun r;
  r.errors = grid.run();
  r.copies = grid.copies();
  return r;
}

}  // namespace tsr::cuda::emu
