// Conformance of the GPU primitives (tests/device/cuda_primitive_cases.h):
// every case's kernel, compiled by NVRTC exactly as the cuda target compiles
// emitted source and launched through libtesserart, must write the same bytes
// on the GPU as the CPU emulator's model of those primitives does. The
// emulator needs clang, which a GPU machine may lack, so the build host
// writes the emulated outputs beforehand (`primitives-emulate DIR`, run by
// tests/device/prepare_carry.sh) and the GPU machine compares against them;
// without DIR it emulates in place.
#include <cctype>
#include <cstdio>

#include "cuda_device_launch.h"
#include "support/file_io.h"
#include "cuda/cuda_archs.h"
#include "cuda/cuda_target.h"
#include "tests/device/cuda_primitive_cases.h"

namespace tsr::device_check {

namespace {

using primitive_conformance::PrimitiveCase;

// "mma.m16n8k16 bf16" -> "mma_m16n8k16_bf16.bin"
std::string file_name(const PrimitiveCase& c) {
  std::string s;
  for (char ch : c.name) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s + ".bin";
}

Expected<std::vector<uint8_t>> run_on_gpu(const Driver& cu, const PrimitiveCase& c, const std::string& arch) {
  Expected<Artifact> art = make_cuda_target()->compile(c.spec, arch, c.source);
  if (!art) return art.take_error();
  primitive_conformance::set_geometry(*art, c);
  StubKernel kernel(c.spec, *art, 0);
  if (!kernel.get()) return toolchain_error(kernel.why_not());
  const size_t bytes = c.input.size();
  DeviceBuffers dev(cu, c.spec, {bytes, bytes});
  void* stream = nullptr;
  if (!dev.ok() || cu.stream_create(&stream, 1) != 0) return toolchain_error("cuMemAlloc or cuStreamCreate failed");
  std::vector<uint8_t> out(bytes, 0);
  std::string failed;
  if (cu.htod(dev.args[0].ptr, c.input.data(), bytes) || cu.htod(dev.args[1].ptr, out.data(), bytes)) {
    failed = "cuMemcpyHtoD failed";
  } else if (tsr_status s = tsr_kernel_launch_device(kernel.get(), 0, stream, dev.args.data(), 2, nullptr, 0);
             s != TSR_OK) {
    failed = std::string("tsr_kernel_launch_device: ") + tsr_status_string(s) + ": " +
             tsr_kernel_last_message(kernel.get());
  } else if (cu.stream_sync(stream) != 0 || cu.dtoh(out.data(), dev.args[1].ptr, bytes) != 0) {
    failed = "cuStreamSynchronize or cuMemcpyDtoH failed";
  }
  cu.stream_destroy(stream);
  if (!failed.empty()) return toolchain_error(failed);
  return out;
}

}  // namespace

int emulate_primitives(const std::string& dir) {
  int failures = 0;
  for (const PrimitiveCase& c : primitive_conformance::primitive_cases()) {
    Expected<std::vector<uint8_t>> out = primitive_conformance::run_emulated(c);
    Status written = out ? write_file_atomic(dir + "/" + file_name(c), *out) : Status(out.take_error());
    std::printf("%-7s emulated %s%s%s\n", written ? "PASS" : "FAIL", c.name.c_str(), written ? "" : ": ",
                written ? "" : written.error().message().c_str());
    failures += !written;
  }
  return failures ? 1 : 0;
}

int check_primitives(const Driver& cu, const std::string& dir) {
  tsr_cuda_device_desc d0{};
  tsr_cuda_describe(0, &d0);
  const std::string sm = "sm_" + std::to_string(d0.compute_capability);
  const std::string arch = cuda::arch_refusal(sm).empty() ? sm : "ptx";
  int failures = 0;
  for (const PrimitiveCase& c : primitive_conformance::primitive_cases()) {
    Expected<std::vector<uint8_t>> emulated =
        dir.empty() ? primitive_conformance::run_emulated(c) : read_file_bytes(dir + "/" + file_name(c));
    Expected<std::vector<uint8_t>> gpu = run_on_gpu(cu, c, arch);
    std::string why;
    if (!emulated) why = "emulated output: " + emulated.error().message();
    else if (!gpu) why = "GPU run: " + gpu.error().message();
    else why = primitive_conformance::first_difference(*gpu, *emulated);
    std::printf("%-7s primitive %s on cuda:%s%s%s\n", why.empty() ? "PASS" : "FAIL", c.name.c_str(), arch.c_str(),
                why.empty() ? " (bit-identical to the emulator)" : ": ", why.c_str());
    failures += !why.empty();
  }
  std::printf("primitives: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}

}  // namespace tsr::device_check
