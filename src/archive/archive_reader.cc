// C++ view over the stub's reader: opens with tsr_archive_open_memory and
// copies what the accessors return into ArchiveContents.
#include "archive/archive_reader.h"

#include <memory>

#include "support/file_io.h"
#include "support/sha256.h"
#include "tesserart.h"

namespace tsr {
namespace {

struct ArchiveCloser {
  void operator()(tsr_archive* a) const { tsr_archive_close(a); }
};
using ArchiveHandle = std::unique_ptr<tsr_archive, ArchiveCloser>;

// The stub's one-line reason, or the status name when it gave none.
Error stub_error(tsr_status s, const char* message) {
  return invalid_input(message && *message ? message : tsr_status_string(s));
}

Expected<ArchiveHandle> open_bytes(std::span<const uint8_t> bytes) {
  char message[256] = "";
  tsr_open_options options{0, message, sizeof message};
  tsr_archive* raw = nullptr;
  tsr_status s = tsr_archive_open_memory(bytes.data(), bytes.size(), &options, &raw);
  if (s != TSR_OK) return stub_error(s, message);
  return ArchiveHandle(raw);
}

DType dtype_from_tag(tsr_dtype t) {
  return t == TSR_DTYPE_F16 ? DType::f16 : t == TSR_DTYPE_BF16 ? DType::bf16 : DType::f32;
}

Expected<ArchiveKernel> read_kernel(tsr_archive* a, size_t index) {
  tsr_kernel_info ki;
  (void)tsr_archive_kernel_at(a, index, &ki);
  ArchiveKernel k;
  k.name = ki.name;
  k.identity = ki.identity;
  k.family = ki.family;
  std::optional<DType> dtype = dtype_from_name(ki.dtype);
  if (!dtype) return invalid_input("kernel '" + k.name + "': unknown dtype '" + ki.dtype + "'");
  k.dtype = *dtype;
  for (size_t b = 0; b < ki.binding_count; ++b) {
    tsr_binding_info bi;
    (void)tsr_kernel_binding_at(a, index, b, &bi);
    Binding binding;
    binding.name = bi.name;
    binding.role = bi.role == TSR_ROLE_IN ? Role::input : bi.role == TSR_ROLE_OUT ? Role::output : Role::scalar;
    binding.dtype = dtype_from_tag(bi.dtype);
    for (size_t d = 0; d < bi.dim_count; ++d) {
      tsr_dim_info di;
      (void)tsr_kernel_dim_at(a, index, b, d, &di);
      binding.shape.push_back(di.is_scalar ? Dim{0, di.scalar_name} : Dim{di.value, ""});
    }
    k.abi.bindings.push_back(std::move(binding));
  }
  for (size_t v = 0; v < ki.variant_count; ++v) {
    tsr_variant_info vi;
    (void)tsr_kernel_variant_at(a, index, v, &vi);
    Artifact art;
    art.target = TargetName{vi.target_kind, vi.arch};
    art.kind = artifact_kind_name(vi.artifact_kind);
    art.entry = vi.entry;
    art.key = vi.key;
    art.toolchain = vi.toolchain;
    for (size_t m = 0; m < vi.metadata_count; ++m) {
      const char *key, *value;
      (void)tsr_variant_metadata_at(a, index, v, m, &key, &value);
      art.metadata[key] = value;
    }
    const void* data;
    size_t size;
    tsr_status s = tsr_variant_blob(a, index, v, &data, &size);
    if (s != TSR_OK) return stub_error(s, tsr_archive_last_message(a));
    art.bytes.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
    k.variants.push_back(std::move(art));
  }
  for (size_t v = 0; v < ki.verdict_count; ++v) {
    tsr_verdict_info di;
    (void)tsr_kernel_verdict_at(a, index, v, &di);
    OracleVerdictRecord r;
    r.target = TargetName{di.target_kind, di.arch};
    r.verdict = di.verdict == TSR_VERDICT_PASS ? ArchiveVerdict::pass
                : di.verdict == TSR_VERDICT_FAIL ? ArchiveVerdict::fail : ArchiveVerdict::not_run;
    r.max_abs_err = di.max_abs_err;
    r.max_rel_err = di.max_rel_err;
    r.budget_atol = di.budget_atol;
    r.budget_rtol = di.budget_rtol;
    r.seed = di.seed;
    r.reason = di.reason;
    k.verdicts.push_back(std::move(r));
  }
  return k;
}

Error with_path(const std::string& path, const Error& e) { return Error(e.kind(), path + ": " + e.message()); }

}  // namespace

Expected<ArchiveContents> read_archive(std::span<const uint8_t> bytes) {
  Expected<ArchiveHandle> handle = open_bytes(bytes);
  if (!handle) return handle.take_error();
  tsr_archive* a = handle->get();
  tsr_archive_info info;
  (void)tsr_archive_get_info(a, &info);
  ArchiveContents c;
  for (size_t i = 0; i < info.metadata_count; ++i) {
    const char *key, *value;
    (void)tsr_archive_metadata_at(a, i, &key, &value);
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
  Expected<ArchiveHandle> handle = open_bytes(bytes);
  if (!handle) return handle.take_error();
  char message[256] = "";
  tsr_status s = tsr_archive_verify(handle->get(), message, sizeof message);
  if (s != TSR_OK) return stub_error(s, message);
  return ok();
}


Expected<ArchiveContents> read_archive_file(const std::string& path) {
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(path);
  if (!bytes) return bytes.take_error();
  Expected<ArchiveContents> c = read_archive(*bytes);
  if (!c) return with_path(path, c.error());
  return c;
}

Status verify_archive_file(const std::string& path) {
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(path);
  if (!bytes) return bytes.take_error();
  Status s = verify_archive(*bytes);
  if (!s) return with_path(path, s.error());
  return ok();
}

}  // namespace tsr
