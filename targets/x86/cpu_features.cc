// Device discovery for the x86 target: whether this CPU runs a psABI level
// (x86-64 psABI §3.1.1), asked of libtesserart's detector
// (runtime-stub/src/tsr_cpu_x86.h) so that the compiler and the stub never
// disagree about the CPU; the model name is only for the description.
#include <fstream>

#include "runtime-stub/src/tsr_cpu_x86.h"
#include "targets/x86/x86_internal.h"

namespace tsr::x86 {

namespace {

std::string read_cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  return "x86-64 CPU";
}

// Read once per process: every oracle run checks the tier, and the CPU does not change.
const std::string& cpu_model_name() {
  static const std::string name = read_cpu_model_name();
  return name;
}

}  // namespace

DeviceInfo cpu_device(const Tier& tier) {
  char have[512], missing[512];
  const int level = tier.arch.size() == 2 ? tier.arch[1] - '0' : 0;   // tier_for_arch vetted "v2".."v4"
  DeviceInfo info;
  info.present = tsr_x86_level_features(level, have, sizeof have, missing, sizeof missing) != 0;
  info.description = info.present
                         ? cpu_model_name() + " (x86-64-" + tier.arch + ": " + have + ")"
                         : cpu_model_name() + " lacks x86-64-" + tier.arch + " features: " + missing;
  return info;
}

}  // namespace tsr::x86
