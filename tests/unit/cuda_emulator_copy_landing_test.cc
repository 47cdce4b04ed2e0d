// The emulator's model of cp.async (docs/emulator.md, "Racecheck" and "When
// copies land"): a copy writes its destination over its whole flight, from
// its issue to the wait_group that completes it, and the launch runs with
// copies landing both at the wait and at the issue. Hand-written kernels with
// the ABI of a one-input elementwise spec; skips when clang is absent.
#include <gtest/gtest.h>

#include "cuda/cuda_primitives.h"
#include "tests/unit/emulator_test_support.h"

namespace tsr {
namespace {

using namespace emulator_test;

class CudaEmulatorCopyLanding : public EmulatorFixture {};

// out = relu(in) in chunks of 4 floats: thread t copies chunk c0 + t into
// buf[4t..4t+3] with cp.async, and stores the chunk of thread t ^ 32 (the
// same lane of the neighbouring warp). `body` runs between the copy's issue
// and the store loop; the default waits for the copy and then for the block.
std::string copy_kernel(const std::string& body =
                            "    tsr_cp_async_commit();\n"
                            "    tsr_cp_async_wait1();\n"
                            "    tsr_syncthreads();\n") {
  cuda::PrimitiveSet set;
  set.tensor_core = true;
  return cuda::primitives_source(set, DType::f16) +
         "typedef float tsr_t;\n"
         "extern \"C\" __global__ void ew(const tsr_t* __restrict__ p_in0, tsr_t* __restrict__ p_out) {\n"
         "  __shared__ __align__(16) float buf[1024];\n"
         "  const int t = threadIdx.x, u = t ^ 32;\n"
         "  for (long long c0 = (long long)blockIdx.x * blockDim.x; c0 < 250; c0 += (long long)gridDim.x * blockDim.x) {\n"
         "    const long long c = c0 + t, cu = c0 + u;\n"
         "    tsr_cp_async16(buf + 4 * t, c < 250 ? (const void*)(p_in0 + 4 * c) : (const void*)p_in0, c < 250 ? 16 : 0);\n"
         "    tsr_cp_async_commit();\n" +
         body +
         "    if (cu < 250)\n"
         "      for (int j = 0; j < 4; ++j) {\n"
         "        const float v = buf[4 * u + j];\n"
         "        tsr_stg(p_out, 4 * cu + j, v > 0.0f ? v : 0.0f);\n"
         "      }\n"
         "    tsr_syncthreads();\n"
         "  }\n"
         "}\n";
}

TEST_F(CudaEmulatorCopyLanding, CopiesWaitedForAndBarrieredPass) {
  const cuda::emu::EmulatedReport r = emulate(relu_1000(), copy_kernel());
  EXPECT_EQ(r.evidence, "PASS_EMULATED") << r.oracle.reason;
}

// A barrier does not complete a copy: only the issuing thread's wait does.
// Thread 0 reads thread 32's chunk (buf[128] = byte 512) after the barrier
// while that copy is still in flight.
TEST_F(CudaEmulatorCopyLanding, ReadOfACopyInFlightAcrossABarrierIsAHazard) {
  const std::string reason = fail_reason(emulate(relu_1000(), copy_kernel("    tsr_syncthreads();\n")));
  EXPECT_NE(reason.find(" errors\n  racecheck: read-after-write hazard at static shared offset 512 (buf + 512): read by "
                        "thread (0,0,0) of block (0,0,0) while the cp.async write by thread (32,0,0) of block (0,0,0) "
                        "is in flight (before its wait_group)\n"),
            std::string::npos)
      << reason;
}

// A plain store over a copy in flight, by the thread that issued it: the two
// writes land in no defined order.
TEST_F(CudaEmulatorCopyLanding, WriteOverACopyInFlightIsAHazard) {
  const std::string reason = fail_reason(emulate(relu_1000(), copy_kernel("    buf[4 * t] = 0.0f;\n"
                                                                          "    tsr_cp_async_commit();\n"
                                                                          "    tsr_cp_async_wait1();\n"
                                                                          "    tsr_syncthreads();\n")));
  EXPECT_NE(reason.find(" errors\n  racecheck: write-after-write hazard at static shared offset 0 (buf + 0): write by "
                        "thread (0,0,0) of block (0,0,0) while the cp.async write by thread (0,0,0) of block (0,0,0) "
                        "is in flight (before its wait_group)\n"),
            std::string::npos)
      << reason;
}

// A copy refilling a stage that another thread read in the same barrier
// interval (the multistage loop without its trailing barrier): thread 0 reads
// its chunk, then thread 32 refills it.
TEST_F(CudaEmulatorCopyLanding, CopyOverDataAnotherThreadReadIsAHazard) {
  const std::string reason = fail_reason(emulate(relu_1000(), copy_kernel("    tsr_cp_async_commit();\n"
                                                                          "    tsr_cp_async_wait1();\n"
                                                                          "    tsr_syncthreads();\n"
                                                                          "    const float keep = buf[4 * t];\n"
                                                                          "    if (t & 32) tsr_cp_async16(buf + 4 * u, p_in0, 0);\n"
                                                                          "    tsr_cp_async_commit();\n"
                                                                          "    tsr_cp_async_commit();\n"
                                                                          "    tsr_cp_async_wait1();\n"
                                                                          "    tsr_syncthreads();\n"
                                                                          "    buf[4 * t] = keep;\n"
                                                                          "    tsr_syncthreads();\n")));
  EXPECT_NE(reason.find(" errors\n  racecheck: write-after-read hazard at static shared offset 0 (buf + 0): cp.async "
                        "write by thread (32,0,0) of block (0,0,0) after read by thread (0,0,0) of block (0,0,0) with "
                        "no __syncthreads between\n"),
            std::string::npos)
      << reason;
}

// The result depends on when the copy lands, through an access racecheck does
// not see (a relaxed atomic load is not instrumented): each thread stores
// relu(in) into its chunk, zero-fills it with a cp.async and reads the old
// value back before its wait. Copies landing at the wait give the right
// numbers; landing at the issue gives zeros, so the launch fails.
TEST_F(CudaEmulatorCopyLanding, ResultThatDependsOnWhenACopyLandsFails) {
  const std::string body =
      "    tsr_cp_async_commit();\n"
      "    tsr_cp_async_wait1();\n"
      "    tsr_syncthreads();\n"
      "    float old[4];\n"
      "    for (int j = 0; j < 4; ++j) old[j] = buf[4 * u + j];\n"
      "    tsr_syncthreads();\n"
      "    for (int j = 0; j < 4; ++j) buf[4 * u + j] = old[j];\n"
      "    tsr_cp_async16(buf + 4 * u, p_in0, 0);\n"
      "    for (int j = 0; j < 4; ++j) {\n"
      "      unsigned bits = __atomic_load_n((const unsigned*)(buf + 4 * u + j), __ATOMIC_RELAXED);\n"
      "      __builtin_memcpy(&old[j], &bits, 4);\n"
      "    }\n"
      "    tsr_cp_async_commit();\n"
      "    tsr_cp_async_commit();\n"
      "    tsr_cp_async_wait1();\n"
      "    tsr_syncthreads();\n"
      "    if (cu < 250)\n"
      "      for (int j = 0; j < 4; ++j) tsr_stg(p_out, 4 * cu + j, old[j] > 0.0f ? old[j] : 0.0f);\n"
      "    continue;\n";
  const std::string reason = fail_reason(emulate(relu_1000(), copy_kernel(body)));
  EXPECT_EQ(reason.rfind("launch failed: emulator: 1 error\n  cp.async: the result depends on when copies land: ", 0), 0u)
      << reason;
  EXPECT_NE(reason.find(" of 4000 bytes of 'out' differ, first at offset "), std::string::npos) << reason;
  EXPECT_NE(reason.find(" with copies landing at their wait_group, 0x00 with copies landing at their issue)"),
            std::string::npos)
      << reason;
}

// A thread that exits with a copy no wait_group completed.
TEST_F(CudaEmulatorCopyLanding, ExitWithACopyInFlightIsAnError) {
  const std::string reason = fail_reason(emulate(relu_1000(), copy_kernel("    return;\n")));
  EXPECT_NE(reason.find("cp.async: thread (0,0,0) of block (0,0,0) exited with 1 copies that no wait_group "
                        "completed"),
            std::string::npos)
      << reason;
}

}  // namespace
}  // namespace tsr
