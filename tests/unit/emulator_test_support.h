// Shared by the CPU emulator's tests (cuda_emulator_test.cc,
// cuda_emulator_checks_test.cc, hip_emulator_test.cc): the clang-or-skip fixture, a timed
// emulate_oracle and source injection.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "emulator/emulator.h"
#include "oracle/emulated_report.h"
#include "emulator/emulator_toolchain.h"
#include "tests/unit/spec_builders.h"

namespace tsr::emulator_test {

class EmulatorFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const ToolchainInfo info = cuda::emu::emulator_clang();
    if (!info.found) GTEST_SKIP() << "clang unavailable: " << info.why_unavailable;
  }
};

// The oracle over an emulated build of `source` on `target` (an emulated
// Target; nullptr: the emulated cuda target), timed on stderr.
inline cuda::emu::EmulatedReport emulate_on(const Target* target, const std::string& arch, const KernelSpec& spec,
                                            const std::string& source, const cuda::emu::EmulatorOptions& emulator = {}) {
  const auto start = std::chrono::steady_clock::now();
  cuda::emu::EmulatedReport r = target ? cuda::emu::emulate_oracle(*target, spec, arch, source)
                                       : cuda::emu::emulate_oracle(spec, arch, source, {}, emulator);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "[emulator] %s (%s): %s in %.2f s (%d trials)%s%s\n", spec.name.c_str(), arch.c_str(),
               r.evidence.c_str(), s, r.oracle.trials, r.oracle.reason.empty() ? "" : ": ", r.oracle.reason.c_str());
  return r;
}

inline cuda::emu::EmulatedReport emulate(const KernelSpec& spec, const std::string& source,
                                         const cuda::emu::EmulatorOptions& emulator = {}) {
  return emulate_on(nullptr, "sm_80", spec, source, emulator);
}

// emulate() of every (spec, source) job, on every core: jobs are independent
// (a launch's scheduler state is per host thread, each launch loads its own
// module). Reports come back in job order.
struct EmulationJob {
  KernelSpec spec;
  std::string source;
  std::string arch = "sm_80";
};
inline std::vector<cuda::emu::EmulatedReport> emulate_all(const std::vector<EmulationJob>& jobs,
                                                          const Target* target = nullptr) {
  std::vector<cuda::emu::EmulatedReport> reports(jobs.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers(std::max(1u, std::min(4u, std::thread::hardware_concurrency())));
  for (std::thread& w : workers)
    w = std::thread([&] {
      for (size_t i; (i = next++) < jobs.size();) reports[i] = emulate_on(target, jobs[i].arch, jobs[i].spec, jobs[i].source);
    });
  for (std::thread& w : workers) w.join();
  return reports;
}

// Replaces the one occurrence of `from` (a changed emitter fails the test
// here instead of letting an injection silently miss).
// out = relu(in) over 1000 f32: the ABI of the hand-written kernels the emulator's checks run.
inline KernelSpec relu_1000() {
  using namespace spec_builders;
  return elementwise("ew", DType::f32, {Op::relu}, st(1000));
}

inline std::string inject(std::string src, const std::string& from, const std::string& to) {
  const size_t at = src.find(from);
  EXPECT_NE(at, std::string::npos) << "injection site not found: " << from;
  if (at == std::string::npos) return src;
  EXPECT_EQ(src.find(from, at + 1), std::string::npos) << "injection site not unique: " << from;
  return src.replace(at, from.size(), to);
}

// The FAIL reason after the prefix every emulated verdict carries (checked).
inline std::string fail_reason(const cuda::emu::EmulatedReport& r) {
  EXPECT_EQ(r.evidence, "FAIL");
  const std::string prefix = std::string(kEmulatedReason) + "; ";
  const bool prefixed = r.oracle.reason.rfind(prefix, 0) == 0;
  EXPECT_TRUE(prefixed) << r.oracle.reason;
  return prefixed ? r.oracle.reason.substr(prefix.size()) : r.oracle.reason;
}

// "line:column" (1-based) of the first occurrence of `text` in `source`.
inline std::string line_col(const std::string& source, const std::string& text) {
  const size_t at = source.find(text);
  if (at == std::string::npos) return "?:?";
  const size_t line_start = source.rfind('\n', at);
  size_t line = 1;
  for (size_t i = 0; i < at; ++i) line += source[i] == '\n';
  return std::to_string(line) + ":" + std::to_string(at - (line_start == std::string::npos ? 0 : line_start + 1) + 1);
}

}  // namespace tsr::emulator_test
