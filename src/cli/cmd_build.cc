// tesserac build SPEC|DIR... [-t TARGET,...] -o FILE.tfat [--out-dir DIR]:
// compile every spec for every target, run the oracle where a device is
// present, and write the fat archive (and/or loose artifacts with a
// manifest). Any FAIL writes nothing.
#include <chrono>
#include <iostream>
#include <memory>

#include "cli/command_files.h"
#include "cli/commands.h"
#include "cli/pipeline_options.h"
#include "cli/pipeline_outputs.h"
#include "cli/receipt_options.h"
#include "cli/spec_selection.h"
#include "cli/verdict_gate.h"
#include "archive/archive_writer.h"
#include "driver/assemble_archive.h"
#include "driver/depfile.h"
#include "driver/out_dir.h"
#include "driver/plan.h"
#include "driver/passes.h"
#include "driver/verdict_table.h"
#include "loader/spec_loader.h"
#include "support/file_io.h"

namespace tsr::cli {

namespace {
struct BuildOptions {
  SpecSelection selection;
  std::string output;
  std::string out_dir;
  std::string depfile;
  bool no_oracle = false;
  ReceiptOptions receipts;
  PipelineOptions pipeline;
  bool tune = false;            // --tune (always for `tesserac tune`)
  TuneOptions tune_options;     // --tune-rounds
};

// Every file the build may write; --out-dir's artifacts once their kinds are known.
std::vector<CommandPath> build_outputs(const BuildOptions& opts, const std::vector<VerdictRow>& rows) {
  std::vector<CommandPath> outputs;
  if (!opts.output.empty()) outputs.push_back({"-o", opts.output});
  if (!opts.depfile.empty()) outputs.push_back({"--depfile", opts.depfile});
  if (!opts.selection.json.empty()) outputs.push_back({"--json", opts.selection.json});
  add_pipeline_outputs(opts.pipeline, outputs);
  if (!opts.out_dir.empty()) {
    outputs.push_back({"--out-dir", opts.out_dir + "/manifest.json"});
    for (const VerdictRow& row : rows)
      if (row.artifact) outputs.push_back({"--out-dir", opts.out_dir + "/" + loose_artifact_name(row)});
  }
  return outputs;
}

void add_tune_options(CLI::App* sub, TuneOptions& tune) {
  sub->add_option("--tune-rounds", tune.measure.rounds, "Interleaved measurement rounds per shape bucket (median; default 7)")
      ->check(CLI::Range(1, 1000));
}

// --out-dir DIR: the loose artifacts and manifest.json (driver/out_dir.h).
int write_out_dir(const std::string& dir, const std::vector<VerdictRow>& rows) {
  Status written = write_loose_artifacts(dir, rows);
  return written.ok() ? kExitOk : report(written.error());
}

// Refuses before any work: options that contradict, an output that would
// overwrite an input or another output, a depfile that cannot name its
// paths. Sets `depfile_text` when --depfile is given.
int check_build_request(const BuildOptions& opts, const std::vector<CommandPath>& inputs,
                        std::optional<std::string>& depfile_text) {
  if (opts.output.empty() && (!opts.receipts.paths.empty() || !opts.receipts.require.empty()))
    return report_error("--receipts and --require-receipts need -o FILE.tfat", kExitUsage);
  if (int rc = check_receipt_options(opts.receipts); rc != kExitOk) return rc;
  if (opts.no_oracle && opts.pipeline.require_verdict != RequiredVerdict::any)
    return report_error("--require-verdict needs the oracle; drop --no-oracle", kExitUsage);
  if (int rc = check_outputs(inputs, build_outputs(opts, {})); rc != kExitOk) return rc;
  if (opts.depfile.empty()) return kExitOk;
  if (opts.output.empty()) return report_error("--depfile needs -o FILE.tfat", kExitUsage);
  std::vector<std::string> depends_on;
  for (const CommandPath& in : inputs) depends_on.push_back(in.path);
  Expected<std::string> text = render_depfile(opts.output, depends_on);
  if (!text) return report(text.error());
  depfile_text = std::move(*text);
  return kExitOk;
}

// The plan a build accepts: every kernel it reads is built for some target
// (one whose `targets:` shares none with -t would go into the archive
// without a variant), and a target the build names (-t, or the spec's
// `targets:`) builds the kernel; the default "every target" plan records
// NOT_RUN and goes on.
int check_build_plan(const LoadedSelection& loaded, const std::vector<Job>& jobs) {
  if (const std::vector<std::string> untargeted = kernels_without_targets(loaded.specs, jobs, loaded.targets);
      !untargeted.empty()) {
    for (const std::string& line : untargeted) report_error(line, kExitInvalid);
    return kExitInvalid;
  }
  for (const Job& job : jobs)
    if (!job.unsupported.empty() && (!loaded.targets.empty() || !job.spec->targets.empty()))
      return report_error("kernel '" + job.spec->name + "' cannot be built for " + job.target.str() + ": " +
                              job.unsupported,
                          kExitInvalid);
  return kExitOk;
}

// The verdict table (and --tune's tables): printed whatever the gate says.
void print_build_tables(const BuildOptions& opts, const std::vector<VerdictRow>& rows) {
  if (opts.pipeline.quiet) return;
  if (opts.tune)
    for (const VerdictRow& r : rows)
      if (r.tuning) std::cout << render_tuning_table(r.kernel, r.target, *r.tuning) << "\n";
  std::cout << render_verdict_table(rows);
}

// Whether the rows may ship: any FAIL, failed compile, missing named
// toolchain, kernel without a variant or unmet --require-verdict writes nothing.
int gate_build(const BuildOptions& opts, const LoadedSelection& loaded, const std::vector<VerdictRow>& rows) {
  for (const VerdictRow& r : rows) {
    // A target named with -t must build; the default "every target" plan
    // records an unavailable toolchain as NOT_RUN and goes on.
    if (r.unavailable && !loaded.targets.empty())
      return report_error(r.report.reason + "; nothing written", kExitToolchain);
    if (r.compile_failed)
      return report_error("build failed; nothing written", r.input_error ? kExitInvalid : kExitToolchain);
    if (r.report.verdict == Verdict::fail)
      return report_error("oracle FAIL for " + r.kernel + " on " + r.target.str() + "; nothing written",
                          kExitInvalid);
  }
  const bool writes = !opts.output.empty() || !opts.out_dir.empty();
  if (const std::vector<std::string> empty = kernels_without_variants(loaded.specs, rows); writes && !empty.empty()) {
    for (const std::string& line : empty) report_error(line, kExitInvalid);
    return report_error(std::to_string(empty.size()) + " kernel(s) without a variant; nothing written", kExitInvalid);
  }
  return check_required_verdict(opts.pipeline.require_verdict, rows, {}, "; nothing written");
}

// The archive (with the receipts admitted), the depfile, --out-dir: each
// written atomically, after the gate.
int write_build(const BuildOptions& opts, const LoadedSelection& loaded, const std::vector<VerdictRow>& rows,
                const std::optional<std::string>& depfile_text) {
  if (!opts.output.empty()) {
    ArchiveContents contents = assemble_archive(loaded.specs, rows);
    AdmissionTotals totals;
    if (int rc = apply_receipts(opts.receipts, contents, totals); rc != kExitOk) return rc;
    Status written = write_archive(contents, opts.output);
    if (!written.ok()) return report(written.error());
    print_admission_totals(totals, opts.output);
  }
  if (depfile_text) {
    Status written = write_file_atomic(opts.depfile, *depfile_text);
    if (!written.ok()) return report(written.error());
  }
  if (!opts.out_dir.empty()) return write_out_dir(opts.out_dir, rows);
  return kExitOk;
}

PassOptions pass_options(const BuildOptions& opts) {
  PassOptions q;
  q.seed = opts.selection.seed;
  q.run_oracle = !opts.no_oracle;
  q.emulate = opts.selection.emulate;
  q.keep_artifacts = true;
  q.tune = opts.tune ? &opts.tune_options : nullptr;
  return q;
}
}  // namespace

// build (and tune): refuse → load → plan → the passes (driver/passes.h) →
// tables and reports → gate → write. Each step returns its exit code; the first that is
// not kExitOk ends the build with nothing written.
int run_build(const BuildOptions& opts) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<CommandPath> inputs = spec_input_paths(opts.selection.specs);
  std::optional<std::string> depfile_text;
  if (int rc = check_build_request(opts, inputs, depfile_text); rc != kExitOk) return rc;
  int exit_code = kExitOk;
  const std::optional<LoadedSelection> loaded = load_selection(opts.selection, exit_code);
  if (!loaded) return exit_code;
  const std::vector<Job> jobs = plan_jobs(loaded->specs, loaded->targets);
  if (int rc = check_build_plan(*loaded, jobs); rc != kExitOk) return rc;
  PassOptions passes = pass_options(opts);
  Pipeline pipeline = start_pipeline(opts.pipeline);
  pipeline.configure(passes);
  const std::vector<VerdictRow> rows = run_passes(jobs, passes);
  finish_pipeline(opts.pipeline, pipeline);
  print_build_tables(opts, rows);
  // --out-dir's artifact names are known now: refuse one that is an input.
  if (int rc = check_outputs(inputs, build_outputs(opts, rows)); rc != kExitOk) return rc;
  // --json and the pipeline's reports: written whatever the gate says.
  if (int rc = write_verdict_json(opts.selection, render_verdict_json(rows)); rc != kExitOk) return rc;
  if (int rc = write_pipeline_outputs(opts.pipeline, pipeline, "build", rows, started); rc != kExitOk) return rc;
  if (int rc = gate_build(opts, *loaded, rows); rc != kExitOk) return rc;
  return write_build(opts, *loaded, rows, depfile_text);
}

RunFn register_build(CLI::App& app) {
  auto opts = std::make_shared<BuildOptions>();
  CLI::App* sub = app.add_subcommand("build", "Compile specs for targets, run the oracle, write the artifacts");
  add_spec_selection_options(sub, opts->selection);
  CLI::Option* output = sub->add_option("-o,--output", opts->output, "The fat archive to write (FILE.tfat)");
  CLI::Option* out_dir = sub->add_option("--out-dir", opts->out_dir, "Also write loose artifacts and manifest.json to DIR");
  sub->callback([output, out_dir]() {
    if (output->count() == 0 && out_dir->count() == 0) throw CLI::RequiredError("-o FILE.tfat (or --out-dir DIR)");
  });
  sub->add_option("--depfile", opts->depfile,
                  "Also write a Makefile-syntax depfile for -o (the specs and spec directories read)");
  sub->add_flag("--no-oracle", opts->no_oracle, "Do not run the oracle; verdicts are NOT_RUN (skipped by request)");
  add_receipt_options(sub, opts->receipts, /*required=*/false);
  add_pipeline_options(sub, opts->pipeline);
  sub->add_flag("--tune", opts->tune,
                "Run the arbiter: measure every candidate and ship the fastest route per shape bucket (docs/arbiter.md)");
  add_tune_options(sub, opts->tune_options);
  return [opts]() -> int { return run_build(*opts); };
}

RunFn register_tune(CLI::App& app) {
  auto opts = std::make_shared<BuildOptions>();
  opts->tune = true;
  CLI::App* sub = app.add_subcommand(
      "tune", "Measure every candidate (generated variants, delegates) through the oracle and libtesserart; "
              "print the table, fill the tuning cache, and with -o write the tuned archive");
  add_spec_selection_options(sub, opts->selection);
  sub->add_option("-o,--output", opts->output, "Also write the tuned fat archive (FILE.tfat)");
  add_pipeline_options(sub, opts->pipeline);
  add_tune_options(sub, opts->tune_options);
  return [opts]() -> int { return run_build(*opts); };
}

}  // namespace tsr::cli
