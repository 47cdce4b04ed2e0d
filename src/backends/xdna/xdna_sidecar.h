// The device-artifact sidecar of an xdna kernel (docs/targets-xdna.md,
// "Device artifacts"): `<spec>.xdna.toml` next to the spec names, per arch,
// the AIE toolchain's device image (PDI or full ELF) and the NPU instruction
// stream, each with its SHA-256. tesserac checks every hash before it packs
// anything, and refuses a kernel without an instruction stream.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "support/error.h"

namespace tsr::xdna {

struct DeviceFile {
  std::string path;     // as resolved: relative paths are against the sidecar's folder
  std::string sha256;   // as declared (and, after load_device_artifacts, verified)
  std::vector<uint8_t> bytes;
};

struct DeviceArtifacts {
  std::string sidecar;      // the sidecar's path
  std::string image_kind;   // "pdi" | "elf"
  DeviceFile image;
  DeviceFile instructions;
};

// `specs/k.yaml` -> `specs/k.xdna.toml`.
std::string sidecar_path(const std::string& spec_file);

// Reads the sidecar's table for `arch`; with `read_files`, also reads both
// files and checks their SHA-256. Errors are located (`file:line:col: error:
// ...`) and of kind invalid_input.
Expected<DeviceArtifacts> load_device_artifacts(const KernelSpec& spec, const std::string& arch, bool read_files);

}  // namespace tsr::xdna
