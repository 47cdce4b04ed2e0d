// Reading the AMDGPU metadata note (LLVM AMDGPUUsage, "Code Object V4
// Metadata": amdhsa.target, amdhsa.kernels[].{.name, .symbol,
// .kernarg_segment_size, .wavefront_size, .args[].{.size, .offset,
// .value_kind}}; "Target Triples" and "Target ID" for the target string) with the shared bounds-checked ELF
// reader and nlohmann::json's MessagePack reader: the artifact is untrusted.
#include "hip/hip_abi_check.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/elf64_reader.h"

namespace tsr::hip {

namespace {

constexpr uint16_t kEmAmdgpu = 224;
constexpr uint32_t kNtAmdgpuMetadata = 32;

using nlohmann::json;

Error bad(const std::string& why) { return internal_error("internal error: malformed code object: " + why); }

// A required field of `object` of the wanted type, or nullptr.
const json* field(const json& object, const char* key, json::value_t type) {
  auto it = object.find(key);
  if (it == object.end()) return nullptr;
  const bool integer = type == json::value_t::number_unsigned;
  if (integer ? !it->is_number_unsigned() : it->type() != type) return nullptr;
  return &*it;
}

Expected<CodeObjectKernel> kernel_from(const json& k, size_t index) {
  const std::string where = "amdhsa.kernels[" + std::to_string(index) + "]";
  if (!k.is_object()) return bad(where + " is not a map");
  const json* name = field(k, ".name", json::value_t::string);
  const json* symbol = field(k, ".symbol", json::value_t::string);
  const json* kernarg = field(k, ".kernarg_segment_size", json::value_t::number_unsigned);
  const json* wave = field(k, ".wavefront_size", json::value_t::number_unsigned);
  if (!name || !symbol || !kernarg || !wave)
    return bad(where + " lacks .name, .symbol, .kernarg_segment_size or .wavefront_size");
  CodeObjectKernel out{name->get<std::string>(), symbol->get<std::string>(), kernarg->get<uint64_t>(),
                       wave->get<uint64_t>(), {}};
  auto args = k.find(".args");
  if (args == k.end()) return out;   // a kernel without arguments has no .args
  if (!args->is_array()) return bad(where + ".args is not an array");
  for (size_t i = 0; i < args->size(); ++i) {
    const json& a = (*args)[i];
    const json* size = a.is_object() ? field(a, ".size", json::value_t::number_unsigned) : nullptr;
    const json* offset = a.is_object() ? field(a, ".offset", json::value_t::number_unsigned) : nullptr;
    const json* kind = a.is_object() ? field(a, ".value_kind", json::value_t::string) : nullptr;
    if (!size || !offset || !kind)
      return bad(where + ".args[" + std::to_string(i) + "] lacks .size, .offset or .value_kind");
    out.args.push_back({size->get<uint64_t>(), offset->get<uint64_t>(), kind->get<std::string>()});
  }
  return out;
}

std::string binding_list(const KernelAbi& abi) {
  std::string s;
  for (const Binding& b : abi.bindings) s += (s.empty() ? "" : ", ") + b.name;
  return s;
}

bool is_hidden(const KernargInfo& a) { return a.value_kind.rfind("hidden_", 0) == 0; }

// amdhsa.target is "amdgcn-amd-amdhsa--<processor>[:<feature><+|->]...";
// clang writes no feature for one built "any" (--offload-arch=<gfx>).
Status check_target(const std::string& target, const HipArch& arch) {
  const std::string want = "amdgcn-amd-amdhsa--" + arch.name;
  if (target == want) return ok();
  const std::string what = "internal error: code object for hip:" + arch.name + " ";
  if (target.empty()) return internal_error(what + "has no amdhsa.target");
  if (target.rfind(want + ":", 0) == 0)
    return internal_error(what + "targets '" + target + "': features " + target.substr(want.size() + 1) +
                           " restrict the devices that load it, the artifact is recorded as " + arch.name +
                           " with xnack and sramecc any ('" + want + "')");
  return internal_error(what + "targets '" + target + "', expected '" + want + "'");
}

}  // namespace

Expected<CodeObjectMetadata> read_code_object_metadata(const std::vector<uint8_t>& code_object) {
  Expected<elf::Object> object = elf::read_object(code_object, kEmAmdgpu, "EM_AMDGPU", "code object");
  if (!object) return object.take_error();
  const elf::Bytes r{code_object};
  std::optional<elf::Note> metadata;
  for (const elf::Section& s : object->sections) {
    if (s.type != elf::kShtNote) continue;
    const std::optional<std::vector<elf::Note>> notes = elf::read_notes(r, s);
    if (!notes) return bad("a note runs past its section");
    for (const elf::Note& n : *notes)
      if (n.name == "AMDGPU" && n.type == kNtAmdgpuMetadata) metadata = n;
  }
  if (!metadata) return bad("no NT_AMDGPU_METADATA note");
  json doc;
  try {
    const auto begin = code_object.begin() + static_cast<std::ptrdiff_t>(metadata->desc_offset);
    doc = json::from_msgpack(begin, begin + static_cast<std::ptrdiff_t>(metadata->desc_size));
  } catch (const json::exception& e) {
    return bad(std::string("the metadata note is not MessagePack (") + e.what() + ")");
  }
  if (!doc.is_object()) return bad("the metadata note is not a map");
  CodeObjectMetadata out;
  if (const json* target = field(doc, "amdhsa.target", json::value_t::string)) out.target = target->get<std::string>();
  const json* kernels = field(doc, "amdhsa.kernels", json::value_t::array);
  if (!kernels) return bad("the metadata has no amdhsa.kernels array");
  for (size_t i = 0; i < kernels->size(); ++i) {
    Expected<CodeObjectKernel> k = kernel_from((*kernels)[i], i);
    if (!k) return k.take_error();
    out.kernels.push_back(std::move(*k));
  }
  return out;
}

Status check_code_object_abi(const std::vector<uint8_t>& code_object, const HipArch& arch, const std::string& entry,
                             const KernelAbi& abi) {
  Expected<CodeObjectMetadata> meta = read_code_object_metadata(code_object);
  if (!meta) return meta.take_error();
  if (Status s = check_target(meta->target, arch); !s) return s;
  auto it = std::find_if(meta->kernels.begin(), meta->kernels.end(),
                         [&](const CodeObjectKernel& k) { return k.name == entry; });
  if (it == meta->kernels.end()) {
    std::string names;
    for (const CodeObjectKernel& k : meta->kernels) names += (names.empty() ? "" : ", ") + k.name;
    return internal_error("internal error: code object has no kernel '" + entry + "' (kernels: " +
                           (names.empty() ? "none" : names) + ")");
  }
  const std::string what = "internal error: code object kernel '" + entry + "' ";
  if (it->symbol != entry + ".kd")
    return internal_error(what + "has kernel descriptor '" + it->symbol + "', expected '" + entry + ".kd'");
  // The emitted reductions and MFMA layouts assume the arch's wavefront size.
  if (it->wavefront_size != static_cast<uint64_t>(arch.wave_size))
    return internal_error(what + "has wavefront size " + std::to_string(it->wavefront_size) + ", " + arch.name +
                           " kernels are built for " + std::to_string(arch.wave_size));
  size_t explicit_count = 0;
  while (explicit_count < it->args.size() && !is_hidden(it->args[explicit_count])) ++explicit_count;
  if (explicit_count != abi.bindings.size())
    return internal_error(what + "has " + std::to_string(explicit_count) + " explicit arguments, the kernel ABI has " +
                           std::to_string(abi.bindings.size()) + " (" + binding_list(abi) + ")");
  for (size_t i = explicit_count; i < it->args.size(); ++i)
    if (!is_hidden(it->args[i]) || it->args[i].offset < 8 * explicit_count)
      return internal_error(what + "argument " + std::to_string(i) + " (" + it->args[i].value_kind +
                             ") follows the hidden arguments or overlaps the explicit ones");
  for (size_t i = 0; i < explicit_count; ++i) {
    const Binding& b = abi.bindings[i];
    const KernargInfo& a = it->args[i];
    const std::string want = b.role == Role::scalar ? "by_value" : "global_buffer";
    if (a.value_kind != want || a.size != 8 || a.offset != 8 * i)
      return internal_error(what + "argument " + std::to_string(i) + " is " + a.value_kind + " of " +
                             std::to_string(a.size) + " bytes at offset " + std::to_string(a.offset) + ", binding '" +
                             b.name + "' (" + role_name(b.role) + ") needs " + want + " of 8 bytes at offset " +
                             std::to_string(8 * i));
  }
  if (it->kernarg_segment_size < 8 * explicit_count)
    return internal_error(what + "has a kernarg segment of " + std::to_string(it->kernarg_segment_size) +
                           " bytes, smaller than its " + std::to_string(explicit_count) + " explicit arguments");
  return ok();
}

}  // namespace tsr::hip
