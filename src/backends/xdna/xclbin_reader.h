// A bounds-checked reader of xclbin files (XRT's xrt/xclbin.h axlf layout)
// for `tesserac inspect` and the tests. Every input is untrusted: each
// offset + size is checked against the file, and every count × record size
// against its section, with overflow-safe arithmetic (the 2026 wave of XRT
// parser bugs was unchecked section offsets). Fuzzed by tests/fuzz/xclbin_reader_fuzz.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/error.h"

namespace tsr::xdna {

struct XclbinSection {
  uint32_t kind = 0;
  std::string kind_name;   // "MEM_TOPOLOGY", ..., or "kind 99"
  std::string name;
  uint64_t offset = 0, size = 0;
};

struct XclbinSummary {
  uint64_t length = 0;
  std::string version;     // "2.13.0"
  std::string uuid;        // 8-4-4-4-12 lower-case hex
  std::string platform;    // m_platformVBNV
  std::vector<XclbinSection> sections;
  std::vector<std::string> ip_names;      // IP_LAYOUT entries
  uint32_t mem_banks = 0, connections = 0;
};

// The structure of `bytes`, or what is wrong ("section 3 (PDI) at offset
// 4096 size 100 ends past the file (4100 bytes)").
Expected<XclbinSummary> read_xclbin(const uint8_t* bytes, size_t size);

// The section's bytes (after read_xclbin accepted the file), or empty.
std::vector<uint8_t> xclbin_section(const std::vector<uint8_t>& file, const XclbinSummary& s, uint32_t kind,
                                    const std::string& name = "");

// Human-readable, for `tesserac inspect FILE.xclbin`.
std::string render_xclbin_summary(const XclbinSummary& s);

}  // namespace tsr::xdna
