// `tool --version` answers remembered across runs: a fully cached rebuild
// should not start a compiler just to learn its version. An answer is kept
// under the tool's resolved path, inode, size and modification time, so an
// upgraded or replaced binary is asked again (the way ccache checks a
// compiler by default).
#pragma once

#include <optional>
#include <string>

namespace tsr {

// Where answers are kept (the compile cache sets it, docs/cache.md); empty:
// nowhere, every probe runs the tool.
void set_tool_version_memo_dir(const std::string& dir);

std::optional<std::string> remembered_tool_version(const std::string& tool_path);
void remember_tool_version(const std::string& tool_path, const std::string& version);

}  // namespace tsr
