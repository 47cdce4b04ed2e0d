#include "archive/admission.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "codecs/codec.h"
#include "receipts/receipt_limits.h"
#include "support/file_io.h"
#include "support/sha256.h"

namespace tsr {

namespace {

Expected<std::vector<std::string>> receipt_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) {
      files.push_back(p);
      continue;
    }
    std::vector<std::string> in_dir;
    for (std::filesystem::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".toml") in_dir.push_back(it->path().string());
    if (ec) return invalid_input(p + ": cannot list the receipts directory: " + ec.message());
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  return files;
}

int codec_version_of(const std::string& family) {
  const std::optional<Family> f = family_from_name(family);
  const FamilyCodec* codec = f ? find_codec(*f) : nullptr;
  return codec ? codec->version() : 0;
}

}  // namespace

Expected<std::vector<LoadedReceipt>> load_receipts(const std::vector<std::string>& paths, const TrustedKeys* trusted,
                                                   DiagnosticEngine& diag) {
  std::vector<LoadedReceipt> out;
  std::string first_refused;
  Expected<std::vector<std::string>> files = receipt_files(paths);
  if (!files) return files.take_error();
  for (const std::string& file : *files) {
    Expected<std::string> bytes = read_input_file(file, kMaxReceiptFileBytes, "receipt file");
    if (!bytes) {
      // `file: error: ...` like a spec that cannot be read (an oversize file is never read whole).
      diag.error(SourceLocation{file, 0, 0}, bytes.error().message());
      if (first_refused.empty()) first_refused = file;
      continue;
    }
    if (trusted) {
      // The signature first (in-toto/DSSE order): nothing of an unverified receipt is parsed.
      Expected<SplitReceipt> split = split_receipt_signature(*bytes);
      if (!split) return invalid_input(file + ": " + split.error().message());
      if (Status verified = verify_receipt_signature(*split, *trusted); !verified.ok())
        return invalid_input(file + ": " + verified.error().message());
    }
    std::optional<Receipt> receipt = decode_receipt(*bytes, file, diag);
    if (!receipt) {
      if (first_refused.empty()) first_refused = file;
      continue;
    }
    out.push_back({file, std::move(*bytes), std::move(*receipt)});
  }
  diag.flush();
  if (!first_refused.empty()) return invalid_input(first_refused + ": not a valid receipt (see the errors above)");
  return out;
}

std::optional<FieldDifference> first_difference(const Receipt& receipt, const ArchiveKernel& kernel,
                                                const Artifact& variant) {
  if (receipt.identity != kernel.identity) return FieldDifference{"identity", receipt.identity, kernel.identity};
  const int codec = codec_version_of(kernel.family);
  if (receipt.family != kernel.family) return FieldDifference{"family", receipt.family, kernel.family};
  if (receipt.codec_version != codec)
    return FieldDifference{"codec_version", std::to_string(receipt.codec_version), std::to_string(codec)};
  const std::string sha = sha256_hex(variant.bytes.data(), variant.bytes.size());
  if (receipt.artifact_sha256 != sha)
    return FieldDifference{"artifact_sha256", receipt.artifact_sha256, sha};
  if (receipt.artifact_key != variant.key) return FieldDifference{"artifact_key", receipt.artifact_key, variant.key};
  return std::nullopt;
}

namespace {

std::string describe(const FieldDifference& d) {
  return d.field + " differs: receipt " + d.receipt_value + ", archive " + d.archive_value;
}

}  // namespace

Expected<AdmissionReport> admit_receipts(ArchiveContents& contents, const std::vector<LoadedReceipt>& receipts) {
  AdmissionReport report;
  // Why each variant got no receipt: the first difference from a receipt that named it.
  std::map<std::pair<std::string, std::string>, std::string> closest;
  for (const LoadedReceipt& loaded : receipts) {
    const Receipt& r = loaded.receipt;
    auto kernel = std::find_if(contents.kernels.begin(), contents.kernels.end(),
                               [&](const ArchiveKernel& k) { return k.name == r.kernel; });
    if (kernel == contents.kernels.end()) {
      report.unmatched.push_back(loaded.path + " matches no variant: the archive has no kernel '" + r.kernel + "'");
      continue;
    }
    auto variant = std::find_if(kernel->variants.begin(), kernel->variants.end(),
                                [&](const Artifact& v) { return v.target == r.target; });
    if (variant == kernel->variants.end()) {
      report.unmatched.push_back(loaded.path + " matches no variant: kernel '" + r.kernel + "' has no " +
                                 r.target.str() + " variant");
      continue;
    }
    if (std::optional<FieldDifference> d = first_difference(r, *kernel, *variant)) {
      report.unmatched.push_back(loaded.path + " matches no variant: kernel '" + r.kernel + "' variant " +
                                 r.target.str() + ": " + describe(*d));
      closest.emplace(std::make_pair(r.kernel, r.target.str()), describe(*d));
      continue;
    }
    ArchiveReceipt attached{r.target, r.artifact_sha256, loaded.bytes};
    if (std::find(kernel->receipts.begin(), kernel->receipts.end(), attached) != kernel->receipts.end()) {
      ++report.already_attached;
      continue;
    }
    auto verdict = std::find_if(kernel->verdicts.begin(), kernel->verdicts.end(),
                                [&](const OracleVerdictRecord& v) { return v.target == r.target; });
    if (verdict != kernel->verdicts.end() && verdict->verdict == ArchiveVerdict::fail)
      return invalid_input(loaded.path + ": kernel '" + r.kernel + "' variant " + r.target.str() +
                           " has the verdict FAIL in the archive, which a hardware PASS receipt contradicts");
    OracleVerdictRecord pass;
    pass.target = r.target;
    pass.verdict = ArchiveVerdict::pass;
    pass.max_abs_err = r.oracle.max_abs_err;
    pass.max_rel_err = r.oracle.max_rel_err;
    pass.budget_atol = r.oracle.budget_atol;
    pass.budget_rtol = r.oracle.budget_rtol;
    pass.seed = r.oracle.seed;
    if (verdict != kernel->verdicts.end()) {
      *verdict = pass;
    } else {
      kernel->verdicts.push_back(pass);
    }
    kernel->receipts.push_back(std::move(attached));
    ++report.attached;
  }
  for (const ArchiveKernel& k : contents.kernels)
    for (const Artifact& v : k.variants) {
      const bool qualified = std::any_of(k.receipts.begin(), k.receipts.end(),
                                         [&](const ArchiveReceipt& r) { return r.target == v.target; });
      if (qualified) continue;
      auto why = closest.find({k.name, v.target.str()});
      report.unqualified.push_back({v.target, "kernel '" + k.name + "' variant " + v.target.str() +
                                                  " has no hardware receipt" +
                                                  (why == closest.end() ? "" : ": " + why->second)});
    }
  return report;
}

}  // namespace tsr
