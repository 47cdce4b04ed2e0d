// The hip target's three seams (DESIGN.md §3; docs/targets-hip.md): HIP C++
// emitter, clang-15 -> one AMDGPU code object per gfx (checked against the
// spec's ABI through its metadata note), and device discovery; artifacts
// launch through libtesserart's HIP backend.
#include "hip/hip_target.h"

#include "spec/abi.h"
#include "support/sha256.h"
#include "target/compile_step_error.h"
#include "gpu/gpu_launch_geometry.h"
#include "hip/hip_abi_check.h"
#include "hip/hip_archs.h"
#include "hip/hip_devices.h"
#include "hip/hip_emit_kernels.h"
#include "hip/hip_emulated_target.h"
#include "hip/hip_toolchain.h"

namespace tsr {

namespace {

Error with_spec(const KernelSpec& spec, const std::string& arch, const std::string& step, const Error& e) {
  return compile_step_error(spec, "hip:" + arch, step, e);
}

class HipTarget final : public Target {
 public:
  std::string kind() const override { return "hip"; }
  TargetScope scope() const override {
    return {"emits HIP C++, compiles it with clang-15 to one AMDGPU code object per gfx, launches it through "
            "libtesserart (or the CPU emulator with --emulate: PASS_EMULATED)",
            "use matrix cores for attention or on RDNA (gfx1030, gfx1100 get FMA tiles: clang-15 has no WMMA)"};
  }
  std::vector<std::string> archs() const override { return hip::hip_arch_names(); }

  std::string unsupported_reason(const KernelSpec& spec, const std::string& arch) const override {
    if (std::string refusal = hip::arch_refusal(arch); !refusal.empty()) return refusal;
    return "";
  }

  Expected<std::string> emit(const KernelSpec& spec, const std::string& arch) const override {
    if (std::string why = unsupported_reason(spec, arch); !why.empty())
      return invalid_input("kernel '" + spec.name + "': " + why);
    return hip::emit_kernel(spec, *hip::find_hip_arch(arch)).source;
  }

  ToolchainInfo toolchain() const override { return hip::find_hip_clang(); }

  Expected<Artifact> compile(const KernelSpec& spec, const std::string& arch,
                             const std::string& source) const override {
    if (std::string why = unsupported_reason(spec, arch); !why.empty())
      return invalid_input("kernel '" + spec.name + "': " + why);
    // The launch geometry, checked with the stub's own evaluator where it is static.
    const KernelAbi abi = kernel_abi(spec);
    const gpu::LaunchPlan plan = hip::emit_kernel(spec, *hip::find_hip_arch(arch)).plan;
    if (Status s = gpu::check_launch_geometry(plan, abi.scalar_names()); !s)
      return with_spec(spec, arch, "launch geometry check", s.error());
    const ToolchainInfo tc = hip::find_hip_clang();
    if (!tc.found) return unavailable("target hip:" + arch + " unavailable: " + tc.why_unavailable);

    Expected<std::vector<uint8_t>> object = hip::compile_code_object(source, arch, spec.name);
    if (!object) return with_spec(spec, arch, "clang compilation", object.error());

    Artifact artifact;
    artifact.target = {"hip", arch};
    artifact.kind = "code_object";
    artifact.entry = spec.name;
    artifact.toolchain = tc.version;
    artifact.bytes = std::move(*object);
    std::string flags;
    for (const std::string& f : hip::compile_flags(arch)) flags += (flags.empty() ? "" : " ") + f;
    artifact.key = sha256_hex("tesserac-hip-artifact-v1\n" + artifact.target.str() + "\n" + tc.version + "\n" +
                              flags + "\n" + sha256_hex(source));
    plan.write_metadata(artifact.metadata, "hip");
    // Built with xnack and sramecc "any": the stub matches the device's target ID against this.
    artifact.metadata["hip.target_id"] = arch;
    return artifact;
  }

  // The entry's kernel descriptor and argument metadata against the ABI (hip_abi_check.h).
  Status check_abi(const KernelSpec& spec, const Artifact& artifact) const override {
    const hip::HipArch* arch = hip::find_hip_arch(artifact.target.arch);
    if (!arch) return internal_error("internal error: no hip arch '" + artifact.target.arch + "'");
    if (Status s = hip::check_code_object_abi(artifact.bytes, *arch, artifact.entry, kernel_abi(spec)); !s)
      return with_spec(spec, artifact.target.arch, "ABI check", s.error());
    return ok();
  }

  // .hsaco: the suffix ROCm's tools and hipModuleLoad examples use for a bare code object.
  std::string artifact_file_extension(const Artifact&) const override { return ".hsaco"; }

  DeviceInfo device(const std::string& arch) const override { return hip::hip_device_info(arch); }

  // 0: accumulation is f32 (MFMA f16/bf16 products are exact in f32) and
  // every store rounds once, like the reference's storage points.
  BudgetFloor budget_floor(const KernelSpec&) const override { return {}; }

  // The emitted HIP source in the CPU emulator (wave64 / wave32, MFMA as a
  // wavefront collective): PASS_EMULATED, never AMD hardware evidence.
  std::unique_ptr<Target> make_emulated() const override {
    return hip::make_emulated_hip_target(std::make_unique<HipTarget>());
  }
};

}  // namespace

std::unique_ptr<Target> make_hip_target() { return std::make_unique<HipTarget>(); }

}  // namespace tsr
