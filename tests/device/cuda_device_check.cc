// Device checks for the cuda target, run by tests/device/cuda_check.sh on a
// machine with an NVIDIA GPU (CUDA Driver API reference):
//   launch SPECS   every shipped spec, for the device's sm_XY and for ptx, on
//                  every device it runs on, qualified by the host oracle
//                  twice: through tsr_kernel_launch_device (cuMemAlloc'd
//                  buffers, a stream of our own, no copy or sync by the stub)
//                  and through the copying tsr_kernel_launch; then the
//                  device launch's asynchrony (enqueue time vs run time)
//   bench          generated kernels vs peers measured in-run
//   primitives [DIR]  each GPU primitive's inline PTX on the GPU vs the CPU
//                  emulator's model, bit for bit (cuda_primitive_conformance.cc;
//                  DIR: the emulated outputs written by primitives-emulate)
//   primitives-emulate DIR  writes those emulated outputs (no GPU needed)
// Prints one line per check ("PASS", "FAIL", "NOT_RUN") and exits 1 on any
// FAIL or NOT_RUN. Built by tests/device/prepare_carry.sh.
#include <chrono>
#include <cstring>
#include <iostream>

#include "cuda_device_launch.h"
#include "compile/compile.h"
#include "launch/stub_launcher.h"
#include "oracle/oracle.h"
#include "driver/spec_loading.h"
#include "support/diagnostics.h"
#include "cuda/cuda_archs.h"
#include "cuda/cuda_devices.h"
#include "cuda/cuda_target.h"
#include "target/launcher.h"

namespace tsr::device_check {

int bench(const Driver& cu);   // cuda_device_bench.cc
int check_primitives(const Driver& cu, const std::string& dir);   // cuda_primitive_conformance.cc
int emulate_primitives(const std::string& dir);

namespace {

// The oracle's Launcher for one artifact on one device: launch() puts the
// trial's inputs in device memory, launches with tsr_kernel_launch_device on
// our stream, synchronizes the stream itself and copies the outputs back.
class DeviceLauncher final : public Launcher {
 public:
  DeviceLauncher(const Target& inner, const Driver& cu, const KernelSpec& spec, const Artifact& art, int device)
      : inner_(inner), cu_(cu), kernel_(spec, art, device), device_(device) {
    if (cu_.stream_create(&stream_, 1 /* CU_STREAM_NON_BLOCKING */) != 0) stream_ = nullptr;
  }
  ~DeviceLauncher() override {
    if (stream_) cu_.stream_destroy(stream_);
  }
  DeviceLauncher(const DeviceLauncher&) = delete;
  DeviceLauncher& operator=(const DeviceLauncher&) = delete;

  DeviceInfo device(const std::string& arch) const override { return inner_.device(arch); }
  BudgetFloor budget_floor(const KernelSpec& spec) const override { return inner_.budget_floor(spec); }
  Status launch(const KernelSpec& spec, const Artifact&, LaunchArgs& args) const override {
    if (!kernel_.get()) return toolchain_error(kernel_.why_not());
    if (!stream_) return toolchain_error("cuStreamCreate failed");
    std::vector<size_t> sizes;   // the payloads, without the oracle's guard zones
    for (size_t i = 0; i < args.buffers.size(); ++i) sizes.push_back(args.payload_size(i));
    DeviceBuffers dev(cu_, spec, sizes);
    if (!dev.ok()) return toolchain_error("cuMemAlloc failed");
    for (size_t i = 0; i < dev.args.size(); ++i)
      if (dev.args[i].role == TSR_ROLE_IN && sizes[i] && cu_.htod(dev.args[i].ptr, args.payload(i), sizes[i]))
        return toolchain_error("cuMemcpyHtoD failed");
    const tsr_status s = tsr_kernel_launch_device(kernel_.get(), device_, stream_, dev.args.data(), dev.args.size(),
                                                  args.scalars.data(), args.scalars.size());
    if (s != TSR_OK)
      return toolchain_error(std::string("tsr_kernel_launch_device: ") + tsr_status_string(s) + ": " +
                             tsr_kernel_last_message(kernel_.get()));
    if (cu_.stream_sync(stream_) != 0) return toolchain_error("cuStreamSynchronize failed after the launch");
    for (size_t i = 0; i < dev.args.size(); ++i)
      if (dev.args[i].role == TSR_ROLE_OUT && sizes[i] && cu_.dtoh(args.payload(i), dev.args[i].ptr, sizes[i]))
        return toolchain_error("cuMemcpyDtoH failed");
    return ok();
  }

 private:
  const Target& inner_;
  const Driver& cu_;
  StubKernel kernel_;
  int device_;
  void* stream_ = nullptr;
};

int report(const std::string& what, const OracleReport& r) {
  std::printf("%-7s %s", verdict_name(r.verdict), what.c_str());
  if (r.verdict == Verdict::pass) std::printf(" (%d trials, max abs err %.3g)\n", r.trials, r.max_abs_err);
  else std::printf(": %s\n", r.reason.c_str());
  return r.verdict == Verdict::pass ? 0 : 1;
}

// 20 launches of a 4096^3 bf16 matmul enqueued on a stream: the calls must
// return long before the GPU is done with them (no synchronization inside).
int check_asynchrony(const Driver& cu, const std::string& arch) {
  const KernelSpec s = bf16_gemm_spec("async_gemm", 4096);
  Expected<Artifact> art = compile_for_target(s, {"cuda", arch});
  if (!art) return std::printf("FAIL    async: compile: %s\n", art.error().message().c_str()), 1;
  StubKernel k(s, *art, 0);
  if (!k.get()) return std::printf("FAIL    async: %s\n", k.why_not().c_str()), 1;
  const size_t bytes = size_t{4096} * 4096 * 2;
  DeviceBuffers dev(cu, s, {bytes, bytes, bytes});
  void* stream = nullptr;
  if (!dev.ok() || cu.stream_create(&stream, 1) != 0) return std::printf("FAIL    async: no memory or stream\n"), 1;
  tsr_kernel_launch_device(k.get(), 0, stream, dev.args.data(), 3, nullptr, 0);   // warm-up
  cu.stream_sync(stream);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  int failed = 0;
  for (int i = 0; i < 20; ++i) failed += tsr_kernel_launch_device(k.get(), 0, stream, dev.args.data(), 3, nullptr, 0) != TSR_OK;
  const auto t1 = clock::now();
  cu.stream_sync(stream);
  const auto t2 = clock::now();
  cu.stream_destroy(stream);
  const double enqueue = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double total = std::chrono::duration<double, std::milli>(t2 - t0).count();
  const bool pass = !failed && enqueue < total / 2;
  std::printf("%-7s async: 20 device launches enqueued in %.3f ms, done after %.3f ms (%s)\n", pass ? "PASS" : "FAIL",
              enqueue, total, failed ? "a launch failed" : "enqueue must take under half");
  return pass ? 0 : 1;
}

int launch_checks(const Driver& cu, const std::string& specs) {
  std::unique_ptr<Target> cuda = make_cuda_target();
  DiagnosticEngine diag(&std::cerr);
  const std::vector<KernelSpec> loaded = load_specs({specs}, diag);
  if (loaded.empty()) return std::printf("FAIL    no specs loaded from %s\n", specs.c_str()), 1;
  tsr_cuda_device_desc d0{};
  tsr_cuda_describe(0, &d0);
  std::vector<std::string> archs = {"ptx"};
  const std::string sm = "sm_" + std::to_string(d0.compute_capability);
  if (cuda::arch_refusal(sm).empty()) archs.insert(archs.begin(), sm);
  int failures = 0;
  for (const KernelSpec& spec : loaded)
    for (const std::string& arch : archs) {
      const std::string name = spec.name + " cuda:" + arch;
      if (std::string why = cuda->unsupported_reason(spec, arch); !why.empty()) {
        std::printf("SKIP    %s: %s\n", name.c_str(), why.c_str());
        continue;
      }
      Expected<Artifact> art = compile_for_target(spec, {"cuda", arch});
      if (!art) {
        std::printf("FAIL    %s: compile: %s\n", name.c_str(), art.error().message().c_str());
        ++failures;
        continue;
      }
      for (int device = 0; device < tsr_cuda_device_count(); ++device) {
        int cc = 0;
        if (tsr_cuda_probe(device, &cc) != TSR_OK || !cuda::arch_runs_on(arch, cc)) continue;
        DeviceLauncher direct(*cuda, cu, spec, *art, device);
        const OracleReport r = run_oracle(spec, direct, *art);
        failures += report(name + " device " + std::to_string(device) + " tsr_kernel_launch_device", r);
      }
      Expected<std::unique_ptr<StubLauncher>> copying = make_in_memory_stub_launcher(*cuda, spec, *art);
      if (!copying) {
        std::printf("FAIL    %s: %s\n", name.c_str(), copying.error().message().c_str());
        ++failures;
        continue;
      }
      const OracleReport r = run_oracle(spec, **copying, *art);   // before route(): the route of the load it does
      failures += report(name + " tsr_kernel_launch (copying, " + (*copying)->route() + ")", r);
    }
  failures += check_asynchrony(cu, archs.front());
  std::printf("launch: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace tsr::device_check

int main(int argc, char** argv) {
  using namespace tsr::device_check;
  const std::string command = argc >= 2 ? argv[1] : "";
  const bool launch = argc == 3 && command == "launch";
  const bool primitives = (argc == 2 || argc == 3) && command == "primitives";
  if (argc == 3 && command == "primitives-emulate") return emulate_primitives(argv[2]);
  if (!launch && !primitives && !(argc == 2 && command == "bench")) {
    std::fprintf(stderr, "usage: %s launch SPECS_DIR | bench | primitives [DIR] | primitives-emulate DIR\n", argv[0]);
    return 2;
  }
  if (tsr_cuda_device_count() == 0) {
    std::printf("NOT_RUN %s: %s\n", argv[1], tsr_cuda_unavailable_reason());
    return 1;
  }
  Driver cu;
  if (!cu.open()) {
    std::printf("FAIL    cannot bind the driver entry points or make device 0's context current\n");
    return 1;
  }
  if (primitives) return check_primitives(cu, argc == 3 ? argv[2] : "");
  return launch ? launch_checks(cu, argv[2]) : bench(cu);
}
