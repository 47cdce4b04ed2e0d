// The .tfat writer: canonical order, deduplicated string table, 8-byte
// aligned index sections, page-aligned blobs (docs/archive-format.md).
#include "archive/archive_writer.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "archive/archive_reader.h"
#include "archive/wire_codes.h"
#include "support/file_io.h"
#include "support/sha256.h"
#include "tesserart.h"

namespace tsr {
namespace {

// What the format cannot represent at all; every other rule of
// docs/archive-format.md is the stub's validator's, run on the bytes
// (serialize_archive), so writer and reader never disagree about one.
Status representable_string(const std::string& where, const std::string& s) {
  if (s.find('\0') != std::string::npos) return invalid_input(where + ": string '" + s.substr(0, 40) + "' contains a NUL byte");
  if (s.size() > UINT32_MAX / 2) return invalid_input(where + ": string is too long");
  return ok();
}

Status representable_metadata(const std::string& where, const std::map<std::string, std::string>& m) {
  for (const auto& [key, value] : m) {
    Status s = representable_string(where + " metadata", key);
    if (s) s = representable_string(where + " metadata", value);
    if (!s) return s;
  }
  return ok();
}

Status representable_kernel(const ArchiveKernel& k) {
  const std::string where = "kernel '" + k.name + "'";
  for (const std::string* f : {&k.name, &k.identity, &k.family}) {
    Status s = representable_string(where, *f);
    if (!s) return s;
  }
  std::vector<std::string> scalars = k.abi.scalar_names();
  for (const Binding& b : k.abi.bindings) {
    if (Status s = representable_string(where, b.name); !s) return s;
    for (const Dim& d : b.shape)
      if (!d.is_static() && std::find(scalars.begin(), scalars.end(), d.name) == scalars.end())
        return invalid_input(where + ": shape of '" + b.name + "' uses '" + d.name + "', which is not a runtime scalar");
  }
  for (const Artifact& a : k.variants) {
    const std::string vw = where + " variant " + a.target.str();
    if (artifact_kind_tag(a.kind) == 0) return invalid_input(vw + ": unknown artifact kind '" + a.kind + "'");
    for (const std::string* f : {&a.target.kind, &a.target.arch, &a.entry, &a.key, &a.toolchain})
      if (Status s = representable_string(vw, *f); !s) return s;
    if (Status s = representable_metadata(vw, a.metadata); !s) return s;
  }
  for (const OracleVerdictRecord& v : k.verdicts) {
    const std::string vw = where + " verdict " + v.target.str();
    for (const std::string* f : {&v.target.kind, &v.target.arch, &v.reason})
      if (Status s = representable_string(vw, *f); !s) return s;
  }
  for (const ArchiveReceipt& r : k.receipts) {
    const std::string rw = where + " receipt " + r.target.str();
    for (const std::string* f : {&r.target.kind, &r.target.arch, &r.bytes})
      if (Status s = representable_string(rw, *f); !s) return s;
    if (r.artifact_sha256.size() != 64 || from_lower_hex(r.artifact_sha256).size() != 32)
      return invalid_input(rw + ": artifact sha256 is not 64 lower-case hex digits");
  }
  return ok();
}

bool target_less(const TargetName& a, const TargetName& b) {
  return std::tie(a.kind, a.arch) < std::tie(b.kind, b.arch);
}

// Little-endian byte sink.
struct Sink {
  std::vector<uint8_t> bytes;
  void u8(uint8_t v) { bytes.push_back(v); }
  void u16(uint16_t v) { for (int i = 0; i < 2; ++i) bytes.push_back(uint8_t(v >> (8 * i))); }
  void u32(uint32_t v) { for (int i = 0; i < 4; ++i) bytes.push_back(uint8_t(v >> (8 * i))); }
  void u64(uint64_t v) { for (int i = 0; i < 8; ++i) bytes.push_back(uint8_t(v >> (8 * i))); }
  void f64(double d) { uint64_t v; std::memcpy(&v, &d, 8); u64(v); }
  void raw(const void* p, size_t n) { auto* c = static_cast<const uint8_t*>(p); bytes.insert(bytes.end(), c, c + n); }
  void zeros(size_t n) { bytes.insert(bytes.end(), n, 0); }
  void pad_to(size_t align) { while (bytes.size() % align) bytes.push_back(0); }
};

struct StringTable {
  Sink data;
  std::unordered_map<std::string, uint32_t> offsets;
  void ref(Sink& out, const std::string& s) {
    auto [it, inserted] = offsets.emplace(s, uint32_t(data.bytes.size()));
    if (inserted) {
      data.raw(s.data(), s.size());
      data.u8(0);
    }
    out.u32(it->second);
    out.u32(uint32_t(s.size()));
  }
};

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// The index's tables as they fill, one record at a time, in archive order
// (docs/archive-format.md, "Index"); every string goes through one table.
struct IndexTables {
  StringTable strs;
  Sink amet, kern, bind, dims, vars, vmet, verd, rcpt;
  uint32_t n_kern = 0, n_bind = 0, n_dims = 0, n_vars = 0, n_vmet = 0, n_verd = 0, n_rcpt = 0;

  void add_binding(const Binding& b, const std::vector<std::string>& scalar_names) {
    strs.ref(bind, b.name);
    bind.u8(uint8_t(stub_role(b.role)));
    bind.u8(uint8_t(binding_dtype_code(b)));
    bind.u16(0);
    bind.u32(n_dims); bind.u32(uint32_t(b.shape.size())); bind.u32(0);
    for (const Dim& d : b.shape) {
      dims.u8(d.is_static() ? 0 : 1);
      dims.zeros(3);
      uint32_t index = 0;
      if (!d.is_static())
        index = uint32_t(std::find(scalar_names.begin(), scalar_names.end(), d.name) - scalar_names.begin());
      dims.u32(index);
      dims.u64(uint64_t(d.is_static() ? d.value : 0));
      ++n_dims;
    }
    ++n_bind;
  }

  void add_variant(const Artifact& a, uint64_t blob_offset) {
    vars.u32(n_kern);
    vars.u8(uint8_t(artifact_kind_tag(a.kind)));
    vars.zeros(3);
    strs.ref(vars, a.target.kind);
    strs.ref(vars, a.target.arch);
    strs.ref(vars, a.entry);
    strs.ref(vars, a.key);
    strs.ref(vars, a.toolchain);
    vars.u64(blob_offset);
    vars.u64(a.bytes.size());
    vars.raw(sha256(a.bytes.data(), a.bytes.size()).data(), 32);
    vars.u32(n_vmet); vars.u32(uint32_t(a.metadata.size()));
    vars.u32(tsr_crc32c(a.bytes.data(), a.bytes.size()));
    vars.zeros(4);
    for (const auto& [key, value] : a.metadata) {
      strs.ref(vmet, key);
      strs.ref(vmet, value);
      ++n_vmet;
    }
    ++n_vars;
  }

  void add_verdict(const OracleVerdictRecord& v) {
    strs.ref(verd, v.target.kind);
    strs.ref(verd, v.target.arch);
    verd.u8(uint8_t(v.verdict));
    verd.zeros(7);
    verd.f64(v.max_abs_err); verd.f64(v.max_rel_err);
    verd.f64(v.budget_atol); verd.f64(v.budget_rtol);
    verd.u64(v.seed);
    strs.ref(verd, v.reason);
    ++n_verd;
  }

  void add_receipt(const ArchiveReceipt& r) {
    rcpt.u32(n_kern);
    rcpt.u32(0);
    strs.ref(rcpt, r.target.kind);
    strs.ref(rcpt, r.target.arch);
    std::vector<uint8_t> hash = from_lower_hex(r.artifact_sha256);
    rcpt.raw(hash.data(), hash.size());
    strs.ref(rcpt, r.bytes);
    ++n_rcpt;
  }

  // The kernel's record and, after it, its bindings, variants, verdicts and receipts.
  void add_kernel(const ArchiveKernel& k, const std::vector<uint64_t>& blob_offsets) {
    strs.ref(kern, k.name);
    strs.ref(kern, k.identity);
    strs.ref(kern, k.family);
    strs.ref(kern, dtype_name(k.dtype));
    kern.u32(n_bind); kern.u32(uint32_t(k.abi.bindings.size()));
    kern.u32(n_vars); kern.u32(uint32_t(k.variants.size()));
    kern.u32(n_verd); kern.u32(uint32_t(k.verdicts.size()));
    const std::vector<std::string> scalar_names = k.abi.scalar_names();
    for (const Binding& b : k.abi.bindings) add_binding(b, scalar_names);
    for (const Artifact& a : k.variants) add_variant(a, blob_offsets[n_vars]);
    for (const OracleVerdictRecord& v : k.verdicts) add_verdict(v);
    for (const ArchiveReceipt& r : k.receipts) add_receipt(r);
    ++n_kern;
  }
};

// The index for given blob offsets (its size does not depend on them).
std::vector<uint8_t> build_index(const ArchiveContents& c, const std::vector<uint64_t>& blob_offsets) {
  IndexTables t;
  for (const auto& [key, value] : c.metadata) {
    t.strs.ref(t.amet, key);
    t.strs.ref(t.amet, value);
  }
  for (const ArchiveKernel& k : c.kernels) t.add_kernel(k, blob_offsets);
  Sink index;
  auto section = [&](const char* tag, const std::vector<uint8_t>& payload) {
    index.raw(tag, 4);
    index.u32(0);
    index.u64(payload.size());
    index.raw(payload.data(), payload.size());
    index.pad_to(8);
  };
  auto table = [&](const char* tag, uint32_t record_size, uint32_t count, const Sink& records) {
    Sink body;
    body.u32(record_size);
    body.u32(count);
    body.raw(records.bytes.data(), records.bytes.size());
    section(tag, body.bytes);
  };
  section("STRS", t.strs.data.bytes);
  table("AMET", 16, uint32_t(c.metadata.size()), t.amet);
  table("KERN", 56, t.n_kern, t.kern);
  table("BIND", 24, t.n_bind, t.bind);
  table("DIMS", 16, t.n_dims, t.dims);
  table("VARS", 112, t.n_vars, t.vars);
  table("VMET", 16, t.n_vmet, t.vmet);
  table("VERD", 72, t.n_verd, t.verd);
  table("RCPT", 64, t.n_rcpt, t.rcpt);   // format 2.1; written even when empty
  return index.bytes;
}

}  // namespace

Expected<ArchiveContents> canonicalize_archive(const ArchiveContents& contents) {
  ArchiveContents c = contents;
  Status s = representable_metadata("archive", c.metadata);
  if (!s) return s.take_error();
  std::sort(c.kernels.begin(), c.kernels.end(),
            [](const ArchiveKernel& a, const ArchiveKernel& b) { return a.name < b.name; });
  for (ArchiveKernel& k : c.kernels) {
    if (!(s = representable_kernel(k))) return s.take_error();
    std::sort(k.variants.begin(), k.variants.end(),
              [](const Artifact& a, const Artifact& b) { return target_less(a.target, b.target); });
    std::sort(k.verdicts.begin(), k.verdicts.end(),
              [](const OracleVerdictRecord& a, const OracleVerdictRecord& b) { return target_less(a.target, b.target); });
    // The same receipt twice is one receipt (a union of inputs, say); the
    // hash stays in the order key so that only identical records collapse.
    auto receipt_key = [](const ArchiveReceipt& r) { return std::tie(r.target.kind, r.target.arch, r.bytes, r.artifact_sha256); };
    std::sort(k.receipts.begin(), k.receipts.end(),
              [&](const ArchiveReceipt& a, const ArchiveReceipt& b) { return receipt_key(a) < receipt_key(b); });
    k.receipts.erase(std::unique(k.receipts.begin(), k.receipts.end()), k.receipts.end());
  }
  return c;
}

Expected<std::vector<uint8_t>> serialize_archive(const ArchiveContents& contents) {
  Expected<ArchiveContents> canonical = canonicalize_archive(contents);
  if (!canonical) return canonical.take_error();
  const ArchiveContents& c = *canonical;
  std::vector<uint64_t> offsets;
  for (const ArchiveKernel& k : c.kernels)
    for (size_t i = 0; i < k.variants.size(); ++i) offsets.push_back(0);
  if (offsets.size() > UINT32_MAX) return invalid_input("too many variants for one archive");

  const uint64_t header_size = 128;
  const uint64_t index_size = build_index(c, offsets).size();
  const uint64_t blob_offset = align_up(header_size + index_size, kArchiveBlobAlignment);
  uint64_t end = blob_offset;
  size_t n = 0;
  for (const ArchiveKernel& k : c.kernels)
    for (const Artifact& a : k.variants) {
      offsets[n++] = align_up(end, kArchiveBlobAlignment);
      end = offsets[n - 1] + a.bytes.size();
    }
  std::vector<uint8_t> index = build_index(c, offsets);

  Sink out;
  static const uint8_t magic[8] = {0x89, 'T', 'F', 'A', 'T', '\r', '\n', 0x1a};
  out.raw(magic, 8);
  out.u16(kArchiveMajor);
  out.u16(kArchiveMinor);
  out.u32(uint32_t(header_size));
  out.u64(end);
  out.u64(header_size);
  out.u64(index.size());
  out.u64(blob_offset);
  out.u32(kArchiveBlobAlignment);
  out.u32(tsr_crc32c(index.data(), index.size()));
  out.u64(0);
  out.raw(sha256(index.data(), index.size()).data(), 32);
  out.zeros(32);
  std::vector<uint8_t> header_hash = sha256(out.bytes.data(), out.bytes.size());
  std::copy(header_hash.begin(), header_hash.end(), out.bytes.begin() + 96);
  out.raw(index.data(), index.size());
  n = 0;
  for (const ArchiveKernel& k : c.kernels)
    for (const Artifact& a : k.variants) {
      out.zeros(offsets[n++] - out.bytes.size());
      out.raw(a.bytes.data(), a.bytes.size());
    }
  out.zeros(end - out.bytes.size());
  // The rules themselves (names, identities, order, uniqueness, strings,
  // metadata) are checked once, by the validator every reader runs.
  if (Status valid = verify_archive(out.bytes); !valid) return valid.take_error();
  return std::move(out.bytes);
}


Status write_archive(const ArchiveContents& contents, const std::string& path) {
  Expected<std::vector<uint8_t>> bytes = serialize_archive(contents);
  if (!bytes) return bytes.take_error();
  return write_file_atomic(path, *bytes);
}

}  // namespace tsr
