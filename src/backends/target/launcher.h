// What runs an artifact for the oracle: one launch on one device, knowing
// no oracle. Two implementations: the stub's (launch/stub_launcher.h: every
// hardware launch, through libtesserart from an archive, for the oracle, the
// arbiter and the bench) and the CPU emulator's (emulator/emulator.h:
// EmulatorLauncher, PASS_EMULATED evidence). Tests add doubles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "target/target.h"

namespace tsr {

// Host-side argument set for one launch, in ABI order. With guard_bytes > 0
// each buffer vector is [guard][payload][guard]: the oracle fills the guards
// with a canary and checks them after the launch (docs/oracle.md), so a
// launcher passes payload(i) / payload_size(i), never buffers[i].data().
struct LaunchArgs {
  std::vector<std::vector<uint8_t>> buffers;   // inputs then outputs, storage dtype bytes
  std::vector<int64_t> scalars;                // runtime scalars in ABI order
  size_t guard_bytes = 0;                      // on each side of every buffer

  uint8_t* payload(size_t i) { return buffers[i].data() + guard_bytes; }
  const uint8_t* payload(size_t i) const { return buffers[i].data() + guard_bytes; }
  size_t payload_size(size_t i) const { return buffers[i].size() - 2 * guard_bytes; }
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  // The device an arch launches on (DeviceInfo::emulated for the emulator:
  // a pass is then PASS_EMULATED, never PASS).
  virtual DeviceInfo device(const std::string& arch) const = 0;
  // The tolerance floor of the target whose artifacts this launches.
  virtual BudgetFloor budget_floor(const KernelSpec& spec) const = 0;
  // One launch; outputs are written back into args' payloads.
  virtual Status launch(const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args) const = 0;
};

}  // namespace tsr
