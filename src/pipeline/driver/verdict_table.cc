#include "driver/verdict_table.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "driver/reason_notes.h"
#include "oracle/compare.h"

namespace tsr {

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

std::string render_verdict_table(const std::vector<VerdictRow>& rows, bool group_not_run) {
  size_t kw = 6, tw = 6, vw = 7;
  for (const VerdictRow& r : rows) {
    kw = std::max(kw, r.kernel.size());
    tw = std::max(tw, r.target.str().size());
    vw = std::max(vw, std::string(verdict_name(r.report.verdict)).size());
  }
  char line[1024];
  std::string out;
  std::snprintf(line, sizeof line, "%-*s  %-*s  %-*s  %-9s  %-9s  %-17s  %s\n", static_cast<int>(kw), "KERNEL",
                static_cast<int>(tw), "TARGET", static_cast<int>(vw), "VERDICT", "MAX_ABS", "MAX_REL",
                "BUDGET atol/rtol", "DETAIL");
  out += line;
  // An emulated rerun runs the same emulator over the same source: it
  // cannot differ, so it is not shown as a determinism check.
  auto detail_of = [](const OracleReport& rep) {
    const bool passed = rep.verdict == Verdict::pass || rep.verdict == Verdict::pass_emulated;
    const bool emulated = rep.verdict == Verdict::pass_emulated;
    const std::string rerun = !rep.determinism_checked ? "" : emulated ? " rerun=n/a(emulated)" : " rerun=bit-identical";
    std::string detail = passed ? "seed=" + std::to_string(rep.seed) + " trials=" + std::to_string(rep.trials) + rerun +
                                      " budget_use=" + num(rep.budget_use) +
                                      (rep.absolute_term_decided ? "(atol)" : "(rtol)")
                                : rep.reason;
    if (emulated) detail += " (" + rep.reason + ")";
    return detail;
  };
  std::vector<std::string> details;
  for (const VerdictRow& r : rows) details.push_back(detail_of(r.report));
  ReasonNotes notes(details);
  std::vector<std::pair<std::string, std::vector<const VerdictRow*>>> not_run;   // by reason, first-seen order
  for (size_t i = 0; i < rows.size(); ++i) {
    const VerdictRow& r = rows[i];
    const OracleReport& rep = r.report;
    const bool ran = rep.verdict != Verdict::not_run;
    if (!ran && group_not_run) {
      auto group = std::find_if(not_run.begin(), not_run.end(), [&](const auto& g) { return g.first == rep.reason; });
      if (group == not_run.end()) group = not_run.insert(not_run.end(), {rep.reason, {}});
      group->second.push_back(&r);
      continue;
    }
    const std::string detail = notes.shorten(details[i]);
    std::snprintf(line, sizeof line, "%-*s  %-*s  %-*s  %-9s  %-9s  %-17s  %s\n", static_cast<int>(kw),
                  r.kernel.c_str(), static_cast<int>(tw), r.target.str().c_str(), static_cast<int>(vw),
                  verdict_name(rep.verdict),
                  ran ? num(rep.max_abs_err).c_str() : "-", ran ? num(rep.max_rel_err).c_str() : "-",
                  (num(rep.budget.atol) + "/" + num(rep.budget.rtol)).c_str(), detail.c_str());
    out += line;
  }
  for (const auto& [reason, group] : not_run) {
    std::vector<std::string> targets;   // distinct, first-seen order
    for (const VerdictRow* r : group)
      if (std::find(targets.begin(), targets.end(), r->target.str()) == targets.end()) targets.push_back(r->target.str());
    std::string names;
    for (const std::string& t : targets) names += (names.empty() ? "" : ", ") + t;
    out += "not run: " + notes.shorten(reason) + ": " + std::to_string(group.size()) + " variant(s) on " + names + "\n";
  }
  out += notes.render();
  // Emulated passes are counted apart from hardware passes, and only named
  // when there are some, so a run without --emulate reads as it always has.
  const VerdictCounts c = count_verdicts(rows);
  out += std::to_string(c.passed) + " passed, " +
         (c.passed_emulated ? std::to_string(c.passed_emulated) + " passed emulated (not hardware), " : std::string()) +
         std::to_string(c.failed) + " failed, " + std::to_string(c.not_run) + " not run\n";
  return out;
}

VerdictCounts count_verdicts(const std::vector<VerdictRow>& rows) {
  VerdictCounts c;
  for (const VerdictRow& r : rows) {
    c.passed += r.report.verdict == Verdict::pass;
    c.passed_emulated += r.report.verdict == Verdict::pass_emulated;
    c.failed += r.report.verdict == Verdict::fail;
    c.not_run += r.report.verdict == Verdict::not_run;
    c.compile_failed += r.compile_failed;
  }
  return c;
}

std::string render_verdict_json(const std::vector<VerdictRow>& rows) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const VerdictRow& r : rows) {
    nlohmann::ordered_json j;
    j["kernel"] = r.kernel;
    j["identity"] = r.identity;
    j["target"] = r.target.str();
    j["verdict"] = verdict_name(r.report.verdict);
    j["max_abs_err"] = r.report.max_abs_err;
    j["max_rel_err"] = r.report.max_rel_err;
    j["budget_atol"] = r.report.budget.atol;
    j["budget_rtol"] = r.report.budget.rtol;
    j["rel_threshold"] = relative_threshold(r.report.budget);   // max_rel_err counts |ref| at or above it
    j["budget_use"] = r.report.budget_use;
    j["budget_term"] = r.report.absolute_term_decided ? "atol" : "rtol";
    j["seed"] = r.report.seed;
    j["trials"] = r.report.trials;
    j["determinism_checked"] = r.report.determinism_checked;
    j["reason"] = r.report.reason;
    j["route"] = r.route;
    results.push_back(j);
  }
  nlohmann::ordered_json doc;
  doc["results"] = results;
  return doc.dump(2) + "\n";
}

}  // namespace tsr
