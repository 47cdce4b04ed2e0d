#include "support/tool_version_memo.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "support/file_io.h"
#include "support/sha256.h"

namespace tsr {

namespace {

std::mutex g_mutex;
std::string g_dir;

// The memo file for the binary `tool_path` is now, or empty.
std::string memo_path(const std::string& tool_path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_dir.empty()) return "";
  char* resolved = realpath(tool_path.c_str(), nullptr);
  if (!resolved) return "";
  const std::string real(resolved);
  std::free(resolved);
  struct stat st {};
  if (stat(real.c_str(), &st) != 0) return "";
  const std::string id = real + "\n" + std::to_string(st.st_ino) + "\n" + std::to_string(st.st_size) + "\n" +
                         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  return g_dir + "/" + sha256_hex(id) + ".version";
}

}  // namespace

void set_tool_version_memo_dir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_dir = dir;
}

std::optional<std::string> remembered_tool_version(const std::string& tool_path) {
  const std::string path = memo_path(tool_path);
  if (path.empty()) return std::nullopt;
  Expected<std::string> text = read_input_file(path, 4096, "tool version memo");
  // One line, newline-terminated: anything else is a torn or foreign file.
  if (!text || text->empty() || text->back() != '\n' || text->find('\n') != text->size() - 1) return std::nullopt;
  return text->substr(0, text->size() - 1);
}

void remember_tool_version(const std::string& tool_path, const std::string& version) {
  const std::string path = memo_path(tool_path);
  if (path.empty() || version.empty() || version.find('\n') != std::string::npos) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (!ec) (void)write_file_atomic(path, version + "\n");
}

}  // namespace tsr
