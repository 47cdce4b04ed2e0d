// C++ view over the stub's reader: opens with tsr_archive_open_memory, runs
// the stub's validator, and copies what the accessors return into
// ArchiveContents. Every stub status is checked, although a verified
// archive makes every accessor succeed: a failure is reported, never read past.
#include "archive/archive_reader.h"
#include "archive/wire_codes.h"

#include "support/file_io.h"
#include "support/sha256.h"

namespace tsr {

Status stub_status(tsr_status s, const char* message) {
  if (s == TSR_OK) return ok();
  return invalid_input(message && *message ? message : tsr_status_string(s));
}

Expected<ArchiveHandle> open_verified_archive(std::span<const uint8_t> bytes) {
  char message[256] = "";
  tsr_open_options options{0, message, sizeof message};
  tsr_archive* raw = nullptr;
  tsr_status s = tsr_archive_open_memory(bytes.data(), bytes.size(), &options, &raw);
  if (s != TSR_OK) return stub_status(s, message).take_error();
  ArchiveHandle handle(raw);
  s = tsr_archive_verify(raw, message, sizeof message);
  if (s != TSR_OK) return stub_status(s, message).take_error();
  return handle;
}

Expected<std::map<std::string, std::string>> read_variant_metadata(tsr_archive* a, size_t kernel, size_t variant) {
  tsr_variant_info vi;
  if (Status s = stub_status(tsr_kernel_variant_at(a, kernel, variant, &vi)); !s) return s.take_error();
  std::map<std::string, std::string> metadata;
  for (size_t m = 0; m < vi.metadata_count; ++m) {
    const char *key, *value;
    if (Status s = stub_status(tsr_variant_metadata_at(a, kernel, variant, m, &key, &value)); !s) return s.take_error();
    metadata[key] = value;
  }
  return metadata;
}

namespace {

Expected<Binding> read_binding(tsr_archive* a, size_t kernel, size_t index) {
  tsr_binding_info bi;
  if (Status s = stub_status(tsr_kernel_binding_at(a, kernel, index, &bi)); !s) return s.take_error();
  Binding binding;
  binding.name = bi.name;
  binding.role = role_from_stub(bi.role);
  binding.dtype = dtype_from_stub(bi.dtype);
  for (size_t d = 0; d < bi.dim_count; ++d) {
    tsr_dim_info di;
    if (Status s = stub_status(tsr_kernel_dim_at(a, kernel, index, d, &di)); !s) return s.take_error();
    binding.shape.push_back(di.is_scalar ? Dim{0, di.scalar_name} : Dim{di.value, ""});
  }
  return binding;
}

Expected<Artifact> read_variant(tsr_archive* a, size_t kernel, size_t index) {
  tsr_variant_info vi;
  if (Status s = stub_status(tsr_kernel_variant_at(a, kernel, index, &vi)); !s) return s.take_error();
  Artifact art;
  art.target = TargetName{vi.target_kind, vi.arch};
  art.kind = artifact_kind_name(vi.artifact_kind);
  art.entry = vi.entry;
  art.key = vi.key;
  art.toolchain = vi.toolchain;
  Expected<std::map<std::string, std::string>> metadata = read_variant_metadata(a, kernel, index);
  if (!metadata) return metadata.take_error();
  art.metadata = std::move(*metadata);
  const void* data;
  size_t size;
  tsr_status st = tsr_variant_blob(a, kernel, index, &data, &size);
  if (st != TSR_OK) return stub_status(st, tsr_archive_last_message(a)).take_error();
  art.bytes.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
  return art;
}

Expected<OracleVerdictRecord> read_verdict(tsr_archive* a, size_t kernel, size_t index) {
  tsr_verdict_info di;
  if (Status s = stub_status(tsr_kernel_verdict_at(a, kernel, index, &di)); !s) return s.take_error();
  OracleVerdictRecord r;
  r.target = TargetName{di.target_kind, di.arch};
  r.verdict = di.verdict == TSR_VERDICT_PASS            ? ArchiveVerdict::pass
              : di.verdict == TSR_VERDICT_FAIL          ? ArchiveVerdict::fail
              : di.verdict == TSR_VERDICT_PASS_EMULATED ? ArchiveVerdict::pass_emulated
                                                        : ArchiveVerdict::not_run;
  r.max_abs_err = di.max_abs_err;
  r.max_rel_err = di.max_rel_err;
  r.budget_atol = di.budget_atol;
  r.budget_rtol = di.budget_rtol;
  r.seed = di.seed;
  r.reason = di.reason;
  return r;
}

Expected<ArchiveReceipt> read_receipt(tsr_archive* a, size_t kernel, size_t index) {
  tsr_receipt_info ri;
  if (Status s = stub_status(tsr_kernel_receipt_at(a, kernel, index, &ri)); !s) return s.take_error();
  return ArchiveReceipt{TargetName{ri.target_kind, ri.arch}, to_hex(ri.artifact_sha256, 32),
                        std::string(ri.bytes, ri.size)};
}

Expected<ArchiveKernel> read_kernel(tsr_archive* a, size_t index) {
  tsr_kernel_info ki;
  if (Status s = stub_status(tsr_archive_kernel_at(a, index, &ki)); !s) return s.take_error();
  ArchiveKernel k;
  k.name = ki.name;
  k.identity = ki.identity;
  k.family = ki.family;
  std::optional<DType> dtype = dtype_from_name(ki.dtype);   // the validator admits these only
  if (!dtype) return invalid_input("kernel '" + k.name + "': unknown dtype '" + ki.dtype + "'");
  k.dtype = *dtype;
  for (size_t b = 0; b < ki.binding_count; ++b) {
    Expected<Binding> binding = read_binding(a, index, b);
    if (!binding) return binding.take_error();
    k.abi.bindings.push_back(std::move(*binding));
  }
  for (size_t v = 0; v < ki.variant_count; ++v) {
    Expected<Artifact> art = read_variant(a, index, v);
    if (!art) return art.take_error();
    k.variants.push_back(std::move(*art));
  }
  for (size_t v = 0; v < ki.verdict_count; ++v) {
    Expected<OracleVerdictRecord> r = read_verdict(a, index, v);
    if (!r) return r.take_error();
    k.verdicts.push_back(std::move(*r));
  }
  for (size_t r = 0; r < ki.receipt_count; ++r) {
    Expected<ArchiveReceipt> receipt = read_receipt(a, index, r);
    if (!receipt) return receipt.take_error();
    k.receipts.push_back(std::move(*receipt));
  }
  return k;
}

Error with_path(const std::string& path, const Error& e) { return Error(e.kind(), path + ": " + e.message()); }

}  // namespace

Expected<ArchiveContents> read_archive(std::span<const uint8_t> bytes) {
  Expected<ArchiveHandle> handle = open_verified_archive(bytes);
  if (!handle) return handle.take_error();
  return read_archive(handle->get());
}

Expected<ArchiveContents> read_archive(tsr_archive* a) {
  tsr_archive_info info;
  if (Status s = stub_status(tsr_archive_get_info(a, &info)); !s) return s.take_error();
  ArchiveContents c;
  for (size_t i = 0; i < info.metadata_count; ++i) {
    const char *key, *value;
    if (Status s = stub_status(tsr_archive_metadata_at(a, i, &key, &value)); !s) return s.take_error();
    c.metadata[key] = value;
  }
  for (size_t i = 0; i < info.kernel_count; ++i) {
    Expected<ArchiveKernel> k = read_kernel(a, i);
    if (!k) return k.take_error();
    c.kernels.push_back(std::move(*k));
  }
  return c;
}

Status verify_archive(std::span<const uint8_t> bytes) {
  Expected<ArchiveHandle> handle = open_verified_archive(bytes);
  if (!handle) return handle.take_error();
  return ok();
}

// read_file_bytes names the path in its own errors; the archive's errors
// get it here, so every message names it exactly once.
Expected<ArchiveContents> read_archive_file(const std::string& path) {
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(path);
  if (!bytes) return bytes.take_error();
  Expected<ArchiveContents> c = read_archive(*bytes);
  if (!c) return with_path(path, c.error());
  return c;
}

Expected<VerifiedArchiveFile> open_verified_archive_file(const std::string& path) {
  VerifiedArchiveFile file;
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(path);
  if (!bytes) return bytes.take_error();
  file.bytes = std::move(*bytes);
  Expected<ArchiveHandle> handle = open_verified_archive(file.bytes);
  if (!handle) return with_path(path, handle.error());
  file.handle = std::move(*handle);
  return file;
}

Status verify_archive_file(const std::string& path) {
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(path);
  if (!bytes) return bytes.take_error();
  Status s = verify_archive(*bytes);
  if (!s) return with_path(path, s.error());
  return ok();
}

}  // namespace tsr
