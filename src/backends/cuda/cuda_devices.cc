// CUDA device discovery for the compiler (CUDA Driver API reference: device
// management), through the runtime stub's internal API so that the compiler
// and libtesserart see the same driver and the same devices.
#include "cuda/cuda_devices.h"

#include "cuda/cuda_archs.h"

extern "C" {
#include "tesserart_compiler.h"
}

namespace tsr::cuda {

bool arch_runs_on(const std::string& arch, int cc) {
  const std::optional<int> sm = sm_number(arch);
  return sm ? *sm == cc : arch == "ptx" && cc >= kPtxComputeCapability;
}

DeviceInfo cuda_device_info(const std::string& arch) {
  const int count = tsr_cuda_device_count();
  if (count == 0) return absent_device(tsr_cuda_unavailable_reason());
  std::string present;
  for (int i = 0; i < count; ++i) {
    tsr_cuda_device_desc d{};
    if (tsr_cuda_describe(i, &d) != TSR_OK) continue;
    const std::string sm = "sm_" + std::to_string(d.compute_capability);
    if (arch_runs_on(arch, d.compute_capability)) {
      const std::string driver =
          std::to_string(d.driver_version / 1000) + "." + std::to_string(d.driver_version % 1000 / 10);
      DeviceInfo info;
      info.present = true;
      info.description = std::string(d.name) + " (" + sm + ", device " + std::to_string(i) + ", driver " + driver + ")";
      info.ordinal = i;
      info.name = d.name;
      info.vendor = "0x10de";   // NVIDIA's PCI vendor id: the only vendor the CUDA driver reports
      info.capability = sm;
      info.driver = driver;
      return info;
    }
    present += (present.empty() ? "" : ", ") + std::string(d.name) + " (" + sm + ")";
  }
  return absent_device("no CUDA device for " + arch + " (present: " + present + ")");
}

}  // namespace tsr::cuda
