// The manifest is one table; a spec matches an entry when every semantic
// field the NPU design depends on is equal (accuracy and determinism are the
// oracle's business, not the device artifact's).
#include "xdna/xdna_manifest.h"

#include "spec/abi.h"
#include "spec/target_catalogue.h"

namespace tsr::xdna {

namespace {

struct ManifestEntry {
  const char* name;
  Family family;
  // The three buffers in ABI order, as the device sees them (in0, in1, out).
  std::vector<int64_t> shapes[3];
  const char* text;   // the entry as the refusal lists it
};

const std::vector<ManifestEntry>& manifest() {
  static const std::vector<ManifestEntry> entries = {
      {"bf16_add_1024", Family::elementwise, {{1024}, {1024}, {1024}},
       "bf16_add_1024: elementwise ops [add], dtype bf16, shape {N: 1024}; "
       "ABI in0: bf16[1024], in1: bf16[1024], out: bf16[1024]"},
      {"bf16_matmul_128x64x128", Family::matmul, {{128, 64}, {64, 128}, {128, 128}},
       "bf16_matmul_128x64x128: matmul, dtype bf16, accumulate f32, shape {M: 128, N: 128, K: 64}, "
       "layout {a: row, b: row}, no epilogue; ABI in0 (a): bf16[128, 64], in1 (b): bf16[64, 128], "
       "out (c): bf16[128, 128]"},
  };
  return entries;
}

std::string dims_text(const std::vector<Dim>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].str();
  return s + "]";
}

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// The first difference between the spec and the entry for its family, or "".
std::string mismatch(const KernelSpec& spec, const ManifestEntry& e) {
  if (spec.dtype != DType::bf16) return std::string("dtype ") + dtype_name(spec.dtype) + " is not bf16";
  if (spec.family == Family::elementwise) {
    const ElementwiseSpec& ew = spec.elementwise();
    if (ew.ops != std::vector<Op>{Op::add}) {
      std::string ops;
      for (Op op : ew.ops) ops += (ops.empty() ? "" : ", ") + std::string(op_name(op));
      return "ops [" + ops + "] are not [add]";
    }
  } else {
    const MatmulSpec& mm = spec.matmul();
    if (spec.accumulate != DType::f32) return "accumulate is not f32";
    if (mm.a != Layout::row || mm.b != Layout::row)
      return std::string("layout {a: ") + layout_name(mm.a) + ", b: " + layout_name(mm.b) + "} is not {a: row, b: row}";
    if (!mm.epilogue.empty()) return "the matmul has an epilogue, the manifest's has none";
  }
  const KernelAbi abi = kernel_abi(spec);
  const std::vector<const Binding*> buffers = abi.buffers();
  if (buffers.size() != 3) return std::to_string(buffers.size()) + " buffers are not the three-buffer ABI (in0, in1, out)";
  static const char* const device_names[3] = {"in0", "in1", "out"};
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<Dim>& dims = buffers[i]->shape;
    bool same = dims.size() == e.shapes[i].size();
    for (size_t d = 0; same && d < dims.size(); ++d) same = dims[d].is_static() && dims[d].value == e.shapes[i][d];
    if (!same)
      return std::string(device_names[i]) + (buffers[i]->name == device_names[i] ? "" : " (" + buffers[i]->name + ")") +
             " has shape " + dims_text(dims) + ", not " + shape_text(e.shapes[i]);
  }
  return "";
}

}  // namespace

const std::vector<std::string>& xdna_arch_names() {
  return find_target_kind("xdna")->archs;
}

std::string manifest_text() {
  std::string s;
  for (const ManifestEntry& e : manifest()) s += (s.empty() ? "" : "; and ") + std::string(e.text);
  return s;
}

std::string manifest_refusal(const KernelSpec& spec) {
  std::string why = std::string("family ") + family_name(spec.family) + " is not in it";
  for (const ManifestEntry& e : manifest()) {
    if (e.family != spec.family) continue;
    why = mismatch(spec, e);
    if (why.empty()) return "";
  }
  return "kernel '" + spec.name + "' is not in the xdna manifest (" + why + "); the NPU runs only: " + manifest_text();
}

}  // namespace tsr::xdna
