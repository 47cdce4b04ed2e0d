// Compiler discovery shared by the targets' compile steps (x86: clang-14, hip: clang-15).
#include "target/tool_probe.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "support/subprocess.h"
#include "support/tool_version_memo.h"

namespace tsr {

namespace {

ToolchainInfo probe(const ToolSearch& search) {
  ToolchainInfo info;
  const char* forced = std::getenv(search.env_var.c_str());
  if (forced && *forced) {
    info.path = find_in_path(forced);
    if (info.path.empty()) {
      info.why_unavailable = search.env_var + "='" + forced + "' is not an executable";
      return info;
    }
  } else {
    for (const std::string& name : search.candidates)
      if (info.path.empty()) info.path = find_in_path(name);
    if (info.path.empty()) {
      info.why_unavailable = search.not_found;
      return info;
    }
  }
  if (std::optional<std::string> remembered = remembered_tool_version(info.path)) {
    info.version = *remembered;
    info.found = true;
    return info;
  }
  const ProcessResult r = run_process({info.path, "--version"});
  info.version = first_line(r.output);
  if (!r.error.empty()) {
    info.why_unavailable = r.error;
    info.version.clear();
    return info;
  }
  if (r.exit_code != 0 || info.version.empty()) {
    info.why_unavailable = "'" + info.path + " --version' failed (exit " + std::to_string(r.exit_code) + ")";
    info.version.clear();
    return info;
  }
  info.found = true;
  remember_tool_version(info.path, info.version);
  return info;
}

}  // namespace

// One `--version` per process and setting: a cached rebuild asks for the
// toolchain of every kernel-target, and the probe costs a process.
ToolchainInfo find_tool(const ToolSearch& search) {
  static std::mutex mutex;
  static std::map<std::string, ToolchainInfo> probed;
  const char* forced = std::getenv(search.env_var.c_str());
  const char* path = std::getenv("PATH");
  std::string setting = search.env_var + '\n' + (forced ? forced : "") + '\n' + (path ? path : "");
  for (const std::string& c : search.candidates) setting += '\n' + c;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = probed.find(setting);
  if (it == probed.end()) it = probed.emplace(setting, probe(search)).first;
  return it->second;
}

}  // namespace tsr
