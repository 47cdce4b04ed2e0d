// Writes the seed corpus for archive_reader_fuzz.c into the given directory:
// small valid archives of each shape plus a few damaged ones. The files in
// tests/fuzz/corpus/ were produced by this program; rerun it after a format
// change (see README.md).
#include <algorithm>
#include <cstdio>
#include <string>

#include "archive/archive_writer.h"
#include "support/sha256.h"

using namespace tsr;

namespace {

Artifact artifact(const std::string& kind, const std::string& arch, const std::string& akind, size_t size) {
  Artifact a;
  a.target = {kind, arch};
  a.kind = akind;
  a.entry = "k_tsr_entry";
  a.key = std::string(64, 'c');
  a.toolchain = "seed";
  a.bytes = std::vector<uint8_t>(size, uint8_t(size));
  return a;
}

ArchiveKernel kernel(const std::string& name) {
  ArchiveKernel k;
  k.name = name;
  k.identity = std::string(64, '1');
  k.family = "elementwise";
  k.dtype = DType::f16;
  k.abi.bindings = {Binding{"a", Role::input, DType::f16, {Dim{0, "n"}, Dim{8, ""}}},
                    Binding{"b", Role::output, DType::f16, {Dim{0, "n"}, Dim{8, ""}}},
                    Binding{"n", Role::scalar, DType::f32, {}}};
  k.variants = {artifact("x86", "v2", "shared_object", 40), artifact("x86", "v4+amx", "shared_object", 24),
                artifact("cuda", "sm_90", "cubin", 16), artifact("cuda", "ptx", "ptx", 8)};
  k.variants[2].metadata = {{"cuda.block", "128,1,1"}, {"cuda.grid", "cdiv(n,128),1,1"}};
  k.verdicts = {OracleVerdictRecord{{"x86", "v2"}, ArchiveVerdict::fail, 1.5, 0.25, 1e-3, 1e-3, 7, "index 3"}};
  return k;
}

// The archive with another version field; the header SHA-256 sealed again,
// so a reader's refusal is for the version alone.
std::vector<uint8_t> with_version(std::vector<uint8_t> b, uint16_t major) {
  b[8] = uint8_t(major);
  b[9] = uint8_t(major >> 8);
  std::fill(b.begin() + 96, b.begin() + 128, 0);
  const std::vector<uint8_t> digest = sha256(b.data(), 128);
  std::copy(digest.begin(), digest.end(), b.begin() + 96);
  return b;
}

bool save(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen((dir + "/" + name).c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  ArchiveContents empty;
  ArchiveContents meta;
  meta.metadata = {{"tesserac.version", "0.1.0"}, {"z", ""}};
  ArchiveContents one = meta;
  one.kernels = {kernel("gemm")};
  ArchiveContents two = one;
  two.kernels.push_back(kernel("add"));
  two.kernels.back().variants.resize(1);
  two.kernels.back().verdicts.clear();
  bool ok = true;
  std::vector<uint8_t> two_bytes = *serialize_archive(two);
  ok &= save(dir, "empty.tfat", *serialize_archive(empty));
  ok &= save(dir, "metadata_only.tfat", *serialize_archive(meta));
  ok &= save(dir, "one_kernel.tfat", *serialize_archive(one));
  ok &= save(dir, "two_kernels.tfat", two_bytes);
  // Format 2.1: receipts bound to two of gemm's variants.
  ArchiveContents receipts = one;
  for (const char* arch : {"v2", "v4+amx"})
    for (const Artifact& a : receipts.kernels[0].variants)
      if (a.target.arch == arch)
        receipts.kernels[0].receipts.push_back(ArchiveReceipt{a.target, sha256_hex(a.bytes.data(), a.bytes.size()),
                                                              std::string("format_version = 1 # ") + arch + "\n"});
  ok &= save(dir, "receipts.tfat", *serialize_archive(receipts));
  std::vector<uint8_t> truncated(two_bytes.begin(), two_bytes.begin() + 200);
  ok &= save(dir, "truncated.tfat", truncated);
  ok &= save(dir, "future_major.tfat", with_version(two_bytes, kArchiveMajor + 1));
  ok &= save(dir, "format_1_major.tfat", with_version(two_bytes, 1));   // kernel ABI v1: refused by name
  return ok ? 0 : 1;
}
