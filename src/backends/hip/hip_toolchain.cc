// clang-15 as the hip target's compiler (clang manual, "HIP Support"; LLVM
// AMDGPUUsage, "Processors" for which LLVM release knows which gfx).
#include "hip/hip_toolchain.h"

#include "support/file_io.h"
#include "support/subprocess.h"
#include "hip/hip_archs.h"
#include "target/tool_probe.h"

namespace tsr::hip {

namespace {

// Processors newer than clang-15 knows, with the first toolchain that builds them.
struct NewerArch {
  const char* name;
  const char* needs;
};
constexpr NewerArch kNewerArchs[] = {
    {"gfx941", "LLVM/clang >= 17 (ROCm >= 5.7 / 6.x)"},
    {"gfx942", "LLVM/clang >= 17 (ROCm >= 5.7 / 6.x)"},
};

std::string installed_toolchain() {
  const ToolchainInfo tc = find_hip_clang();
  return tc.found ? tc.version : "none: " + tc.why_unavailable;
}

}  // namespace

ToolchainInfo find_hip_clang() {
  return find_tool({"TESSERAC_HIP_CLANG", {"clang-15"},
                    "clang-15 not found in PATH (install clang-15 and lld-15: packaging/install-deps.sh)"});
}

std::string arch_refusal(const std::string& arch) {
  if (find_hip_arch(arch)) return "";
  std::string known;
  for (const std::string& a : hip_arch_names()) known += (known.empty() ? "" : ", ") + a;
  for (const NewerArch& n : kNewerArchs)
    if (arch == n.name)
      return "architecture " + arch + " cannot be built by the installed toolchain (" + installed_toolchain() +
             "): " + arch + " needs " + n.needs + " (supported: " + known + ")";
  return "architecture " + arch + " is not supported by the hip target with the installed toolchain (" +
         installed_toolchain() + "): a gfx needs an entry in the hip arch table and a clang that knows it "
         "(supported: " + known + ")";
}

std::vector<std::string> compile_flags(const std::string& arch) {
  return {"-x", "hip", "--cuda-device-only", "--offload-arch=" + arch, "--no-gpu-bundle-output",
          "-nogpulib", "-nogpuinc", "-O3", "-c"};
}

Expected<std::vector<uint8_t>> compile_code_object(const std::string& source, const std::string& arch,
                                                   const std::string& kernel_name) {
  const ToolchainInfo tc = find_hip_clang();
  if (!tc.found) return unavailable("target hip:" + arch + " unavailable: " + tc.why_unavailable);
  Expected<ScratchDir> dir = ScratchDir::create("tesserac-hip");
  if (!dir) return dir.take_error();
  // Fixed names inside the private directory keep the object a function of the source.
  const std::string in = dir->path() + "/kernel.hip", out = dir->path() + "/kernel.hsaco";
  if (Status wrote = write_file(in, source); !wrote.ok()) return wrote.take_error();
  std::vector<std::string> argv = {tc.path};
  for (const std::string& f : compile_flags(arch)) argv.push_back(f);
  argv.insert(argv.end(), {in, "-o", out});
  const ProcessResult r = run_process(argv);
  if (!r.error.empty()) return toolchain_error(r.error);
  if (r.exit_code != 0)
    return toolchain_error("clang failed to compile kernel '" + kernel_name + "' for hip:" + arch + " (exit " +
                           std::to_string(r.exit_code) + "):\n" + r.output);
  Expected<std::vector<uint8_t>> object = read_file_bytes(out);
  if (!object) return toolchain_error("clang produced no code object for kernel '" + kernel_name + "': " + out);
  return object;
}

}  // namespace tsr::hip
