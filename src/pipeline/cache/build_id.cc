#include "cache/build_id.h"

#include <elf.h>
#include <link.h>

#include <cstring>

#include "support/file_io.h"
#include "support/sha256.h"

namespace tsr {

namespace {

// The first object dl_iterate_phdr reports is the main program.
int find_build_id(struct dl_phdr_info* info, size_t, void* out) {
  auto* id = static_cast<std::string*>(out);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (desc + note->n_descsz > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        *id = to_hex(reinterpret_cast<const uint8_t*>(desc), note->n_descsz);
        return 1;
      }
      p = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 1;   // only the main program
}

}  // namespace

std::string program_build_id() {
  std::string id;
  dl_iterate_phdr(find_build_id, &id);
  if (!id.empty()) return id;
  Expected<std::string> exe = read_input_file("/proc/self/exe", uint64_t{1} << 31, "the running program");
  return exe ? "sha256:" + sha256_hex(*exe) : "unknown";
}

}  // namespace tsr
