// CPU feature detection for the x86-64 psABI microarchitecture levels
// (psABI §3.1.1): cpuid through the compiler's __builtin_cpu_supports, which
// also checks that the OS saves the AVX/AVX-512 register state (XCR0). F16C,
// MOVBE and LZCNT come from cpuid directly (Intel SDM vol. 2A, CPUID): clang
// 14's __builtin_cpu_supports does not know them.
#include <cpuid.h>

#include <fstream>

#include "targets/x86/x86_internal.h"

namespace tsr::x86 {

namespace {

struct Feature {
  const char* name;
  bool present;
};

bool cpuid_bit(unsigned leaf, int reg, int bit) {
  unsigned r[4] = {0, 0, 0, 0};
  if (!__get_cpuid(leaf, &r[0], &r[1], &r[2], &r[3])) return false;
  return (r[reg] >> bit) & 1u;
}
constexpr int kEcx = 2;

std::vector<Feature> required_features(const std::string& arch) {
  __builtin_cpu_init();
  std::vector<Feature> f = {
      {"sse3", (bool)__builtin_cpu_supports("sse3")},     {"ssse3", (bool)__builtin_cpu_supports("ssse3")},
      {"sse4.1", (bool)__builtin_cpu_supports("sse4.1")}, {"sse4.2", (bool)__builtin_cpu_supports("sse4.2")},
      {"popcnt", (bool)__builtin_cpu_supports("popcnt")},
  };
  if (arch == "v3" || arch == "v4") {
    f.insert(f.end(), {{"avx", (bool)__builtin_cpu_supports("avx")},
                       {"avx2", (bool)__builtin_cpu_supports("avx2")},
                       {"fma", (bool)__builtin_cpu_supports("fma")},
                       {"bmi", (bool)__builtin_cpu_supports("bmi")},
                       {"bmi2", (bool)__builtin_cpu_supports("bmi2")},
                       {"f16c", cpuid_bit(1, kEcx, 29)},
                       {"lzcnt", cpuid_bit(0x80000001u, kEcx, 5)},
                       {"movbe", cpuid_bit(1, kEcx, 22)}});
  }
  if (arch == "v4") {
    f.insert(f.end(), {{"avx512f", (bool)__builtin_cpu_supports("avx512f")},
                       {"avx512bw", (bool)__builtin_cpu_supports("avx512bw")},
                       {"avx512cd", (bool)__builtin_cpu_supports("avx512cd")},
                       {"avx512dq", (bool)__builtin_cpu_supports("avx512dq")},
                       {"avx512vl", (bool)__builtin_cpu_supports("avx512vl")}});
  }
  return f;
}

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

// Read once per process: every launch checks the tier, and the CPU does not change.
const std::string& cpu_model_name() {
  static const std::string name = read_cpu_model_name();
  return name;
}

}  // namespace

DeviceInfo cpu_device(const Tier& tier) {
  DeviceInfo info;
  std::string have, missing;
  for (const Feature& f : required_features(tier.arch)) {
    std::string& list = f.present ? have : missing;
    list += (list.empty() ? "" : " ") + std::string(f.name);
  }
  info.present = missing.empty();
  info.description = info.present
                         ? cpu_model_name() + " (x86-64-" + tier.arch + ": " + have + ")"
                         : cpu_model_name() + " lacks x86-64-" + tier.arch + " features: " + missing;
  return info;
}

}  // namespace tsr::x86
