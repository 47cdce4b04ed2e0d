// Follows XRT 2.13's xrt/xclbin.h (the axlf structs are included, not
// redeclared) and the section contents xclbinutil writes for an NPU kernel
// (mlir-aie's kernels.json: a DPU PS kernel with opcode, instr, ninstr and
// the buffer arguments). Sections are 8-byte aligned in a fixed order.
#include "xdna/xclbin_writer.h"

#include <xrt/xclbin.h>

#include <cstddef>
#include <cstring>
#include <nlohmann/json.hpp>

#include "support/sha256.h"

namespace tsr::xdna {

namespace {

struct Section {
  axlf_section_kind kind;
  const char* name;
  std::vector<uint8_t> bytes;
};

template <typename T>
std::vector<uint8_t> bytes_of(const T& value, size_t size = sizeof(T)) {
  std::vector<uint8_t> out(size, 0);
  std::memcpy(out.data(), &value, std::min(size, sizeof(T)));
  return out;
}

template <size_t N>
void copy_name(uint8_t (&dst)[N], const std::string& s) {
  std::memset(dst, 0, N);
  std::memcpy(dst, s.data(), std::min(s.size(), N - 1));
}
template <size_t N>
void copy_name(char (&dst)[N], const std::string& s) {
  std::memset(dst, 0, N);
  std::memcpy(dst, s.data(), std::min(s.size(), N - 1));
}

struct Argument {
  const char* name;
  int address_qualifier;   // 0 scalar, 1 global memory
  unsigned offset, size;
  const char* type;
};

// The NPU's register map for a DPU kernel (mlir-aie's kernels.json offsets).
const std::vector<Argument>& arguments() {
  static const std::vector<Argument> args = {
      {"opcode", 0, 0x00, 8, "uint64_t"}, {"instr", 1, 0x08, 8, "char *"}, {"ninstr", 0, 0x10, 4, "uint32_t"},
      {"in0", 1, 0x14, 8, "void*"},       {"in1", 1, 0x1c, 8, "void*"},  {"out", 1, 0x24, 8, "void*"},
  };
  return args;
}

std::string hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

std::string instance_name(const std::string& kernel) { return kernel + "_1"; }

// The kernel signature XRT reads from EMBEDDED_METADATA (xclbinutil's shape).
std::string signature_xml(const XclbinInput& in) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<project name=\"" + in.kernel + "\">\n";
  x += "  <platform vendor=\"amd\" boardid=\"xdna\" name=\"" + in.arch + "\" featureRomTime=\"0\">\n";
  x += "    <version major=\"1\" minor=\"0\"/>\n    <description/>\n";
  x += "    <device name=\"fpga0\" fpgaDevice=\"" + in.arch + "\" addrWidth=\"0\">\n";
  x += "      <core name=\"OCL_REGION_0\" target=\"hw\" type=\"clc_region\" clockFreq=\"0MHz\" numComputeUnits=\"1\">\n";
  x += "        <kernel name=\"" + in.kernel + "\" language=\"c\" vlnv=\"\" preferredWorkGroupSizeMultiple=\"0\" "
       "workGroupSize=\"1\" debug=\"false\" interrupt=\"false\" hwControlProtocol=\"ap_ctrl_hs\" type=\"dpu\">\n";
  for (size_t i = 0; i < arguments().size(); ++i) {
    const Argument& a = arguments()[i];
    x += "          <arg name=\"" + std::string(a.name) + "\" addressQualifier=\"" +
         std::to_string(a.address_qualifier) + "\" id=\"" + std::to_string(i) + "\" port=\"\" size=\"" +
         hex(a.size) + "\" offset=\"" + hex(a.offset) + "\" hostOffset=\"0x0\" hostSize=\"" + hex(a.size) +
         "\" type=\"" + a.type + "\"/>\n";
  }
  x += "          <instance name=\"" + instance_name(in.kernel) + "\">\n";
  x += "            <addrRemap base=\"0x0\" port=\"\"/>\n          </instance>\n";
  x += "        </kernel>\n      </core>\n    </device>\n  </platform>\n</project>\n";
  return x;
}

std::vector<uint8_t> mem_topology_section() {
  // One host-visible DRAM bank that every buffer argument connects to.
  std::vector<uint8_t> out = bytes_of(int32_t{1}, offsetof(mem_topology, m_mem_data));
  mem_data bank{};
  bank.m_type = MEM_DRAM;
  bank.m_used = 1;
  bank.m_size = 0x10000;           // KiB
  bank.m_base_address = 0x4000000;
  copy_name(bank.m_tag, "HOST");
  std::vector<uint8_t> b = bytes_of(bank);
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

std::vector<uint8_t> ip_layout_section(const std::string& kernel) {
  std::vector<uint8_t> out = bytes_of(int32_t{1}, offsetof(ip_layout, m_ip_data));
  ip_data ip{};
  ip.m_type = IP_PS_KERNEL;
  ip.properties = 0;
  ip.m_base_address = ~uint64_t{0};   // a PS kernel has no AXI-lite address
  copy_name(ip.m_name, kernel + ":" + instance_name(kernel));
  std::vector<uint8_t> b = bytes_of(ip);
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

std::vector<uint8_t> connectivity_section() {
  std::vector<uint8_t> out;
  int32_t count = 0;
  for (const Argument& a : arguments()) count += a.address_qualifier == 1;
  out = bytes_of(count, offsetof(connectivity, m_connection));
  for (size_t i = 0; i < arguments().size(); ++i) {
    if (arguments()[i].address_qualifier != 1) continue;
    connection c{static_cast<int32_t>(i), 0, 0};
    std::vector<uint8_t> b = bytes_of(c);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// Provenance the runtime and `inspect` can read: what the device artifacts are.
std::vector<uint8_t> aie_metadata_section(const XclbinInput& in) {
  nlohmann::json j;
  j["schema"] = "tesserac-xdna-aie-metadata-v1";
  j["kernel"] = in.kernel;
  j["arch"] = in.arch;
  j["device_image"] = {{"kind", in.image_kind}, {"size", in.image.size()},
                       {"sha256", sha256_hex(in.image.data(), in.image.size())}};
  j["instructions"] = {{"section", kInstructionSectionName}, {"size", in.instructions.size()},
                       {"sha256", sha256_hex(in.instructions.data(), in.instructions.size())}};
  j["arguments"] = xclbin_argument_names();
  const std::string text = j.dump(2) + "\n";   // keys sorted: deterministic
  return {text.begin(), text.end()};
}

void pad_to(std::vector<uint8_t>& out, size_t alignment) {
  while (out.size() % alignment) out.push_back(0);
}

}  // namespace

const std::vector<std::string>& xclbin_argument_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Argument& a : arguments()) v.push_back(a.name);
    return v;
  }();
  return names;
}

std::vector<uint8_t> write_xclbin(const XclbinInput& in) {
  const std::string xml = signature_xml(in);
  std::vector<Section> sections = {
      {MEM_TOPOLOGY, "mem_topology", mem_topology_section()},
      {IP_LAYOUT, "ip_layout", ip_layout_section(in.kernel)},
      {CONNECTIVITY, "connectivity", connectivity_section()},
      {EMBEDDED_METADATA, "embedded_xml", {xml.begin(), xml.end()}},
      {AIE_METADATA, "aie_metadata", aie_metadata_section(in)},
      {PDI, in.image_kind == "elf" ? "aie_elf" : "aie_pdi", in.image},
      {USER_METADATA, kInstructionSectionName, in.instructions},
  };

  const size_t header_size = offsetof(axlf, m_sections) + sections.size() * sizeof(axlf_section_header);
  std::vector<uint8_t> out(header_size, 0);
  pad_to(out, 8);
  std::vector<axlf_section_header> headers;
  for (const Section& s : sections) {
    axlf_section_header h{};
    h.m_sectionKind = s.kind;
    copy_name(h.m_sectionName, s.name);
    h.m_sectionOffset = out.size();
    h.m_sectionSize = s.bytes.size();
    headers.push_back(h);
    out.insert(out.end(), s.bytes.begin(), s.bytes.end());
    pad_to(out, 8);
  }

  axlf top{};
  std::memcpy(top.m_magic, "xclbin2", 8);
  top.m_signature_length = -1;                       // unsigned: XRT checks no signature
  std::memset(top.reserved, 0xff, sizeof top.reserved);
  std::memset(top.m_keyBlock, 0xff, sizeof top.m_keyBlock);
  top.m_header.m_length = out.size();
  top.m_header.m_timeStamp = 0;                      // reproducible: no time in the file
  top.m_header.m_versionMajor = 2;
  top.m_header.m_versionMinor = 13;
  top.m_header.m_versionPatch = 0;
  top.m_header.m_mode = XCLBIN_FLAT;
  top.m_header.m_actionMask = AM_LOAD_AIE;
  copy_name(top.m_header.m_platformVBNV, "amd:xdna:" + in.arch + ":1");
  top.m_header.m_numSections = static_cast<uint32_t>(sections.size());
  std::memcpy(out.data(), &top, offsetof(axlf, m_sections));
  for (size_t i = 0; i < headers.size(); ++i)
    std::memcpy(out.data() + offsetof(axlf, m_sections) + i * sizeof(axlf_section_header), &headers[i],
                sizeof(axlf_section_header));

  // The UUID and unique id: SHA-256 of every byte with both fields zero, as
  // an RFC 9562 version-8 UUID, so equal content gives equal identity.
  const std::vector<uint8_t> digest = sha256(out.data(), out.size());
  uint8_t uuid[16];
  std::memcpy(uuid, digest.data(), 16);
  uuid[6] = static_cast<uint8_t>((uuid[6] & 0x0f) | 0x80);
  uuid[8] = static_cast<uint8_t>((uuid[8] & 0x3f) | 0x80);
  std::memcpy(out.data() + offsetof(axlf, m_header) + offsetof(axlf_header, uuid), uuid, 16);
  std::memcpy(out.data() + offsetof(axlf, m_uniqueId), digest.data() + 16, 8);
  return out;
}

}  // namespace tsr::xdna
