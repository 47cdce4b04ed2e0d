#include "driver/out_dir.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "driver/build_report.h"
#include "registry/registry.h"
#include "support/file_io.h"
#include "support/sha256.h"

namespace tsr {

std::string loose_artifact_name(const VerdictRow& row) {
  const std::string ext = find_target(row.target.kind)->artifact_file_extension(*row.artifact);
  return row.kernel + "." + row.target.kind + "_" + row.target.arch + ext;
}

Status write_loose_artifacts(const std::string& dir, const std::vector<VerdictRow>& rows) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return toolchain_error("cannot create '" + dir + "': " + ec.message());
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const VerdictRow& row : rows) {
    if (!row.artifact) continue;
    const std::string name = loose_artifact_name(row);
    Status written = write_file_atomic(dir + "/" + name, row.artifact->bytes);
    if (!written.ok()) return written;
    nlohmann::ordered_json e;
    e["kernel"] = row.kernel;
    e["identity"] = row.identity;
    e["target"] = row.target.str();
    e["artifact"] = name;
    e["artifact_kind"] = row.artifact->kind;
    e["entry"] = row.artifact->entry;
    e["sha256"] = sha256_hex(row.artifact->bytes.data(), row.artifact->bytes.size());
    e["key"] = row.artifact->key;
    e["toolchain"] = row.artifact->toolchain;
    e["verdict"] = verdict_name(row.report.verdict);
    e["reason"] = row.report.reason;
    entries.push_back(e);
  }
  nlohmann::ordered_json manifest;
  manifest["tesserac"] = TESSERAC_VERSION;
  manifest["artifacts"] = entries;
  Status written = write_file_atomic(dir + "/manifest.json", manifest.dump(2) + "\n");
  return written;
}

std::vector<std::string> kernels_without_variants(const std::vector<KernelSpec>& specs,
                                                  const std::vector<VerdictRow>& rows) {
  std::vector<std::string> out;
  for (const KernelSpec& spec : specs) {
    std::map<std::string, int> by_status;   // "unavailable" (no toolchain), "unsupported", ...
    bool compiled = false;
    for (const VerdictRow& r : rows) {
      if (r.kernel != spec.name) continue;
      compiled = compiled || r.artifact.has_value();
      ++by_status[row_status(r)];
    }
    if (compiled) continue;
    std::string counts;
    for (const auto& [status, n] : by_status) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + status;
    out.push_back("kernel '" + spec.name + "' has no variant to ship: every target planned is " + counts +
                  " (see the table)");
  }
  return out;
}

}  // namespace tsr
