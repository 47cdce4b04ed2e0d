// CUDA toolkit discovery and the two in-process compilers it provides: NVRTC
// (CUDA C++ -> PTX, NVRTC API reference) and nvJitLink (PTX -> cubin, nvJitLink
// API reference). Both libraries are dlopen'ed, never linked, so tesserac runs
// on machines without CUDA.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/error.h"
#include "target/target.h"

namespace tsr::cuda {

// The toolkit root: $TESSERAC_CUDA_ROOT, else the build-time default.
std::string cuda_root();

class CudaToolkit {
 public:
  virtual ~CudaToolkit() = default;
  virtual ToolchainInfo info() const = 0;
  // e.g. "13.0 (libnvrtc.so.13.0.88)"; empty when not found.
  virtual std::string nvrtc_version() const = 0;
  virtual std::string nvjitlink_version() const = 0;
  // Compiles `source` for virtual architecture compute_<cc>; the error carries the log.
  virtual Expected<std::string> compile_ptx(const std::string& source, const std::string& program_name,
                                            int compute_capability) const = 0;
  // Assembles PTX for sm_<cc>; the error carries the nvJitLink/ptxas log.
  virtual Expected<std::vector<uint8_t>> assemble_cubin(const std::string& ptx, int sm) const = 0;
};

// The toolkit under cuda_root(), loaded once per distinct root.
const CudaToolkit& cuda_toolkit();

}  // namespace tsr::cuda
