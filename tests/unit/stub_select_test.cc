// Variant selection and the stub's behaviour without GPU/NPU drivers.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "tesserart.h"
#include "runtime-stub/src/tsr_cpu_x86.h"   // the AMX permission test switch

// Internal to the stub (runtime-stub/src/tsr_internal.h); reachable when linked statically.
extern "C" const char* tsr_cuda_eval_triple(const char* text, const char* what, const char* const* names,
                                            const int64_t* scalars, size_t scalar_count, unsigned out[3]);

namespace tsr {
namespace {

struct Opened {
  std::vector<uint8_t> bytes;
  tsr_archive* archive = nullptr;
  explicit Opened(const ArchiveContents& c) : bytes(*serialize_archive(c)) {
    EXPECT_EQ(tsr_archive_open_memory(bytes.data(), bytes.size(), nullptr, &archive), TSR_OK);
  }
  ~Opened() { tsr_archive_close(archive); }
};

bool library_present(const char* name) {
  void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

TEST(StubSelect, X86PicksTheHighestSupportedLevel) {
  Opened o(testing::sample_contents());
  size_t k;
  ASSERT_EQ(tsr_archive_find_kernel(o.archive, "vadd", &k), TSR_OK);
  for (int level = 1; level <= 4; ++level) {
    tsr_select_options opt{"x86", level};
    tsr_selection sel;
    ASSERT_EQ(tsr_kernel_select(o.archive, k, &opt, &sel), TSR_OK);
    EXPECT_EQ(std::string(sel.arch), "v" + std::to_string(std::min(level, 3)));
    EXPECT_STREQ(sel.route, "memfd+dlopen");
  }
}

TEST(StubSelect, AmxVariantNeedsAmx) {
  ArchiveContents c = testing::sample_contents();
  c.kernels[0].variants.push_back(testing::x86_artifact("vadd", "v4+amx", testing::vadd_object(4)));
  c.kernels[0].variants.push_back(testing::x86_artifact("vadd", "v9", testing::vadd_object(5)));
  Opened o(c);
  size_t k;
  ASSERT_EQ(tsr_archive_find_kernel(o.archive, "vadd", &k), TSR_OK);
  tsr_selection sel;
  tsr_select_options v4{"x86", 4};
  ASSERT_EQ(tsr_kernel_select(o.archive, k, &v4, &sel), TSR_OK);
  EXPECT_STREQ(sel.arch, "v3");   // v4+amx needs AMX, "v9" is not a level
  tsr_select_options v4amx{"x86", 4 | TSR_X86_AMX};
  tsr_x86_amx_request_for_tests([] { return 0; });   // the OS grants tile data (stub_amx_select_test.cc)
  ASSERT_EQ(tsr_kernel_select(o.archive, k, &v4amx, &sel), TSR_OK);
  tsr_x86_amx_request_for_tests(nullptr);
  EXPECT_STREQ(sel.arch, "v4+amx");
}

TEST(StubSelect, NoVariantForThisMachine) {
  Opened o(testing::sample_contents());
  size_t k;
  ASSERT_EQ(tsr_archive_find_kernel(o.archive, "scale", &k), TSR_OK);   // cuda only
  tsr_select_options x86{"x86", 0};
  tsr_selection sel;
  EXPECT_EQ(tsr_kernel_select(o.archive, k, &x86, &sel), TSR_ERROR_NO_VARIANT);
  tsr_kernel* kernel = nullptr;
  EXPECT_EQ(tsr_kernel_load(o.archive, "scale", &x86, &kernel), TSR_ERROR_NO_VARIANT);
  EXPECT_STREQ(tsr_archive_last_message(o.archive), "kernel 'scale': no variant for this machine");
  EXPECT_EQ(tsr_kernel_load(o.archive, "nope", nullptr, &kernel), TSR_ERROR_NOT_FOUND);
  EXPECT_STREQ(tsr_archive_last_message(o.archive), "no kernel named 'nope' in the archive");
}

TEST(StubSelect, GpuAndNpuBackendsReportNoDeviceCleanly) {
  Opened o(testing::sample_contents());
  size_t k;
  ASSERT_EQ(tsr_archive_find_kernel(o.archive, "vadd", &k), TSR_OK);
  tsr_selection sel;
  if (library_present("libcuda.so.1")) {
    GTEST_SKIP() << "libcuda.so.1 is present; the no-device path is not reachable here";
  }
  // vadd has a cuda variant: the driver is probed and is absent. It has no
  // hip or xdna variant: those drivers are never touched, nothing fits.
  for (const char* kind : {"cuda", "hip", "xdna"}) {
    tsr_select_options opt{kind, 0, nullptr, 0};
    int rc = testing::run_in_child([&] { return int(tsr_kernel_select(o.archive, k, &opt, &sel)); });
    EXPECT_EQ(rc, std::string(kind) == "cuda" ? TSR_ERROR_NO_DEVICE : TSR_ERROR_NO_VARIANT) << kind;
  }
  // Without a GPU, an unrestricted load of vadd falls back to x86.
  tsr_kernel* kernel = nullptr;
  ASSERT_EQ(tsr_kernel_load(o.archive, "vadd", nullptr, &kernel), TSR_OK);
  ASSERT_EQ(tsr_kernel_selection(kernel, &sel), TSR_OK);
  EXPECT_STREQ(sel.target_kind, "x86");
  tsr_kernel_unload(kernel);
  // scale has only a cuda variant: every kind it has lacks its device.
  tsr_select_options any{nullptr, 0, nullptr, 0};
  ASSERT_EQ(tsr_archive_find_kernel(o.archive, "scale", &k), TSR_OK);
  EXPECT_EQ(tsr_kernel_select(o.archive, k, &any, &sel), TSR_ERROR_NO_DEVICE);
}

TEST(StubSelect, IntrospectionMatchesTheContents) {
  Opened o(testing::sample_contents());
  size_t k;
  ASSERT_EQ(tsr_archive_find_kernel(o.archive, "scale", &k), TSR_OK);
  EXPECT_EQ(k, 0u);
  tsr_kernel_info ki;
  ASSERT_EQ(tsr_archive_kernel_at(o.archive, k, &ki), TSR_OK);
  EXPECT_STREQ(ki.dtype, "bf16");
  EXPECT_EQ(ki.buffer_count, 2u);
  EXPECT_EQ(ki.scalar_count, 1u);
  tsr_dim_info d;
  ASSERT_EQ(tsr_kernel_dim_at(o.archive, k, 1, 1, &d), TSR_OK);
  EXPECT_TRUE(d.is_scalar);
  EXPECT_STREQ(d.scalar_name, "M");
  ASSERT_EQ(tsr_kernel_dim_at(o.archive, k, 1, 0, &d), TSR_OK);
  EXPECT_EQ(d.value, 4);
  EXPECT_EQ(tsr_kernel_dim_at(o.archive, k, 1, 2, &d), TSR_ERROR_INVALID_ARGUMENT);
  const char* value = nullptr;
  EXPECT_EQ(tsr_variant_metadata_find(o.archive, k, 0, "cuda.block", &value), TSR_OK);
  EXPECT_STREQ(value, "256,1,1");
  EXPECT_EQ(tsr_variant_metadata_find(o.archive, k, 0, "cuda.nope", &value), TSR_ERROR_NOT_FOUND);
  EXPECT_EQ(tsr_archive_metadata_find(o.archive, "tesserac.version", &value), TSR_OK);
  EXPECT_STREQ(value, "0.1.0");
  tsr_verdict_info vd;
  ASSERT_EQ(tsr_archive_find_kernel(o.archive, "vadd", &k), TSR_OK);
  ASSERT_EQ(tsr_kernel_verdict_at(o.archive, k, 1, &vd), TSR_OK);
  EXPECT_STREQ(vd.target_kind, "x86");
  EXPECT_EQ(vd.verdict, TSR_VERDICT_PASS);
  EXPECT_EQ(vd.seed, 42u);
  EXPECT_EQ(tsr_archive_kernel_at(o.archive, 2, &ki), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_archive_kernel_at(nullptr, 0, &ki), TSR_ERROR_NULL_ARGUMENT);
}

// The CUDA launch geometry expressions and limits, checked without a GPU
// (the compiler checks its geometry with this same function).
TEST(StubCudaGeometry, EvaluatesIntNameAndCdiv) {
  const char* names[] = {"n"};
  const int64_t n = 1000;
  unsigned v[3];
  ASSERT_EQ(tsr_cuda_eval_triple("cdiv(n,256),1,1", "grid", names, &n, 1, v), nullptr);
  EXPECT_EQ(v[0], 4u);
  ASSERT_EQ(tsr_cuda_eval_triple("cdiv(1024,256),2,n", "grid", names, &n, 1, v), nullptr);
  EXPECT_EQ(v[0], 4u);
  EXPECT_EQ(v[1], 2u);
  EXPECT_EQ(v[2], 1000u);
  EXPECT_STREQ(tsr_cuda_eval_triple("99999999999,1,1", "grid", names, &n, 1, v), "exceeds the grid limit (x 2^31-1, y and z 65535)");
  for (const char* bad : {"cdiv(n,0),1,1", "m,1,1", "cdiv(n,256,1,1"})
    EXPECT_STREQ(tsr_cuda_eval_triple(bad, "grid", names, &n, 1, v), "does not parse or names an unknown scalar") << bad;
  for (const char* bad : {"1,1", "1,1,1,1"})
    EXPECT_STREQ(tsr_cuda_eval_triple(bad, "grid", names, &n, 1, v), "does not have three components") << bad;
  EXPECT_STREQ(tsr_cuda_eval_triple("0,1,1", "grid", names, &n, 1, v), "has a component below 1");
  EXPECT_STREQ(tsr_cuda_eval_triple("", "grid", names, &n, 1, v), "does not parse or names an unknown scalar");
}

TEST(StubCudaGeometry, GridAndBlockLimitsPerAxis) {
  const char* names[] = {"big"};
  const int64_t big = 65536;
  unsigned v[3];
  EXPECT_EQ(tsr_cuda_eval_triple("2147483647,65535,65535", "grid", names, &big, 1, v), nullptr);
  EXPECT_STREQ(tsr_cuda_eval_triple("2147483648,1,1", "grid", names, &big, 1, v), "exceeds the grid limit (x 2^31-1, y and z 65535)");
  EXPECT_STREQ(tsr_cuda_eval_triple("1,big,1", "grid", names, &big, 1, v), "exceeds the grid limit (x 2^31-1, y and z 65535)");
  EXPECT_STREQ(tsr_cuda_eval_triple("1,1,big", "grid", names, &big, 1, v), "exceeds the grid limit (x 2^31-1, y and z 65535)");
  EXPECT_EQ(tsr_cuda_eval_triple("1024,1,1", "block", names, &big, 1, v), nullptr);
  EXPECT_EQ(tsr_cuda_eval_triple("16,16,4", "block", names, &big, 1, v), nullptr);
  EXPECT_STREQ(tsr_cuda_eval_triple("1025,1,1", "block", names, &big, 1, v), "exceeds the block limit (x and y 1024, z 64)");
  EXPECT_STREQ(tsr_cuda_eval_triple("1,1,65", "block", names, &big, 1, v), "exceeds the block limit (x and y 1024, z 64)");
  EXPECT_STREQ(tsr_cuda_eval_triple("32,32,2", "block", names, &big, 1, v), "has more than 1024 threads per block");
}

TEST(StubOpen, CopiedMemoryOutlivesTheCallersBuffer) {
  std::vector<uint8_t> bytes = *serialize_archive(testing::sample_contents());
  tsr_open_options copy{TSR_OPEN_COPY | TSR_OPEN_VERIFY_BLOBS, nullptr, 0};
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(bytes.data(), bytes.size(), &copy, &a), TSR_OK);
  std::fill(bytes.begin(), bytes.end(), 0);
  size_t k;
  EXPECT_EQ(tsr_archive_find_kernel(a, "vadd", &k), TSR_OK);
  EXPECT_EQ(tsr_archive_verify(a, nullptr, 0), TSR_OK);
  tsr_archive_close(a);
  tsr_archive_close(nullptr);
  tsr_kernel_unload(nullptr);
}

TEST(StubStatus, NumbersArePinnedAndNamed) {
  EXPECT_EQ(TSR_OK, 0);
  EXPECT_EQ(TSR_ERROR_NULL_ARGUMENT, 2);
  EXPECT_EQ(TSR_ERROR_UNSUPPORTED_VERSION, 11);
  EXPECT_EQ(TSR_ERROR_TRUNCATED, 12);
  EXPECT_EQ(TSR_ERROR_CORRUPT, 13);
  EXPECT_EQ(TSR_ERROR_CHECKSUM, 14);
  EXPECT_EQ(TSR_ERROR_NO_DEVICE, 22);
  EXPECT_EQ(TSR_ERROR_ARG_COUNT, 30);
  EXPECT_EQ(TSR_ERROR_DTYPE_MISMATCH, 32);
  EXPECT_EQ(TSR_ERROR_BUFFER_TOO_SMALL, 33);
  EXPECT_EQ(TSR_ERROR_MISALIGNED, 34);
  EXPECT_EQ(TSR_DTYPE_F32, 1);
  EXPECT_EQ(TSR_DTYPE_BF16, 3);
  EXPECT_STREQ(tsr_status_string(TSR_ERROR_BUFFER_TOO_SMALL), "buffer too small");
  EXPECT_STREQ(tsr_status_string(static_cast<tsr_status>(9999)), "unknown status");
  for (int s = 0; s <= 42; ++s) EXPECT_NE(tsr_status_string(static_cast<tsr_status>(s)), nullptr);
  EXPECT_EQ(tsr_dtype_size(TSR_DTYPE_BF16), 2u);
  EXPECT_EQ(tsr_dtype_size(static_cast<tsr_dtype>(99)), 0u);
}

}  // namespace
}  // namespace tsr
