// Reads with memcpy into XRT's own structs (xrt/xclbin.h), never by casting
// pointers into the buffer, so alignment and length are ours to check.
#include "xdna/xclbin_reader.h"

#include <xrt/xclbin.h>

#include <cstddef>
#include <cstring>

#include "support/sha256.h"

namespace tsr::xdna {

namespace {

std::string kind_name(uint32_t kind) {
  switch (kind) {
    case MEM_TOPOLOGY: return "MEM_TOPOLOGY";
    case IP_LAYOUT: return "IP_LAYOUT";
    case CONNECTIVITY: return "CONNECTIVITY";
    case EMBEDDED_METADATA: return "EMBEDDED_METADATA";
    case AIE_METADATA: return "AIE_METADATA";
    case PDI: return "PDI";
    case USER_METADATA: return "USER_METADATA";
    case KEYVALUE_METADATA: return "KEYVALUE_METADATA";
    case BITSTREAM: return "BITSTREAM";
    default: return "kind " + std::to_string(kind);
  }
}

// A fixed-size char field up to its first NUL; a field without one is an error.
bool c_string(const void* field, size_t n, std::string& out) {
  const char* p = static_cast<const char*>(field);
  const void* nul = std::memchr(p, 0, n);
  if (!nul) return false;
  out.assign(p, static_cast<const char*>(nul) - p);
  return true;
}

bool range_ok(uint64_t off, uint64_t len, uint64_t limit) { return off <= limit && len <= limit - off; }

// Checks "int32 count at 0, then count records of `record` bytes from `first`".
Status check_table(const uint8_t* data, uint64_t size, size_t first, size_t record, const char* what,
                   uint32_t& out_count) {
  int32_t count = 0;
  if (size < sizeof count) return invalid_input(std::string(what) + " is " + std::to_string(size) + " bytes, too short for its count");
  std::memcpy(&count, data, sizeof count);
  if (count < 0) return invalid_input(std::string(what) + " has a negative count " + std::to_string(count));
  // count <= 2^31 and record <= 80: the product fits in 64 bits.
  const uint64_t need = first + static_cast<uint64_t>(count) * record;
  if (count > 0 && need > size)
    return invalid_input(std::string(what) + " declares " + std::to_string(count) + " records of " +
                         std::to_string(record) + " bytes, needing " + std::to_string(need) + ", but is " +
                         std::to_string(size) + " bytes");
  out_count = static_cast<uint32_t>(count);
  return ok();
}

}  // namespace

Expected<XclbinSummary> read_xclbin(const uint8_t* bytes, size_t size) {
  constexpr size_t kFixed = offsetof(axlf, m_sections);
  if (size < kFixed) return invalid_input("not an xclbin: " + std::to_string(size) + " bytes, shorter than the " +
                                          std::to_string(kFixed) + "-byte axlf header");
  axlf top;
  std::memcpy(&top, bytes, kFixed);
  if (std::memcmp(top.m_magic, "xclbin2", 8) != 0) return invalid_input("not an xclbin: bad magic (expected \"xclbin2\")");
  XclbinSummary s;
  s.length = top.m_header.m_length;
  if (s.length != size)
    return invalid_input("header length " + std::to_string(s.length) + " differs from the file size " +
                         std::to_string(size));
  const uint64_t count = top.m_header.m_numSections;
  if (count > XCLBIN_MAX_NUM_SECTION)
    return invalid_input(std::to_string(count) + " sections, over XRT's limit of " + std::to_string(XCLBIN_MAX_NUM_SECTION));
  if (count > (size - kFixed) / sizeof(axlf_section_header))
    return invalid_input(std::to_string(count) + " section headers do not fit in " + std::to_string(size) + " bytes");
  s.version = std::to_string(top.m_header.m_versionMajor) + "." + std::to_string(top.m_header.m_versionMinor) + "." +
              std::to_string(top.m_header.m_versionPatch);
  const std::string hex = to_hex(top.m_header.uuid, 16);
  s.uuid = hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
           hex.substr(20);
  if (!c_string(top.m_header.m_platformVBNV, sizeof top.m_header.m_platformVBNV, s.platform))
    return invalid_input("platform name is not NUL-terminated");
  for (uint64_t i = 0; i < count; ++i) {
    axlf_section_header h;
    std::memcpy(&h, bytes + kFixed + i * sizeof h, sizeof h);
    XclbinSection sec;
    sec.kind = h.m_sectionKind;
    sec.kind_name = kind_name(h.m_sectionKind);
    sec.offset = h.m_sectionOffset;
    sec.size = h.m_sectionSize;
    const std::string where = "section " + std::to_string(i) + " (" + sec.kind_name + ")";
    if (!c_string(h.m_sectionName, sizeof h.m_sectionName, sec.name))
      return invalid_input(where + ": name is not NUL-terminated");
    if (!range_ok(sec.offset, sec.size, size))
      return invalid_input(where + " at offset " + std::to_string(sec.offset) + " size " + std::to_string(sec.size) +
                           " ends past the file (" + std::to_string(size) + " bytes)");
    if (sec.size > 0 && sec.offset < kFixed + count * sizeof(axlf_section_header))
      return invalid_input(where + " at offset " + std::to_string(sec.offset) + " overlaps the section headers");
    const uint8_t* data = bytes + sec.offset;
    uint32_t n = 0;
    if (sec.kind == MEM_TOPOLOGY) {
      if (Status st = check_table(data, sec.size, offsetof(mem_topology, m_mem_data), sizeof(mem_data), "MEM_TOPOLOGY", n); !st)
        return st.error();
      s.mem_banks = n;
    } else if (sec.kind == CONNECTIVITY) {
      if (Status st = check_table(data, sec.size, offsetof(connectivity, m_connection), sizeof(connection), "CONNECTIVITY", n); !st)
        return st.error();
      s.connections = n;
    } else if (sec.kind == IP_LAYOUT) {
      if (Status st = check_table(data, sec.size, offsetof(ip_layout, m_ip_data), sizeof(ip_data), "IP_LAYOUT", n); !st)
        return st.error();
      for (uint32_t j = 0; j < n; ++j) {
        ip_data ip;
        std::memcpy(&ip, data + offsetof(ip_layout, m_ip_data) + j * sizeof ip, sizeof ip);
        std::string name;
        if (!c_string(ip.m_name, sizeof ip.m_name, name))
          return invalid_input("IP_LAYOUT entry " + std::to_string(j) + ": name is not NUL-terminated");
        s.ip_names.push_back(name);
      }
    }
    s.sections.push_back(std::move(sec));
  }
  return s;
}

std::vector<uint8_t> xclbin_section(const std::vector<uint8_t>& file, const XclbinSummary& s, uint32_t kind,
                                    const std::string& name) {
  for (const XclbinSection& sec : s.sections)
    if (sec.kind == kind && (name.empty() || sec.name == name) && range_ok(sec.offset, sec.size, file.size()))
      return {file.begin() + static_cast<std::ptrdiff_t>(sec.offset),
              file.begin() + static_cast<std::ptrdiff_t>(sec.offset + sec.size)};
  return {};
}

std::string render_xclbin_summary(const XclbinSummary& s) {
  std::string out = "xclbin " + s.version + ", " + std::to_string(s.length) + " bytes, uuid " + s.uuid +
                    ", platform " + s.platform + "\n";
  for (const std::string& ip : s.ip_names) out += "  kernel " + ip + "\n";
  out += "  " + std::to_string(s.mem_banks) + " memory banks, " + std::to_string(s.connections) + " connections\n";
  for (const XclbinSection& sec : s.sections)
    out += "  section " + sec.kind_name + " '" + sec.name + "' at " + std::to_string(sec.offset) + ", " +
           std::to_string(sec.size) + " bytes\n";
  return out;
}

}  // namespace tsr::xdna
