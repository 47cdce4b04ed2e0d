// Checks that a spec's ABI is usable. The kernel name stems exported symbols
// (the x86 shared object's `<kernel>_tsr_entry` and `<kernel>_tsr_entry_workspace`, the CUDA
// entry), so it must be a C identifier a C or CUDA program can declare. A
// runtime dimension name is only an ABI label (emitters never spell it in
// code), so any C identifier works as long as the bindings stay distinct.
// Static extents are bounded so no index an emitted kernel forms can overflow.
#include "codecs/codec.h"
#include "codecs/limits.h"
#include "spec/abi.h"
#include "support/c_identifiers.h"

namespace tsr {

void decode_kernel_name(const MapReader& m, KernelSpec& spec) {
  std::optional<std::string> name = m.required_string("kernel");
  if (!name) return;
  spec.name = *name;
  spec.location = m.get("kernel")->location;
  if (!is_c_identifier(*name)) {
    m.error(m.get("kernel"), "kernel name '" + *name + "' is not a C identifier");
    return;
  }
  if (std::optional<std::string> why = reserved_symbol_reason(*name))
    m.error(m.get("kernel"), "kernel name '" + *name + "' is reserved: " + *why +
                                 " (a kernel name becomes an exported C symbol)");
}

void check_shape_against_abi(const MapReader& m, const KernelSpec& spec,
                             const std::vector<std::pair<std::string, Dim>>& shape_keys) {
  const DocNode* shape = m.get("shape");
  if (!shape) return;
  MapReader s(*shape, m.file(), "shape", m.diag());
  const KernelAbi abi = kernel_abi(spec);
  for (const auto& [key, dim] : shape_keys) {
    if (dim.is_static()) continue;
    for (const Binding* b : abi.buffers())
      if (b->name == dim.name)
        s.error(s.get(key), "runtime dimension '" + key + "' may not be named '" + dim.name + "': the kernel's " +
                                (b->role == Role::output ? "output" : "input") +
                                " buffer has that name (ABI binding names must be unique)");
  }
  for (const Binding* b : abi.buffers()) {
    int64_t count = 1;
    std::string extents;
    bool over = false;
    for (const Dim& d : b->shape) {
      extents += (extents.empty() ? "" : ", ") + d.str();
      if (d.is_static()) {
        over = over || d.value > kMaxStaticElements / count;
        if (!over) count *= d.value;
      }
    }
    if (over)
      m.error(shape, "buffer '" + b->name + "' [" + extents + "] would hold more than " +
                         std::to_string(kMaxStaticElements) + " (2^48) elements, the limit per buffer");
  }
}

}  // namespace tsr
