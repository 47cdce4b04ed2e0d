// Build and launch of emulated cuda kernels (docs/emulator.md): clang builds
// the emitted source as host C++ (System V AMD64 psABI shared object) against
// the emulation prelude; the launch geometry is the cuda target's own metadata
// (docs/targets-cuda.md grammar, evaluated by gpu/gpu_launch_geometry, i.e. the
// runtime stub's tsr_cuda_eval_triple).
#include "emulator/emulator.h"

#include <dlfcn.h>

#include "spec/abi.h"
#include "support/decimal.h"
#include "support/file_io.h"
#include "support/sha256.h"
#include "support/subprocess.h"
#include "cuda/cuda_candidates.h"
#include "cuda/cuda_emit_kernels.h"
#include "gpu/gpu_launch_geometry.h"
#include "cuda/cuda_target.h"
#include "emulator/block_scheduler.h"
#include "emulator/emulator_prelude.h"
#include "emulator/emulator_toolchain.h"
#include "emulator/landing_schedules.h"
#include "target/shared_object_exports.h"

namespace tsr::cuda::emu {

namespace {

constexpr const char* kArtifactKind = "emulated_shared_object";
// The lanes per warp or wavefront the module was emitted for.
constexpr const char* kWaveSizeKey = "emulator.wave_size";

std::string metadata(const Artifact& a, const std::string& key) {
  auto it = a.metadata.find(key);
  return it == a.metadata.end() ? "" : it->second;
}

// The loaded module for one launch; unloaded (and its file removed) after it.
class LoadedModule {
 public:
  ~LoadedModule() {
    if (handle_) dlclose(handle_);
  }
  Status load(const Artifact& artifact, bool bf16) {
    Expected<ScratchDir> dir = ScratchDir::create("tesserac-emu");
    if (!dir) return dir.take_error();
    dir_ = std::make_unique<ScratchDir>(std::move(*dir));
    const std::string path = dir_->path() + "/kernel.so";
    if (Status s = write_file(path, std::string(artifact.bytes.begin(), artifact.bytes.end())); !s.ok()) return s;
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) return toolchain_error(std::string("emulator: cannot load the kernel module: ") + dlerror());
    module_.entry = reinterpret_cast<void (*)(void* const*)>(dlsym(handle_, "tsr_emu_entry"));
    module_.regs_slot = static_cast<tsr_emu_thread_regs**>(dlsym(handle_, "tsr_emu_regs"));
    module_.api_slot = static_cast<const tsr_emu_api**>(dlsym(handle_, "tsr_emu"));
    auto range = reinterpret_cast<void (*)(char**, char**)>(dlsym(handle_, "tsr_emu_shared_range"));
    if (!module_.entry || !module_.regs_slot || !module_.api_slot || !range)
      return invalid_input("emulator: '" + artifact.entry + "' is not an emulated kernel module");
    char *begin = nullptr, *end = nullptr;
    range(&begin, &end);
    module_.shared_begin = reinterpret_cast<uint8_t*>(begin);
    module_.shared_end = reinterpret_cast<uint8_t*>(end);
    module_.shared_symbols = shared_symbols(artifact.bytes);
    module_.bf16 = bf16;
    return ok();
  }
  const KernelModule& module() const { return module_; }

 private:
  std::unique_ptr<ScratchDir> dir_;
  void* handle_ = nullptr;
  KernelModule module_;
};

// The cuda target with the emulator as its compile step (EmulatorLauncher
// runs the modules); the emitter and the refusals are the real target's.
class EmulatedCudaTarget final : public Target {
 public:
  std::string kind() const override { return cuda_->kind(); }
  std::vector<std::string> archs() const override { return cuda_->archs(); }
  std::string unsupported_reason(const KernelSpec& spec, const std::string& arch) const override {
    return cuda_->unsupported_reason(spec, arch);
  }
  Expected<std::string> emit(const KernelSpec& spec, const std::string& arch) const override {
    return cuda_->emit(spec, arch);
  }
  std::vector<GeneratedCandidate> generated_candidates(const KernelSpec& spec, const std::string& arch) const override {
    return cuda_->generated_candidates(spec, arch);
  }
  Expected<std::string> emit_candidate(const KernelSpec& spec, const std::string& arch, const std::string& candidate,
                                       const std::string& entry_suffix) const override {
    return cuda_->emit_candidate(spec, arch, candidate, entry_suffix);
  }
  ToolchainInfo toolchain() const override { return emulator_clang(); }
  Expected<Artifact> compile(const KernelSpec& spec, const std::string& arch,
                             const std::string& source) const override {
    return build_emulated(spec, arch, source);
  }
  // The emulated kernel is a host shared object, not a cubin or PTX.
  std::string artifact_file_extension(const Artifact&) const override { return ".so"; }
  DeviceInfo device(const std::string&) const override { return emulated_device(); }
  Status check_abi(const KernelSpec& spec, const Artifact& artifact) const override {
    return check_emulated_module_abi(spec, artifact);
  }
  BudgetFloor budget_floor(const KernelSpec& spec) const override { return cuda_->budget_floor(spec); }

 private:
  std::unique_ptr<Target> cuda_ = make_cuda_target();
};

}  // namespace

Status check_emulated_module_abi(const KernelSpec& spec, const Artifact& artifact) {
  return require_exports(artifact.bytes,
                         {{"tsr_emu_entry", true}, {"tsr_emu_shared_range", true}, {"tsr_emu_regs", false},
                          {"tsr_emu", false}},
                         "emulated module of kernel '" + spec.name + "'");
}

DeviceInfo emulated_device() {
  DeviceInfo info;
  info.present = true;
  info.emulated = true;
  info.description = std::string("CPU emulator (") + kEmulatedReason + ")";
  return info;
}

Expected<Artifact> build_emulated(const KernelSpec& spec, const std::string& arch, const std::string& source) {
  return build_emulated_module(spec, arch, source,
                               {"cuda", EmulatedDialect::cuda, kWarpSize, launch_plan_for_source(spec, source)});
}

Expected<Artifact> build_emulated_module(const KernelSpec& spec, const std::string& arch, const std::string& source,
                                         const EmulatedKind& kind) {
  const ToolchainInfo tc = emulator_clang();
  if (!tc.found) return unavailable("emulator unavailable: " + tc.why_unavailable);
  Expected<ScratchDir> dir = ScratchDir::create("tesserac-emu");
  if (!dir) return dir.take_error();
  const std::string prelude_path = dir->path() + "/tsr_emulation_prelude.h";
  // Memcheck reports name this file (the kernel's name; the emitted lines are its first lines).
  const std::string suffix = kind.dialect == EmulatedDialect::hip ? ".hip" : ".cu";
  const std::string src_path = dir->path() + "/" + spec.name + suffix, so_path = dir->path() + "/kernel.so";
  if (Status s = write_file(prelude_path, emulation_prelude(kind.dialect)); !s.ok()) return s.take_error();
  if (Status s = write_file(src_path, source + emulation_entry(spec)); !s.ok()) return s.take_error();
  std::vector<std::string> argv = {
      tc.path, "-x", "c++", "-std=c++17", "-O1", "-fPIC", "-shared", "-fno-exceptions", "-fno-rtti", "-g0",
      "-DTSR_EMULATED", std::string("-DTSR_EMU_MMA_BF16=") + (spec.dtype == DType::bf16 ? "1" : "0"), "-include",
      prelude_path, src_path, "-o", so_path, "-lm"};
  const std::vector<std::string> checks = emulation_check_flags();
  argv.insert(argv.begin() + 1, checks.begin(), checks.end());
  log_command(argv);
  const ProcessResult r = run_process(argv);
  if (!r.error.empty()) return toolchain_error(r.error);
  if (r.exit_code != 0)
    return toolchain_error("emulator: clang failed to build kernel '" + spec.name + "' as host C++ (exit " +
                           std::to_string(r.exit_code) + "):\n" + r.output);
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(so_path);
  if (!bytes) return toolchain_error("emulator: clang produced no output for kernel '" + spec.name + "'");

  Artifact art;
  art.target = {kind.kind, arch};
  art.kind = kArtifactKind;
  art.entry = spec.name;
  art.toolchain = "clang " + tc.version + " (emulated)";
  art.bytes = std::move(*bytes);
  art.key = sha256_hex("tesserac-" + kind.kind + "-emulated-v1\n" + art.target.str() + "\n" + art.toolchain + "\n" +
                       sha256_hex(source));
  kind.plan.write_metadata(art.metadata, kind.kind);
  art.metadata[kWaveSizeKey] = std::to_string(kind.wave_size);
  return art;
}

Status emulate_launch(const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args,
                      const EmulatorOptions& options) {
  if (artifact.kind != kArtifactKind)
    return invalid_input("emulator: artifact kind '" + artifact.kind + "' is not " + kArtifactKind);
  const KernelAbi abi = kernel_abi(spec);
  const std::vector<std::string> names = abi.scalar_names();
  const std::vector<const Binding*> buffers = abi.buffers();
  if (names.size() != args.scalars.size() || buffers.size() != args.buffers.size())
    return invalid_input("emulator: kernel '" + spec.name + "' takes " + std::to_string(buffers.size()) +
                         " buffers and " + std::to_string(names.size()) + " scalars");
  std::map<std::string, int64_t> scalars;
  for (size_t i = 0; i < names.size(); ++i) scalars[names[i]] = args.scalars[i];
  // An empty problem (every output empty) launches nothing, before any geometry is read: the stub's rule.
  bool empty = true;
  for (size_t i = 0; i < buffers.size(); ++i) empty &= buffers[i]->role != Role::output || args.payload_size(i) == 0;
  if (empty) return ok();
  const std::string prefix = artifact.target.kind + ".";
  const auto grid = gpu::evaluate_geometry(metadata(artifact, prefix + "grid"), gpu::GeometryKind::grid, scalars);
  const auto block = gpu::evaluate_geometry(metadata(artifact, prefix + "block"), gpu::GeometryKind::block, scalars);
  if (!grid || !block)
    return invalid_input("emulator: launch geometry of '" + spec.name + "': " +
                         (grid ? block.error() : grid.error()).message());
  const std::optional<uint64_t> dynamic_shared = parse_decimal_u64(metadata(artifact, prefix + "shared_bytes"));
  if (!dynamic_shared || *dynamic_shared > kMaxDynamicSharedBytes)
    return invalid_input("emulator: " + prefix + "shared_bytes of '" + spec.name + "' is '" +
                         metadata(artifact, prefix + "shared_bytes") + "' (expected 0.." +
                         std::to_string(kMaxDynamicSharedBytes) + " bytes)");
  // Absent on modules built before wave sizes were recorded: the CUDA warp.
  const std::string wave_text = metadata(artifact, kWaveSizeKey);
  const int wave = wave_text == "64" ? 64 : 32;
  if (!wave_text.empty() && wave_text != "64" && wave_text != "32")
    return invalid_input("emulator: " + std::string(kWaveSizeKey) + " of '" + spec.name + "' is '" + wave_text +
                         "' (expected 32 or 64)");
  Expected<double> timeout = launch_timeout_s(options);
  if (!timeout) return timeout.take_error();

  std::vector<GlobalBuffer> globals;
  std::vector<void*> params;
  for (size_t i = 0; i < buffers.size(); ++i) {
    globals.push_back({args.payload(i), args.payload_size(i), buffers[i]->name, buffers[i]->role == Role::input});
    params.push_back(args.payload(i));
  }
  for (int64_t& s : args.scalars) params.push_back(&s);

  LoadedModule loaded;
  if (Status s = loaded.load(artifact, spec.dtype == DType::bf16); !s.ok()) return s;
  const LaunchShape shape{*grid, *block, static_cast<uint32_t>(*dynamic_shared), wave};
  const std::string report = run_grid_both_landings(loaded.module(), shape, params.data(), globals, {*timeout});
  if (!report.empty()) return invalid_input("emulator: " + report);
  return ok();
}

std::unique_ptr<Target> make_emulated_cuda_target() {
  return std::make_unique<EmulatedCudaTarget>();
}

}  // namespace tsr::cuda::emu
