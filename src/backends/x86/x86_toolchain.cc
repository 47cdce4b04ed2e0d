// Compile step for x86: emitted C to an ELF shared object (System V AMD64
// psABI, ELF gABI) through clang, with the exact clang version in the key.
#include <map>
#include <mutex>

#include "support/file_io.h"
#include "support/sha256.h"
#include "support/subprocess.h"
#include "target/tool_probe.h"
#include "x86/x86_internal.h"

namespace tsr::x86 {

ToolchainInfo find_clang() {
  return find_tool({"TESSERAC_CLANG", {"clang-14", "clang"}, "clang not found in PATH (install clang-14)"});
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

std::string exported_entry(const KernelSpec& spec, const std::string& source) {
  const std::string head = "TSR_EXPORT void tsr_entry(", label = "__asm__(\"";
  const size_t decl = source.find(head);
  const size_t end_of_line = source.find('\n', decl);
  const size_t at = decl == std::string::npos ? decl : source.find(label, decl);
  if (at == std::string::npos || at > end_of_line) return spec.name + "_tsr_entry";
  const size_t begin = at + label.size();
  return source.substr(begin, source.find('"', begin) - begin);
}

namespace {

// One source keeps the key and file name it always had (kernel.c: archives
// built before candidates keep their bytes); several hash each source in order.
std::string artifact_key(const std::vector<std::string>& sources, const std::string& version,
                         const std::string& flags) {
  if (sources.size() == 1) return sha256_hex(sources[0] + "\n" + version + "\n" + flags + " ");
  std::string all = "tesserac-x86-sources " + std::to_string(sources.size()) + "\n";
  for (const std::string& source : sources) all += sha256_hex(source) + "\n";
  return sha256_hex(all + version + "\n" + flags + " ");
}

std::string source_name(size_t index, size_t count) {
  return count == 1 ? "kernel.c" : "kernel" + std::to_string(index) + ".c";
}

}  // namespace

Expected<Artifact> compile_sources(const KernelSpec& spec, const Tier& tier, const std::string& arch,
                                   const std::vector<std::string>& sources, const std::string& entry) {
  const ToolchainInfo tc = find_clang();
  if (!tc.found) return unavailable("target unavailable: x86:" + arch + ": " + tc.why_unavailable);
  const std::vector<std::string> flags = clang_flags(tier);
  std::string joined;
  for (const std::string& f : flags) joined += (joined.empty() ? "" : " ") + f;
  Artifact art;
  art.target = {"x86", arch};
  art.kind = "shared_object";
  art.entry = entry;
  art.toolchain = "clang " + tc.version;
  art.key = artifact_key(sources, tc.version, joined);
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
  // names the source files, so random names would break reproducibility.
  // Each source is its own translation unit: their static helpers share names.
  const std::string so_path = dir->path() + "/kernel.so";
  std::vector<std::string> argv = {tc.path};
  argv.insert(argv.end(), flags.begin(), flags.end() - 1);   // -lm goes after the inputs
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string c_path = dir->path() + "/" + source_name(i, sources.size());
    if (Status wrote = write_file(c_path, sources[i]); !wrote.ok()) return wrote.take_error();
    argv.push_back(c_path);
  }
  argv.insert(argv.end(), {"-o", so_path, flags.back()});
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
