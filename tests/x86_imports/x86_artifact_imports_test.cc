// Every x86 artifact of every shipped spec, at every tier, is self-contained:
// its dynamic imports are a few libc memory functions and the loader's weak
// hooks (no libm transcendental: the vector math is inline, docs/targets-x86.md
// "Vector math"), and it needs no library beyond libc and libm. Read with
// LLVM's object library (ELF dynamic symbol table and DT_NEEDED).
#include <gtest/gtest.h>

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <set>
#include <string>
#include <vector>

#include "registry/registry.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

// The imports an emitted kernel may have: struct copies and zeroing that clang
// lowers to libc calls, and the weak symbols of the C runtime's startup files.
const std::set<std::string> kAllowedImports = {"memcpy", "memset", "memmove", "__cxa_finalize", "__gmon_start__",
                                               "_ITM_registerTMCloneTable", "_ITM_deregisterTMCloneTable"};
const std::set<std::string> kAllowedNeeded = {"libc.so.6", "libm.so.6"};

struct Imports {
  std::vector<std::string> undefined;   // undefined dynamic symbols, version suffix dropped
  std::vector<std::string> needed;      // DT_NEEDED
  std::string error;
};

Imports read_imports(const std::vector<uint8_t>& bytes) {
  Imports out;
  const llvm::StringRef data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto object = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(data, "kernel.so"));
  if (!object) {
    out.error = llvm::toString(object.takeError());
    return out;
  }
  const auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(object->get());
  if (!elf) {
    out.error = "not an ELF64 little-endian object";
    return out;
  }
  for (const llvm::object::ELFSymbolRef& sym : elf->getDynamicSymbolIterators()) {
    auto flags = sym.getFlags();
    auto name = sym.getName();
    if (!flags || !name) {
      out.error = "unreadable dynamic symbol";
      llvm::consumeError(flags.takeError());
      llvm::consumeError(name.takeError());
      return out;
    }
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) && !name->empty()) out.undefined.push_back(name->str());
  }
  const auto& file = elf->getELFFile();
  auto dynamic = file.dynamicEntries();
  if (!dynamic) {
    out.error = llvm::toString(dynamic.takeError());
    return out;
  }
  auto strtab_at = [&](uint64_t vaddr) -> const char* {
    auto p = file.toMappedAddr(vaddr);
    if (!p) { llvm::consumeError(p.takeError()); return nullptr; }
    return reinterpret_cast<const char*>(*p);
  };
  const char* strtab = nullptr;
  for (const auto& d : *dynamic)
    if (d.d_tag == llvm::ELF::DT_STRTAB) strtab = strtab_at(d.getPtr());
  for (const auto& d : *dynamic)
    if (d.d_tag == llvm::ELF::DT_NEEDED && strtab) out.needed.push_back(strtab + d.getVal());
  return out;
}

class X86ArtifactImports : public ::testing::TestWithParam<std::string> {};

TEST_P(X86ArtifactImports, OnlyLibcMemoryFunctionsAndNoLibmTranscendental) {
  const Target* target = find_target("x86");
  if (!target || !target->toolchain().found) GTEST_SKIP() << "x86 toolchain (clang) not available";
  std::string errors;
  const std::vector<KernelSpec> specs = spec_builders::shipped_specs(&errors);
  ASSERT_TRUE(errors.empty()) << errors;
  const KernelSpec* spec = nullptr;
  for (const KernelSpec& s : specs)
    if (s.name == GetParam()) spec = &s;
  ASSERT_NE(spec, nullptr) << GetParam();
  for (const std::string& arch : target->archs()) {
    Expected<std::string> source = target->emit(*spec, arch);
    ASSERT_TRUE(source.ok()) << source.error().message();
    Expected<Artifact> art = target->compile(*spec, arch, *source);
    ASSERT_TRUE(art.ok()) << art.error().message();
    const Imports imports = read_imports(art->bytes);
    ASSERT_TRUE(imports.error.empty()) << imports.error;
    ASSERT_FALSE(imports.needed.empty()) << "no DT_NEEDED read: the reader is broken";
    for (const std::string& sym : imports.undefined)
      EXPECT_TRUE(kAllowedImports.count(sym)) << spec->name << " x86:" << arch << " imports '" << sym << "'";
    for (const std::string& lib : imports.needed)
      EXPECT_TRUE(kAllowedNeeded.count(lib)) << spec->name << " x86:" << arch << " needs '" << lib << "'";
  }
}

// The reader itself: a kernel calling libm's expf must be caught.
TEST(X86ArtifactImportsReader, SeesALibmImport) {
  const Target* target = find_target("x86");
  if (!target || !target->toolchain().found) GTEST_SKIP() << "x86 toolchain (clang) not available";
  std::string errors;
  const std::vector<KernelSpec> specs = spec_builders::shipped_specs(&errors);
  ASSERT_FALSE(specs.empty());
  Expected<std::string> source = target->emit(specs.front(), "v2");
  ASSERT_TRUE(source.ok());
  const std::string with_libm = *source + "\n__attribute__((visibility(\"default\"))) float tsr_probe(float x) { return expf(x) + erff(x); }\n";
  Expected<Artifact> art = target->compile(specs.front(), "v2", with_libm);
  ASSERT_TRUE(art.ok()) << art.error().message();
  const Imports imports = read_imports(art->bytes);
  ASSERT_TRUE(imports.error.empty()) << imports.error;
  const std::set<std::string> undefined(imports.undefined.begin(), imports.undefined.end());
  EXPECT_TRUE(undefined.count("expf"));
  EXPECT_TRUE(undefined.count("erff"));
  EXPECT_TRUE(std::set<std::string>(imports.needed.begin(), imports.needed.end()).count("libm.so.6"));
}

std::vector<std::string> shipped_spec_names() {
  std::vector<std::string> names;
  for (const KernelSpec& s : spec_builders::shipped_specs(nullptr)) names.push_back(s.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(ShippedSpecs, X86ArtifactImports, ::testing::ValuesIn(shipped_spec_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace tsr
