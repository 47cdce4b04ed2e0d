// CUDA toolkit discovery (NVRTC and nvJitLink API references, CUDA 13). Only the
// C entry points used here are declared; their signatures are stable across
// CUDA 12 and 13, and nvJitLink exports unversioned aliases.
#include "cuda/cuda_toolkit.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>

namespace tsr::cuda {

namespace {

using NvrtcProgram = void*;
using NvJitLinkHandle = void*;
constexpr int kNvJitLinkInputPtx = 2;   // NVJITLINK_INPUT_PTX

struct NvrtcApi {
  int (*version)(int*, int*) = nullptr;
  int (*create)(NvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*compile)(NvrtcProgram, int, const char* const*) = nullptr;
  int (*ptx_size)(NvrtcProgram, size_t*) = nullptr;
  int (*ptx)(NvrtcProgram, char*) = nullptr;
  int (*log_size)(NvrtcProgram, size_t*) = nullptr;
  int (*log)(NvrtcProgram, char*) = nullptr;
  int (*destroy)(NvrtcProgram*) = nullptr;
  const char* (*error_string)(int) = nullptr;
};

struct NvJitLinkApi {
  int (*version)(unsigned*, unsigned*) = nullptr;
  int (*create)(NvJitLinkHandle*, uint32_t, const char**) = nullptr;
  int (*add_data)(NvJitLinkHandle, int, const void*, size_t, const char*) = nullptr;
  int (*complete)(NvJitLinkHandle) = nullptr;
  int (*cubin_size)(NvJitLinkHandle, size_t*) = nullptr;
  int (*cubin)(NvJitLinkHandle, void*) = nullptr;
  int (*error_log_size)(NvJitLinkHandle, size_t*) = nullptr;
  int (*error_log)(NvJitLinkHandle, char*) = nullptr;
  int (*destroy)(NvJitLinkHandle*) = nullptr;
};

template <typename F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

// Tries <root>/lib64 and <root>/lib, then (only for the default root) the bare
// names through the loader's search path.
void* open_library(const std::string& root, bool allow_bare, const std::vector<std::string>& names,
                   std::string& loaded_file) {
  std::vector<std::string> candidates;
  for (const char* dir : {"/lib64/", "/lib/"})
    for (const std::string& n : names) candidates.push_back(root + dir + n);
  if (allow_bare)
    for (const std::string& n : names) candidates.push_back(n);
  for (const std::string& c : candidates) {
    void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    loaded_file = c;
    struct link_map* map = nullptr;
    if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
      char real[PATH_MAX];
      loaded_file = realpath(map->l_name, real) ? real : map->l_name;
    }
    return lib;
  }
  return nullptr;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class LoadedToolkit final : public CudaToolkit {
 public:
  explicit LoadedToolkit(std::string root, bool allow_bare) : root_(std::move(root)) {
    std::string nvrtc_file, jitlink_file;
    void* nvrtc = open_library(root_, allow_bare, {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}, nvrtc_file);
    void* jitlink =
        open_library(root_, allow_bare, {"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"}, jitlink_file);
    if (!nvrtc || !jitlink) {
      why_ = "CUDA toolkit not found at " + root_ + " (set TESSERAC_CUDA_ROOT)";
      if (nvrtc || jitlink) why_ += std::string(": ") + (nvrtc ? "libnvJitLink" : "libnvrtc") + " is missing";
      return;
    }
    bool ok = bind(nvrtc, "nvrtcVersion", nv_.version) && bind(nvrtc, "nvrtcCreateProgram", nv_.create) &&
              bind(nvrtc, "nvrtcCompileProgram", nv_.compile) && bind(nvrtc, "nvrtcGetPTXSize", nv_.ptx_size) &&
              bind(nvrtc, "nvrtcGetPTX", nv_.ptx) && bind(nvrtc, "nvrtcGetProgramLogSize", nv_.log_size) &&
              bind(nvrtc, "nvrtcGetProgramLog", nv_.log) && bind(nvrtc, "nvrtcDestroyProgram", nv_.destroy) &&
              bind(nvrtc, "nvrtcGetErrorString", nv_.error_string);
    ok = ok && bind(jitlink, "nvJitLinkVersion", jl_.version) && bind(jitlink, "nvJitLinkCreate", jl_.create) &&
         bind(jitlink, "nvJitLinkAddData", jl_.add_data) && bind(jitlink, "nvJitLinkComplete", jl_.complete) &&
         bind(jitlink, "nvJitLinkGetLinkedCubinSize", jl_.cubin_size) &&
         bind(jitlink, "nvJitLinkGetLinkedCubin", jl_.cubin) &&
         bind(jitlink, "nvJitLinkGetErrorLogSize", jl_.error_log_size) &&
         bind(jitlink, "nvJitLinkGetErrorLog", jl_.error_log) && bind(jitlink, "nvJitLinkDestroy", jl_.destroy);
    if (!ok) {
      why_ = "CUDA toolkit at " + root_ + " lacks NVRTC/nvJitLink entry points (" + base_name(nvrtc_file) + ", " +
             base_name(jitlink_file) + ")";
      return;
    }
    int major = 0, minor = 0;
    unsigned jmajor = 0, jminor = 0;
    nv_.version(&major, &minor);
    jl_.version(&jmajor, &jminor);
    nvrtc_version_ = std::to_string(major) + "." + std::to_string(minor) + " (" + base_name(nvrtc_file) + ")";
    jitlink_version_ = std::to_string(jmajor) + "." + std::to_string(jminor) + " (" + base_name(jitlink_file) + ")";
    found_ = true;
  }

  ToolchainInfo info() const override {
    ToolchainInfo t;
    t.found = found_;
    t.path = root_;
    if (found_) t.version = "nvrtc " + nvrtc_version_ + "; nvJitLink " + jitlink_version_;
    t.why_unavailable = why_;
    return t;
  }
  std::string nvrtc_version() const override { return nvrtc_version_; }
  std::string nvjitlink_version() const override { return jitlink_version_; }

  Expected<std::string> compile_ptx(const std::string& source, const std::string& program_name,
                                    int cc) const override {
    if (!found_) return unavailable("target unavailable: " + why_);
    NvrtcProgram prog = nullptr;
    int rc = nv_.create(&prog, source.c_str(), program_name.c_str(), 0, nullptr, nullptr);
    if (rc != 0) return toolchain_error(std::string("nvrtcCreateProgram failed: ") + nv_.error_string(rc));
    const std::string arch = "--gpu-architecture=compute_" + std::to_string(cc);
    // IEEE division and square root are the defaults; stated so the PTX never
    // depends on NVRTC's defaults changing.
    const char* options[] = {arch.c_str(), "--std=c++17", "--prec-div=true", "--prec-sqrt=true", "--ftz=false"};
    rc = nv_.compile(prog, static_cast<int>(sizeof options / sizeof options[0]), options);
    size_t log_size = 0;
    std::string log;
    if (nv_.log_size(prog, &log_size) == 0 && log_size > 1) {
      log.resize(log_size);
      nv_.log(prog, log.data());
      log.resize(log_size - 1);
    }
    if (rc != 0) {
      nv_.destroy(&prog);
      return toolchain_error(std::string("nvrtc: ") + nv_.error_string(rc) + " (" + arch + ")\n" + log);
    }
    size_t ptx_size = 0;
    nv_.ptx_size(prog, &ptx_size);
    std::string ptx(ptx_size, '\0');
    nv_.ptx(prog, ptx.data());
    nv_.destroy(&prog);
    while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
    return ptx;
  }

  Expected<std::vector<uint8_t>> assemble_cubin(const std::string& ptx, int sm) const override {
    if (!found_) return unavailable("target unavailable: " + why_);
    const std::string arch = "-arch=sm_" + std::to_string(sm);
    const char* options[] = {arch.c_str(), "-O3"};
    NvJitLinkHandle h = nullptr;
    int rc = jl_.create(&h, 2, options);
    if (rc != 0) return toolchain_error("nvJitLinkCreate failed (code " + std::to_string(rc) + ", " + arch + ")");
    rc = jl_.add_data(h, kNvJitLinkInputPtx, ptx.data(), ptx.size(), "kernel.ptx");
    if (rc == 0) rc = jl_.complete(h);
    if (rc != 0) {
      std::string log;
      size_t n = 0;
      if (jl_.error_log_size(h, &n) == 0 && n > 1) {
        log.resize(n);
        jl_.error_log(h, log.data());
        log.resize(n - 1);
      }
      jl_.destroy(&h);
      return toolchain_error("nvJitLink (ptxas) failed with code " + std::to_string(rc) + " for " + arch + "\n" + log);
    }
    size_t size = 0;
    jl_.cubin_size(h, &size);
    std::vector<uint8_t> cubin(size);
    jl_.cubin(h, cubin.data());
    jl_.destroy(&h);
    return cubin;
  }

 private:
  std::string root_;
  bool found_ = false;
  std::string why_;
  std::string nvrtc_version_, jitlink_version_;
  NvrtcApi nv_;
  NvJitLinkApi jl_;
};

}  // namespace

std::string cuda_root() {
  const char* env = std::getenv("TESSERAC_CUDA_ROOT");
  if (env && *env) return env;
#ifdef TESSERAC_CUDA_ROOT
  return TESSERAC_CUDA_ROOT;
#else
  return "/usr/local/cuda";
#endif
}

const CudaToolkit& cuda_toolkit() {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<LoadedToolkit>> loaded;
  const std::string root = cuda_root();
  const char* env = std::getenv("TESSERAC_CUDA_ROOT");
  const bool explicit_root = env && *env;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = loaded[root + (explicit_root ? "|env" : "")];
  if (!slot) slot = std::make_unique<LoadedToolkit>(root, !explicit_root);
  return *slot;
}

}  // namespace tsr::cuda
