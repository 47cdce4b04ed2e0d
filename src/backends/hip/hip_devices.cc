// AMD GPU discovery for the compiler (HIP API reference: device management),
// through the runtime stub's internal API.
#include "hip/hip_devices.h"

extern "C" {
#include "tesserart_compiler.h"
}

namespace tsr::hip {

DeviceInfo hip_device_info(const std::string& arch) {
  const int count = tsr_hip_device_count();
  if (count == 0) return absent_device(tsr_hip_unavailable_reason());
  std::string present;
  for (int i = 0; i < count; ++i) {
    tsr_hip_device_desc d{};
    if (tsr_hip_describe(i, &d) != TSR_OK) continue;
    if (tsr_hip_target_id_match(d.arch, arch.c_str()) >= 0) {
      DeviceInfo info;
      info.present = true;
      info.driver = std::to_string(d.driver_version);
      info.description = std::string(d.name) + " (" + d.arch + ", device " + std::to_string(i) + ", HIP driver " +
                         info.driver + ")";
      info.ordinal = i;
      info.name = d.name;
      info.vendor = "0x1002";   // AMD's PCI vendor id: the only vendor the HIP runtime on ROCm reports
      info.capability = d.arch;
      return info;
    }
    present += (present.empty() ? "" : ", ") + std::string(d.name) + " (" + d.arch + ")";
  }
  return absent_device("no AMD GPU for " + arch + " (present: " + present + ")");
}

}  // namespace tsr::hip
