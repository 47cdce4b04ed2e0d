// Static __shared__ variable names from a module's ELF symbol table
// (shared_symbols.h). The module is our own clang output, but it is read as
// untrusted bytes all the same: every table is range-checked before use.
#include "emulator/shared_symbols.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>

namespace tsr::cuda::emu {

namespace {

// Copies a T at `offset` of `bytes`, or returns false when it does not fit.
template <class T>
bool read_at(const std::vector<uint8_t>& bytes, uint64_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// The NUL-terminated string at `offset` of the string table [start, start+size).
std::string string_at(const std::vector<uint8_t>& bytes, uint64_t start, uint64_t size, uint64_t offset) {
  if (start > bytes.size() || size > bytes.size() - start || offset >= size) return "";
  const char* s = reinterpret_cast<const char*>(bytes.data() + start + offset);
  return std::string(s, strnlen(s, size - offset));
}

// `_ZZ2ewE3buf` (a function-local static) becomes "buf".
std::string variable_name(const std::string& symbol) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : symbol;
  std::free(demangled);
  const size_t colons = name.rfind("::");
  return colons == std::string::npos ? name : name.substr(colons + 2);
}

}  // namespace

std::vector<SharedSymbol> shared_symbols(const std::vector<uint8_t>& module) {
  Elf64_Ehdr eh;
  if (!read_at(module, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr))
    return {};
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (uint16_t i = 0; i < eh.e_shnum; ++i)
    if (!read_at(module, eh.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr), sections[i])) return {};
  if (eh.e_shstrndx >= sections.size()) return {};
  const Elf64_Shdr& names = sections[eh.e_shstrndx];
  int shared = -1, symtab = -1;
  for (size_t i = 0; i < sections.size(); ++i) {
    if (string_at(module, names.sh_offset, names.sh_size, sections[i].sh_name) == "tsr_emu_shared") shared = int(i);
    if (sections[i].sh_type == SHT_SYMTAB) symtab = int(i);
  }
  if (shared < 0 || symtab < 0 || sections[symtab].sh_link >= sections.size() ||
      sections[symtab].sh_entsize != sizeof(Elf64_Sym))
    return {};
  const Elf64_Shdr& strings = sections[sections[symtab].sh_link];
  std::vector<SharedSymbol> out;
  for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= sections[symtab].sh_size; at += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    if (!read_at(module, sections[symtab].sh_offset + at, sym)) return {};
    // Size 0: markers the linker puts at the section end (__TMC_END__), not variables.
    if (sym.st_shndx != shared || ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size == 0 ||
        sym.st_value < sections[shared].sh_addr)
      continue;
    out.push_back({sym.st_value - sections[shared].sh_addr, sym.st_size,
                   variable_name(string_at(module, strings.sh_offset, strings.sh_size, sym.st_name))});
  }
  return out;
}

std::string shared_symbol_at(const std::vector<SharedSymbol>& symbols, uint64_t offset) {
  for (const SharedSymbol& s : symbols)
    if (offset >= s.offset && offset - s.offset < s.size) return s.name + " + " + std::to_string(offset - s.offset);
  return "";
}

}  // namespace tsr::cuda::emu
