#include "archive/archive_merge.h"

#include <algorithm>
#include <map>

#include "support/sha256.h"

namespace tsr {
namespace {

// "merge conflict: WHAT differs between 'A' (DETAIL) and 'B' (DETAIL)".
std::string conflict(const std::string& what, const std::string& a, const std::string& b,
                     const std::string& a_detail = "", const std::string& b_detail = "") {
  return "merge conflict: " + what + " differs between '" + a + "'" + a_detail + " and '" + b + "'" + b_detail;
}

enum class Resolution { keep, take, conflict };

// Adds `items` to `into`, keyed by target: resolve(held, incoming) says
// which one stays, or that they conflict (the message names both inputs and
// describe(item) of each).
template <typename T, typename Resolve, typename Describe>
Status merge_by_target(std::vector<T>& into, std::vector<std::string>& from, const std::vector<T>& items,
                       const std::string& input, const std::string& what, Resolve resolve, Describe describe) {
  for (const T& item : items) {
    bool found = false;
    for (size_t i = 0; i < into.size(); ++i) {
      if (!(into[i].target == item.target)) continue;
      found = true;
      Resolution r = resolve(into[i], item);
      if (r == Resolution::conflict)
        return invalid_input(conflict(what + " " + item.target.str(), from[i], input, describe(into[i]), describe(item)));
      if (r == Resolution::take) {
        into[i] = item;
        from[i] = input;
      }
    }
    if (!found) {
      into.push_back(item);
      from.push_back(input);
    }
  }
  return ok();
}

// The verdicts that may replace one another, by the evidence they carry:
// a hardware PASS outranks PASS_EMULATED, which outranks NOT_RUN. FAIL has
// no rank: it never replaces and is never replaced (docs/cli.md, merge).
int evidence_rank(ArchiveVerdict v) {
  switch (v) {
    case ArchiveVerdict::not_run: return 0;
    case ArchiveVerdict::pass_emulated: return 1;
    case ArchiveVerdict::pass: return 2;
    case ArchiveVerdict::fail: break;
  }
  return -1;
}

Resolution resolve_verdicts(const OracleVerdictRecord& held, const OracleVerdictRecord& incoming) {
  if (held == incoming) return Resolution::keep;
  const int a = evidence_rank(held.verdict), b = evidence_rank(incoming.verdict);
  if (a < 0 || b < 0 || a == b) return Resolution::conflict;   // PASS vs FAIL, two FAILs, other numbers
  return b > a ? Resolution::take : Resolution::keep;
}

std::string no_detail(const Artifact&) { return ""; }
std::string verdict_detail(const OracleVerdictRecord& v) { return std::string(" (") + archive_verdict_name(v.verdict) + ")"; }

// Receipts are a union; each must bind to the merged variant of its target
// (the blob hash it names), since the archive ships only bound receipts.
Status check_receipt_bindings(const ArchiveKernel& k, const std::vector<std::string>& receipt_from) {
  for (size_t i = 0; i < k.receipts.size(); ++i) {
    const ArchiveReceipt& r = k.receipts[i];
    auto v = std::find_if(k.variants.begin(), k.variants.end(), [&](const Artifact& a) { return a.target == r.target; });
    const std::string hash = v == k.variants.end() ? "" : sha256_hex(v->bytes.data(), v->bytes.size());
    if (hash != r.artifact_sha256)
      return invalid_input("merge: kernel '" + k.name + "' receipt " + r.target.str() + " from '" + receipt_from[i] +
                           "' binds to artifact sha256 " + r.artifact_sha256.substr(0, 16) + "…, but the merged " +
                           (hash.empty() ? "archive has no such variant" : "variant's is " + hash.substr(0, 16) + "…"));
  }
  return ok();
}

}  // namespace

Expected<ArchiveContents> merge_archives(const std::vector<NamedArchive>& inputs) {
  ArchiveContents out;
  std::map<std::string, std::string> metadata_from;
  std::map<std::string, size_t> kernel_at;
  std::vector<std::string> kernel_from;
  std::vector<std::vector<std::string>> variant_from, verdict_from, receipt_from;
  for (const NamedArchive& in : inputs) {
    for (const auto& [key, value] : in.contents.metadata) {
      auto [it, inserted] = out.metadata.emplace(key, value);
      if (!inserted && it->second != value)
        return invalid_input(conflict("metadata '" + key + "'", metadata_from[key], in.name));
      if (inserted) metadata_from[key] = in.name;
    }
    for (const ArchiveKernel& k : in.contents.kernels) {
      auto [it, inserted] = kernel_at.emplace(k.name, out.kernels.size());
      if (inserted) {
        ArchiveKernel copy = k;
        copy.variants.clear();
        copy.verdicts.clear();
        copy.receipts.clear();
        out.kernels.push_back(std::move(copy));
        kernel_from.push_back(in.name);
        variant_from.emplace_back();
        verdict_from.emplace_back();
        receipt_from.emplace_back();
      }
      const size_t at = it->second;
      ArchiveKernel& into = out.kernels[at];
      const std::string where = "kernel '" + k.name + "'";
      if (into.identity != k.identity) return invalid_input(conflict(where + " identity", kernel_from[at], in.name));
      if (into.family != k.family || into.dtype != k.dtype || !same_abi(into.abi, k.abi))
        return invalid_input(conflict(where + " ABI", kernel_from[at], in.name));
      Status s = merge_by_target(
          into.variants, variant_from[at], k.variants, in.name, where + " variant",
          [](const Artifact& a, const Artifact& b) { return same_artifact(a, b) ? Resolution::keep : Resolution::conflict; },
          no_detail);
      if (!s) return s.take_error();
      s = merge_by_target(into.verdicts, verdict_from[at], k.verdicts, in.name, where + " verdict", resolve_verdicts,
                          verdict_detail);
      if (!s) return s.take_error();
      for (const ArchiveReceipt& r : k.receipts)
        if (std::find(into.receipts.begin(), into.receipts.end(), r) == into.receipts.end()) {
          into.receipts.push_back(r);
          receipt_from[at].push_back(in.name);
        }
    }
  }
  for (size_t k = 0; k < out.kernels.size(); ++k)
    if (Status s = check_receipt_bindings(out.kernels[k], receipt_from[k]); !s) return s.take_error();
  return out;
}

}  // namespace tsr
