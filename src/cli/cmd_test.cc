// tesserac test SPEC|DIR... [-t TARGET,...] [--json FILE]: compile and run the
// oracle for every spec x target on the hardware present; print the table.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "driver/plan.h"
#include "driver/qualify.h"
#include "spec/spec_loader.h"
#include "support/atomic_file.h"
#include "tesserart.h"

namespace tsr::cli {

namespace {
struct TestOptions {
  std::vector<std::string> specs;
  std::vector<std::string> targets;
  std::string json;
  std::string archive;
  uint64_t seed = OracleOptions{}.seed;
};
}  // namespace

RunFn register_test(CLI::App& app) {
  auto opts = std::make_shared<TestOptions>();
  CLI::App* sub = app.add_subcommand("test", "Compile specs and run the oracle on the hardware present");
  sub->add_option("specs", opts->specs, "Spec files or directories of *.yaml specs")->required();
  sub->add_option("-t,--target", opts->targets, "Targets (comma-separated or repeated); default: all");
  sub->add_option("--json", opts->json, "Also write the results as JSON to FILE");
  sub->add_option("--seed", opts->seed, "Oracle input seed (printed with every verdict)");
  sub->add_option("--archive", opts->archive,
                  "Check the variants in this .tfat through the runtime stub instead of compiling");
  return [opts]() -> int {
    Expected<std::vector<TargetName>> targets = parse_target_list(opts->targets);
    if (!targets) return report(targets.error());
    DiagnosticEngine diag;
    std::vector<KernelSpec> specs = load_specs(opts->specs, diag);
    if (diag.has_errors()) {
      std::cerr << diag.render();
      return kExitInvalid;
    }
    QualifyOptions q;
    q.seed = opts->seed;
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
    std::vector<VerdictRow> rows = qualify_jobs(plan_jobs(specs, *targets), q);
    std::cout << render_verdict_table(rows);
    if (!opts->json.empty()) {
      Status written = write_file_atomic(opts->json, render_verdict_json(rows));
      if (!written.ok()) return report(written.error());
    }
    bool failed = false, compile_failed = false;
    for (const VerdictRow& r : rows) {
      failed = failed || r.report.verdict == Verdict::fail;
      compile_failed = compile_failed || r.compile_failed;
    }
    if (compile_failed) return kExitToolchain;
    return failed ? kExitInvalid : kExitOk;
  };
}

}  // namespace tsr::cli
