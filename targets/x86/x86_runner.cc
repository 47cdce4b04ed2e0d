// Runner for x86 shared objects: the ELF image is written to an anonymous
// memfd and loaded with dlopen("/proc/self/fd/N") (memfd_create(2), dlopen(3)),
// so nothing touches the file system; the entry follows the System V AMD64 psABI.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include "support/sha256.h"
#include "targets/x86/x86_internal.h"

namespace tsr::x86 {

namespace {

// Beyond this many loaded kernels one is evicted per load (a long-running
// build loads one per candidate; keep the address space bounded).
constexpr size_t kMaxLoaded = 128;

// Returns the dlopen handle; *fd_out stays open for as long as the handle.
Expected<void*> load_from_memory(const Artifact& artifact, int* fd_out) {
  const int fd = memfd_create(("tesserac-" + artifact.entry).c_str(), MFD_CLOEXEC);
  if (fd < 0) return toolchain_error("memfd_create failed for '" + artifact.entry + "'");
  size_t done = 0;
  while (done < artifact.bytes.size()) {
    const ssize_t n = write(fd, artifact.bytes.data() + done, artifact.bytes.size() - done);
    if (n <= 0) {
      close(fd);
      return toolchain_error("cannot write shared object for '" + artifact.entry + "' to memfd");
    }
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    close(fd);
    const char* why = dlerror();
    return toolchain_error("cannot load shared object for '" + artifact.entry + "': " + (why ? why : "dlopen failed"));
  }
  *fd_out = fd;
  return handle;
}

}  // namespace

LoadedKernels::Loaded::~Loaded() {
  dlclose(handle);
  close(fd);
}

Expected<std::shared_ptr<const LoadedKernels::Loaded>> LoadedKernels::load(const Artifact& artifact) {
  const std::string key = sha256_hex(artifact.bytes.data(), artifact.bytes.size()) + ":" + artifact.entry;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = loaded_.find(key);
  if (it != loaded_.end()) return it->second;
  int fd = -1;
  Expected<void*> handle = load_from_memory(artifact, &fd);
  if (!handle) return handle.take_error();
  void* symbol = dlsym(*handle, artifact.entry.c_str());
  auto loaded = std::make_shared<const Loaded>(*handle, fd, reinterpret_cast<Entry>(symbol));
  if (!symbol) return toolchain_error("shared object has no entry symbol '" + artifact.entry + "'");
  if (loaded_.size() >= kMaxLoaded) loaded_.erase(loaded_.begin());
  loaded_.emplace(key, loaded);
  return std::shared_ptr<const Loaded>(loaded);
}

Status run_artifact(LoadedKernels& kernels, const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args) {
  if (artifact.kind != "shared_object" || artifact.target.kind != "x86")
    return invalid_input("artifact for kernel '" + spec.name + "' is a " + artifact.target.str() + " " +
                         artifact.kind + ", not an x86 shared_object");
  const std::optional<Tier> tier = tier_for_arch(artifact.target.arch);
  if (!tier) return invalid_input("unknown x86 arch '" + artifact.target.arch + "'");
  const DeviceInfo dev = cpu_device(*tier);
  if (!dev.present) return toolchain_error("device unavailable: " + dev.description);

  const KernelAbi abi = kernel_abi(spec);
  const std::vector<std::string> scalar_names = abi.scalar_names();
  const std::vector<const Binding*> buffers = abi.buffers();
  if (args.scalars.size() != scalar_names.size())
    return invalid_input("kernel '" + spec.name + "' takes " + std::to_string(scalar_names.size()) +
                         " runtime scalars, got " + std::to_string(args.scalars.size()));
  if (args.buffers.size() != buffers.size())
    return invalid_input("kernel '" + spec.name + "' takes " + std::to_string(buffers.size()) + " buffers, got " +
                         std::to_string(args.buffers.size()));
  std::map<std::string, int64_t> values;
  for (size_t i = 0; i < scalar_names.size(); ++i) {
    if (args.scalars[i] < 0)
      return invalid_input("runtime scalar '" + scalar_names[i] + "' of kernel '" + spec.name + "' is negative (" +
                           std::to_string(args.scalars[i]) + ")");
    values[scalar_names[i]] = args.scalars[i];
  }
  std::vector<void*> pointers;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const std::optional<int64_t> count = abi.element_count(*buffers[i], values);
    if (!count || *count > INT64_MAX / dtype_size(buffers[i]->dtype))
      return invalid_input("buffer '" + buffers[i]->name + "' of kernel '" + spec.name + "' has an overflowing size");
    const uint64_t expected = static_cast<uint64_t>(*count) * static_cast<uint64_t>(dtype_size(buffers[i]->dtype));
    if (args.buffers[i].size() != expected)
      return invalid_input("buffer '" + buffers[i]->name + "' of kernel '" + spec.name + "' has " +
                           std::to_string(args.buffers[i].size()) + " bytes, expected " + std::to_string(expected));
    pointers.push_back(args.buffers[i].data());
  }
  Expected<std::shared_ptr<const LoadedKernels::Loaded>> loaded = kernels.load(artifact);
  if (!loaded) return loaded.take_error();
  (*loaded)->entry(pointers.data(), args.scalars.data());
  return ok();
}

}  // namespace tsr::x86
