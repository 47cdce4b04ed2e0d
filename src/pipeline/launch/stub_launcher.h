// The Launcher that launches through the runtime stub from an archive, so
// the oracle checks exactly what an application calling tsr_kernel_launch
// gets: the shipped bytes, the stub's selection and its ABI validation.
// `test --archive` routes the archive's variants through it, and `test` and
// `build` route each freshly compiled artifact, of every target, through it
// from a one-kernel archive written in memory (docs/oracle.md, "Launch path").
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "archive/wire_codes.h"
#include "target/launcher.h"
#include "tesserart.h"

struct tsr_archive;
struct tsr_kernel;

namespace tsr {

class StubLauncher final : public Launcher {
 public:
  // `inner` (the registered target of `target`'s kind) supplies device
  // presence and the budget floor. launch() loads spec.name from `archive`, restricted to `target`'s kind and
  // arch (tsr_select_options) on the device inner.device(arch) names, and
  // fails unless the stub selects exactly `target`. The kernel stays loaded
  // until this object goes; with `owns_archive` the archive is closed then
  // too, and `owned_bytes` (what it was opened from in memory) freed after it.
  StubLauncher(const Target& inner, tsr_archive* archive, TargetName target, bool owns_archive = false,
                   std::vector<uint8_t> owned_bytes = {});
  ~StubLauncher() override;
  StubLauncher(const StubLauncher&) = delete;
  StubLauncher& operator=(const StubLauncher&) = delete;

  DeviceInfo device(const std::string& arch) const override { return inner_.device(arch); }
  BudgetFloor budget_floor(const KernelSpec& spec) const override { return inner_.budget_floor(spec); }
  // The artifact argument is ignored: the stub takes the bytes from the archive.
  Status launch(const KernelSpec& spec, const Artifact&, LaunchArgs& args) const override;

  // "libtesserart memfd+dlopen": the stub's route of the last load, empty before one.
  std::string route() const;

 private:
  Status load(const KernelSpec& spec) const;

  const Target& inner_;
  tsr_archive* archive_;
  TargetName target_;
  bool owns_archive_;
  std::vector<uint8_t> owned_bytes_;
  mutable std::mutex mutex_;
  mutable tsr_kernel* kernel_ = nullptr;
  mutable std::string route_;
};

std::unique_ptr<StubLauncher> make_stub_launcher(const Target& inner, tsr_archive* archive, const TargetName& target);

// The oracle's launcher for a freshly compiled artifact: writes a one-kernel
// archive holding `artifact` to bytes with the archive writer, opens it with
// tsr_archive_open_memory and routes through the stub as above.
Expected<std::unique_ptr<StubLauncher>> make_in_memory_stub_launcher(const Target& inner, const KernelSpec& spec,
                                                                 const Artifact& artifact);

}  // namespace tsr
