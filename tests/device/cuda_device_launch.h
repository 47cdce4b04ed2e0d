// What the device checks share (tests/device/cuda_check.sh runs them on a
// GPU machine): the CUDA driver entry points an application uses, taken from
// the driver libtesserart loaded (tsr_cuda_driver_symbol: one driver), and a
// kernel loaded by the stub from a one-kernel archive in memory, launched
// with tsr_kernel_launch_device on device memory and a stream of our own, as
// a real GPU application does (CUDA Driver API reference).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "archive/archive_writer.h"
#include "archive/wire_codes.h"
#include "driver/assemble_archive.h"
#include "spec/abi.h"
#include "target/target.h"
#include "tesserart.h"

extern "C" {
#include "runtime-stub/src/tsr_internal.h"
}

namespace tsr::device_check {

using CUdeviceptr = unsigned long long;

struct Driver {
  int (*primary_retain)(void**, int) = nullptr;
  int (*ctx_push)(void*) = nullptr;
  int (*ctx_pop)(void**) = nullptr;
  int (*mem_alloc)(CUdeviceptr*, size_t) = nullptr;
  int (*mem_free)(CUdeviceptr) = nullptr;
  int (*htod)(CUdeviceptr, const void*, size_t) = nullptr;
  int (*dtoh)(void*, CUdeviceptr, size_t) = nullptr;
  int (*dtod)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  int (*stream_create)(void**, unsigned) = nullptr;
  int (*stream_destroy)(void*) = nullptr;
  int (*stream_sync)(void*) = nullptr;
  int (*event_create)(void**, unsigned) = nullptr;
  int (*event_record)(void*, void*) = nullptr;
  int (*event_sync)(void*) = nullptr;
  int (*event_elapsed)(float*, void*, void*) = nullptr;
  int (*event_destroy)(void*) = nullptr;

  // Binds every entry point and makes device 0's primary context current
  // on this thread (what the CUDA runtime does for an application).
  bool open() {
    bool ok = bind(primary_retain, "cuDevicePrimaryCtxRetain") && bind(ctx_push, "cuCtxPushCurrent_v2") &&
              bind(ctx_pop, "cuCtxPopCurrent_v2") && bind(mem_alloc, "cuMemAlloc_v2") &&
              bind(mem_free, "cuMemFree_v2") && bind(htod, "cuMemcpyHtoD_v2") && bind(dtoh, "cuMemcpyDtoH_v2") &&
              bind(dtod, "cuMemcpyDtoD_v2") && bind(stream_create, "cuStreamCreate") &&
              bind(stream_destroy, "cuStreamDestroy_v2") && bind(stream_sync, "cuStreamSynchronize") &&
              bind(event_create, "cuEventCreate") && bind(event_record, "cuEventRecord") &&
              bind(event_sync, "cuEventSynchronize") && bind(event_elapsed, "cuEventElapsedTime") &&
              bind(event_destroy, "cuEventDestroy_v2");
    void* ctx = nullptr;
    return ok && primary_retain(&ctx, 0) == 0 && ctx_push(ctx) == 0;
  }

 private:
  template <typename F>
  bool bind(F& fn, const char* name) {
    fn = reinterpret_cast<F>(tsr_cuda_driver_symbol(name));
    if (!fn) std::printf("driver entry point %s not found\n", name);
    return fn != nullptr;
  }
};

// A kernel of one artifact, loaded by the stub from an in-memory archive.
class StubKernel {
 public:
  StubKernel(const KernelSpec& spec, const Artifact& artifact, int device) {
    ArchiveContents contents;
    contents.kernels.push_back(archive_kernel(spec));
    contents.kernels.back().variants.push_back(artifact);
    Expected<std::vector<uint8_t>> bytes = serialize_archive(contents);
    if (!bytes) {
      why_ = bytes.error().message();
      return;
    }
    bytes_ = std::move(*bytes);
    if (tsr_archive_open_memory(bytes_.data(), bytes_.size(), nullptr, &archive_) != TSR_OK) {
      why_ = "tsr_archive_open_memory failed";
      return;
    }
    tsr_select_options o{"cuda", 0, artifact.target.arch.c_str(), device};
    const tsr_status s = tsr_kernel_load(archive_, spec.name.c_str(), &o, &kernel_);
    if (s != TSR_OK) why_ = std::string("tsr_kernel_load: ") + tsr_status_string(s) + ": " + tsr_archive_last_message(archive_);
  }
  ~StubKernel() {
    tsr_kernel_unload(kernel_);
    tsr_archive_close(archive_);
  }
  StubKernel(const StubKernel&) = delete;
  StubKernel& operator=(const StubKernel&) = delete;

  tsr_kernel* get() const { return kernel_; }
  const std::string& why_not() const { return why_; }

 private:
  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
  tsr_kernel* kernel_ = nullptr;
  std::string why_;
};

// bf16 C[size,size] = A (row-major) . B (col-major), f32 accumulation: the
// benchmark's matmul and the asynchrony check's long-running kernel.
inline KernelSpec bf16_gemm_spec(const std::string& name, int64_t size) {
  KernelSpec s;
  s.name = name;
  s.family = Family::matmul;
  s.dtype = DType::bf16;
  s.accumulate = DType::f32;
  MatmulSpec m;
  m.m = m.n = m.k = Dim{size, ""};
  m.a = Layout::row;
  m.b = Layout::col;
  s.body = m;
  return s;
}

// Device buffers for one launch, in ABI order, freed on destruction.
struct DeviceBuffers {
  const Driver& cu;
  std::vector<tsr_device_buffer> args;
  DeviceBuffers(const Driver& driver, const KernelSpec& spec, const std::vector<size_t>& sizes) : cu(driver) {
    const std::vector<const Binding*> buffers = kernel_abi(spec).buffers();
    for (size_t i = 0; i < buffers.size() && i < sizes.size(); ++i) {
      CUdeviceptr p = 0;
      if (sizes[i] && cu.mem_alloc(&p, sizes[i]) != 0) p = 0;
      args.push_back({p, sizes[i], stub_dtype(buffers[i]->dtype),
                      buffers[i]->role == Role::input ? TSR_ROLE_IN : TSR_ROLE_OUT});
    }
  }
  ~DeviceBuffers() {
    for (const tsr_device_buffer& b : args)
      if (b.ptr) cu.mem_free(b.ptr);
  }
  bool ok() const {
    for (const tsr_device_buffer& b : args)
      if (b.bytes && !b.ptr) return false;
    return true;
  }
};

}  // namespace tsr::device_check
