#include "x86/x86_abi_check.h"

#include <algorithm>
#include <sstream>

#include "target/compile_step_error.h"
#include "target/shared_object_exports.h"

namespace tsr::x86 {

namespace {

// The entry symbols the stub resolves: the variant's own, then each route step's.
std::vector<std::string> resolved_entries(const Artifact& artifact) {
  std::vector<std::string> entries = {artifact.entry};
  for (const auto& [key, value] : artifact.metadata) {
    const std::string bucket = key.substr(0, 6) == "route." ? key.substr(6) : "";
    if (bucket.empty() || !std::all_of(bucket.begin(), bucket.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    std::istringstream steps(value);
    for (std::string step; steps >> step;)
      if (step.rfind("entry:", 0) == 0 &&
          std::find(entries.begin(), entries.end(), step.substr(6)) == entries.end())
        entries.push_back(step.substr(6));
  }
  return entries;
}

}  // namespace

Status check_shared_object_abi(const KernelSpec& spec, const Artifact& artifact) {
  std::vector<RequiredExport> required;
  for (const std::string& entry : resolved_entries(artifact)) {
    required.push_back({entry, true});
    required.push_back({entry + "_workspace", true});
  }
  Status s = artifact.kind != "shared_object"
                 ? Status(internal_error("internal error: an x86 artifact is a shared_object, not '" +
                                         artifact.kind + "'"))
                 : require_exports(artifact.bytes, required, "x86 artifact of kernel '" + spec.name + "'");
  if (!s) return compile_step_error(spec, artifact.target.str(), "ABI check", s.error());
  return ok();
}

}  // namespace tsr::x86
