// ABI check of PTX and cubin artifacts (PTX ISA: .entry parameter lists; ELF-64
// object file format; NVIDIA's .nv.info attribute records as written by ptxas:
// {u8 format, u8 attribute, u16 size-or-value, payload}). Every offset read
// from the cubin is bounds-checked: artifacts are treated as untrusted input.
#include "cuda/cuda_abi_check.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "support/elf64_reader.h"

namespace tsr::cuda {

namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::string binding_list(const KernelAbi& abi) {
  std::string s;
  for (const Binding& b : abi.bindings) s += (s.empty() ? "" : ", ") + b.name;
  return s;
}

}  // namespace

std::vector<PtxEntry> parse_ptx_entries(const std::string& ptx) {
  std::vector<PtxEntry> entries;
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string::npos) {
    const bool word_start = pos == 0 || std::isspace(static_cast<unsigned char>(ptx[pos - 1]));
    pos += 6;
    if (!word_start || pos >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[pos]))) continue;
    while (pos < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[pos]))) ++pos;
    size_t end = pos;
    while (end < ptx.size() && is_ident_char(ptx[end])) ++end;
    PtxEntry entry;
    entry.name = ptx.substr(pos, end - pos);
    pos = end;
    while (pos < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[pos]))) ++pos;
    if (pos < ptx.size() && ptx[pos] == '(') {
      const size_t close = ptx.find(')', pos);
      if (close == std::string::npos) break;
      const std::string list = ptx.substr(pos + 1, close - pos - 1);
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        const std::string item = trim(list.substr(start, comma - start));
        if (!item.empty()) {
          const std::vector<std::string> tokens = split_ws(item);
          PtxParam p;
          for (size_t i = 1; i < tokens.size(); ++i) {   // tokens[0] is .param
            const std::string& t = tokens[i];
            if (i + 1 == tokens.size()) p.name = t;
            else if (t == ".ptr") p.is_pointer = true;
            else if (p.type.empty() && t.size() > 1 && t[0] == '.' && std::isalpha(static_cast<unsigned char>(t[1])) &&
                     t != ".align" && t != ".global" && t != ".const" && t != ".local" && t != ".shared")
              p.type = t;
          }
          entry.params.push_back(p);
        }
        start = comma + 1;
      }
      pos = close;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

Status check_ptx_abi(const std::string& ptx, const std::string& entry, const KernelAbi& abi) {
  const std::vector<PtxEntry> entries = parse_ptx_entries(ptx);
  auto it = std::find_if(entries.begin(), entries.end(), [&](const PtxEntry& e) { return e.name == entry; });
  if (it == entries.end()) {
    std::string names;
    for (const PtxEntry& e : entries) names += (names.empty() ? "" : ", ") + e.name;
    return internal_error("internal error: PTX has no .entry '" + entry + "' (entries: " +
                           (names.empty() ? "none" : names) + ")");
  }
  if (it->params.size() != abi.bindings.size())
    return internal_error("internal error: PTX entry '" + entry + "' has " + std::to_string(it->params.size()) +
                           " parameters, the kernel ABI has " + std::to_string(abi.bindings.size()) + " (" +
                           binding_list(abi) + ")");
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding& b = abi.bindings[i];
    const PtxParam& p = it->params[i];
    const bool wide = p.type == ".u64" || p.type == ".s64" || p.type == ".b64";
    const bool want_pointer = b.role != Role::scalar;
    // NVRTC marks kernel pointer parameters with .ptr; an int64 never has it.
    if (!wide || (!want_pointer && p.is_pointer))
      return internal_error("internal error: PTX entry '" + entry + "' parameter " + std::to_string(i) + " is '" +
                             p.type + (p.is_pointer ? " .ptr" : "") + "', binding '" + b.name + "' (" +
                             role_name(b.role) + ") needs " + (want_pointer ? "a 64-bit pointer" : "an int64"));
  }
  return ok();
}

namespace {

using elf::Section;
using Reader = elf::Bytes;

constexpr uint16_t kEmCuda = 190;
constexpr uint8_t kEifmtSval = 4, kEifmtHval = 3, kEifmtBval = 2, kEifmtNval = 1;
constexpr uint8_t kEiattrKparamInfo = 0x17;

// EIATTR_KPARAM_INFO payload: u32 index, u16 ordinal, u16 offset, u32 flags
// whose bits 18..31 hold the parameter size in bytes.
std::optional<std::vector<uint32_t>> kparam_sizes(const Reader& r, const Section& info) {
  std::vector<std::pair<uint16_t, uint32_t>> params;
  uint64_t off = info.offset, end = info.offset + info.size;
  while (off + 4 <= end) {
    const uint8_t fmt = r.data[off], attr = r.data[off + 1];
    const uint16_t value = r.get<uint16_t>(off + 2);
    if (fmt == kEifmtSval) {
      if (off + 4 + value > end) return std::nullopt;
      if (attr == kEiattrKparamInfo && value >= 12) {
        const uint16_t ordinal = r.get<uint16_t>(off + 8);
        const uint32_t flags = r.get<uint32_t>(off + 12);
        params.emplace_back(ordinal, (flags >> 18) & 0x3fffu);
      }
      off += 4 + value;
    } else if (fmt == kEifmtHval || fmt == kEifmtBval || fmt == kEifmtNval) {
      off += 4;
    } else {
      return std::nullopt;   // unknown record format: stop rather than guess
    }
  }
  if (params.empty()) return std::nullopt;
  std::sort(params.begin(), params.end());
  std::vector<uint32_t> sizes;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].first != i) return std::nullopt;
    sizes.push_back(params[i].second);
  }
  return sizes;
}

}  // namespace

Expected<std::vector<CubinKernel>> read_cubin_kernels(const std::vector<uint8_t>& cubin) {
  const Reader r{cubin};
  Expected<elf::Object> object = elf::read_object(cubin, kEmCuda, "EM_CUDA", "cubin");
  if (!object) return object.take_error();
  const std::vector<Section>& sections = object->sections;
  const size_t shstrndx = object->shstrndx;
  Expected<std::vector<elf::Symbol>> symbols = elf::read_symbols(r, *object, elf::kShtSymtab, "cubin");
  if (!symbols) return symbols.take_error();
  std::vector<CubinKernel> kernels;
  for (const elf::Symbol& symbol : *symbols)
    if (symbol.type == elf::kSttFunc) kernels.push_back({symbol.name, std::nullopt});
  for (CubinKernel& k : kernels) {
    for (const Section& s : sections) {
      const std::optional<std::string> name = elf::cstring_at(r, sections[shstrndx], s.name);
      if (name && *name == ".nv.info." + k.name) k.param_sizes = kparam_sizes(r, s);
    }
  }
  return kernels;
}

Status check_cubin_abi(const std::vector<uint8_t>& cubin, const std::string& entry, const KernelAbi& abi) {
  Expected<std::vector<CubinKernel>> kernels = read_cubin_kernels(cubin);
  if (!kernels) return kernels.take_error();
  auto it = std::find_if(kernels->begin(), kernels->end(), [&](const CubinKernel& k) { return k.name == entry; });
  if (it == kernels->end()) return internal_error("internal error: cubin has no function symbol '" + entry + "'");
  if (it->param_sizes) {
    const std::vector<uint32_t>& sizes = *it->param_sizes;
    bool match = sizes.size() == abi.bindings.size();
    for (uint32_t s : sizes) match = match && s == 8;
    if (!match) {
      std::string got;
      for (uint32_t s : sizes) got += (got.empty() ? "" : ", ") + std::to_string(s);
      return internal_error("internal error: cubin kernel '" + entry + "' records parameter sizes [" + got +
                             "], the kernel ABI needs " + std::to_string(abi.bindings.size()) +
                             " parameters of 8 bytes (" + binding_list(abi) + ")");
    }
  }
  return ok();
}

}  // namespace tsr::cuda
