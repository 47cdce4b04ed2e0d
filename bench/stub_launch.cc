// Cold path of the runtime stub: open a 100-kernel archive + select + load +
// first x86 launch, against dlopen + dlsym + call of the same code as a plain
// shared object on disk. Target: ratio <= 2x (median of repeated trials).
// Steady state: tsr_kernel_launch of the loaded tiny kernel against a call of
// its entry with the same context. Goal: at most 100 ns added per launch.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "archive/archive_writer.h"
#include "support/subprocess.h"
#include "x86/x86_kernel_abi_text.h"
#include "tesserart.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// out[i] = in0[i] + in1[i]: the x86 kernel ABI v2 (tesserart_kernel.h), no workspace.
const std::string k_source = std::string(tsr::x86::kKernelAbiText) +
    "__attribute__((visibility(\"default\"))) void vadd_tsr_entry(const tsr_kernel_context* ctx, void* const* b,\n"
    "                                                             const int64_t* s) {\n"
    "  const float* x = (const float*)b[0]; const float* y = (const float*)b[1]; float* o = (float*)b[2];\n"
    "  (void)ctx;\n"
    "  for (int64_t i = 0; i < s[0]; ++i) o[i] = x[i] + y[i];\n"
    "}\n"
    "__attribute__((visibility(\"default\"))) uint64_t vadd_tsr_entry_workspace(const int64_t* s, uint32_t w) {\n"
    "  (void)s; (void)w;\n  return 0;\n}\n";

using Entry = void (*)(const tsr_kernel_context*, void* const*, const int64_t*);

// The executor of both sides of the steady-state line: tasks on the caller.
void run_serially(void*, int64_t count, tsr_task_fn task, void* arg) {
  for (int64_t t = 0; t < count; ++t) task(arg, t, 0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  const fs::path dir = fs::temp_directory_path() / "tsr-stub-bench";
  fs::create_directories(dir);
  std::ofstream(dir / "k.c") << k_source;
  const std::string so = (dir / "k.so").string();
  if (tsr::run_process({"cc", "-O2", "-shared", "-fPIC", "-o", so, (dir / "k.c").string()}).exit_code != 0) {
    std::printf("cc failed\n");
    return 1;
  }
  std::ifstream in(so, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  tsr::ArchiveContents c;
  c.metadata["tesserac.version"] = "bench";
  for (int i = 0; i < 100; ++i) {
    tsr::ArchiveKernel k;
    char name[16];
    std::snprintf(name, sizeof name, "k%03d", i);
    k.name = name;
    k.identity = std::string(64, '0');
    k.family = "elementwise";
    k.abi.bindings = {tsr::Binding{"in0", tsr::Role::input, tsr::DType::f32, {tsr::Dim{0, "n"}}},
                      tsr::Binding{"in1", tsr::Role::input, tsr::DType::f32, {tsr::Dim{0, "n"}}},
                      tsr::Binding{"out", tsr::Role::output, tsr::DType::f32, {tsr::Dim{0, "n"}}},
                      tsr::Binding{"n", tsr::Role::scalar, tsr::DType::f32, {}}};
    for (const char* arch : {"v2", "v3"}) {
      tsr::Artifact a;
      a.target = {"x86", arch};
      a.kind = "shared_object";
      a.entry = "vadd_tsr_entry";
      a.key = std::string(64, 'a');
      a.toolchain = "cc";
      a.bytes = bytes;
      k.variants.push_back(a);
    }
    c.kernels.push_back(k);
  }
  const std::string archive = (dir / "bench.tfat").string();
  if (!tsr::write_archive(c, archive).ok()) return 1;

  const int64_t n = 1024;
  std::vector<float> x(n, 1.f), y(n, 2.f), out(n);
  const int trials = 200;
  std::vector<double> stub_us, plain_us, memfd_us, open_us, crc_us, hash_us;
  auto us = [](Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::micro>(to - from).count();
  };
  void* ptrs[3] = {x.data(), y.data(), out.data()};
  const tsr_executor serial = {1, run_serially, nullptr};
  const tsr_kernel_context ctx = {TSR_KERNEL_ABI_VERSION, 1, run_serially, nullptr, nullptr, 0};
  tsr_buffer_arg args[3] = {{x.data(), size_t(n) * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {y.data(), size_t(n) * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {out.data(), size_t(n) * 4, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  for (int t = 0; t < trials; ++t) {
    // The three paths alternate so drift in machine state hits all of them;
    // teardown (unload, close, dlclose) is outside every timed region.
    auto t0 = Clock::now();
    tsr_archive* a = nullptr;
    tsr_kernel* k = nullptr;
    if (tsr_archive_open_file(archive.c_str(), nullptr, &a) != TSR_OK ||
        tsr_kernel_load(a, "k050", nullptr, &k) != TSR_OK ||
        tsr_kernel_launch(k, args, 3, &n, 1, nullptr) != TSR_OK) {
      std::printf("stub path failed: %s\n", a ? tsr_archive_last_message(a) : "open");
      return 1;
    }
    auto t1 = Clock::now();
    tsr_kernel_unload(k);
    tsr_archive_close(a);

    auto t2 = Clock::now();
    void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    reinterpret_cast<Entry>(dlsym(h, "vadd_tsr_entry"))(&ctx, ptrs, &n);
    auto t3 = Clock::now();
    dlclose(h);

    // The floor of any in-memory loader: the same bytes through memfd + dlopen.
    auto t4 = Clock::now();
    int fd = memfd_create("bench", MFD_CLOEXEC);
    if (fd < 0 || write(fd, bytes.data(), bytes.size()) != ssize_t(bytes.size())) return 1;
    h = dlopen(("/proc/self/fd/" + std::to_string(fd)).c_str(), RTLD_NOW | RTLD_LOCAL);
    close(fd);
    reinterpret_cast<Entry>(dlsym(h, "vadd_tsr_entry"))(&ctx, ptrs, &n);
    auto t5 = Clock::now();
    dlclose(h);

    // Parts of the stub path: open alone and the blob's CRC-32C (first use);
    // the blob's SHA-256 is what tsr_archive_verify adds per blob.
    auto t6 = Clock::now();
    tsr_archive_open_file(archive.c_str(), nullptr, &a);
    auto t7 = Clock::now();
    volatile uint32_t crc = tsr_crc32c(bytes.data(), bytes.size());
    (void)crc;
    auto t8 = Clock::now();
    uint8_t digest[32];
    tsr_sha256(bytes.data(), bytes.size(), digest);
    auto t9 = Clock::now();
    tsr_archive_close(a);

    stub_us.push_back(us(t0, t1));
    plain_us.push_back(us(t2, t3));
    memfd_us.push_back(us(t4, t5));
    open_us.push_back(us(t6, t7));
    crc_us.push_back(us(t7, t8));
    hash_us.push_back(us(t8, t9));
  }
  const double s = median(stub_us), p = median(plain_us);
  std::printf("archive: 100 kernels x 2 x86 variants, %ju bytes; kernel blob %zu bytes\n",
              uintmax_t(fs::file_size(archive)), bytes.size());
  std::printf("stub open+select+load+first launch: median %.1f us over %d trials\n", s, trials);
  std::printf("plain dlopen+dlsym+call:            median %.1f us\n", p);
  std::printf("  of which: tsr_archive_open_file %.1f us, blob CRC-32C %.1f us (its SHA-256, in verify only: %.1f us)\n",
              median(open_us), median(crc_us), median(hash_us));
  std::printf("floor: memfd+dlopen+dlsym+call of the same bytes: median %.1f us (%.2fx plain)\n",
              median(memfd_us), median(memfd_us) / p);
  std::printf("ratio stub/plain: %.2fx (target <= 2.00x: %s)\n", s / p, s / p <= 2.0 ? "ok" : "OVER");

  // Steady state: the same kernel loaded once, launched with a few elements,
  // rounds of tsr_kernel_launch and of direct entry calls interleaved.
  if (tsr_set_executor(&serial) != TSR_OK) return 1;
  tsr_archive* a = nullptr;
  tsr_kernel* k = nullptr;
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h || tsr_archive_open_file(archive.c_str(), nullptr, &a) != TSR_OK ||
      tsr_kernel_load(a, "k050", nullptr, &k) != TSR_OK) {
    std::printf("steady state: load failed\n");
    return 1;
  }
  const auto entry = reinterpret_cast<Entry>(dlsym(h, "vadd_tsr_entry"));
  const int64_t tiny = 16;
  const int launches = 200000, rounds = 15;
  std::vector<double> launch_ns, direct_ns;
  // The calling thread's CPU time, not wall time: on a shared machine the
  // time a round spends descheduled would otherwise scale both sides, and
  // with them their difference, by the load.
  auto cpu_ns = [] {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
  };
  for (int r = 0; r < rounds; ++r) {
    const double t0 = cpu_ns();
    for (int i = 0; i < launches; ++i)
      if (tsr_kernel_launch(k, args, 3, &tiny, 1, nullptr) != TSR_OK) return 1;
    const double t1 = cpu_ns();
    for (int i = 0; i < launches; ++i) entry(&ctx, ptrs, &tiny);
    const double t2 = cpu_ns();
    launch_ns.push_back((t1 - t0) / launches);
    direct_ns.push_back((t2 - t1) / launches);
  }
  tsr_kernel_unload(k);
  tsr_archive_close(a);
  dlclose(h);
  tsr_set_executor(nullptr);
  const double added = median(launch_ns) - median(direct_ns);
  std::printf("steady state (%lld elements, %d rounds of %d launches, thread CPU time): tsr_kernel_launch %.1f ns, entry call %.1f ns\n",
              static_cast<long long>(tiny), rounds, launches, median(launch_ns), median(direct_ns));
  std::printf("added per launch: %.1f ns (goal <= 100 ns: %s)\n", added, added <= 100.0 ? "ok" : "OVER");
  if (!std::getenv("TSR_BENCH_KEEP")) fs::remove_all(dir);   // keep the files for profiling
  return 0;
}
