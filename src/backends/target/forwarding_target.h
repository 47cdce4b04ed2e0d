// A Target that hands every seam to another target, for wrappers that
// replace one or two (registry/registry.cc pairs a target with its emulated
// twin; tests replace a compile step).
#pragma once

#include "target/target.h"

namespace tsr {

class ForwardingTarget : public Target {
 public:
  explicit ForwardingTarget(const Target& inner) : inner_(inner) {}

  std::string kind() const override { return inner_.kind(); }
  std::vector<std::string> archs() const override { return inner_.archs(); }
  std::string unsupported_reason(const KernelSpec& s, const std::string& a) const override {
    return inner_.unsupported_reason(s, a);
  }
  Expected<std::string> emit(const KernelSpec& s, const std::string& a) const override { return inner_.emit(s, a); }
  ToolchainInfo toolchain() const override { return inner_.toolchain(); }
  Expected<Artifact> compile(const KernelSpec& s, const std::string& a, const std::string& src) const override {
    return inner_.compile(s, a, src);
  }
  Status check_abi(const KernelSpec& s, const Artifact& a) const override { return inner_.check_abi(s, a); }
  std::vector<GeneratedCandidate> generated_candidates(const KernelSpec& s, const std::string& a) const override {
    return inner_.generated_candidates(s, a);
  }
  Expected<std::string> emit_candidate(const KernelSpec& s, const std::string& a, const std::string& candidate,
                                       const std::string& entry_suffix) const override {
    return inner_.emit_candidate(s, a, candidate, entry_suffix);
  }
  Expected<Artifact> compile_candidates(const KernelSpec& s, const std::string& a,
                                        const std::vector<std::string>& sources) const override {
    return inner_.compile_candidates(s, a, sources);
  }
  std::string artifact_file_extension(const Artifact& a) const override { return inner_.artifact_file_extension(a); }
  DeviceInfo device(const std::string& a) const override { return inner_.device(a); }
  BudgetFloor budget_floor(const KernelSpec& s) const override { return inner_.budget_floor(s); }
  std::unique_ptr<Target> make_emulated() const override { return inner_.make_emulated(); }
  TargetScope scope() const override { return inner_.scope(); }

 protected:
  const Target& inner_;
};

}  // namespace tsr
