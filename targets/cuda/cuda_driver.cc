// CUDA driver API loader (CUDA Driver API reference: cuInit, device
// management, primary contexts). Versioned entry points (_v2) are what cuda.h
// maps the plain names to; the plain names are the fallback for old drivers.
#include "targets/cuda/cuda_driver.h"

#include <dlfcn.h>

namespace tsr::cuda {

namespace {

template <typename F>
bool bind(void* lib, F& fn, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    fn = reinterpret_cast<F>(dlsym(lib, n));
    if (fn) return true;
  }
  return false;
}

CudaDriver load_driver() {
  CudaDriver d;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    d.why_unavailable = "no CUDA driver (libcuda.so.1 not found)";
    return d;
  }
  CudaDriverApi& a = d.api;
  const bool ok =
      bind(lib, a.cuInit, {"cuInit"}) && bind(lib, a.cuDriverGetVersion, {"cuDriverGetVersion"}) &&
      bind(lib, a.cuDeviceGetCount, {"cuDeviceGetCount"}) && bind(lib, a.cuDeviceGet, {"cuDeviceGet"}) &&
      bind(lib, a.cuDeviceGetName, {"cuDeviceGetName"}) &&
      bind(lib, a.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}) &&
      bind(lib, a.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}) &&
      bind(lib, a.cuCtxPushCurrent, {"cuCtxPushCurrent_v2", "cuCtxPushCurrent"}) &&
      bind(lib, a.cuCtxPopCurrent, {"cuCtxPopCurrent_v2", "cuCtxPopCurrent"}) &&
      bind(lib, a.cuCtxSynchronize, {"cuCtxSynchronize"}) &&
      bind(lib, a.cuModuleLoadData, {"cuModuleLoadData"}) && bind(lib, a.cuModuleUnload, {"cuModuleUnload"}) &&
      bind(lib, a.cuModuleGetFunction, {"cuModuleGetFunction"}) &&
      bind(lib, a.cuFuncSetAttribute, {"cuFuncSetAttribute"}) &&
      bind(lib, a.cuMemAlloc, {"cuMemAlloc_v2"}) && bind(lib, a.cuMemFree, {"cuMemFree_v2"}) &&
      bind(lib, a.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}) && bind(lib, a.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}) &&
      bind(lib, a.cuMemcpyDtoD, {"cuMemcpyDtoD_v2"}) && bind(lib, a.cuLaunchKernel, {"cuLaunchKernel"}) &&
      bind(lib, a.cuEventCreate, {"cuEventCreate"}) && bind(lib, a.cuEventRecord, {"cuEventRecord"}) &&
      bind(lib, a.cuEventSynchronize, {"cuEventSynchronize"}) &&
      bind(lib, a.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}) &&
      bind(lib, a.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}) &&
      bind(lib, a.cuGetErrorName, {"cuGetErrorName"});
  if (!ok) {
    d.why_unavailable = "CUDA driver libcuda.so.1 lacks required entry points (driver too old)";
    return d;
  }
  const CUresult rc = a.cuInit(0);
  if (rc != 0) {
    d.why_unavailable = "CUDA driver present but cuInit failed: " + d.error_text(rc);
    return d;
  }
  a.cuDriverGetVersion(&d.driver_version);
  int count = 0;
  if (a.cuDeviceGetCount(&count) != 0 || count == 0) {
    d.why_unavailable = "no CUDA device";
    return d;
  }
  for (int i = 0; i < count; ++i) {
    CudaDeviceDesc desc;
    if (a.cuDeviceGet(&desc.handle, i) != 0) continue;
    char name[256] = {};
    a.cuDeviceGetName(name, sizeof name - 1, desc.handle);
    desc.name = name;
    int major = 0, minor = 0;
    a.cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor, desc.handle);
    a.cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, desc.handle);
    desc.compute_capability = major * 10 + minor;
    d.devices.push_back(desc);
  }
  d.loaded = true;
  return d;
}

}  // namespace

std::string CudaDriver::error_text(CUresult rc) const {
  const char* name = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(rc, &name);
  return std::string(name ? name : "CUDA_ERROR") + " (" + std::to_string(rc) + ")";
}

const CudaDriver& cuda_driver() {
  static const CudaDriver driver = load_driver();
  return driver;
}

}  // namespace tsr::cuda
