// ELF-64 section table and note reading (System V gABI), bounds-checked.
#include "support/elf64_reader.h"

namespace tsr::elf {

Expected<Object> read_object(const std::vector<uint8_t>& bytes, uint16_t machine, const std::string& machine_name,
                             const std::string& what) {
  const Bytes r{bytes};
  auto bad = [&](const std::string& why) { return internal_error("internal error: malformed " + what + ": " + why); };
  if (!r.fits(0, 64) || std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0) return bad("no ELF header");
  if (bytes[4] != 2 || bytes[5] != 1) return bad("not a little-endian ELF-64 object");
  if (r.get<uint16_t>(18) != machine) return bad("e_machine is not " + machine_name);
  const uint64_t shoff = r.get<uint64_t>(40);
  const uint16_t shentsize = r.get<uint16_t>(58), shnum = r.get<uint16_t>(60);
  Object object;
  object.shstrndx = r.get<uint16_t>(62);
  if (shentsize < 64 || !r.fits(shoff, uint64_t{shentsize} * shnum)) return bad("section table out of range");
  object.sections.resize(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + uint64_t{i} * shentsize;
    Section& s = object.sections[i];
    s.name = r.get<uint32_t>(h);
    s.type = r.get<uint32_t>(h + 4);
    s.offset = r.get<uint64_t>(h + 24);
    s.size = r.get<uint64_t>(h + 32);
    s.link = r.get<uint32_t>(h + 40);
    s.entsize = r.get<uint64_t>(h + 56);
    if (s.type != kShtNobits && !r.fits(s.offset, s.size)) return bad("section data out of range");
  }
  if (object.shstrndx >= shnum) return bad("no section name table");
  return object;
}

std::optional<std::string> cstring_at(const Bytes& r, const Section& strtab, uint64_t index) {
  if (index >= strtab.size || !r.fits(strtab.offset, strtab.size)) return std::nullopt;
  const uint64_t start = strtab.offset + index, end_limit = strtab.offset + strtab.size;
  uint64_t end = start;
  while (end < end_limit && r.data[end] != 0) ++end;
  if (end == end_limit) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(r.data.data() + start), end - start);
}

Expected<std::vector<Symbol>> read_symbols(const Bytes& r, const Object& object, uint32_t table_type,
                                           const std::string& what) {
  auto bad = [&](const std::string& why) { return internal_error("internal error: malformed " + what + ": " + why); };
  std::vector<Symbol> symbols;
  for (const Section& table : object.sections) {
    if (table.type != table_type) continue;
    if (table.link >= object.sections.size() || table.entsize < 24) return bad("symbol table without string table");
    const Section& strtab = object.sections[table.link];
    for (uint64_t off = 0; table.size >= 24 && off <= table.size - 24; off += table.entsize) {
      const uint64_t at = table.offset + off;
      Symbol s;
      s.type = r.data[at + 4] & 0xf;
      s.binding = r.data[at + 4] >> 4;
      s.visibility = r.data[at + 5] & 3;
      s.section = r.get<uint16_t>(at + 6);
      const std::optional<std::string> name = cstring_at(r, strtab, r.get<uint32_t>(at));
      if (!name) return bad("symbol name out of range");
      s.name = *name;
      symbols.push_back(std::move(s));
    }
  }
  return symbols;
}

namespace {
uint64_t pad4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }
}  // namespace

std::optional<std::vector<Note>> read_notes(const Bytes& r, const Section& section) {
  if (!r.fits(section.offset, section.size)) return std::nullopt;
  std::vector<Note> notes;
  uint64_t off = 0;
  while (off < section.size) {
    if (section.size - off < 12) return std::nullopt;
    const uint64_t at = section.offset + off;
    const uint64_t namesz = r.get<uint32_t>(at), descsz = r.get<uint32_t>(at + 4);
    // Each size is below 2^32, so the sums cannot overflow 64 bits.
    const uint64_t name_at = off + 12, desc_at = name_at + pad4(namesz), next = desc_at + pad4(descsz);
    if (next > section.size) return std::nullopt;
    Note note;
    note.type = r.get<uint32_t>(at + 8);
    const char* name = reinterpret_cast<const char*>(r.data.data() + section.offset + name_at);
    note.name.assign(name, namesz);
    if (!note.name.empty() && note.name.back() == '\0') note.name.pop_back();
    note.desc_offset = section.offset + desc_at;
    note.desc_size = descsz;
    notes.push_back(std::move(note));
    off = next;
  }
  return notes;
}

}  // namespace tsr::elf
