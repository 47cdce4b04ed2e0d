// Compile step for x86: emitted C to an ELF shared object (System V AMD64
// psABI, ELF gABI) through clang, with the exact clang version in the key.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "support/sha256.h"
#include "support/subprocess.h"
#include "targets/x86/x86_internal.h"

namespace tsr::x86 {

ToolchainInfo find_clang() {
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
  const ProcessResult r = run_process({info.path, "--version"});
  info.version = first_line(r.output);
  if (r.exit_code != 0 || info.version.empty()) {
    info.why_unavailable = "'" + info.path + " --version' failed (exit " + std::to_string(r.exit_code) + ")";
    info.version.clear();
    return info;
  }
  info.found = true;
  return info;
}

// No debug info and no build id keep the bytes a function of the source and
// the compiler; -fno-math-errno lets sqrtf inline without changing IEEE
// results (no -ffast-math: inf and NaN keep their meaning).
std::vector<std::string> clang_flags(const Tier& tier) {
  return {"-std=gnu11", "-O3", "-march=x86-64-" + tier.arch, "-fPIC", "-shared", "-ffp-contract=fast",
          "-fno-math-errno", "-fvisibility=hidden", "-g0", "-Wl,--build-id=none", "-Wl,-z,noexecstack", "-lm"};
}

namespace {

struct TempDir {
  std::string path;
  ~TempDir() {
    if (path.empty()) return;
    for (const char* f : {"/kernel.c", "/kernel.so"}) unlink((path + f).c_str());
    rmdir(path.c_str());
  }
};

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

Expected<Artifact> compile_source(const KernelSpec& spec, const Tier& tier, const std::string& source) {
  const ToolchainInfo tc = find_clang();
  if (!tc.found) return toolchain_error("target unavailable: x86:" + tier.arch + ": " + tc.why_unavailable);

  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tesserac-x86-XXXXXX";
  TempDir dir;
  if (!mkdtemp(pattern.data()))
    return toolchain_error("cannot create a temporary directory under " + pattern.substr(0, pattern.rfind('/')));
  dir.path = pattern;
  // Fixed file names inside the private directory: the object's symbol table
  // names the source file, so a random name would break reproducibility.
  const std::string c_path = dir.path + "/kernel.c", so_path = dir.path + "/kernel.so";
  if (!write_file(c_path, source)) return toolchain_error("cannot write " + c_path);

  const std::vector<std::string> flags = clang_flags(tier);
  std::vector<std::string> argv = {tc.path};
  argv.insert(argv.end(), flags.begin(), flags.end() - 1);   // -lm goes after the input
  argv.insert(argv.end(), {c_path, "-o", so_path, flags.back()});
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0)
    return toolchain_error("clang failed to compile kernel '" + spec.name + "' for x86:" + tier.arch + " (exit " +
                           std::to_string(r.exit_code) + "):\n" + r.output);

  std::ifstream in(so_path, std::ios::binary);
  if (!in) return toolchain_error("clang produced no output for kernel '" + spec.name + "': " + so_path);
  Artifact art;
  art.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  art.target = {"x86", tier.arch};
  art.kind = "shared_object";
  art.entry = spec.name + "_tsr_entry";
  art.toolchain = "clang " + tc.version;
  std::string keyed = source + "\n" + tc.version + "\n";
  for (const std::string& f : flags) keyed += f + " ";
  art.key = sha256_hex(keyed);
  art.metadata["march"] = "x86-64-" + tier.arch;
  std::string joined;
  for (const std::string& f : flags) joined += (joined.empty() ? "" : " ") + f;
  art.metadata["flags"] = joined;
  return art;
}

}  // namespace tsr::x86
