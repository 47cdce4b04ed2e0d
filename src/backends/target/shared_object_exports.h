// What a host shared object (ELF-64 x86-64: an x86 artifact, an emulated
// GPU module) exports, read from its dynamic symbol table: the table dlsym
// searches, so a name found here is a name the stub or emulator can resolve.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/error.h"

namespace tsr {

struct RequiredExport {
  std::string name;
  bool function = true;   // STT_FUNC; false: any defined symbol (data)
};

// Each required name must be a defined, global (or weak), default-visibility
// symbol of .dynsym, of function type where asked. The error names the
// first one missing, e.g. "internal error: x86 artifact of
// kernel 'k' does not export function 'k_tsr_entry_workspace' (its dynamic
// symbol table has: k_tsr_entry)". `what` names the artifact.
Status require_exports(const std::vector<uint8_t>& shared_object, const std::vector<RequiredExport>& required,
                       const std::string& what);

}  // namespace tsr
