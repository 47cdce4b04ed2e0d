// The cuda target's three seams (DESIGN.md §3; docs/targets-cuda.md): CUDA C++
// emitter, NVRTC -> PTX (compute_80) -> nvJitLink cubin per sm, and device
// discovery; artifacts launch through libtesserart's CUDA backend.
#include "cuda/cuda_target.h"

#include "spec/abi.h"
#include "support/sha256.h"
#include "target/compile_step_error.h"
#include "cuda/cuda_candidates.h"
#include "cuda/cuda_abi_check.h"
#include "cuda/cuda_archs.h"
#include "cuda/cuda_emit_kernels.h"
#include "cuda/cuda_devices.h"
#include "gpu/gpu_launch_geometry.h"
#include "cuda/cuda_toolkit.h"
#include "target/target_candidates.h"

namespace tsr {

namespace {

Error with_spec(const KernelSpec& spec, const std::string& arch, const std::string& step, const Error& e) {
  return compile_step_error(spec, "cuda:" + arch, step, e);
}

class CudaTarget final : public Target {
 public:
  std::string kind() const override { return "cuda"; }
  TargetScope scope() const override {
    return {"emits CUDA C++, compiles it with NVRTC to PTX and nvJitLink to a cubin per sm, launches it through "
            "libtesserart (or the CPU emulator with --emulate: PASS_EMULATED)",
            "use tensor cores for attention; use arch-specific instructions (wgmma, TMA): every cubin is the same compute_80 PTX"};
  }
  std::vector<std::string> archs() const override { return cuda::cuda_arch_names(); }

  std::string unsupported_reason(const KernelSpec& spec, const std::string& arch) const override {
    if (std::string refusal = cuda::arch_refusal(arch); !refusal.empty()) return refusal;
    return "";
  }

  Expected<std::string> emit(const KernelSpec& spec, const std::string& arch) const override {
    if (std::string why = unsupported_reason(spec, arch); !why.empty())
      return invalid_input("kernel '" + spec.name + "': " + why);
    return cuda::emit_kernel(spec).source;
  }

  std::vector<GeneratedCandidate> generated_candidates(const KernelSpec& spec, const std::string& arch) const override {
    if (!unsupported_reason(spec, arch).empty()) return Target::generated_candidates(spec, arch);
    return cuda::cuda_candidates(spec);
  }

  // Each candidate is an artifact of its own, entry = the kernel's name (the
  // stub's CUDA backend resolves that function): no suffix.
  Expected<std::string> emit_candidate(const KernelSpec& spec, const std::string& arch, const std::string& candidate,
                                       const std::string& entry_suffix) const override {
    if (std::string why = unsupported_reason(spec, arch); !why.empty())
      return invalid_input("kernel '" + spec.name + "': " + why);
    Expected<GeneratedCandidate> found = find_generated_candidate(*this, spec, arch, candidate);
    if (!found) return found.take_error();
    if (!entry_suffix.empty())
      return invalid_input("kernel '" + spec.name + "': target cuda:" + arch +
                           " builds one candidate per artifact and does not rename its entry (entry suffix '" +
                           entry_suffix + "')");
    return cuda::emit_cuda_candidate(spec, *found).source;
  }

  ToolchainInfo toolchain() const override { return cuda::cuda_toolkit().info(); }

  Expected<Artifact> compile(const KernelSpec& spec, const std::string& arch,
                             const std::string& source) const override {
    if (std::string why = unsupported_reason(spec, arch); !why.empty())
      return invalid_input("kernel '" + spec.name + "': " + why);
    // The launch geometry, checked with the stub's own evaluator where it is static.
    const KernelAbi abi = kernel_abi(spec);
    const gpu::LaunchPlan plan = cuda::launch_plan_for_source(spec, source);
    if (Status s = gpu::check_launch_geometry(plan, abi.scalar_names()); !s)
      return with_spec(spec, arch, "launch geometry check", s.error());
    const cuda::CudaToolkit& tk = cuda::cuda_toolkit();
    const ToolchainInfo info = tk.info();
    if (!info.found) return unavailable("target cuda:" + arch + " unavailable: " + info.why_unavailable);

    // One PTX for the lowest listed compute capability; each sm_* cubin is that
    // PTX assembled for the exact architecture.
    Expected<std::string> ptx = tk.compile_ptx(source, spec.name + ".cu", cuda::kPtxComputeCapability);
    if (!ptx) return with_spec(spec, arch, "NVRTC compilation", ptx.error());
    const std::optional<int> sm = cuda::sm_number(arch);
    // The PTX a cubin is assembled from: check_abi sees only the cubin, whose
    // parameter records carry sizes, not which parameters are pointers.
    if (sm)
      if (Status s = cuda::check_ptx_abi(*ptx, spec.name, abi); !s)
        return with_spec(spec, arch, "ABI check", s.error());

    Artifact artifact;
    artifact.target = {"cuda", arch};
    artifact.entry = spec.name;
    artifact.toolchain = "nvrtc " + tk.nvrtc_version();
    if (!sm) {
      artifact.kind = "ptx";
      artifact.bytes.assign(ptx->begin(), ptx->end());
    } else {
      Expected<std::vector<uint8_t>> cubin = tk.assemble_cubin(*ptx, *sm);
      if (!cubin) return with_spec(spec, arch, "nvJitLink assembly", cubin.error());
      artifact.kind = "cubin";
      artifact.bytes = std::move(*cubin);
      artifact.toolchain += "; nvJitLink " + tk.nvjitlink_version();
    }
    artifact.key = sha256_hex("tesserac-cuda-artifact-v1\n" + artifact.target.str() + "\n" + artifact.toolchain +
                              "\n" + sha256_hex(source));

    plan.write_metadata(artifact.metadata);
    artifact.metadata["cuda.ptx_arch"] = "compute_" + std::to_string(cuda::kPtxComputeCapability);
    artifact.metadata["cuda.nvrtc_version"] = tk.nvrtc_version();
    if (sm) artifact.metadata["cuda.nvjitlink_version"] = tk.nvjitlink_version();
    return artifact;
  }

  // The entry and one 64-bit parameter per binding, in the bytes that ship.
  Status check_abi(const KernelSpec& spec, const Artifact& artifact) const override {
    const KernelAbi abi = kernel_abi(spec);
    Status s = artifact.kind == "ptx"
                   ? cuda::check_ptx_abi(std::string(artifact.bytes.begin(), artifact.bytes.end()), artifact.entry, abi)
                   : cuda::check_cubin_abi(artifact.bytes, artifact.entry, abi);
    if (!s) return with_spec(spec, artifact.target.arch, "ABI check", s.error());
    return ok();
  }

  std::string artifact_file_extension(const Artifact& artifact) const override {
    return artifact.kind == "ptx" ? ".ptx" : ".cubin";
  }

  DeviceInfo device(const std::string& arch) const override { return cuda::cuda_device_info(arch); }

  // 0: accumulation is f32 (tensor-core f16/bf16 products are exact in f32)
  // and every store rounds once, like the reference's storage points; the
  // declared budget alone applies.
  BudgetFloor budget_floor(const KernelSpec&) const override { return {}; }
  // make_emulated: the registry pairs this target with the emulator (registry/registry.cc).
};

}  // namespace

std::unique_ptr<Target> make_cuda_target() { return std::make_unique<CudaTarget>(); }

}  // namespace tsr
