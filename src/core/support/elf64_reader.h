// A bounds-checked reader of little-endian ELF-64 objects (System V gABI,
// "ELF Header", "Sections", "Note Section"), shared by the ABI checks of GPU
// code objects (cubins, AMDGPU code objects) and of x86 shared objects. Artifacts are untrusted input:
// every offset and length is checked before use, with overflow-safe sums.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "support/error.h"

namespace tsr::elf {

struct Bytes {
  const std::vector<uint8_t>& data;
  // [off, off+len) lies inside the object.
  bool fits(uint64_t off, uint64_t len) const { return off <= data.size() && len <= data.size() - off; }
  // Only after fits(off, sizeof(T)).
  template <typename T>
  T get(uint64_t off) const {
    T v{};
    std::memcpy(&v, data.data() + off, sizeof v);
    return v;
  }
};

constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtNote = 7;
constexpr uint32_t kShtNobits = 8;
constexpr uint32_t kShtDynsym = 11;

constexpr uint8_t kSttFunc = 2;     // st_info & 0xf
constexpr uint8_t kStbGlobal = 1;   // st_info >> 4
constexpr uint8_t kStbWeak = 2;
constexpr uint16_t kShnUndef = 0;

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
};

struct Object {
  std::vector<Section> sections;
  uint16_t shstrndx = 0;   // < sections.size()
};

// The section table of an ELF-64 little-endian object for `machine`
// (e_machine); every section's data (but SHT_NOBITS) lies inside the object.
// Errors read "internal error: malformed <what>: <why>", e.g. "no ELF header",
// "e_machine is not <machine_name>", "section table out of range".
Expected<Object> read_object(const std::vector<uint8_t>& bytes, uint16_t machine, const std::string& machine_name,
                             const std::string& what);

// The NUL-terminated string at `index` of string table `strtab`, or nullopt
// when it runs outside the table.
std::optional<std::string> cstring_at(const Bytes& b, const Section& strtab, uint64_t index);

// One entry of a symbol table (gABI "Symbol Table").
struct Symbol {
  std::string name;
  uint8_t type = 0;         // STT_*
  uint8_t binding = 0;      // STB_*
  uint8_t visibility = 0;   // STV_* (st_other & 3)
  uint16_t section = 0;     // st_shndx; kShnUndef: not defined here
};

// Every symbol of every section of `table_type` (kShtSymtab, kShtDynsym),
// names read from the table's linked string table. Errors read
// "internal error: malformed <what>: <why>".
Expected<std::vector<Symbol>> read_symbols(const Bytes& b, const Object& object, uint32_t table_type,
                                           const std::string& what);

// One ELF note (gABI "Note Section": namesz, descsz, type, name and
// descriptor each padded to 4 bytes).
struct Note {
  std::string name;          // without its NUL
  uint32_t type = 0;
  uint64_t desc_offset = 0;  // into the object, in range
  uint64_t desc_size = 0;
};

// The notes of one SHT_NOTE section, or nullopt when one runs past the section.
std::optional<std::vector<Note>> read_notes(const Bytes& b, const Section& notes);

}  // namespace tsr::elf
