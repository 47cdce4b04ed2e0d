// The seams every target provides (DESIGN.md §3): emitter, compile step
// with its ABI check, device; launching is a Launcher's (target/launcher.h).
// Targets are created by the factories in src/backends/registry/registry.cc only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spec/abi.h"
#include "spec/kernel_spec.h"
#include "spec/target_catalogue.h"
#include "support/error.h"

namespace tsr {

// What the compile step found on this machine. A missing toolchain is a value,
// not an exception: `why_unavailable` says what to install or set.
struct ToolchainInfo {
  bool found = false;
  std::string path;
  std::string version;           // exact version string, enters the artifact key
  std::string why_unavailable;
};

// What an emulated device and every verdict it gives say of themselves.
inline constexpr const char* kEmulatedReason = "emulated on the CPU: semantics, not hardware";

// Whether artifacts for one arch can launch on this machine.
struct DeviceInfo {
  bool present = false;
  std::string description;       // e.g. "AMD EPYC (avx2 avx512f)" or "no CUDA driver"
  int ordinal = 0;               // GPU kinds: the device ordinal that runs the arch (tsr_select_options.device)
  bool emulated = false;         // the launcher emulates the device: a pass is PASS_EMULATED, never PASS
  // What a receipt records about a present device (docs/receipt-format.md, [device]).
  std::string name;              // "NVIDIA H200", the CPU's model name
  std::string vendor;            // PCI vendor id "0x10de"; CPUID vendor "AuthenticAMD"
  std::string capability;        // "sm_90"; "x86-64-v4: avx512f ..." (the features the tier uses)
  std::string driver;            // CUDA driver "12.4"; for CPUs the OS kernel "Linux 6.1.0-18-amd64"
};

struct Artifact {
  TargetName target;
  std::string kind;              // shared_object | ptx | cubin | code_object | xclbin
  std::string entry;             // symbol the stub (or emulator) calls
  std::string key;               // identity + target + toolchain version, hashed
  std::string toolchain;         // tool name and exact version
  std::vector<uint8_t> bytes;
  std::map<std::string, std::string> metadata;   // target-specific (launch geometry, ...)
};

// A tolerance floor a target declares for its storage precision (DESIGN.md §4).
struct BudgetFloor {
  double atol = 0.0;
  double rtol = 0.0;
};

// One generated variant of a kernel on one target/arch:
// the emitter's tunables fixed to values. "default" comes first and is what
// emit() writes, byte for byte; the others are named by their tunables
// ("mr4.nv2.kc128.mc64"), so a name is stable across builds and readable in
// tuning records.
struct GeneratedCandidate {
  std::string name;
  std::map<std::string, std::string> tunables;   // {"mr","4"},{"nv","2"},...; empty for default
};

// A device that is not there, and why ("no CUDA driver ...").
inline DeviceInfo absent_device(std::string why) {
  DeviceInfo info;
  info.description = std::move(why);
  return info;
}

// What a target does and does not do, one line each, for `tesserac targets`
// (e.g. xdna packages device artifacts a user brings; it generates no AIE code).
struct TargetScope {
  std::string does;
  std::string does_not;
};

class Target {
 public:
  virtual ~Target() = default;
  virtual std::string kind() const = 0;
  virtual std::vector<std::string> archs() const = 0;

  // Empty string when supported, otherwise why not (named in diagnostics).
  virtual std::string unsupported_reason(const KernelSpec& spec, const std::string& arch) const = 0;

  // Seam 1: deterministic, readable source text.
  virtual Expected<std::string> emit(const KernelSpec& spec, const std::string& arch) const = 0;

  // Seam 2: source to artifact bytes through the discovered toolchain.
  virtual ToolchainInfo toolchain() const = 0;
  virtual Expected<Artifact> compile(const KernelSpec& spec, const std::string& arch,
                                     const std::string& source) const = 0;
  // The ABI check, a pass of its own after compile (and after a compile-cache
  // hit): the artifact's bytes define what the archive's ABI record says the
  // stub will call (every entry symbol a route names, x86 included), with the
  // parameters the ABI gives where the format records them (PTX, cubin,
  // AMDGPU metadata). A mismatch is an internal error: the emitter and the ABI
  // disagree, and nothing may ship.
  virtual Status check_abi(const KernelSpec& spec, const Artifact& artifact) const = 0;
  // The file name suffix of one of this target's artifacts written on its
  // own (`build --out-dir`), e.g. ".so", ".ptx": the kind's usual suffix, so
  // the tools of that platform recognize the file.
  virtual std::string artifact_file_extension(const Artifact& artifact) const = 0;

  // Seam 3: the device an arch runs on here. A target does not launch: every
  // launch goes through a Launcher (target/launcher.h), the stub's
  // (launch/stub_launcher.h, the one hardware path) or the emulator's.
  virtual DeviceInfo device(const std::string& arch) const = 0;
  virtual BudgetFloor budget_floor(const KernelSpec& spec) const = 0;

  // Generated candidates (docs/targets-x86.md, docs/targets-cuda.md, "Tunables
  // and generated candidates"). The defaults keep a target without tunables
  // working: one candidate, "default", which is emit(); no renamed entries;
  // one source per artifact.
  virtual std::vector<GeneratedCandidate> generated_candidates(const KernelSpec& spec, const std::string& arch) const;
  // One candidate's source; its exported entry symbols are <kernel>_tsr_entry<entry_suffix>
  // and ..._workspace (x86). emit_candidate(spec, arch, "default", "") == emit(spec, arch).
  // An unknown name is invalid input naming the known ones.
  virtual Expected<std::string> emit_candidate(const KernelSpec& spec, const std::string& arch,
                                               const std::string& candidate, const std::string& entry_suffix) const;
  // One artifact from several emitted sources, each its own translation unit;
  // Artifact.entry is the first source's entry, the key covers every source.
  virtual Expected<Artifact> compile_candidates(const KernelSpec& spec, const std::string& arch,
                                                const std::vector<std::string>& sources) const;

  // The same target with the CPU emulator as its compile step (an emulated
  // module; docs/emulator.md; `build/test --emulate` uses it where no device
  // is present), or nullptr when no emulator models this kind. Its modules
  // launch through emulator/emulator.h's EmulatorLauncher; its device is
  // DeviceInfo::emulated, so its passes are PASS_EMULATED.
  virtual std::unique_ptr<Target> make_emulated() const { return nullptr; }

  // Every registered target says it (TargetRegistry.EveryTargetSaysWhatItDoesAndDoesNot);
  // wrappers and test doubles may keep the empty default.
  virtual TargetScope scope() const { return {}; }
};

}  // namespace tsr
