// The CUDA driver TEST DOUBLE (tests/support/cuda_driver_double) as the
// StubCudaDouble tests drive it: the stub is pointed at the double for the
// test's lifetime (tsr_cuda_use_driver_for_tests) and back at libcuda.so.1
// after, and the archives hold "images" the double understands.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "archive_test_support.h"
#include "opened_archive.h"
#include "cuda_driver_double/cuda_driver_double.h"
#include "tesserart.h"

extern "C" {
#include "../../runtime-stub/src/tsr_cuda.h"   // tsr_cuda_use_driver_for_tests, tsr_cuda_status
}

namespace tsr::testing {

class CudaDriverDouble {
 public:
  CudaDriverDouble() : handle_(dlopen(TSR_CUDA_DRIVER_DOUBLE, RTLD_NOW | RTLD_LOCAL)) {
    if (!handle_) return;
    bind(reset_, "cudadouble_reset");
    bind(set_devices_, "cudadouble_set_devices");
    bind(fail_, "cudadouble_fail");
    bind(load_delay_, "cudadouble_set_load_delay");
    bind(call_count_, "cudadouble_call_count");
    bind(call_at_, "cudadouble_call_at");
    bind(depth_, "cudadouble_context_depth");
    restart();
  }
  ~CudaDriverDouble() {
    tsr_cuda_use_driver_for_tests(nullptr);
    if (!handle_) return;
    reset_();
    dlclose(handle_);
  }
  CudaDriverDouble(const CudaDriverDouble&) = delete;
  CudaDriverDouble& operator=(const CudaDriverDouble&) = delete;

  // Both sides fresh: the double forgets everything, the stub loads it again on next use.
  void restart() const {
    reset_();
    tsr_cuda_use_driver_for_tests(TSR_CUDA_DRIVER_DOUBLE);
  }
  bool ok() const { return handle_ && reset_ && set_devices_ && fail_ && load_delay_ && call_count_ && call_at_ && depth_; }
  // Compute capabilities (major*10+minor) of the devices, before the stub's first look.
  void devices(const std::vector<int>& cc) const { set_devices_(static_cast<int>(cc.size()), cc.data()); }
  // Calls of `function` return `result`: the first `skip` succeed, then `times` fail (< 0: all).
  void fail(const std::string& function, int result, int skip = 0, int times = -1) const {
    fail_(function.c_str(), result, skip, times);
  }
  void load_delay(unsigned microseconds) const { load_delay_(microseconds); }
  // The recorded calls, all or those of one function.
  std::vector<cudadouble_call> calls(const std::string& function = "") const {
    std::vector<cudadouble_call> out;
    cudadouble_call c;
    for (size_t i = 0; call_at_(i, &c); ++i)
      if (function.empty() || function == c.function) out.push_back(c);
    return out;
  }
  size_t count(const std::string& function) const { return calls(function).size(); }
  int context_depth() const { return depth_(); }

 private:
  template <typename F>
  void bind(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(handle_, name));
  }

  void* handle_;
  cudadouble_reset_fn reset_ = nullptr;
  cudadouble_set_devices_fn set_devices_ = nullptr;
  cudadouble_fail_fn fail_ = nullptr;
  cudadouble_set_load_delay_fn load_delay_ = nullptr;
  cudadouble_call_count_fn call_count_ = nullptr;
  cudadouble_call_at_fn call_at_ = nullptr;
  cudadouble_context_depth_fn depth_ = nullptr;
};

// A cuda variant of vadd whose blob is an image line of the double: a cubin
// for sm_<arch> (loads only on exactly that capability), or PTX for
// compute_<arch> (loads on that capability or newer), with four parameters
// and op=add. `target_arch` is the variant's arch name in the archive.
inline Artifact double_variant(const std::string& kind, int arch, const std::string& target_arch,
                               int64_t shared_bytes = 0) {
  Artifact a;
  a.target = {"cuda", target_arch};
  a.kind = kind;
  a.entry = "vadd";
  a.key = std::string(64, 'c');
  a.toolchain = "cuda driver double";
  const std::string image = std::string(kind == "ptx" ? "// " : "") + "tsr-cuda-double kind=" + kind +
                            " arch=" + std::to_string(arch) + " params=4 op=add entry=vadd\n";
  a.bytes.assign(image.begin(), image.end());
  if (kind == "cubin") a.bytes.push_back(0);   // the double reads images as text; PTX gets its NUL from the stub
  a.metadata = {{"cuda.block", "256,1,1"}, {"cuda.grid", "cdiv(n,256),1,1"},
                {"cuda.shared_bytes", std::to_string(shared_bytes)}};
  if (kind == "ptx") a.metadata["cuda.ptx_arch"] = "compute_" + std::to_string(arch);
  return a;
}
inline Artifact double_cubin(int sm) { return double_variant("cubin", sm, "sm_" + std::to_string(sm)); }
inline Artifact double_ptx(int compute, const std::string& target_arch = "ptx") {
  return double_variant("ptx", compute, target_arch);
}

}  // namespace tsr::testing

namespace tsr {

// The StubCudaDouble suite's fixture (one class for every file of the suite).
class StubCudaDouble : public testing::GpuDoubleSuite {
 protected:
  StubCudaDouble() : GpuDoubleSuite(nullptr) {}   // every kind allowed: cuda is preferred
  void SetUp() override { ASSERT_TRUE(driver_.ok()) << "cannot load " << TSR_CUDA_DRIVER_DOUBLE; }

  testing::CudaDriverDouble driver_;
};

}  // namespace tsr
