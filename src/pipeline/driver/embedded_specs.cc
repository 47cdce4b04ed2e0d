#include "driver/embedded_specs.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "identity/identity.h"
#include "driver/spec_loading.h"
#include "support/diagnostics.h"

namespace tsr {

std::string embedded_spec_key(const std::string& kernel) { return "spec." + kernel; }

void embed_spec(const KernelSpec& spec, std::map<std::string, std::string>& metadata) {
  if (spec.source_text.empty()) return;
  metadata[embedded_spec_key(spec.name)] = nlohmann::json(spec.source_text).dump();
}

Expected<KernelSpec> embedded_spec(const std::map<std::string, std::string>& metadata, const std::string& kernel,
                                   const std::string& identity, const std::string& archive) {
  const std::string key = embedded_spec_key(kernel);
  auto it = metadata.find(key);
  if (it == metadata.end())
    return invalid_input(archive + ": kernel '" + kernel + "' has no embedded spec (metadata '" + key +
                         "'); rebuild the archive with this tesserac");
  std::string text;
  try {
    text = nlohmann::json::parse(it->second).get<std::string>();
  } catch (const std::exception&) {
    return invalid_input(archive + ": metadata '" + key + "' is not a JSON string");
  }
  DiagnosticEngine diag(&std::cerr);
  std::optional<KernelSpec> spec = decode_spec(text, archive + ":" + key, diag);
  if (!spec) return invalid_input(archive + ": the embedded spec of kernel '" + kernel + "' does not decode");
  if (spec->name != kernel || kernel_identity(*spec) != identity)
    return invalid_input(archive + ": the embedded spec of kernel '" + kernel +
                         "' does not have the kernel's identity " + identity.substr(0, 12) + "…");
  spec->source_text = std::move(text);
  return *spec;
}

}  // namespace tsr
