// The shared family emitters in the CUDA dialect: the CUDA prelude and
// 32-lane warps.
#include "cuda/cuda_emit_kernels.h"

#include "cuda/cuda_prelude.h"

namespace tsr::cuda {

gpu::EmittedKernel emit_elementwise(const KernelSpec& spec) { return gpu::emit_elementwise(spec, {prelude(spec), 32}); }

gpu::EmittedKernel emit_rowwise(const KernelSpec& spec) { return gpu::emit_rowwise(spec, {prelude(spec), 32}); }

gpu::EmittedKernel emit_kernel(const KernelSpec& spec) {
  switch (spec.family) {
    case Family::elementwise: return emit_elementwise(spec);
    case Family::matmul: return emit_matmul(spec);
    case Family::rowwise: return emit_rowwise(spec);
    case Family::attention: return gpu::emit_attention(spec, {prelude(spec), 32});
  }
  return {};
}

}  // namespace tsr::cuda
