// The names of a kernel module's static __shared__ variables, for racecheck
// and memcheck reports. They are local symbols (function-local statics) in
// the module's `tsr_emu_shared` section, so only the ELF symbol table has
// them: the dynamic symbol table and dladdr do not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tsr::cuda::emu {

struct SharedSymbol {
  uint64_t offset;    // from the start of the section
  uint64_t size;
  std::string name;   // the variable's own name ("red", "As")
};

// Reads the ELF64 symbol table of `module` (ELF gABI, "Sections" and "Symbol
// Table"); every offset is checked, and anything unexpected (not ELF64, no
// symbol table, a stripped module) gives an empty list: reports then give
// the offset alone.
std::vector<SharedSymbol> shared_symbols(const std::vector<uint8_t>& module);

// "red + 4" for an offset inside a known variable, "" otherwise.
std::string shared_symbol_at(const std::vector<SharedSymbol>& symbols, uint64_t offset);

}  // namespace tsr::cuda::emu
