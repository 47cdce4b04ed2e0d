// The stub's XRT backend (runtime-stub/src/backend_xrt*.c) against the XRT
// TEST DOUBLE (tests/support/xrt_double): admission by hardware receipt,
// NO_DEVICE without an NPU, the call sequence of a load and a launch (the
// instruction stream's BO and opcode 3, the three-BO ABI), cleanup on every
// failure path, and process-fatal reporting once the xclbin is registered.
// The double proves control flow only; nothing here ran on an NPU.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "xdna/xclbin_writer.h"
#include "tesserart.h"
#include "xrt_double/xrt_double.h"

extern "C" {
#include "../../runtime-stub/src/tsr_internal.h"   // tsr_xrt_use_library_for_tests, tsr_xrt_probe
}

namespace tsr {
namespace {

const std::vector<uint8_t> kInstructions = {0x00, 0x01, 0x03, 0x06, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};

std::vector<uint8_t> synthetic_xclbin(const std::string& arch, std::vector<uint8_t> instructions = kInstructions) {
  const std::string pdi = "SYNTHETIC PDI for " + arch + ": not AIE code";
  return xdna::write_xclbin({"vec_add_bf16", arch, "pdi", {pdi.begin(), pdi.end()}, std::move(instructions)});
}

// vec_add_bf16 with xdna:npu1 and xdna:npu4 variants; receipts on `qualified`.
ArchiveContents npu_contents(const std::vector<std::string>& qualified,
                             std::vector<uint8_t> npu1_instructions = kInstructions) {
  ArchiveKernel k;
  k.name = "vec_add_bf16";
  k.identity = std::string(64, 'c');
  k.family = "elementwise";
  k.dtype = DType::bf16;
  for (const char* name : {"in0", "in1"})
    k.abi.bindings.push_back(testing::buffer(name, Role::input, DType::bf16, {Dim{1024, ""}}));
  k.abi.bindings.push_back(testing::buffer("out", Role::output, DType::bf16, {Dim{1024, ""}}));
  for (const std::string arch : {"npu1", "npu4"}) {
    Artifact a;
    a.target = {"xdna", arch};
    a.kind = "xclbin";
    a.entry = "vec_add_bf16";
    a.key = std::string(64, 'd');
    a.toolchain = "tesserac xclbin writer 1";
    a.bytes = synthetic_xclbin(arch, arch == "npu1" ? npu1_instructions : kInstructions);
    k.variants.push_back(a);
  }
  for (const std::string& arch : qualified)
    k.receipts.push_back(testing::receipt_for(k, {"xdna", arch}, "test-signed receipt for " + arch + "\n"));
  ArchiveContents c;
  c.metadata = {{"tesserac.version", "0.1.0"}};
  c.kernels.push_back(k);
  return c;
}

class StubXrtDouble : public ::testing::Test {
 protected:
  void SetUp() override {
    lib_ = dlopen(TSR_XRT_DOUBLE, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib_, nullptr) << dlerror();
    reset_ = reinterpret_cast<xrtdouble_reset_fn>(dlsym(lib_, "xrtdouble_reset"));
    fail_ = reinterpret_cast<xrtdouble_fail_fn>(dlsym(lib_, "xrtdouble_fail"));
    count_ = reinterpret_cast<xrtdouble_call_count_fn>(dlsym(lib_, "xrtdouble_call_count"));
    at_ = reinterpret_cast<xrtdouble_call_at_fn>(dlsym(lib_, "xrtdouble_call_at"));
    live_ = reinterpret_cast<xrtdouble_live_buffers_fn>(dlsym(lib_, "xrtdouble_live_buffers"));
    insts_ = reinterpret_cast<xrtdouble_instructions_fn>(dlsym(lib_, "xrtdouble_instructions"));
    reset_();
    use("npu1");
  }
  void TearDown() override {
    tsr_archive_close(archive_);
    tsr_xrt_use_library_for_tests(nullptr, nullptr);
    if (lib_) dlclose(lib_);
  }
  void use(const char* arch) { tsr_xrt_use_library_for_tests(TSR_XRT_DOUBLE, arch); }
  void open(const ArchiveContents& c) {
    tsr_archive_close(archive_);
    archive_ = nullptr;
    bytes_ = *serialize_archive(c);
    ASSERT_EQ(tsr_archive_open_memory(bytes_.data(), bytes_.size(), nullptr, &archive_), TSR_OK);
  }
  // The selected arch, or the status's name and the archive's message.
  std::string select(int require) {
    tsr_select_options o{nullptr, 0, nullptr, 0, require};
    tsr_selection sel;
    tsr_status s = tsr_kernel_select(archive_, 0, &o, &sel);
    if (s == TSR_OK) return std::string(sel.arch) + " " + sel.route;
    return std::string(tsr_status_string(s)) + ": " + tsr_archive_last_message(archive_);
  }
  std::vector<std::string> functions() {
    std::vector<std::string> out;
    xrtdouble_call c;
    for (size_t i = 0; at_(i, &c); ++i) out.push_back(c.function);
    return out;
  }
  xrtdouble_call last(const std::string& fn) {
    xrtdouble_call c{}, found{};
    for (size_t i = 0; at_(i, &c); ++i)
      if (fn == c.function) found = c;
    return found;
  }
  tsr_status load(tsr_kernel** k, int require = 0) {
    tsr_select_options o{nullptr, 0, nullptr, 0, require};
    return tsr_kernel_load(archive_, "vec_add_bf16", &o, k);
  }

  void* lib_ = nullptr;
  xrtdouble_reset_fn reset_ = nullptr;
  xrtdouble_fail_fn fail_ = nullptr;
  xrtdouble_call_count_fn count_ = nullptr;
  xrtdouble_call_at_fn at_ = nullptr;
  xrtdouble_live_buffers_fn live_ = nullptr;
  xrtdouble_instructions_fn insts_ = nullptr;
  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
};

TEST_F(StubXrtDouble, WithoutAnNpuSelectionIsNoDeviceAndTheProbeSaysWhy) {
  if (access("/dev/accel/accel0", F_OK) == 0) GTEST_SKIP() << "an NPU node is present on this machine";
  tsr_xrt_use_library_for_tests(nullptr, nullptr);   // the real XRT, the real device node
  char why[160];
  EXPECT_EQ(tsr_xrt_probe(why, sizeof why), TSR_ERROR_NO_DEVICE);
  EXPECT_STREQ(why, "no NPU (/dev/accel/accel0 absent or not accessible)");   // XRT is not even loaded
  open(npu_contents({"npu1"}));
  EXPECT_EQ(select(0), "no device: ");
  tsr_xrt_use_library_for_tests("/nonexistent/libxrt_coreutil.so.2", "npu1");
  EXPECT_EQ(tsr_xrt_probe(why, sizeof why), TSR_ERROR_NO_DEVICE);
  EXPECT_STREQ(why, "no XRT (/nonexistent/libxrt_coreutil.so.2 not found)");
}

TEST_F(StubXrtDouble, WithoutAReceiptAnXdnaVariantIsNotSelectedAndTheMessageSaysWhy) {
  open(npu_contents({}));
  EXPECT_EQ(select(0), "not qualified: kernel 'vec_add_bf16': variant xdna:npu1 has no hardware receipt, and "
                       "qualified variants are required");
  tsr_kernel* k = nullptr;
  EXPECT_EQ(load(&k), TSR_ERROR_NOT_QUALIFIED);
  EXPECT_EQ(k, nullptr);
  EXPECT_EQ(count_(), 0u);   // admission refused before XRT was touched
}

TEST_F(StubXrtDouble, AMatchingReceiptIsSelectedAndAMismatchedOneIsNot) {
  open(npu_contents({"npu1"}));
  EXPECT_EQ(select(0), "npu1 xclbin");
  EXPECT_EQ(select(1), "npu1 xclbin");
  use("npu4");   // the receipt is for npu1, this NPU is npu4
  EXPECT_EQ(select(0), "not qualified: kernel 'vec_add_bf16': variant xdna:npu4 has no hardware receipt, and "
                       "qualified variants are required");
  open(npu_contents({"npu4"}));
  EXPECT_EQ(select(0), "npu4 xclbin");
}

TEST_F(StubXrtDouble, TheOracleOptsOutOfAdmissionToQualifyAVariant) {
  open(npu_contents({}));
  EXPECT_EQ(select(-1), "npu1 xclbin");
}

TEST_F(StubXrtDouble, LoadRegistersTheXclbinAndWritesTheInstructionStreamLaunchRunsOpcode3OnThreeBos) {
  open(npu_contents({"npu1"}));
  tsr_kernel* k = nullptr;
  ASSERT_EQ(load(&k), TSR_OK) << tsr_archive_last_message(archive_);
  EXPECT_EQ(functions(), (std::vector<std::string>{"xrtDeviceOpen", "xrtDeviceLoadXclbin", "xrtDeviceGetXclbinUUID",
                                                   "xrtPLKernelOpen", "xrtKernelArgGroupId", "xrtKernelArgGroupId",
                                                   "xrtKernelArgGroupId", "xrtKernelArgGroupId", "xrtBOAlloc",
                                                   "xrtBOWrite", "xrtBOSync"}));
  EXPECT_STREQ(last("xrtPLKernelOpen").text, "vec_add_bf16");
  const xrtdouble_call alloc = last("xrtBOAlloc");
  EXPECT_EQ(alloc.args[1], kInstructions.size());
  EXPECT_EQ(alloc.args[2], 1u << 24);   // XCL_BO_FLAGS_CACHEABLE
  EXPECT_EQ(alloc.args[3], 1u);         // the instr argument's group
  size_t n = 0;
  const uint8_t* written = static_cast<const uint8_t*>(insts_(&n));
  EXPECT_EQ(std::vector<uint8_t>(written, written + n), kInstructions);
  EXPECT_EQ(live_(), 1);

  std::vector<uint16_t> in0(1024), in1(1024), out(1024, 0);
  for (size_t i = 0; i < 1024; ++i) {
    in0[i] = static_cast<uint16_t>(0x3f80 + i);
    in1[i] = static_cast<uint16_t>(0x0101 * (i % 7));
  }
  const tsr_buffer_arg args[3] = {{in0.data(), 2048, TSR_DTYPE_BF16, TSR_ROLE_IN},
                                  {in1.data(), 2048, TSR_DTYPE_BF16, TSR_ROLE_IN},
                                  {out.data(), 2048, TSR_DTYPE_BF16, TSR_ROLE_OUT}};
  const size_t before = count_();
  ASSERT_EQ(tsr_kernel_launch(k, args, 3, nullptr, 0, nullptr), TSR_OK) << tsr_kernel_last_message(k);
  for (size_t i = 0; i < 1024; ++i) ASSERT_EQ(out[i], in0[i] ^ in1[i]) << i;   // the double's "run"
  std::vector<std::string> launch = functions();
  launch.erase(launch.begin(), launch.begin() + static_cast<long>(before));
  EXPECT_EQ(launch, (std::vector<std::string>{"xrtBOAlloc", "xrtBOWrite", "xrtBOSync", "xrtBOAlloc", "xrtBOWrite",
                                              "xrtBOSync", "xrtBOAlloc", "xrtKernelRun", "xrtRunWait", "xrtRunClose",
                                              "xrtBOSync", "xrtBORead", "xrtBOFree", "xrtBOFree", "xrtBOFree"}));
  const xrtdouble_call run = last("xrtKernelRun");
  EXPECT_EQ(run.args[1], 3u);                          // opcode: run the instruction stream
  EXPECT_EQ(run.args[3], kInstructions.size() / 4);    // its length in words
  EXPECT_EQ(last("xrtBOAlloc").args[2], 1u << 29);     // XCL_BO_FLAGS_HOST_ONLY
  EXPECT_EQ(last("xrtBOAlloc").args[3], 5u);           // out's group
  EXPECT_EQ(live_(), 1);
  tsr_kernel_unload(k);
  EXPECT_EQ(live_(), 0);
}

TEST_F(StubXrtDouble, AnXclbinWithoutItsInstructionStreamIsRefusedBeforeXrtIsTouched) {
  open(npu_contents({"npu1"}, {}));
  tsr_kernel* k = nullptr;
  EXPECT_EQ(load(&k), TSR_ERROR_LOAD_FAILED);
  EXPECT_STREQ(tsr_archive_last_message(archive_),
               "xclbin for 'vec_add_bf16' has no NPU instruction stream (section npu_insts): a run without it "
               "would do nothing");
  EXPECT_EQ(count_(), 0u);
}

TEST_F(StubXrtDouble, AFailedXclbinLoadChangesNothingAndIsAnOrdinaryLoadFailure) {
  open(npu_contents({"npu1"}));
  fail_("xrtDeviceLoadXclbin", 0, 1);
  tsr_kernel* k = nullptr;
  EXPECT_EQ(load(&k), TSR_ERROR_LOAD_FAILED);
  EXPECT_STREQ(tsr_archive_last_message(archive_), "XRT: xrtDeviceLoadXclbin failed for 'vec_add_bf16'");
  ASSERT_EQ(load(&k), TSR_OK);   // nothing latched: the next load works
  tsr_kernel_unload(k);
}

TEST_F(StubXrtDouble, AFailureAfterTheXclbinIsRegisteredIsProcessFatalAndStaysSo) {
  for (const char* fn : {"xrtDeviceGetXclbinUUID", "xrtPLKernelOpen", "xrtKernelArgGroupId", "xrtBOAlloc",
                         "xrtBOWrite", "xrtBOSync"}) {
    SCOPED_TRACE(fn);
    reset_();
    use("npu1");   // a fresh "process" for the stub's XRT state
    open(npu_contents({"npu1"}));
    fail_(fn, 0, 1);
    tsr_kernel* k = nullptr;
    EXPECT_EQ(load(&k), TSR_ERROR_PROCESS_FATAL);
    EXPECT_EQ(k, nullptr);
    const std::string msg = tsr_archive_last_message(archive_);
    EXPECT_EQ(msg.rfind("XRT: xrt", 0), 0u) << msg;
    EXPECT_NE(msg.find("failed after the xclbin was registered on the NPU; process state changed and is not "
                       "rolled back: start a fresh process"), std::string::npos) << msg;
    EXPECT_EQ(live_(), 0);   // the handles it made are released; the registration is not undone
    const size_t calls = count_();
    EXPECT_EQ(load(&k), TSR_ERROR_PROCESS_FATAL);   // latched: XRT is not asked again
    EXPECT_EQ(count_(), calls);
    EXPECT_STREQ(tsr_archive_last_message(archive_),
                 "XRT: an earlier xdna load failed after the xclbin was registered on the NPU; process state "
                 "changed and is not rolled back: start a fresh process");
  }
  EXPECT_STREQ(tsr_status_string(TSR_ERROR_PROCESS_FATAL),
               "process state changed by a failed backend: start a fresh process");
  EXPECT_EQ(static_cast<int>(TSR_ERROR_PROCESS_FATAL), 43);
}

TEST_F(StubXrtDouble, ALaunchFailureFreesItsBuffersAndIsALaunchFailure) {
  open(npu_contents({"npu1"}));
  tsr_kernel* k = nullptr;
  ASSERT_EQ(load(&k), TSR_OK);
  std::vector<uint16_t> a(1024), b(1024), c(1024);
  const tsr_buffer_arg args[3] = {{a.data(), 2048, TSR_DTYPE_BF16, TSR_ROLE_IN},
                                  {b.data(), 2048, TSR_DTYPE_BF16, TSR_ROLE_IN},
                                  {c.data(), 2048, TSR_DTYPE_BF16, TSR_ROLE_OUT}};
  const std::pair<const char*, std::pair<tsr_status, const char*>> cases[] = {
      {"xrtRunWait", {TSR_ERROR_LAUNCH_FAILED, "XRT: xrtRunWait (the run did not complete) failed"}},
      {"xrtKernelRun", {TSR_ERROR_LAUNCH_FAILED, "XRT: xrtKernelRun failed"}},
      {"xrtBORead", {TSR_ERROR_LAUNCH_FAILED, "XRT: xrtBOSync/xrtBORead (out) failed"}},
      {"xrtBOAlloc", {TSR_ERROR_OUT_OF_MEMORY, "XRT: xrtBOAlloc failed"}},
  };
  for (const auto& [fn, expect] : cases) {
    SCOPED_TRACE(fn);
    fail_(fn, fn == std::string("xrtBOAlloc") ? 2 : 0, 1);
    EXPECT_EQ(tsr_kernel_launch(k, args, 3, nullptr, 0, nullptr), expect.first);
    EXPECT_STREQ(tsr_kernel_last_message(k), expect.second);
    EXPECT_EQ(live_(), 1);   // only the instruction stream's BO remains
  }
  EXPECT_EQ(tsr_kernel_launch(k, args, 3, nullptr, 0, nullptr), TSR_OK);   // a failed launch changes nothing
  tsr_kernel_unload(k);
}

}  // namespace
}  // namespace tsr
