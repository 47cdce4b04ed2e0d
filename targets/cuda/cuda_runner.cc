// Runner for the cuda target (CUDA Driver API reference: cuModuleLoadData
// accepts a cubin or NUL-terminated PTX, which the driver JIT-compiles;
// cuLaunchKernel takes one pointer per kernel parameter; events time launches).
#include "targets/cuda/cuda_runner.h"

#include <algorithm>
#include <map>

#include "spec/abi.h"
#include "targets/cuda/cuda_archs.h"
#include "targets/cuda/cuda_launch_geometry.h"

namespace tsr::cuda {

const CudaDeviceDesc* pick_device(const CudaDriver& driver, const std::string& arch) {
  const std::optional<int> sm = sm_number(arch);
  for (const CudaDeviceDesc& d : driver.devices) {
    if (sm && d.compute_capability == *sm) return &d;
    if (!sm && arch == "ptx" && d.compute_capability >= kPtxComputeCapability) return &d;
  }
  return nullptr;
}

DeviceInfo cuda_device_info(const std::string& arch) {
  const CudaDriver& driver = cuda_driver();
  if (!driver.loaded) return {false, driver.why_unavailable};
  const CudaDeviceDesc* d = pick_device(driver, arch);
  if (!d) {
    std::string present;
    for (const CudaDeviceDesc& x : driver.devices)
      present += (present.empty() ? "" : ", ") + x.name + " (sm_" + std::to_string(x.compute_capability) + ")";
    return {false, "no CUDA device for " + arch + " (present: " + present + ")"};
  }
  return {true, d->name + " (sm_" + std::to_string(d->compute_capability) + ", driver " +
                    std::to_string(driver.driver_version / 1000) + "." +
                    std::to_string(driver.driver_version % 1000 / 10) + ")"};
}

namespace {

// One launch environment: context pushed, module loaded, buffers on the device.
// Everything acquired is released by the destructor, on every error path too.
class Session {
 public:
  explicit Session(const CudaDriver& d) : d_(d), a_(d.api) {}
  ~Session() {
    for (CUdeviceptr p : buffers_) a_.cuMemFree(p);
    if (module_) a_.cuModuleUnload(module_);
    if (pushed_) {
      CUcontext popped = nullptr;
      a_.cuCtxPopCurrent(&popped);
    }
  }

  Status check(CUresult rc, const std::string& what) const {
    if (rc == 0) return ok();
    return toolchain_error("cuda runner: " + what + " failed: " + d_.error_text(rc));
  }

  Status open(const KernelSpec& spec, const Artifact& artifact, const LaunchArgs& args) {
    const CudaDeviceDesc* dev = pick_device(d_, artifact.target.arch);
    if (!dev) return toolchain_error("target unavailable: " + cuda_device_info(artifact.target.arch).description);
    CUcontext ctx = nullptr;
    if (Status s = check(a_.cuDevicePrimaryCtxRetain(&ctx, dev->handle), "cuDevicePrimaryCtxRetain"); !s) return s;
    if (Status s = check(a_.cuCtxPushCurrent(ctx), "cuCtxPushCurrent"); !s) return s;
    pushed_ = true;
    std::vector<uint8_t> image = artifact.bytes;
    if (artifact.kind == "ptx") image.push_back(0);
    if (Status s = check(a_.cuModuleLoadData(&module_, image.data()), "loading the " + artifact.kind); !s) return s;
    if (Status s = check(a_.cuModuleGetFunction(&function_, module_, artifact.entry.c_str()),
                         "cuModuleGetFunction(" + artifact.entry + ")");
        !s)
      return s;

    const KernelAbi abi = kernel_abi(spec);
    const std::vector<std::string> names = abi.scalar_names();
    if (names.size() != args.scalars.size())
      return invalid_input("cuda runner: kernel '" + spec.name + "' takes " + std::to_string(names.size()) +
                           " runtime scalars, got " + std::to_string(args.scalars.size()));
    for (size_t i = 0; i < names.size(); ++i) scalars_[names[i]] = args.scalars[i];
    const std::vector<const Binding*> buffers = abi.buffers();
    if (buffers.size() != args.buffers.size())
      return invalid_input("cuda runner: kernel '" + spec.name + "' takes " + std::to_string(buffers.size()) +
                           " buffers, got " + std::to_string(args.buffers.size()));
    for (size_t i = 0; i < buffers.size(); ++i) {
      const std::optional<int64_t> count = abi.element_count(*buffers[i], scalars_);
      if (!count || static_cast<uint64_t>(*count) * dtype_size(buffers[i]->dtype) != args.buffers[i].size())
        return invalid_input("cuda runner: buffer '" + buffers[i]->name + "' has " +
                             std::to_string(args.buffers[i].size()) + " bytes, the ABI needs " +
                             (count ? std::to_string(*count * dtype_size(buffers[i]->dtype)) : "an invalid size"));
      CUdeviceptr p = 0;
      // Zero-byte buffers still get a valid, aligned pointer.
      const size_t bytes = std::max<size_t>(args.buffers[i].size(), 256);
      if (Status s = check(a_.cuMemAlloc(&p, bytes), "cuMemAlloc"); !s) return s;
      buffers_.push_back(p);
      if (!args.buffers[i].empty())
        if (Status s = check(a_.cuMemcpyHtoD(p, args.buffers[i].data(), args.buffers[i].size()), "cuMemcpyHtoD"); !s)
          return s;
    }
    scalar_values_ = args.scalars;

    const auto grid = evaluate_geometry(artifact.metadata.count("cuda.grid") ? artifact.metadata.at("cuda.grid") : "",
                                        scalars_);
    const auto block = evaluate_geometry(
        artifact.metadata.count("cuda.block") ? artifact.metadata.at("cuda.block") : "", scalars_);
    if (!grid || !block)
      return invalid_input("cuda runner: launch geometry of '" + spec.name + "' does not evaluate for these sizes");
    grid_ = *grid;
    block_ = *block;
    auto shared = artifact.metadata.find("cuda.shared_bytes");
    shared_bytes_ = shared == artifact.metadata.end() ? 0 : static_cast<unsigned>(std::stoul(shared->second));
    if (shared_bytes_ > 48 * 1024)
      if (Status s = check(a_.cuFuncSetAttribute(function_, kFuncAttrMaxDynamicSharedBytes,
                                                 static_cast<int>(shared_bytes_)),
                           "cuFuncSetAttribute(max dynamic shared memory)");
          !s)
        return s;
    return ok();
  }

  Status launch() {
    // A zero grid dimension means an empty problem: nothing to launch.
    if (grid_[0] == 0 || grid_[1] == 0 || grid_[2] == 0) return ok();
    std::vector<void*> params;
    for (CUdeviceptr& p : buffers_) params.push_back(&p);
    for (int64_t& s : scalar_values_) params.push_back(&s);
    return check(a_.cuLaunchKernel(function_, grid_[0], grid_[1], grid_[2], block_[0], block_[1], block_[2],
                                   shared_bytes_, nullptr, params.data(), nullptr),
                 "cuLaunchKernel");
  }

  Status copy_back(LaunchArgs& args, const KernelSpec& spec) {
    const std::vector<const Binding*> buffers = kernel_abi(spec).buffers();
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i]->role == Role::output && !args.buffers[i].empty())
        if (Status s = check(a_.cuMemcpyDtoH(args.buffers[i].data(), buffers_[i], args.buffers[i].size()),
                             "cuMemcpyDtoH");
            !s)
          return s;
    return ok();
  }

  const CudaDriverApi& api() const { return a_; }

 private:
  const CudaDriver& d_;
  const CudaDriverApi& a_;
  bool pushed_ = false;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  std::vector<CUdeviceptr> buffers_;
  std::map<std::string, int64_t> scalars_;
  std::vector<int64_t> scalar_values_;
  std::array<uint32_t, 3> grid_{}, block_{};
  unsigned shared_bytes_ = 0;
};

}  // namespace

Status run_cuda_artifact(const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args) {
  const CudaDriver& driver = cuda_driver();
  if (!driver.loaded) return toolchain_error("target unavailable: " + driver.why_unavailable);
  Session session(driver);
  if (Status s = session.open(spec, artifact, args); !s) return s;
  if (Status s = session.launch(); !s) return s;
  if (Status s = session.check(driver.api.cuCtxSynchronize(), "kernel execution"); !s) return s;
  return session.copy_back(args, spec);
}

Expected<double> time_cuda_artifact(const KernelSpec& spec, const Artifact& artifact, const LaunchArgs& args,
                                    int warmup, int reps) {
  const CudaDriver& driver = cuda_driver();
  if (!driver.loaded) return toolchain_error("target unavailable: " + driver.why_unavailable);
  Session session(driver);
  if (Status s = session.open(spec, artifact, args); !s) return s.take_error();
  const CudaDriverApi& a = driver.api;
  for (int i = 0; i < warmup; ++i)
    if (Status s = session.launch(); !s) return s.take_error();
  CUevent start = nullptr, stop = nullptr;
  if (Status s = session.check(a.cuEventCreate(&start, 0), "cuEventCreate"); !s) return s.take_error();
  if (Status s = session.check(a.cuEventCreate(&stop, 0), "cuEventCreate"); !s) {
    a.cuEventDestroy(start);
    return s.take_error();
  }
  std::vector<double> times;
  Status status = ok();
  for (int i = 0; i < reps && status; ++i) {
    float ms = 0;
    a.cuEventRecord(start, nullptr);
    status = session.launch();
    a.cuEventRecord(stop, nullptr);
    if (status) status = session.check(a.cuEventSynchronize(stop), "kernel execution");
    if (status) status = session.check(a.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    times.push_back(ms);
  }
  a.cuEventDestroy(start);
  a.cuEventDestroy(stop);
  if (!status) return status.take_error();
  if (times.empty()) return 0.0;
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace tsr::cuda
