// Independent validation of the xclbin writer: every xclbin the xdna target
// writes (both manifest kernels x both arches, from the synthetic artifacts
// of examples/xdna) is loaded with XRT's own reader, xrt::xclbin from
// libxrt_coreutil (XRT 2.13), linked into this binary only. XRT's view must
// match ours: kernel name, arguments by name and order, memory, IPs, UUID,
// and every section's size.
#include <gtest/gtest.h>

#include <xrt/xclbin.h>

#include <experimental/xrt_xclbin.h>
#include <xrt/ert.h>
#include <xrt/xrt.h>

#include <cstring>
#include <map>

#include "driver/spec_loading.h"
#include "support/sha256.h"
#include "registry/registry.h"
#include "xdna/xclbin_reader.h"
#include "xdna/xclbin_writer.h"

extern "C" {
#include "runtime-stub/src/tsr_xrt.h"
}

namespace tsr {
namespace {

std::vector<KernelSpec> example_specs() {
  DiagnosticEngine diag;
  std::vector<KernelSpec> specs = load_specs({std::string(TSR_SOURCE_DIR) + "/examples/xdna"}, diag);
  EXPECT_FALSE(diag.has_errors()) << diag.render();
  return specs;
}

struct Built {
  std::string kernel, arch;
  Artifact artifact;
};

std::vector<Built> every_xclbin() {
  std::vector<Built> out;
  const Target* t = find_target("xdna");
  for (const KernelSpec& spec : example_specs())
    for (const std::string& arch : t->archs()) {
      Expected<std::string> source = t->emit(spec, arch);
      EXPECT_TRUE(source.ok()) << source.error().message();
      Expected<Artifact> a = t->compile(spec, arch, *source);
      EXPECT_TRUE(a.ok()) << a.error().message();
      out.push_back({spec.name, arch, *a});
    }
  return out;
}

TEST(XclbinXrtReader, EveryWrittenXclbinLoadsInXrtWithOurSignature) {
  const std::vector<Built> built = every_xclbin();
  ASSERT_EQ(built.size(), 4u);
  for (const Built& b : built) {
    SCOPED_TRACE(b.kernel + " " + b.arch);
    const std::vector<char> data(b.artifact.bytes.begin(), b.artifact.bytes.end());
    xrt::xclbin x(data);
    const std::vector<xrt::xclbin::kernel> kernels = x.get_kernels();
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].get_name(), b.kernel);
    std::vector<std::string> names;
    std::vector<size_t> offsets, sizes;
    for (const xrt::xclbin::arg& a : kernels[0].get_args()) {
      names.push_back(a.get_name());
      offsets.push_back(a.get_offset());
      sizes.push_back(a.get_size());
    }
    EXPECT_EQ(names, (std::vector<std::string>{"opcode", "instr", "ninstr", "in0", "in1", "out"}));
    EXPECT_EQ(names, xdna::xclbin_argument_names());
    EXPECT_EQ(offsets, (std::vector<size_t>{0x00, 0x08, 0x10, 0x14, 0x1c, 0x24}));
    EXPECT_EQ(sizes, (std::vector<size_t>{8, 8, 4, 8, 8, 8}));
    EXPECT_EQ(kernels[0].get_args()[3].get_host_type(), "void*");
    const std::vector<xrt::xclbin::ip> ips = x.get_ips();
    ASSERT_EQ(ips.size(), 1u);
    EXPECT_EQ(ips[0].get_name(), b.kernel + ":" + b.kernel + "_1");
    const std::vector<xrt::xclbin::mem> mems = x.get_mems();
    ASSERT_EQ(mems.size(), 1u);
    EXPECT_EQ(mems[0].get_tag(), "HOST");
    EXPECT_EQ(mems[0].get_size_kb(), 0x10000u);

    // The UUID XRT reports is ours, and the section table XRT holds is ours byte for byte.
    Expected<xdna::XclbinSummary> ours = xdna::read_xclbin(b.artifact.bytes.data(), b.artifact.bytes.size());
    ASSERT_TRUE(ours.ok()) << ours.error().message();
    EXPECT_EQ(x.get_uuid().to_string(), ours->uuid);
    const axlf* top = x.get_axlf();
    ASSERT_EQ(top->m_header.m_numSections, ours->sections.size());
    EXPECT_EQ(top->m_header.m_length, b.artifact.bytes.size());
    EXPECT_EQ(top->m_header.m_timeStamp, 0u);
    std::map<std::string, uint64_t> size_by_name;
    for (uint32_t i = 0; i < top->m_header.m_numSections; ++i) {
      EXPECT_EQ(top->m_sections[i].m_sectionSize, ours->sections[i].size);
      EXPECT_EQ(top->m_sections[i].m_sectionOffset % 8, 0u);
      size_by_name[top->m_sections[i].m_sectionName] = top->m_sections[i].m_sectionSize;
    }
    EXPECT_EQ(size_by_name["mem_topology"], 48u);    // count + one mem_data
    EXPECT_EQ(size_by_name["ip_layout"], 88u);       // count + one ip_data
    EXPECT_EQ(size_by_name["connectivity"], 52u);    // count + four connections (instr, in0, in1, out)
    EXPECT_EQ(size_by_name["npu_insts"], 32u);       // the synthetic instruction stream
    EXPECT_EQ(size_by_name.count("aie_pdi"), 1u);
    EXPECT_EQ(size_by_name.count("embedded_xml"), 1u);
    EXPECT_EQ(size_by_name.count("aie_metadata"), 1u);
  }
}

// The stub cannot include XRT's headers (it builds with libc only): its copies
// of XRT's constants are checked against them here.
TEST(XrtConstants, TheStubsCopiesEqualXrtsHeaders) {
  EXPECT_EQ(static_cast<unsigned>(TSR_XRT_BO_CACHEABLE), XCL_BO_FLAGS_CACHEABLE);
  EXPECT_EQ(static_cast<unsigned>(TSR_XRT_BO_HOST_ONLY), XCL_BO_FLAGS_HOST_ONLY);
  EXPECT_EQ(static_cast<int>(TSR_XRT_SYNC_TO_DEVICE), XCL_BO_SYNC_BO_TO_DEVICE);
  EXPECT_EQ(static_cast<int>(TSR_XRT_SYNC_FROM_DEVICE), XCL_BO_SYNC_BO_FROM_DEVICE);
  EXPECT_EQ(static_cast<int>(TSR_XRT_RUN_COMPLETED), ERT_CMD_STATE_COMPLETED);
  EXPECT_EQ(static_cast<int>(USER_METADATA), 16);   // the instruction stream's section kind (tsr_xclbin_instructions)
}

}  // namespace
}  // namespace tsr
