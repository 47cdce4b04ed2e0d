// Archive 2.3 routes and delegates (docs/runtime.md, "Routes and delegates"):
// a real f32 matmul compiled for x86 by the compiler's library, its variant
// given route.* and delegate.* keys, serialized, opened, loaded and launched
// through libtesserart, and compared with a naive reference.
//
// The kernel: mm_<a><b> (a, b layouts r|c), f32, M and N runtime, K = 24.
// Its blob also exports mm_<a><b>_tsr_entry_fill, an entry that writes 7 to
// every element of c: a route that runs it shows which step ran.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "driver/assemble_archive.h"
#include "spec_builders.h"
#include "tesserart.h"
#include "x86_fixture.h"

extern "C" {
#include "../../runtime-stub/src/tsr_route.h"
}

namespace tsr::testing {

using Keys = std::map<std::string, std::string>;
inline constexpr int64_t kK = 24;

// bias: mm_<a><b>_bias, with a bias epilogue (a buffer no delegate reads).
inline std::string mm_name(Layout a, Layout b, bool bias = false) {
  return std::string("mm_") + (a == Layout::row ? "r" : "c") + (b == Layout::row ? "r" : "c") + (bias ? "_bias" : "");
}

inline KernelSpec mm_spec(Layout a, Layout b, bool bias = false) {
  using namespace spec_builders;
  std::vector<EpilogueOp> epilogue;
  if (bias) epilogue.push_back(epi(EpilogueOp::Kind::bias));
  return matmul(mm_name(a, b, bias), DType::f32, rt("M"), rt("N"), st(kK), a, b, epilogue);
}

// The delegate keys of `callee` (convention cblas_sgemm or dnnl_sgemm) for mm_<a><b>.
inline Keys delegate_keys(const std::string& callee, Layout a, Layout b, const std::string& alpha = "1") {
  const bool blas = callee == "cblas_sgemm";
  return {{"delegate." + callee + ".convention", callee},
          {"delegate." + callee + ".library", blas ? "libopenblas.so.0 libopenblas.so" : "libdnnl.so.2 libdnnl.so.3 libdnnl.so"},
          {"delegate." + callee + ".args", std::string("a=a:") + (a == Layout::row ? "row" : "col") + " b=b:" +
                                               (b == Layout::row ? "row" : "col") + " c=c m=M n=N k=24 alpha=" + alpha}};
}

// a with b's keys added, b's value winning.
inline Keys merged(Keys a, const Keys& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

// Sets (or, with nullptr, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old, had_ = true;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// A directory holding `soname` built from C `source` (empty source: an empty directory).
inline std::filesystem::path library_dir(const std::string& tag, const std::string& soname, const std::string& source) {
  std::filesystem::path dir = make_temp_dir(tag);
  if (!source.empty()) {
    std::vector<uint8_t> so = compile_shared_object(source, tag);
    std::ofstream(dir / soname, std::ios::binary).write(reinterpret_cast<const char*>(so.data()), so.size());
  }
  return dir;
}

// The installed library a delegate test needs, or why it is absent.
inline std::string library_missing(const char* soname) {
  void* h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (h) {
    dlclose(h);
    return "";
  }
  return std::string(soname) + " is not installed (packaging/install-deps.sh installs it)";
}

class RouteFixture : public X86Fixture {
 protected:
  void TearDown() override {
    tsr_kernel_unload(kernel_);
    tsr_archive_close(archive_);
    kernel_ = nullptr;
    archive_ = nullptr;
  }

  // The compiled mm_<a><b> (cached for the process: one clang run per layout pair).
  const Artifact& artifact(Layout a, Layout b) {
    static std::map<std::string, Artifact> cache;
    const std::string name = mm_name(a, b, bias_);
    if (!cache.count(name)) {
      const KernelSpec spec = mm_spec(a, b, bias_);
      Expected<std::string> src = target_->emit(spec, "v2");
      EXPECT_TRUE(src.ok());
      if (!src) return empty_;
      *src += "\nTSR_EXPORT void " + name + "_tsr_entry_fill(const tsr_kernel_context* ctx, void* const* b, "
              "const int64_t* s) {\n  (void)ctx;\n  for (int64_t i = 0; i < s[0] * s[1]; ++i) ((float*)b[2])[i] = 7.0f;\n}\n"
              "TSR_EXPORT uint64_t " + name + "_tsr_entry_fill_workspace(const int64_t* s, uint32_t w) {\n"
              "  (void)s; (void)w;\n  return 0;\n}\n";
      Expected<Artifact> art = target_->compile(spec, "v2", *src);
      EXPECT_TRUE(art.ok()) << (art.ok() ? "" : art.error().message());
      if (!art) return empty_;
      cache[name] = *art;
    }
    return cache[name];
  }

  // Serializes mm_<a><b> with `keys` added to its variant's metadata, opens
  // it and loads the kernel with delegate policy `policy`: the load status.
  tsr_status load(Layout a, Layout b, const Keys& keys, int policy = 0) {
    a_ = a, b_ = b;
    ArchiveContents contents;
    contents.kernels.push_back(archive_kernel(mm_spec(a, b, bias_)));
    Artifact art = artifact(a, b);
    for (const auto& [k, v] : keys) art.metadata[k] = v;
    contents.kernels.back().variants.push_back(art);
    Expected<std::vector<uint8_t>> bytes = serialize_archive(contents);
    EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message());
    if (!bytes) return TSR_ERROR_GENERIC;
    bytes_ = *bytes;
    EXPECT_EQ(tsr_archive_open_memory(bytes_.data(), bytes_.size(), nullptr, &archive_), TSR_OK);
    tsr_select_options o{"x86", 0, nullptr, 0, 0, policy};
    tsr_status s = tsr_kernel_load(archive_, mm_name(a, b, bias_).c_str(), &o, &kernel_);
    message_ = tsr_archive_last_message(archive_);
    return s;
  }

  struct Result {
    tsr_status status;
    std::vector<float> c;
    double max_error;   // against the reference
  };

  // One launch of the loaded kernel with M x N (K = 24), random inputs.
  Result launch(int64_t m, int64_t n, uint32_t seed = 1) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<float> a(size_t(m * kK)), b(size_t(kK * n)), c(size_t(m * n), -99.f);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    tsr_buffer_arg args[3] = {{a.data(), a.size() * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                              {b.data(), b.size() * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                              {c.data(), c.size() * 4, TSR_DTYPE_F32, TSR_ROLE_OUT}};
    int64_t scalars[2] = {m, n};
    Result r{tsr_kernel_launch(kernel_, args, 3, scalars, 2, nullptr), {}, 0.0};
    r.c = c;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (int64_t p = 0; p < kK; ++p)
          ref += double(a_ == Layout::row ? a[i * kK + p] : a[p * m + i]) *
                 double(b_ == Layout::row ? b[p * n + j] : b[j * kK + p]);
        r.max_error = std::max(r.max_error, std::fabs(ref - double(c[i * n + j])));
      }
    return r;
  }

  std::string route(int64_t m, int64_t n, tsr_status* status = nullptr) {
    int64_t scalars[2] = {m, n};
    const char* step = nullptr;
    tsr_status s = tsr_kernel_route(kernel_, scalars, 2, &step);
    if (status) *status = s;
    return s == TSR_OK && step ? step : "";
  }

  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
  tsr_kernel* kernel_ = nullptr;
  std::string message_;
  Layout a_ = Layout::row, b_ = Layout::row;
  bool bias_ = false;   // mm_<a><b>_bias (load only: launch() knows no bias)
  Artifact empty_;
};

}  // namespace tsr::testing
