// tesserac emit SPEC -t TARGET [-o FILE]: print the generated source.
#include <iostream>
#include <memory>

#include "cli/command_files.h"
#include "cli/commands.h"
#include "compile/compile.h"
#include "driver/plan.h"
#include "driver/spec_loading.h"
#include "registry/registry.h"
#include "support/file_io.h"

namespace tsr::cli {

namespace {
struct EmitOptions {
  std::string spec;
  std::string target;
  std::string output;
  size_t error_limit = kDefaultErrorLimit;
};
}  // namespace

RunFn register_emit(CLI::App& app) {
  auto opts = std::make_shared<EmitOptions>();
  CLI::App* sub = app.add_subcommand("emit", "Print the source generated for one spec and one target");
  sub->add_option("spec", opts->spec, "Kernel spec (YAML)")->required();
  sub->add_option("-t,--target", opts->target, "Target, e.g. x86:v3 or cuda:sm_90")->required();
  sub->add_option("-o,--output", opts->output, "Write the source to FILE instead of stdout");
  add_error_limit_option(sub, opts->error_limit);
  return [opts]() -> int {
    Expected<std::vector<TargetName>> targets = parse_target_list({opts->target});
    if (!targets) return report(targets.error());
    if (targets->size() != 1) return report_error("emit takes exactly one target", kExitUsage);
    if (!opts->output.empty())
      if (int rc = check_outputs({{"spec", opts->spec}}, {{"-o", opts->output}}); rc != kExitOk) return rc;
    DiagnosticEngine diag(&std::cerr, opts->error_limit);
    std::vector<KernelSpec> specs = load_specs({opts->spec}, diag);
    if (diag.has_errors()) return kExitInvalid;
    // parse_target_list accepted the kind: the registry has it.
    const Target& target = *find_target(targets->front().kind);
    Expected<std::string> source = emit_for_target(target, specs.front(), targets->front());
    if (!source) return report(source.error());
    if (opts->output.empty()) {
      std::cout << *source;
      return kExitOk;
    }
    Status written = write_file_atomic(opts->output, *source);
    return written.ok() ? kExitOk : report(written.error());
  };
}

}  // namespace tsr::cli
