// A closed TOML codec like the receipt's (document/map_reader.h): unknown
// keys, wrong types and missing keys are located errors, all reported at once.
#include "xdna/xdna_sidecar.h"

#include <filesystem>
#include <optional>

#include "document/map_reader.h"
#include "document/toml_document.h"
#include "document/hex_values.h"
#include "support/file_io.h"
#include "support/sha256.h"
#include "xdna/xdna_manifest.h"

namespace tsr::xdna {

namespace {

constexpr uint64_t kMaxSidecarBytes = 65536;

std::string resolve(const std::string& sidecar, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const std::filesystem::path dir = std::filesystem::path(sidecar).parent_path();
  return (dir / path).string();
}

// Reads one declared file and checks its hash, reporting at the hash's key.
void read_and_check(const MapReader& m, const std::string& path_key, const std::string& hash_key, DeviceFile& f) {
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(f.path);
  if (!bytes) {
    m.error(m.get(path_key), "cannot read '" + path_key + "': " + bytes.error().message());
    return;
  }
  const std::string actual = sha256_hex(bytes->data(), bytes->size());
  if (actual != f.sha256) {
    m.error(m.get(hash_key), "SHA-256 mismatch for '" + path_key + "' " + f.path + ": the sidecar declares " +
                                 f.sha256 + ", the file has " + actual);
    return;
  }
  f.bytes = std::move(*bytes);
}

}  // namespace

std::string sidecar_path(const std::string& spec_file) {
  std::string base = spec_file;
  for (const char* ext : {".yaml", ".yml"})
    if (base.size() > std::string(ext).size() && base.ends_with(ext)) {
      base.resize(base.size() - std::string(ext).size());
      break;
    }
  return base + ".xdna.toml";
}

Expected<DeviceArtifacts> load_device_artifacts(const KernelSpec& spec, const std::string& arch, bool read_files) {
  DeviceArtifacts out;
  out.sidecar = sidecar_path(spec.location.file);
  Expected<std::string> text = read_input_file(out.sidecar, kMaxSidecarBytes, "xdna sidecar");
  if (!text) {
    std::string at = spec.location.file;
    if (spec.location.line > 0) at += ":" + std::to_string(spec.location.line) + ":" + std::to_string(spec.location.column);
    return invalid_input(at + ": error: kernel '" + spec.name + "' on xdna:" + arch +
                         " needs its device artifacts (PDI or ELF, and the NPU instruction stream) named in the "
                         "sidecar " + out.sidecar + ": " + text.error().message());
  }
  DiagnosticEngine diag;
  diag.add_source(out.sidecar, *text);
  std::optional<DocNode> root = parse_toml_document(*text, out.sidecar, diag);
  if (root) {
    MapReader top(*root, out.sidecar, "xdna sidecar", diag, ScalarRules::typed);
    std::vector<std::string> keys = {"format_version", "kernel"};
    for (const std::string& a : xdna_arch_names()) keys.push_back(a);
    top.check_keys(keys);
    std::optional<int64_t> version = top.required_int("format_version");
    if (version && *version != 1)
      top.error_at_key("format_version", "unsupported xdna sidecar format version " + std::to_string(*version) +
                                             " (this tesserac reads version 1)");
    std::optional<std::string> kernel = top.required_string("kernel");
    if (kernel && *kernel != spec.name)
      top.error_at_key("kernel", "the sidecar is for kernel '" + *kernel + "', not '" + spec.name + "'");
    if (const DocNode* table = top.map_value(arch, true)) {
      MapReader m(*table, out.sidecar, "[" + arch + "]", diag, ScalarRules::typed);
      m.check_keys({"image_kind", "image", "image_sha256", "instructions", "instructions_sha256"});
      std::optional<std::string> kind = m.required_enum("image_kind", {"pdi", "elf"});
      std::optional<std::string> image = m.required_string("image");
      std::optional<std::string> image_hash = required_sha256(m, "image_sha256");
      std::optional<std::string> insts = m.required_string("instructions");
      std::optional<std::string> insts_hash = required_sha256(m, "instructions_sha256");
      if (kind) out.image_kind = *kind;
      if (image) out.image.path = resolve(out.sidecar, *image);
      if (image_hash) out.image.sha256 = *image_hash;
      if (insts) out.instructions.path = resolve(out.sidecar, *insts);
      if (insts_hash) out.instructions.sha256 = *insts_hash;
      if (read_files && !diag.has_errors()) {
        read_and_check(m, "image", "image_sha256", out.image);
        read_and_check(m, "instructions", "instructions_sha256", out.instructions);
        if (!diag.has_errors() && out.instructions.bytes.empty())
          m.error(m.get("instructions"), "the NPU instruction stream " + out.instructions.path +
                                             " is empty: a run without it does nothing");
      }
    }
  }
  if (diag.has_errors()) {
    std::string rendered = diag.render();
    while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    return invalid_input(rendered);
  }
  return out;
}

}  // namespace tsr::xdna
