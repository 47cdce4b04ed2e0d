// inspect_json walks a verified archive through the stub's accessors; every
// status is checked (a failure is reported, never read past).
#include "archive/archive_inspect.h"

#include <nlohmann/json.hpp>

#include "archive/archive_reader.h"
#include "receipts/receipt.h"
#include "receipts/receipt_signature.h"
#include "support/sha256.h"

namespace tsr {
namespace {

using nlohmann::json;

Expected<json> binding_json(tsr_archive* a, size_t k, size_t b) {
  tsr_binding_info bi;
  if (Status s = stub_status(tsr_kernel_binding_at(a, k, b, &bi)); !s) return s.take_error();
  static const char* const roles[] = {"in", "out", "scalar"};
  json jb{{"name", bi.name}, {"role", roles[bi.role]}, {"dtype", tsr_dtype_name(bi.dtype)}};
  if (bi.role == TSR_ROLE_SCALAR) return jb;
  jb["shape"] = json::array();
  for (size_t d = 0; d < bi.dim_count; ++d) {
    tsr_dim_info di;
    if (Status s = stub_status(tsr_kernel_dim_at(a, k, b, d, &di)); !s) return s.take_error();
    if (di.is_scalar) jb["shape"].push_back(di.scalar_name);
    else jb["shape"].push_back(di.value);
  }
  return jb;
}

// A receipt as inspect shows it: size, hash, signer and, where it decodes,
// the device, toolchain, time and errors it records; the stub checked
// its binding (kind:arch and the variant's blob SHA-256).
json receipt_json(const tsr_receipt_info& ri) {
  const std::string text(ri.bytes, ri.size);
  json jr{{"size", ri.size}, {"sha256", sha256_hex(text)}, {"text", text}};
  Expected<SplitReceipt> split = split_receipt_signature(text);
  if (!split) jr["signature"] = json{{"error", split.error().message()}};
  else if (split->has_trailer) jr["signature"] = json{{"key_id", split->key_id}};
  else jr["signature"] = nullptr;
  // Key facts, where the receipt decodes (`verify` reports why one does not).
  DiagnosticEngine quiet;
  std::optional<Receipt> r = decode_receipt(text, "receipt", quiet);
  if (r)
    jr["facts"] = json{{"device", r->device.name}, {"driver", r->device.driver}, {"toolchain", r->toolchain},
                       {"tesserac_version", r->tesserac_version}, {"qualified_at", r->qualified_at},
                       {"max_abs_err", r->oracle.max_abs_err}, {"max_rel_err", r->oracle.max_rel_err}};
  else jr["facts"] = nullptr;
  return jr;
}

// The receipts of kernel k bound to variant vi.
Expected<json> variant_receipts_json(tsr_archive* a, size_t k, const tsr_variant_info& vi, size_t receipt_count) {
  json out = json::array();
  for (size_t r = 0; r < receipt_count; ++r) {
    tsr_receipt_info ri;
    if (Status s = stub_status(tsr_kernel_receipt_at(a, k, r, &ri)); !s) return s.take_error();
    if (std::string(ri.target_kind) == vi.target_kind && std::string(ri.arch) == vi.arch) out.push_back(receipt_json(ri));
  }
  return out;
}

Expected<json> variant_json(tsr_archive* a, size_t k, size_t v, size_t receipt_count) {
  tsr_variant_info vi;
  if (Status s = stub_status(tsr_kernel_variant_at(a, k, v, &vi)); !s) return s.take_error();
  // A kind from a newer minor version reads as TSR_ARTIFACT_UNKNOWN, named "unknown".
  const std::string kind = artifact_kind_name(vi.artifact_kind);
  json jv{{"target", std::string(vi.target_kind) + ":" + vi.arch},
          {"artifact_kind", kind.empty() ? "unknown" : kind},
          {"entry", vi.entry}, {"key", vi.key}, {"toolchain", vi.toolchain},
          {"offset", vi.offset}, {"size", vi.size}, {"sha256", to_hex(vi.sha256, 32)}};
  jv["metadata"] = json::object();
  for (size_t m = 0; m < vi.metadata_count; ++m) {
    const char *key, *value;
    if (Status s = stub_status(tsr_variant_metadata_at(a, k, v, m, &key, &value)); !s) return s.take_error();
    jv["metadata"][key] = value;
  }
  Expected<json> receipts = variant_receipts_json(a, k, vi, receipt_count);
  if (!receipts) return receipts.take_error();
  jv["receipts"] = std::move(*receipts);
  return jv;
}

Expected<json> verdict_json(tsr_archive* a, size_t k, size_t v) {
  tsr_verdict_info di;
  if (Status s = stub_status(tsr_kernel_verdict_at(a, k, v, &di)); !s) return s.take_error();
  // A verdict number from a newer minor version is shown as it is, never as a PASS.
  const unsigned number = unsigned(di.verdict);
  const std::string verdict = number <= unsigned(ArchiveVerdict::pass_emulated)
                                  ? archive_verdict_name(ArchiveVerdict(number))
                                  : "UNKNOWN(" + std::to_string(number) + ")";
  return json{{"target", std::string(di.target_kind) + ":" + di.arch},
              {"verdict", verdict},
              {"max_abs_err", di.max_abs_err}, {"max_rel_err", di.max_rel_err},
              {"budget_atol", di.budget_atol}, {"budget_rtol", di.budget_rtol},
              {"seed", di.seed}, {"reason", di.reason}};
}

// Appends f(i) for i < n to `into`; the first error stops.
template <typename F>
Status append_each(json& into, size_t n, F f) {
  into = json::array();
  for (size_t i = 0; i < n; ++i) {
    Expected<json> item = f(i);
    if (!item) return item.take_error();
    into.push_back(std::move(*item));
  }
  return ok();
}

Expected<json> kernel_json(tsr_archive* a, size_t k) {
  tsr_kernel_info ki;
  if (Status s = stub_status(tsr_archive_kernel_at(a, k, &ki)); !s) return s.take_error();
  json jk{{"name", ki.name}, {"identity", ki.identity}, {"family", ki.family}, {"dtype", ki.dtype}};
  Status s = append_each(jk["abi"], ki.binding_count, [&](size_t b) { return binding_json(a, k, b); });
  if (s) s = append_each(jk["variants"], ki.variant_count, [&](size_t v) { return variant_json(a, k, v, ki.receipt_count); });
  if (s) s = append_each(jk["verdicts"], ki.verdict_count, [&](size_t v) { return verdict_json(a, k, v); });
  if (!s) return s.take_error();
  return jk;
}

}  // namespace

Expected<std::string> inspect_json(std::span<const uint8_t> bytes) {
  Expected<ArchiveHandle> handle = open_verified_archive(bytes);
  if (!handle) return handle.take_error();
  tsr_archive* a = handle->get();
  tsr_archive_info info;
  if (Status s = stub_status(tsr_archive_get_info(a, &info)); !s) return s.take_error();
  json j;
  j["format"] = std::to_string(info.major) + "." + std::to_string(info.minor);
  j["file_size"] = info.file_size;
  j["metadata"] = json::object();
  for (size_t i = 0; i < info.metadata_count; ++i) {
    const char *key, *value;
    if (Status s = stub_status(tsr_archive_metadata_at(a, i, &key, &value)); !s) return s.take_error();
    j["metadata"][key] = value;
  }
  Status s = append_each(j["kernels"], info.kernel_count, [&](size_t k) { return kernel_json(a, k); });
  if (!s) return s.take_error();
  return j.dump(2) + "\n";
}

}  // namespace tsr
