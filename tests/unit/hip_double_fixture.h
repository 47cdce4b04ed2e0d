// The HIP runtime TEST DOUBLE (tests/support/hip_runtime_double) as the
// StubHipDouble tests drive it: the stub is pointed at the double for the
// test's lifetime (tsr_hip_use_runtime_for_tests) and back at libamdhip64
// after, and the archives hold "images" the double understands.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "archive_test_support.h"
#include "hip_runtime_double/hip_runtime_double.h"
#include "opened_archive.h"
#include "tesserart.h"

extern "C" {
#include "../../runtime-stub/src/tsr_hip.h"   // tsr_hip_use_runtime_for_tests, tsr_hip_status
}

namespace tsr::testing {

class HipRuntimeDouble {
 public:
  HipRuntimeDouble() : handle_(dlopen(TSR_HIP_RUNTIME_DOUBLE, RTLD_NOW | RTLD_LOCAL)) {
    if (!handle_) return;
    bind(reset_, "hipdouble_reset");
    bind(set_devices_, "hipdouble_set_devices");
    bind(fail_, "hipdouble_fail");
    bind(load_delay_, "hipdouble_set_load_delay");
    bind(call_at_, "hipdouble_call_at");
    restart();
  }
  ~HipRuntimeDouble() {
    tsr_hip_use_runtime_for_tests(nullptr);
    if (!handle_) return;
    reset_();
    dlclose(handle_);
  }
  HipRuntimeDouble(const HipRuntimeDouble&) = delete;
  HipRuntimeDouble& operator=(const HipRuntimeDouble&) = delete;

  // Both sides fresh: the double forgets everything, the stub loads it again on next use.
  void restart() const {
    reset_();
    tsr_hip_use_runtime_for_tests(TSR_HIP_RUNTIME_DOUBLE);
  }
  bool ok() const { return handle_ && reset_ && set_devices_ && fail_ && load_delay_ && call_at_; }
  // gcnArchName of each device, before the stub's first look.
  void devices(const std::vector<std::string>& arch) const {
    std::vector<const char*> names;
    for (const std::string& a : arch) names.push_back(a.c_str());
    set_devices_(static_cast<int>(names.size()), names.data());
  }
  // Calls of `function` return `result`: the first `skip` succeed, then `times` fail (< 0: all).
  void fail(const std::string& function, int result, int skip = 0, int times = -1) const {
    fail_(function.c_str(), result, skip, times);
  }
  void load_delay(unsigned microseconds) const { load_delay_(microseconds); }
  // The recorded calls, all or those of one function.
  std::vector<hipdouble_call> calls(const std::string& function = "") const {
    std::vector<hipdouble_call> out;
    hipdouble_call c;
    for (size_t i = 0; call_at_(i, &c); ++i)
      if (function.empty() || function == c.function) out.push_back(c);
    return out;
  }
  size_t count(const std::string& function) const { return calls(function).size(); }

 private:
  template <typename F>
  void bind(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(handle_, name));
  }

  void* handle_;
  hipdouble_reset_fn reset_ = nullptr;
  hipdouble_set_devices_fn set_devices_ = nullptr;
  hipdouble_fail_fn fail_ = nullptr;
  hipdouble_set_load_delay_fn load_delay_ = nullptr;
  hipdouble_call_at_fn call_at_ = nullptr;
};

// A hip code-object variant of vadd for `arch` whose blob is an image line of
// the double, built for `target_id` (recorded as hip.target_id when it
// states features), with four parameters and op=add.
inline Artifact hip_double_variant(const std::string& arch, const std::string& target_id = "",
                                   const std::string& grid = "cdiv(n,256),1,1") {
  const std::string id = target_id.empty() ? arch : target_id;
  Artifact a;
  a.target = {"hip", arch};
  a.kind = "code_object";
  a.entry = "vadd";
  a.key = std::string(64, 'd');
  a.toolchain = "hip runtime double";
  const std::string image = "tsr-hip-double target=" + id + " params=4 op=add entry=vadd\n";
  a.bytes.assign(image.begin(), image.end());
  a.bytes.push_back(0);   // the double reads images as text
  a.metadata = {{"hip.block", "256,1,1"}, {"hip.grid", grid}, {"hip.shared_bytes", "0"}};
  if (id != arch) a.metadata["hip.target_id"] = id;
  return a;
}

}  // namespace tsr::testing

namespace tsr {

// The StubHipDouble suite's fixture (one class for every file of the suite).
class StubHipDouble : public testing::GpuDoubleSuite {
 protected:
  StubHipDouble() : GpuDoubleSuite("hip") {}
  void SetUp() override { ASSERT_TRUE(runtime_.ok()) << "cannot load " << TSR_HIP_RUNTIME_DOUBLE; }

  testing::HipRuntimeDouble runtime_;
};

}  // namespace tsr
