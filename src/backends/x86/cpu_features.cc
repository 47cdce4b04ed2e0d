// Device discovery for the x86 target: whether this CPU runs a psABI level
// (x86-64 psABI §3.1.1), asked of libtesserart's detector
// (runtime-stub/src/tsr_cpu_x86.h) so that the compiler and the stub never
// disagree about the CPU; the model name is only for the description.
#include <sys/utsname.h>

#include <cstring>
#include <fstream>

#include "tesserart_compiler.h"
#include "x86/x86_internal.h"

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

// The CPUID vendor string ("GenuineIntel", "AuthenticAMD").
std::string cpu_vendor() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
  char v[13];
  std::memcpy(v, &b, 4);
  std::memcpy(v + 4, &d, 4);
  std::memcpy(v + 8, &c, 4);
  v[12] = '\0';
  return v;
}

// "Linux 6.1.0-18-amd64": what runs the kernels on a CPU target, for receipts.
std::string os_release() {
  struct utsname u;
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release;
}

}  // namespace

DeviceInfo cpu_device(const Tier& tier) {
  char have[512], missing[512];
  // tier_for_arch vetted "v2".."v4"; the detector's level 5 is v4 with AMX.
  const int level = tier.amx ? 5 : tier.arch[1] - '0';
  const std::string name = "x86-64-" + tier_name(tier);
  DeviceInfo info;
  info.present = tsr_x86_level_features(level, have, sizeof have, missing, sizeof missing) != 0;
  info.description = info.present
                         ? cpu_model_name() + " (" + name + ": " + have + ")"
                         : cpu_model_name() + " lacks " + name + " features: " + missing;
  // The stub selects no AMX variant without the OS's permission (tsr_cpu_x86.h).
  if (info.present && tier.amx && !tsr_x86_amx_permitted()) {
    info.present = false;
    info.description = cpu_model_name() + " has " + name + " but Linux refused AMX tile data to this process " +
                       "(arch_prctl ARCH_REQ_XCOMP_PERM)";
  }
  if (info.present) {
    info.name = cpu_model_name();
    info.vendor = cpu_vendor();
    info.capability = name + ": " + have;
    info.driver = os_release();
  }
  return info;
}

}  // namespace tsr::x86
