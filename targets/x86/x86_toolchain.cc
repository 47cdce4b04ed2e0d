// Compile step for x86: emitted C to an ELF shared object (System V AMD64
// psABI, ELF gABI) through clang, with the exact clang version in the key.
#include <cstdlib>
#include <map>
#include <mutex>

#include "support/file_io.h"
#include "support/sha256.h"
#include "support/subprocess.h"
#include "support/tool_version_memo.h"
#include "targets/x86/x86_internal.h"

namespace tsr::x86 {

namespace {

ToolchainInfo probe_clang() {
  ToolchainInfo info;
  const char* forced = std::getenv("TESSERAC_CLANG");
  if (forced && *forced) {
    info.path = find_in_path(forced);
    if (info.path.empty()) {
      info.why_unavailable = std::string("TESSERAC_CLANG='") + forced + "' is not an executable";
      return info;
    }
  } else {
    info.path = find_in_path("clang-14");
    if (info.path.empty()) info.path = find_in_path("clang");
    if (info.path.empty()) {
      info.why_unavailable = "clang not found in PATH (install clang-14)";
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

// One `clang --version` per process and setting: a cached rebuild asks for
// the toolchain of every kernel-target, and the probe costs a process.
ToolchainInfo find_clang() {
  static std::mutex mutex;
  static std::map<std::string, ToolchainInfo> probed;
  const char* forced = std::getenv("TESSERAC_CLANG");
  const char* path = std::getenv("PATH");
  const std::string setting = std::string(forced ? forced : "") + '\n' + (path ? path : "");
  std::lock_guard<std::mutex> lock(mutex);
  auto it = probed.find(setting);
  if (it == probed.end()) it = probed.emplace(setting, probe_clang()).first;
  return it->second;
}

// No debug info and no build id keep the bytes a function of the source and
// the compiler; -fno-math-errno lets sqrtf inline without changing IEEE
// results (no -ffast-math: inf and NaN keep their meaning).
// AMX code adds the tile and bf16 tile extensions to the v4 level.
std::vector<std::string> clang_flags(const Tier& tier) {
  std::vector<std::string> flags = {"-std=gnu11", "-O3", "-march=x86-64-" + tier.arch};
  if (tier.amx) flags.insert(flags.end(), {"-mamx-tile", "-mamx-bf16"});
  flags.insert(flags.end(), {"-fPIC", "-shared", "-ffp-contract=fast", "-fno-math-errno", "-fvisibility=hidden",
                             "-g0", "-Wl,--build-id=none", "-Wl,-z,noexecstack", "-lm"});
  return flags;
}

namespace {

// The last shared object compiled, by source, flags and clang: a build asks
// for x86:v4+amx right after x86:v4, and for every kernel but bf16 matmul
// that is the same source, so the same bytes (the compile is reproducible).
struct LastCompile {
  std::mutex mutex;
  std::string key;
  std::vector<uint8_t> bytes;
};
LastCompile& last_compile() {
  static LastCompile last;
  return last;
}

}  // namespace

Expected<Artifact> compile_source(const KernelSpec& spec, const Tier& tier, const std::string& arch,
                                  const std::string& source) {
  const ToolchainInfo tc = find_clang();
  if (!tc.found) return toolchain_error("target unavailable: x86:" + arch + ": " + tc.why_unavailable);
  const std::vector<std::string> flags = clang_flags(tier);
  std::string joined;
  for (const std::string& f : flags) joined += (joined.empty() ? "" : " ") + f;
  Artifact art;
  art.target = {"x86", arch};
  art.kind = "shared_object";
  art.entry = spec.name + "_tsr_entry";
  art.toolchain = "clang " + tc.version;
  art.key = sha256_hex(source + "\n" + tc.version + "\n" + joined + " ");
  art.metadata["march"] = "x86-64-" + tier.arch;
  art.metadata["flags"] = joined;
  {
    std::lock_guard<std::mutex> lock(last_compile().mutex);
    if (last_compile().key == art.key) {
      art.bytes = last_compile().bytes;
      return art;
    }
  }

  Expected<ScratchDir> dir = ScratchDir::create("tesserac-x86");
  if (!dir) return dir.take_error();
  // Fixed file names inside the private directory: the object's symbol table
  // names the source file, so a random name would break reproducibility.
  const std::string c_path = dir->path() + "/kernel.c", so_path = dir->path() + "/kernel.so";
  if (Status wrote = write_file(c_path, source); !wrote.ok()) return wrote.take_error();

  std::vector<std::string> argv = {tc.path};
  argv.insert(argv.end(), flags.begin(), flags.end() - 1);   // -lm goes after the input
  argv.insert(argv.end(), {c_path, "-o", so_path, flags.back()});
  const ProcessResult r = run_process(argv);
  if (!r.error.empty()) return toolchain_error(r.error);
  if (r.exit_code != 0)
    return toolchain_error("clang failed to compile kernel '" + spec.name + "' for x86:" + arch + " (exit " +
                           std::to_string(r.exit_code) + "):\n" + r.output);

  Expected<std::vector<uint8_t>> object = read_file_bytes(so_path);
  if (!object) return toolchain_error("clang produced no output for kernel '" + spec.name + "': " + so_path);
  art.bytes = std::move(*object);
  std::lock_guard<std::mutex> lock(last_compile().mutex);
  last_compile().key = art.key;
  last_compile().bytes = art.bytes;
  return art;
}

}  // namespace tsr::x86
