// The x86 target (DESIGN.md §3): C for the x86-64 psABI levels v2, v3 (AVX2)
// and v4 (AVX-512), and v4+amx (v4 with AMX tiles for bf16 matmul), compiled
// by clang into a shared object; libtesserart loads and launches it.
#include "x86/x86_target.h"

#include <cctype>

#include "target/target_candidates.h"
#include "x86/x86_abi_check.h"
#include "x86/x86_internal.h"

namespace tsr {

namespace {

class X86Target final : public Target {
 public:
  std::string kind() const override { return "x86"; }
  TargetScope scope() const override {
    return {"emits C per x86-64 level (AVX2, AVX-512, AMX tiles for bf16 matmul on v4+amx), compiles it with clang "
            "to a shared object, runs it on this CPU",
            "run a level this CPU lacks (NOT_RUN)"};
  }
  std::vector<std::string> archs() const override { return x86::tier_names(); }

  std::string unsupported_reason(const KernelSpec& spec, const std::string& arch) const override {
    if (!x86::tier_for_arch(arch)) return "unknown arch '" + arch + "' for target x86 (known: v2, v3, v4, v4+amx)";
    return "";
  }

  Expected<std::string> emit(const KernelSpec& spec, const std::string& arch) const override {
    const std::optional<x86::Tier> tier = x86::tier_for_arch(arch);
    const std::string why = unsupported_reason(spec, arch);
    if (!tier || !why.empty()) return invalid_input("kernel '" + spec.name + "': " + why);
    // v4+amx is the v4 code, source and all, for every kernel not on AMX tiles.
    const x86::Tier code = x86::code_tier(spec, *tier);
    x86::EmitChoice choice;
    choice.tiling = x86::default_tiling(code);
    return x86::emit_source(spec, code, choice);
  }

  std::vector<GeneratedCandidate> generated_candidates(const KernelSpec& spec, const std::string& arch) const override {
    const std::optional<x86::Tier> tier = x86::tier_for_arch(arch);
    if (!tier || !unsupported_reason(spec, arch).empty()) return Target::generated_candidates(spec, arch);
    return x86::candidates_for(spec, x86::code_tier(spec, *tier));
  }

  Expected<std::string> emit_candidate(const KernelSpec& spec, const std::string& arch, const std::string& candidate,
                                       const std::string& entry_suffix) const override {
    const std::optional<x86::Tier> tier = x86::tier_for_arch(arch);
    const std::string why = unsupported_reason(spec, arch);
    if (!tier || !why.empty()) return invalid_input("kernel '" + spec.name + "': " + why);
    // The suffix becomes part of a symbol name: a C identifier's tail, or nothing.
    for (char c : entry_suffix)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
        return invalid_input("kernel '" + spec.name + "': entry suffix '" + entry_suffix +
                             "' is not made of letters, digits and '_'");
    Expected<GeneratedCandidate> found = find_generated_candidate(*this, spec, arch, candidate);
    if (!found) return found.take_error();
    const x86::Tier code = x86::code_tier(spec, *tier);
    x86::EmitChoice choice = x86::choice_for(spec, code, *found);
    choice.entry_suffix = entry_suffix;
    return x86::emit_source(spec, code, choice);
  }

  ToolchainInfo toolchain() const override { return x86::find_clang(); }

  Expected<Artifact> compile(const KernelSpec& spec, const std::string& arch,
                             const std::string& source) const override {
    const std::optional<x86::Tier> tier = x86::tier_for_arch(arch);
    if (!tier) return invalid_input("kernel '" + spec.name + "': unknown arch '" + arch + "' for target x86");
    return x86::compile_sources(spec, x86::code_tier(spec, *tier), arch, {source}, spec.name + "_tsr_entry");
  }

  Expected<Artifact> compile_candidates(const KernelSpec& spec, const std::string& arch,
                                        const std::vector<std::string>& sources) const override {
    const std::optional<x86::Tier> tier = x86::tier_for_arch(arch);
    if (!tier) return invalid_input("kernel '" + spec.name + "': unknown arch '" + arch + "' for target x86");
    if (sources.empty()) return invalid_input("kernel '" + spec.name + "': no sources to compile for x86:" + arch);
    // The entry the first source exports: its suffix, or none for "default" emitted plain.
    return x86::compile_sources(spec, x86::code_tier(spec, *tier), arch, sources,
                                x86::exported_entry(spec, sources.front()));
  }

  Status check_abi(const KernelSpec& spec, const Artifact& artifact) const override {
    return x86::check_shared_object_abi(spec, artifact);
  }

  std::string artifact_file_extension(const Artifact&) const override { return ".so"; }

  DeviceInfo device(const std::string& arch) const override {
    const std::optional<x86::Tier> tier = x86::tier_for_arch(arch);
    if (!tier) return absent_device("unknown arch '" + arch + "' for target x86");
    return x86::cpu_device(*tier);
  }

  // Compute is f32 everywhere; storage rounding is part of the reference.
  BudgetFloor budget_floor(const KernelSpec&) const override { return BudgetFloor{0.0, 0.0}; }
};

}  // namespace

std::unique_ptr<Target> make_x86_target() { return std::make_unique<X86Target>(); }

}  // namespace tsr
