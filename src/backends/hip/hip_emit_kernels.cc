// The hip target's family dispatch: elementwise, rowwise and the FMA-tile
// matmul are the cuda target's family code in the HIP dialect (hip_prelude,
// the arch's wave size); 16-bit matmul on MFMA archs is hip_emit_matmul.cc.
#include "hip/hip_emit_kernels.h"

#include "gpu/gpu_emit_families.h"
#include "hip/hip_emit_common.h"
#include "hip/hip_emit_matmul.h"

namespace tsr::hip {

EmittedHipKernel emit_kernel(const KernelSpec& spec, const HipArch& arch) {
  const gpu::GpuDialect dialect{hip_prelude(spec, arch), arch.wave_size};
  gpu::EmittedKernel k;
  switch (spec.family) {
    case Family::elementwise: k = gpu::emit_elementwise(spec, dialect); break;
    case Family::rowwise: k = gpu::emit_rowwise(spec, dialect); break;
    case Family::attention: k = gpu::emit_attention(spec, dialect); break;
    case Family::matmul:
      k = uses_mfma(spec, arch) ? emit_matmul_mfma(spec, dialect) : gpu::emit_matmul_fma_tiles(spec, dialect);
      break;
  }
  return {std::move(k.source), k.plan};
}

}  // namespace tsr::hip
