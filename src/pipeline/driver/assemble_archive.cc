#include "driver/assemble_archive.h"

#include <map>

#include "driver/embedded_specs.h"

namespace tsr {

namespace {
ArchiveVerdict to_archive_verdict(Verdict v) {
  switch (v) {
    case Verdict::pass: return ArchiveVerdict::pass;
    case Verdict::fail: return ArchiveVerdict::fail;
    case Verdict::not_run: return ArchiveVerdict::not_run;
    case Verdict::pass_emulated: return ArchiveVerdict::pass_emulated;
  }
  return ArchiveVerdict::not_run;
}
}  // namespace

ArchiveContents assemble_archive(const std::vector<KernelSpec>& specs, const std::vector<VerdictRow>& rows) {
  ArchiveContents contents;
  contents.metadata["tesserac.version"] = TESSERAC_VERSION;
  std::map<std::string, size_t> index;
  for (const KernelSpec& spec : specs) {
    index[spec.name] = contents.kernels.size();
    contents.kernels.push_back(archive_kernel(spec));
    embed_spec(spec, contents.metadata);   // what `qualify` runs the oracle with
  }
  for (const VerdictRow& row : rows) {
    auto it = index.find(row.kernel);
    if (it == index.end()) continue;
    ArchiveKernel& k = contents.kernels[it->second];
    OracleVerdictRecord v;
    v.target = row.target;
    v.verdict = to_archive_verdict(row.report.verdict);
    v.max_abs_err = row.report.max_abs_err;
    v.max_rel_err = row.report.max_rel_err;
    v.budget_atol = row.report.budget.atol;
    v.budget_rtol = row.report.budget.rtol;
    v.seed = row.report.seed;
    v.reason = row.report.reason;
    k.verdicts.push_back(std::move(v));
    if (row.artifact) k.variants.push_back(*row.artifact);
  }
  return contents;
}

}  // namespace tsr
