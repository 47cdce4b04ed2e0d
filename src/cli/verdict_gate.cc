#include "cli/verdict_gate.h"

#include <iostream>

#include "cli/commands.h"

namespace tsr::cli {

namespace {

int strength(Verdict v) {
  switch (v) {
    case Verdict::pass: return 2;
    case Verdict::pass_emulated: return 1;
    case Verdict::not_run:
    case Verdict::fail: return 0;
  }
  return 0;
}

int strength(RequiredVerdict r) {
  return r == RequiredVerdict::pass ? 2 : r == RequiredVerdict::emulated ? 1 : 0;
}

const char* option_text(RequiredVerdict r) { return r == RequiredVerdict::pass ? "pass" : "emulated"; }

// The reason up to its first "; ": the rest (a target's list of what it
// supports, ...) is in the verdict table and the JSON.
std::string first_clause(const std::string& reason) { return reason.substr(0, reason.find("; ")); }

}  // namespace

void add_require_verdict_option(CLI::App* sub, RequiredVerdict& required) {
  sub->add_option_function<std::string>(
         "--require-verdict",
         [&required](const std::string& text) {
           if (text == "pass") required = RequiredVerdict::pass;
           else if (text == "emulated") required = RequiredVerdict::emulated;
           else throw CLI::ValidationError("--require-verdict", "invalid verdict '" + text + "' (expected pass or emulated)");
         },
         "Exit 1 unless every kernel x target planned reached this verdict: pass (hardware PASS) or "
         "emulated (PASS_EMULATED or PASS)")
      ->type_name("pass|emulated");
}

int check_required_verdict(RequiredVerdict required, const std::vector<VerdictRow>& rows,
                           const std::vector<std::string>& untested, const std::string& tail) {
  if (required == RequiredVerdict::any) return kExitOk;
  const std::string option = std::string("--require-verdict ") + option_text(required);
  size_t weaker = 0;
  for (const std::string& line : untested) {
    std::cerr << "tesserac: error: " << option << ": " << line << "\n";
    ++weaker;
  }
  for (const VerdictRow& r : rows) {
    if (r.report.verdict == Verdict::fail || strength(r.report.verdict) >= strength(required)) continue;
    std::cerr << "tesserac: error: " << option << ": " << r.kernel << " on " << r.target.str() << " is "
              << verdict_name(r.report.verdict)
              << (r.report.verdict == Verdict::not_run ? " (" + first_clause(r.report.reason) + ")" : "") << "\n";
    ++weaker;
  }
  if (weaker == 0) return kExitOk;
  return report_error(option + ": " + std::to_string(weaker) + " kernel-target(s) below " +
                          (required == RequiredVerdict::pass ? "PASS" : "PASS_EMULATED") + tail,
                      kExitInvalid);
}

}  // namespace tsr::cli
