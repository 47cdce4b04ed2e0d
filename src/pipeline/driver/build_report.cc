#include "driver/build_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "driver/verdict_table.h"

namespace tsr {

std::string row_status(const VerdictRow& row) {
  if (row.compile_failed) return "compile_failed";
  if (row.unavailable) return "unavailable";
  if (row.unsupported) return "unsupported";
  return "ok";
}

namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no other control characters, even escaped.
        if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') out += "?";
        else out += static_cast<char>(c);
    }
  }
  return out;
}

std::string seconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ms / 1000.0);
  return buf;
}

}  // namespace

std::string render_build_report(const std::vector<VerdictRow>& rows, const ReportContext& context) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const VerdictRow& r : rows) {
    nlohmann::ordered_json j;
    j["kernel"] = r.kernel;
    j["identity"] = r.identity;
    j["target"] = r.target.str();
    j["status"] = row_status(r);
    j["verdict"] = verdict_name(r.report.verdict);
    j["reason"] = r.report.reason;
    j["error"] = r.error;
    j["compile_ms"] = r.compile_ms;
    j["oracle_ms"] = r.oracle_ms;
    j["artifact_sha256"] = r.artifact_sha256;
    j["artifact_key"] = r.artifact_key;
    j["route"] = r.route;
    j["artifact_cache_hit"] = r.artifact_cached;
    j["verdict_cache_hit"] = r.verdict_cached;
    results.push_back(j);
  }
  const VerdictCounts c = count_verdicts(rows);
  nlohmann::ordered_json doc;
  doc["tesserac"] = TESSERAC_VERSION;
  doc["command"] = context.command;
  doc["jobs"] = context.jobs;
  nlohmann::ordered_json cache;
  cache["enabled"] = context.cache_enabled;
  cache["dir"] = context.cache_dir;
  cache["hits"] = context.cache_stats.hits;
  cache["misses"] = context.cache_stats.misses;
  cache["stored"] = context.cache_stats.stored;
  cache["corrupt"] = context.cache_stats.corrupt;
  doc["cache"] = cache;
  doc["total_ms"] = context.total_ms;
  doc["summary"] = {{"passed", c.passed},
                    {"passed_emulated", c.passed_emulated},
                    {"failed", c.failed},
                    {"not_run", c.not_run},
                    {"compile_failed", c.compile_failed}};
  doc["results"] = results;
  return doc.dump(2) + "\n";
}

std::string render_junit(const std::vector<VerdictRow>& rows, const ReportContext& context) {
  const VerdictCounts c = count_verdicts(rows);
  const int errors = c.compile_failed;
  int skipped = 0;
  for (const VerdictRow& r : rows) skipped += r.report.verdict == Verdict::not_run && !r.compile_failed;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts = " tests=\"" + std::to_string(rows.size()) + "\" failures=\"" + std::to_string(c.failed) +
                             "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) +
                             "\" time=\"" + seconds(context.total_ms) + "\"";
  out += "<testsuites name=\"tesserac\"" + counts + ">\n";
  out += "  <testsuite name=\"tesserac " + xml_escape(context.command) + "\"" + counts + ">\n";
  for (const VerdictRow& r : rows) {
    const bool emulated = r.report.verdict == Verdict::pass_emulated;
    // The name is the same whatever the verdict, so CI keeps one history
    // per kernel x target; the verdict is a property.
    out += "    <testcase classname=\"" + xml_escape(r.kernel) + "\" name=\"" + xml_escape(r.target.str()) + "\" time=\"" +
           seconds(r.compile_ms + r.oracle_ms) + "\">\n";
    out += "      <properties><property name=\"verdict\" value=\"" + std::string(verdict_name(r.report.verdict)) +
           "\"/><property name=\"status\" value=\"" + row_status(r) + "\"/></properties>\n";
    if (r.compile_failed) {
      out += "      <error message=\"compile failed\">" + xml_escape(r.error) + "</error>\n";
    } else if (r.report.verdict == Verdict::fail) {
      out += "      <failure message=\"FAIL\">" + xml_escape(r.report.reason) + "</failure>\n";
    } else if (r.report.verdict == Verdict::not_run) {
      out += "      <skipped message=\"NOT_RUN: " + xml_escape(r.report.reason) + "\"/>\n";
    } else if (emulated) {
      out += "      <system-out>PASS_EMULATED: " + xml_escape(r.report.reason) + "</system-out>\n";
    }
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace tsr
