// libFuzzer target for the two xclbin readers: tesserac's (src/backends/xdna/
// xclbin_reader.h, used by `inspect`) and the runtime stub's instruction-
// stream lookup (tsr_xclbin_instructions, backend_xrt_driver.c). Any input
// must be accepted or refused with a message, never read out of bounds; an
// accepted file's sections must lie inside it, and the stub's answer must
// agree with the full reader's. Build with -DTESSERAC_BUILD_FUZZ=ON and
// clang; see tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

extern "C" {
#include "runtime-stub/src/tsr_xrt.h"
}
#include "xdna/xclbin_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes, so a sanitizer sees any read past the end.
  std::vector<uint8_t> bytes(data, data + size);
  tsr::Expected<tsr::xdna::XclbinSummary> s = tsr::xdna::read_xclbin(bytes.data(), bytes.size());
  if (!s) {
    if (s.error().message().empty()) std::abort();   // refused without saying why
  } else {
    for (const tsr::xdna::XclbinSection& sec : s->sections)
      if (sec.offset > size || sec.size > size - sec.offset) std::abort();
    (void)tsr::xdna::render_xclbin_summary(*s);
  }
  size_t insts_size = 0;
  const uint8_t* insts = tsr_xclbin_instructions(bytes.data(), bytes.size(), &insts_size);
  if (insts) {
    if (insts < bytes.data() || insts_size > size || static_cast<size_t>(insts - bytes.data()) > size - insts_size)
      std::abort();
    if (s && tsr::xdna::xclbin_section(bytes, *s, 16, "npu_insts").size() != insts_size) std::abort();
  }
  return 0;
}
