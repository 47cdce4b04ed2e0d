// tesserac qualify ARCHIVE.tfat [-t TARGET,...] --receipts-out DIR [--sign KEY]
// [--seed N] [--json FILE]: runs the oracle on the archive's own variants,
// launched through libtesserart on the hardware present, and writes one
// receipt per hardware PASS (docs/receipt-format.md). FAIL writes none and
// exits 1; NOT_RUN writes none and says so per variant.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "archive/archive_reader.h"
#include "cli/command_files.h"
#include "cli/commands.h"
#include "driver/embedded_specs.h"
#include "driver/plan.h"
#include "driver/passes.h"
#include "driver/verdict_table.h"
#include "receipts/receipt.h"
#include "receipts/receipt_from_run.h"
#include "receipts/receipt_signature.h"
#include "cli/spec_selection.h"
#include "support/file_io.h"
#include "registry/registry.h"
#include "tesserart.h"

namespace tsr::cli {

namespace {

struct QualifyCommandOptions {
  std::string archive;
  std::vector<std::string> targets;
  std::string receipts_out;
  std::string sign_key;
  std::string json;
  uint64_t seed = OracleOptions{}.seed;
};

// Launches timed per hardware PASS for the receipt's median latency.
constexpr int kTimedLaunches = 5;

bool selected(const TargetName& t, const std::vector<TargetName>& only) {
  return only.empty() || std::find(only.begin(), only.end(), t) != only.end();
}

// The archive's variants as Jobs over its embedded specs (`specs` holds
// them, one per kernel, and must outlive the jobs), in archive order;
// `variants[i]` is job i's stored artifact. A kind this tesserac does not
// know is a job it cannot run: NOT_RUN, no receipt.
struct ArchiveJobs {
  std::vector<KernelSpec> specs;
  std::vector<Job> jobs;
  std::vector<const Artifact*> variants;
};

Expected<ArchiveJobs> plan_archive_jobs(const ArchiveContents& contents, const std::vector<TargetName>& only,
                                        const std::string& archive_path) {
  ArchiveJobs out;
  out.specs.reserve(contents.kernels.size());   // no reallocation: jobs point into it
  for (const ArchiveKernel& kernel : contents.kernels) {
    Expected<KernelSpec> spec = embedded_spec(contents.metadata, kernel.name, kernel.identity, archive_path);
    if (!spec) return spec.take_error();
    out.specs.push_back(std::move(*spec));
    for (const Artifact& variant : kernel.variants) {
      if (!selected(variant.target, only)) continue;
      const Target* target = find_target(variant.target.kind);
      out.jobs.push_back(
          Job{&out.specs.back(), variant.target,
              target ? "" : "no target kind '" + variant.target.kind + "' in this tesserac", target});
      out.variants.push_back(&variant);
    }
  }
  return out;
}

}  // namespace

RunFn register_qualify(CLI::App& app) {
  auto opts = std::make_shared<QualifyCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "qualify", "Run the oracle on an archive's variants on the hardware present; write a receipt per hardware PASS");
  sub->add_option("archive", opts->archive, "The .tfat archive to qualify")->required();
  sub->add_option("-t,--target", opts->targets, "Only these targets (comma-separated or repeated); default: all");
  sub->add_option("--receipts-out", opts->receipts_out, "Directory for the receipts (created if missing)")
      ->required();
  sub->add_option("--sign", opts->sign_key, "Sign each receipt with this Ed25519 private key (PEM)");
  sub->add_option("--json", opts->json, "Also write the verdicts as JSON to FILE");
  add_seed_option(sub, opts->seed);
  return [opts]() -> int {
    std::vector<CommandPath> outputs = {{"--receipts-out", opts->receipts_out}};
    if (!opts->json.empty()) outputs.push_back({"--json", opts->json});
    if (int rc = check_outputs({{"archive", opts->archive}}, outputs); rc != kExitOk) return rc;
    Expected<std::vector<TargetName>> only = parse_target_list(opts->targets);
    if (!only) return report(only.error());
    const std::string qualified_at = qualification_time();
    if (qualified_at.empty())
      return report_error("SOURCE_DATE_EPOCH must be a decimal number of seconds (0..253402300799)", kExitUsage);
    std::shared_ptr<SigningKey> key;
    if (!opts->sign_key.empty()) {
      Expected<std::shared_ptr<SigningKey>> loaded = load_signing_key(opts->sign_key);
      if (!loaded) return report(loaded.error());
      key = *loaded;
    }
    // Read and verified once: the records come from the same open archive the kernels launch from.
    Expected<VerifiedArchiveFile> archive = open_verified_archive_file(opts->archive);
    if (!archive) return report(archive.error());
    Expected<ArchiveContents> contents = read_archive(archive->handle.get());
    if (!contents) return report_error(opts->archive + ": " + contents.error().message(), exit_code(contents.error().kind()));

    std::error_code ec;
    std::filesystem::create_directories(opts->receipts_out, ec);
    if (ec || !std::filesystem::is_directory(opts->receipts_out))
      return report_error(opts->receipts_out + ": cannot create the receipts directory" +
                              (ec ? ": " + ec.message() : std::string(" (not a directory)")),
                          kExitInvalid);

    // The pass list with the artifacts taken from the archive: only qualify
    // has work, launching each variant through the stub, timed for the receipt.
    Expected<ArchiveJobs> planned = plan_archive_jobs(*contents, *only, opts->archive);
    if (!planned) return report(planned.error());
    PassOptions passes;
    passes.archive = archive->handle.get();
    passes.seed = opts->seed;
    passes.timed_launches = kTimedLaunches;
    const std::vector<VerdictRow> rows = run_passes(planned->jobs, passes);

    std::vector<std::string> lines;
    size_t not_run = 0;   // variants the oracle could not run here: grouped in the table, counted once
    bool failed = false;
    for (size_t i = 0; i < rows.size(); ++i) {
      const VerdictRow& row = rows[i];
      const Job& job = planned->jobs[i];
      failed = failed || row.report.verdict == Verdict::fail;
      const std::string what = row.kernel + " on " + row.target.str();
      const std::optional<Receipt> receipt =
          job.impl ? receipt_from_run(*job.spec, *planned->variants[i], row.report, row.device, row.route, qualified_at)
                   : std::nullopt;
      if (!receipt) {
        if (row.report.verdict == Verdict::not_run) {
          ++not_run;
          continue;
        }
        lines.push_back("no receipt for " + what + ": " + verdict_name(row.report.verdict) +
                        (row.report.verdict == Verdict::fail ? " (see the table)" : " (" + row.report.reason + ")"));
        continue;
      }
      std::string bytes = write_receipt(*receipt);
      if (key) {
        Expected<std::string> signed_bytes = sign_receipt_bytes(bytes, *key);
        if (!signed_bytes) return report(signed_bytes.error());
        bytes = std::move(*signed_bytes);
      }
      const std::string path = (std::filesystem::path(opts->receipts_out) / receipt_file_name(*receipt)).string();
      if (Status written = write_file_atomic(path, bytes); !written.ok()) return report(written.error());
      lines.push_back("receipt for " + what + ": " + path + (key ? " (signed, key " + signing_key_id(*key) + ")" : ""));
    }
    // Variants without a device here are grouped by reason: on a build host
    // that is nearly every GPU variant, and the table stays about what ran.
    std::cout << render_verdict_table(rows, /*group_not_run=*/true);
    for (const std::string& line : lines) std::cout << line << "\n";
    if (not_run > 0)
      std::cout << "no receipt for " << not_run << " variant(s) not run here (see \"not run\" above)\n";
    if (!opts->json.empty())
      if (Status written = write_file_atomic(opts->json, render_verdict_json(rows)); !written.ok())
        return report(written.error());
    return failed ? kExitInvalid : kExitOk;
  };
}

}  // namespace tsr::cli
