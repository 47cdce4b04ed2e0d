// An archive serialized and opened from memory for a test's lifetime, and the
// part of the GPU backend suites' fixtures (StubCudaDouble, StubHipDouble)
// that loads vadd from one and unloads it before the test double resets.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "archive/archive_writer.h"
#include "tesserart.h"

namespace tsr::testing {

struct OpenedArchive {
  std::vector<uint8_t> bytes;
  tsr_archive* archive = nullptr;
  explicit OpenedArchive(const ArchiveContents& c) : bytes(*serialize_archive(c)) {
    EXPECT_EQ(tsr_archive_open_memory(bytes.data(), bytes.size(), nullptr, &archive), TSR_OK);
  }
  ~OpenedArchive() { tsr_archive_close(archive); }
};

// Kernels loaded through the stub during a test; unloaded in TearDown, that
// is before the derived fixture's double is destroyed: the stub must not hold
// modules of a driver or runtime that resets.
class GpuDoubleSuite : public ::testing::Test {
 protected:
  explicit GpuDoubleSuite(const char* kind) : kind_(kind) {}

  // Loads vadd from `archive` for `device`: variants of the suite's kind only,
  // or every kind when it is NULL.
  tsr_kernel* load(OpenedArchive& archive, int device = 0) {
    tsr_select_options o{kind_, 0, nullptr, device};
    tsr_kernel* k = nullptr;
    EXPECT_EQ(tsr_kernel_load(archive.archive, "vadd", &o, &k), TSR_OK) << tsr_archive_last_message(archive.archive);
    kernels_.push_back(k);
    return k;
  }
  void TearDown() override {
    for (tsr_kernel* k : kernels_) tsr_kernel_unload(k);
  }

  std::vector<tsr_kernel*> kernels_;

 private:
  const char* kind_;
};

}  // namespace tsr::testing
