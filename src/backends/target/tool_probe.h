// Discovery of a command-line compiler for a compile step (STYLE.md 7): the
// executable an environment variable forces, else the first candidate found
// in PATH, with its exact `--version` line, which enters artifact keys.
#pragma once

#include <string>
#include <vector>

#include "target/target.h"

namespace tsr {

struct ToolSearch {
  std::string env_var;                  // e.g. "TESSERAC_CLANG": forces the tool (a name or a path)
  std::vector<std::string> candidates;  // PATH names, in preference order
  std::string not_found;                // why_unavailable when none is found: what to install
};

// The tool's ToolchainInfo: found with path and first line of `--version`,
// or why not. Probed once per process, search and setting of env_var and
// PATH; the version is remembered across runs (support/tool_version_memo.h).
ToolchainInfo find_tool(const ToolSearch& search);

}  // namespace tsr
