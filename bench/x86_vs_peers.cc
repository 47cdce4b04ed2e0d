// x86 target against its peers, measured in the same run on the same machine
// (docs/performance.md, "x86"; issue 11 items 4 and 5): f32 matmul against
// OpenBLAS (pinned to its best kernels for this CPU) and oneDNN, bf16 matmul
// against oneDNN, elementwise and rowwise kernels against a bandwidth loop
// over the same bytes and oneDNN's primitive for the op; each line for 1
// thread and for all cores, with the speed ratio to the best peer (matmul) or
// to each peer (memory-bound) and the goals MET / MISSED. Always exits 0:
// goals are reported, not enforced (they are not tests).
//
//   x86_vs_peers [--only TEXT] [TIER...]   TEXT: run the lines whose name contains it
//                                          TIER: v4, v3, v2 (default: the best present)
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "peers/bandwidth.h"
#include "peers/cpu.h"
#include "peers/lines.h"
#include "peers/onednn.h"
#include "peers/openblas.h"
#include "peers/ours.h"
#include "peers/report.h"
#include "x86/x86_target.h"

namespace tsr::bench {

void enter(const Mode& mode) {
  if (mode.threads == 1)
    ours_single_thread();
  else
    ours_all_cores();
  openblas_threads(mode.threads);
  omp_threads(mode.threads);
}

namespace {

bool has_arch(const Target& target, const std::string& arch) {
  const std::vector<std::string> archs = target.archs();
  return std::find(archs.begin(), archs.end(), arch) != archs.end();
}

void run_tier(const Bench& b, const std::string& arch, int cpus) {
  const int64_t big = 4096;
  for (int64_t n : {1024, 2048, 4096}) matmul_line(b, arch, DType::f32, n, n, n, n >= 4096 ? 3 : 7, 1.0, "");
  for (int64_t m : {1, 8, 64}) matmul_line(b, arch, DType::f32, m, big, big, 11, 0.9, "");
  scaling_line(b, arch, 2048, cpus);
  for (DType t : {DType::f32, DType::bf16, DType::f16})
    for (Op op : {Op::silu, Op::gelu_tanh, Op::gelu_erf, Op::exp, Op::sigmoid}) elementwise_line(b, arch, t, {op});
  elementwise_line(b, arch, DType::f32, {Op::add});
  // A fused chain of 4 ops over 2 inputs (issue 26 item 4): silu(x) * y, then two more.
  for (DType t : {DType::f32, DType::bf16}) elementwise_line(b, arch, t, {Op::silu, Op::mul, Op::abs, Op::neg});
  for (DType t : {DType::f32, DType::bf16, DType::f16})
    for (RowOp op : {RowOp::softmax, RowOp::log_softmax, RowOp::rmsnorm, RowOp::layernorm})
      rowwise_line(b, arch, t, op);
  for (DType t : {DType::f32, DType::bf16}) {
    for (int64_t s : {1024, 4096})
      for (int64_t d : {64, 128})
        for (bool causal : {false, true}) attention_line(b, arch, t, {8, 8, s, s, d, causal}, s >= 4096 ? 3 : 5);
    // Decode: one query row per head over an 8k cache; 8 KV heads serving 8 query heads, or 32 (GQA).
    for (int64_t hq : {8, 32}) attention_line(b, arch, t, {hq, 8, 1, 8192, 128, false}, 11);
  }
}

// bf16 matmul: the goal is the AMX tier's (>= 0.9x oneDNN's AMX matmul); x86:v4
// (widened to f32 in packing, or vdpbf16ps) is printed for comparison.
void run_bf16(const Bench& b, const std::string& arch, const std::string& amx) {
  for (int64_t n : {1024, 2048}) matmul_line(b, arch, DType::bf16, n, n, n, 5, 0, "the bf16 goal is for x86:" + amx);
  const std::string what = "matmul bf16, x86:" + amx;
  if (!has_arch(b.target, amx)) {
    for (const Mode& mode : b.modes) report_not_run(mode.label, what, "this build's x86 target has no " + amx + " tier");
    return;
  }
  const DeviceInfo dev = b.target.device(amx);
  if (!dev.present) {
    for (const Mode& mode : b.modes) report_not_run(mode.label, what, dev.description);
    return;
  }
  for (int64_t n : {1024, 2048, 4096}) matmul_line(b, amx, DType::bf16, n, n, n, n >= 4096 ? 3 : 5, 0.9, "");
}

}  // namespace

}  // namespace tsr::bench

int main(int argc, char** argv) {
  using namespace tsr::bench;
  openblas_pin_best_kernels(argv);   // may re-execute this program; first, before any output
  std::unique_ptr<tsr::Target> target = tsr::make_x86_target();
  const tsr::ToolchainInfo tc = target->toolchain();
  if (!tc.found) {
    std::printf("x86 target unavailable: %s\n", tc.why_unavailable.c_str());
    return 0;
  }
  const int cpus = cpu_count();
  Bench b{*target, {{"1 thread", 1}, {"all cores: " + std::to_string(cpus), cpus}}, ""};
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() >= 2 && args[0] == "--only") {
    b.only = args[1];
    args.erase(args.begin(), args.begin() + 2);
  }
  enter(b.modes.back());
  std::printf("x86_vs_peers: %s; %d CPUs\n", tc.version.c_str(), cpus);
  std::printf("  ours: libtesserart's default pool, %u workers for all cores; an inline one-worker executor for 1 thread\n",
              ours_workers());
  std::printf("  %s\n", openblas_description().c_str());
  std::printf("  %s; %d OpenMP threads for all cores\n", onednn_description().c_str(), omp_threads_now());
  std::printf("  bandwidth loops: this binary, -O3 -march=native, OpenMP, dynamic chunks of 32768 elements\n");
  std::printf("  every line: one warm-up each, then interleaved rounds (the first contender rotating); medians\n\n");

  std::vector<std::string> archs;
  for (const char* best : {"v4", "v3", "v2"})
    if (target->device(best).present) {
      archs.push_back(best);
      break;
    }
  if (!args.empty()) archs = args;
  for (const std::string& arch : archs) {
    const tsr::DeviceInfo dev = target->device(arch);
    if (!dev.present) {
      std::printf("x86:%s NOT RUN: %s\n", arch.c_str(), dev.description.c_str());
      continue;
    }
    run_tier(b, arch, cpus);
  }
  if (target->device("v4").present && b.wants("matmul bf16")) run_bf16(b, "v4", "v4+amx");
  print_summary();
  return 0;
}
