#include "target/shared_object_exports.h"

#include <algorithm>

#include "support/elf64_reader.h"

namespace tsr {

namespace {
constexpr uint16_t kEmX86_64 = 62;
constexpr uint8_t kStvDefault = 0;
}  // namespace

Status require_exports(const std::vector<uint8_t>& shared_object, const std::vector<RequiredExport>& required,
                       const std::string& what) {
  Expected<elf::Object> object = elf::read_object(shared_object, kEmX86_64, "EM_X86_64", what);
  if (!object) return object.take_error();
  Expected<std::vector<elf::Symbol>> symbols =
      elf::read_symbols(elf::Bytes{shared_object}, *object, elf::kShtDynsym, what);
  if (!symbols) return symbols.take_error();
  std::vector<const elf::Symbol*> exported;
  for (const elf::Symbol& s : *symbols)
    if (s.section != elf::kShnUndef && !s.name.empty() && s.visibility == kStvDefault &&
        (s.binding == elf::kStbGlobal || s.binding == elf::kStbWeak))
      exported.push_back(&s);
  for (const RequiredExport& want : required) {
    const bool found = std::any_of(exported.begin(), exported.end(), [&](const elf::Symbol* s) {
      return s->name == want.name && (!want.function || s->type == elf::kSttFunc);
    });
    if (found) continue;
    std::string names;
    for (const elf::Symbol* s : exported) names += (names.empty() ? "" : ", ") + s->name;
    return internal_error("internal error: " + what + " does not export " +
                          (want.function ? "function '" : "symbol '") + want.name +
                          "' (its dynamic symbol table has: " + (names.empty() ? "nothing" : names) + ")");
  }
  return ok();
}

}  // namespace tsr
