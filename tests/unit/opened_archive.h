// An archive serialized and opened from memory for a test's lifetime: what
// the GPU backend tests (StubCudaDouble, StubHipDouble) load kernels from.
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

}  // namespace tsr::testing
