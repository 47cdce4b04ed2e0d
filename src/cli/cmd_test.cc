// tesserac test SPEC|DIR... [-t TARGET,...] [--json FILE]: compile and run the
// oracle for every spec x target on the hardware present; print the table.
#include <chrono>
#include <iostream>
#include <memory>
#include <set>

#include "cli/command_files.h"
#include "cli/commands.h"
#include "cli/pipeline_options.h"
#include "cli/pipeline_outputs.h"
#include "cli/spec_selection.h"
#include "cli/verdict_gate.h"
#include "driver/plan.h"
#include "driver/passes.h"
#include "driver/verdict_table.h"
#include "support/file_io.h"
#include "tesserart.h"

namespace tsr::cli {

namespace {
struct TestOptions {
  SpecSelection selection;
  std::string archive;
  bool allow_missing = false;   // --allow-missing
  PipelineOptions pipeline;
};

// test --archive: a kernel the specs name that the archive lacks, or a
// variant of a target named with -t or in the spec's `targets:`, is an
// error unless --allow-missing; the default "every target" plan only
// records NOT_RUN for the variants an archive does not hold.
int check_archive_holds_everything(const std::string& archive, const std::vector<Job>& jobs,
                                   const std::vector<VerdictRow>& rows, bool targets_named) {
  std::set<std::string> kernels;
  size_t variants = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const VerdictRow& r = rows[i];
    if (r.archive_miss == VerdictRow::ArchiveMiss::kernel && kernels.insert(r.kernel).second) {
      report_error(archive + " has no kernel '" + r.kernel + "'", kExitInvalid);
    } else if (r.archive_miss == VerdictRow::ArchiveMiss::variant && (targets_named || !jobs[i].spec->targets.empty())) {
      report_error(archive + " has no " + r.target.str() + " variant of kernel '" + r.kernel + "'", kExitInvalid);
      ++variants;
    }
  }
  if (kernels.empty() && variants == 0) return kExitOk;
  return report_error(std::to_string(kernels.size()) + " kernel(s) and " + std::to_string(variants) +
                          " variant(s) missing from " + archive + " (--allow-missing checks only what it holds)",
                      kExitInvalid);
}
}  // namespace

RunFn register_test(CLI::App& app) {
  auto opts = std::make_shared<TestOptions>();
  CLI::App* sub = app.add_subcommand("test", "Compile specs and run the oracle on the hardware present");
  add_spec_selection_options(sub, opts->selection);
  sub->add_option("--archive", opts->archive,
                  "Check the variants in this .tfat through the runtime stub instead of compiling");
  sub->add_flag("--allow-missing", opts->allow_missing,
                "With --archive: a kernel or named target the archive lacks is NOT_RUN, not an error");
  add_pipeline_options(sub, opts->pipeline);
  return [opts]() -> int {
    const auto started = std::chrono::steady_clock::now();
    std::vector<CommandPath> inputs = spec_input_paths(opts->selection.specs);
    if (!opts->archive.empty() && opts->selection.emulate)
      return report_error("--emulate runs the emitted CUDA source, which an archive does not hold; "
                          "use it without --archive",
                          kExitUsage);
    if (opts->allow_missing && opts->archive.empty()) return report_error("--allow-missing needs --archive", kExitUsage);
    if (!opts->archive.empty()) {
      // The same file-type message as every other command that reads an archive.
      if (Status regular = check_regular_file(opts->archive); !regular.ok())
        return report_error(opts->archive + ": " + regular.error().message(), kExitInvalid);
      inputs.push_back({"--archive", opts->archive});
    }
    std::vector<CommandPath> outputs;
    if (!opts->selection.json.empty()) outputs.push_back({"--json", opts->selection.json});
    add_pipeline_outputs(opts->pipeline, outputs);
    if (!outputs.empty())
      if (int rc = check_outputs(inputs, outputs); rc != kExitOk) return rc;
    int exit_code = kExitOk;
    std::optional<LoadedSelection> loaded = load_selection(opts->selection, exit_code);
    if (!loaded) return exit_code;
    PassOptions q;
    q.seed = opts->selection.seed;
    q.emulate = opts->selection.emulate;
    std::unique_ptr<tsr_archive, void (*)(tsr_archive*)> archive(nullptr, tsr_archive_close);
    if (!opts->archive.empty()) {
      char message[512] = "";
      tsr_open_options open_options{TSR_OPEN_VERIFY_BLOBS, message, sizeof message};
      tsr_archive* raw = nullptr;
      if (tsr_archive_open_file(opts->archive.c_str(), &open_options, &raw) != TSR_OK)
        return report_error(opts->archive + ": " + message, kExitInvalid);
      archive.reset(raw);
      q.archive = raw;
    }
    Pipeline pipeline = start_pipeline(opts->pipeline);
    pipeline.configure(q);
    const std::vector<Job> jobs = plan_jobs(loaded->specs, loaded->targets);
    const std::vector<std::string> untargeted = kernels_without_targets(loaded->specs, jobs, loaded->targets);
    if (opts->pipeline.require_verdict == RequiredVerdict::any)
      for (const std::string& line : untargeted) std::cerr << "tesserac: warning: " << line << "; not tested\n";
    std::vector<VerdictRow> rows = run_passes(jobs, q);
    finish_pipeline(opts->pipeline, pipeline);
    if (!opts->pipeline.quiet) std::cout << render_verdict_table(rows);
    if (int rc = write_verdict_json(opts->selection, render_verdict_json(rows)); rc != kExitOk) return rc;
    if (int rc = write_pipeline_outputs(opts->pipeline, pipeline, "test", rows, started); rc != kExitOk) return rc;
    bool failed = false, compile_failed = false;
    for (const VerdictRow& r : rows) {
      failed = failed || r.report.verdict == Verdict::fail;
      compile_failed = compile_failed || r.compile_failed;
    }
    if (compile_failed) return kExitToolchain;
    if (failed) return kExitInvalid;
    if (!opts->archive.empty() && !opts->allow_missing)
      if (int rc = check_archive_holds_everything(opts->archive, jobs, rows, !loaded->targets.empty()); rc != kExitOk)
        return rc;
    return check_required_verdict(opts->pipeline.require_verdict, rows, untargeted, "");
  };
}

}  // namespace tsr::cli
