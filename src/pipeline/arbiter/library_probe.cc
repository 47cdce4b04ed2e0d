#include "arbiter/library_probe.h"

#include <dlfcn.h>

#include <cstdlib>

namespace tsr {

namespace {

// The version string a library reports about itself, through its own
// version call (looked up by name: the compiler links none of them).
std::string version_of(void* handle, const std::string& library) {
  if (library == "openblas") {
    using Config = const char* (*)();
    auto config = reinterpret_cast<Config>(dlsym(handle, "openblas_get_config"));
    auto core = reinterpret_cast<Config>(dlsym(handle, "openblas_get_corename"));
    std::string v = config ? config() : "OpenBLAS (no openblas_get_config)";
    if (core) v += " (core " + std::string(core()) + ")";
    return v;
  }
  if (library == "onednn") {
    struct Version { int major, minor, patch; const char* hash; unsigned cpu_runtime, gpu_runtime; };
    using Get = const Version* (*)();
    auto get = reinterpret_cast<Get>(dlsym(handle, "dnnl_version"));
    if (!get) return "oneDNN (no dnnl_version)";
    const Version* v = get();
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
           " (" + (v->hash ? v->hash : "") + ")";
  }
  if (library == "cublasLt") {
    using Get = size_t (*)();
    auto get = reinterpret_cast<Get>(dlsym(handle, "cublasLtGetVersion"));
    return get ? "cuBLASLt " + std::to_string(get()) : "cuBLASLt (no cublasLtGetVersion)";
  }
  if (library == "cublas") {
    using Get = int (*)(int, int*);
    auto get = reinterpret_cast<Get>(dlsym(handle, "cublasGetProperty"));
    int major = 0, minor = 0, patch = 0;
    if (!get || get(0, &major) != 0 || get(1, &minor) != 0 || get(2, &patch) != 0) return "cuBLAS (version unknown)";
    return "cuBLAS " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  }
  return library;
}

}  // namespace

LibraryProbe probe_library(const std::string& library, const std::vector<std::string>& sonames,
                           const std::string& symbol) {
  LibraryProbe probe;
  const char* dir = std::getenv("TSR_DELEGATE_DIR");
  std::string tried;
  for (const std::string& soname : sonames) {
    const std::string path = dir ? std::string(dir) + "/" + soname : soname;
    tried += (tried.empty() ? "" : ", ") + path;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) continue;
    if (!dlsym(handle, symbol.c_str())) {
      probe.why_not = path + " does not export '" + symbol + "'";
      dlclose(handle);
      continue;
    }
    probe.found = true;
    probe.soname = path;
    probe.version = version_of(handle, library);
    // Kept open: the stub's own dlopen of the same library is then free,
    // and some libraries (OpenBLAS's thread pool) do not unload cleanly.
    return probe;
  }
  if (probe.why_not.empty()) probe.why_not = "cannot open " + library + " (tried " + tried + ")";
  return probe;
}

}  // namespace tsr
