// The xdna target's three seams (DESIGN.md §3; docs/targets-xdna.md). There
// is no code generation: the AIE core code comes from an AIE toolchain
// (mlir-aie / Peano) through the sidecar; `emit` writes the design the
// xclbin will describe, `compile` verifies the device artifacts and writes
// the xclbin, and the oracle runs it through libtesserart where an NPU is.
#include "xdna/xdna_target.h"

#include <algorithm>

extern "C" {
#include "tesserart_compiler.h"
}
#include "support/sha256.h"
#include "target/compile_step_error.h"
#include "xdna/xclbin_reader.h"
#include "xdna/xclbin_writer.h"
#include "xdna/xdna_manifest.h"
#include "xdna/xdna_sidecar.h"

namespace tsr {

namespace {

constexpr const char* kWriterVersion = "tesserac xclbin writer 1 (XRT 2.13 xclbin.h)";

Status check_xclbin_abi(const KernelSpec& spec, const Artifact& artifact) {
  Expected<xdna::XclbinSummary> summary = xdna::read_xclbin(artifact.bytes.data(), artifact.bytes.size());
  Status s = ok();
  if (!summary) {
    s = internal_error("internal error: the xclbin does not parse: " + summary.error().message());
  } else if (std::none_of(summary->ip_names.begin(), summary->ip_names.end(),
                          [&](const std::string& ip) { return ip.rfind(artifact.entry + ":", 0) == 0; })) {
    s = internal_error("internal error: the xclbin's IP_LAYOUT has no kernel '" + artifact.entry + "'");
  }
  if (!s) return compile_step_error(spec, artifact.target.str(), "ABI check", s.error());
  return ok();
}

class XdnaTarget final : public Target {
 public:
  std::string kind() const override { return "xdna"; }
  TargetScope scope() const override {
    return {"packages the AIE device artifacts a spec's sidecar names (PDI or ELF, instruction stream; hashes checked) "
            "into an xclbin, for the two kernels of its closed manifest",
            "generate or compile AIE code: an AIE toolchain (mlir-aie, Peano) makes the artifacts"};
  }
  std::vector<std::string> archs() const override { return xdna::xdna_arch_names(); }

  std::string unsupported_reason(const KernelSpec& spec, const std::string& arch) const override {
    const std::vector<std::string>& names = xdna::xdna_arch_names();
    if (std::find(names.begin(), names.end(), arch) == names.end())
      return "architecture " + arch + " is not supported by the xdna target (supported: npu1, npu4)";
    return xdna::manifest_refusal(spec);
  }

  // The design: the manifest kernel, the xclbin signature and the device
  // artifacts by hash, so the compile cache's key (a hash of this text)
  // changes when an artifact does.
  Expected<std::string> emit(const KernelSpec& spec, const std::string& arch) const override {
    if (std::string why = unsupported_reason(spec, arch); !why.empty()) return invalid_input(why);
    // The files are read and checked here too: a compile-cache hit skips compile().
    Expected<xdna::DeviceArtifacts> files = xdna::load_device_artifacts(spec, arch, true);
    if (!files) return files.take_error();
    std::string s = "# tesserac xdna design (docs/targets-xdna.md)\nkernel " + spec.name + "\ntarget xdna:" + arch +
                    "\nsignature";
    for (const std::string& a : xdna::xclbin_argument_names()) s += " " + a;
    s += "\nsidecar " + files->sidecar + "\ndevice_image " + files->image_kind + " " + files->image.sha256 + "\n" +
         "instructions " + files->instructions.sha256 + "\n";
    return s;
  }

  ToolchainInfo toolchain() const override {
    ToolchainInfo info;
    info.found = true;
    info.path = "(in process)";
    info.version = kWriterVersion;
    return info;
  }

  Expected<Artifact> compile(const KernelSpec& spec, const std::string& arch, const std::string& source) const override {
    if (std::string why = unsupported_reason(spec, arch); !why.empty()) return invalid_input(why);
    Expected<xdna::DeviceArtifacts> files = xdna::load_device_artifacts(spec, arch, true);
    if (!files) return files.take_error();
    Artifact artifact;
    artifact.target = {"xdna", arch};
    artifact.kind = "xclbin";
    artifact.entry = spec.name;
    artifact.toolchain = kWriterVersion;
    artifact.bytes = xdna::write_xclbin({spec.name, arch, files->image_kind, files->image.bytes,
                                         files->instructions.bytes});
    // The device artifacts' hashes are in the design text, and so in the key.
    artifact.key = sha256_hex("tesserac-xdna-artifact-v1\n" + artifact.target.str() + "\n" + sha256_hex(source) +
                              "\n" + files->image.sha256 + "\n" + files->instructions.sha256);
    artifact.metadata["xdna.device_image_kind"] = files->image_kind;
    artifact.metadata["xdna.device_image_sha256"] = files->image.sha256;
    artifact.metadata["xdna.instructions_sha256"] = files->instructions.sha256;
    return artifact;
  }

  // The xclbin parses and carries the kernel's IP (XRT opens the kernel by
  // name); its argument signature is the fixed one xclbin_writer.h writes.
  Status check_abi(const KernelSpec& spec, const Artifact& artifact) const override {
    return check_xclbin_abi(spec, artifact);
  }

  std::string artifact_file_extension(const Artifact&) const override { return ".xclbin"; }

  // The stub's own probe (the answer selection gets): "AMD XDNA NPU (npu1) at /dev/accel/accel0".
  DeviceInfo device(const std::string& arch) const override {
    char found[256];
    if (tsr_xrt_probe(found, sizeof found) != TSR_OK) return absent_device(found);
    const std::string description = found;
    if (description.find("(" + arch + ")") == std::string::npos)
      return absent_device("no " + arch + " NPU (present: " + description + ")");
    DeviceInfo info;
    info.present = true;
    info.description = description;
    info.name = "AMD XDNA NPU";
    info.vendor = "0x1022";
    info.capability = arch;
    return info;
  }

  // The NPU accumulates bf16 products in f32 and stores bf16 once; the
  // declared budget applies.
  BudgetFloor budget_floor(const KernelSpec&) const override { return {}; }
};

}  // namespace

std::unique_ptr<Target> make_xdna_target() { return std::make_unique<XdnaTarget>(); }

}  // namespace tsr
