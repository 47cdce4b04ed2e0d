#include "report.h"

#include <cstdio>

namespace tsr::bench {

namespace {

struct Verdict {
  std::string line;
  double ratio, goal;
};

std::vector<Verdict>& verdicts() {
  static std::vector<Verdict> v;
  return v;
}

std::string rate(double seconds, double work, Work unit) {
  char buf[48];
  if (unit == Work::flops)
    std::snprintf(buf, sizeof buf, "%.1f GFLOP/s", work / seconds * 1e-9);
  else
    std::snprintf(buf, sizeof buf, "%.1f GB/s", work / seconds * 1e-9);
  return buf;
}

void print_time(const Measured& m, double work, Work unit) {
  std::printf("    %-14s %9.3f ms  %s\n", m.name.c_str(), m.seconds * 1e3, rate(m.seconds, work, unit).c_str());
}

// "goal >= 1.00 MET" / "goal >= 0.90 MISSED by 12%" / the reason there is none.
std::string judge(const std::string& line, double ratio, const Goal& goal) {
  if (goal.ratio <= 0) return goal.why_none.empty() ? "no goal" : "no goal (" + goal.why_none + ")";
  verdicts().push_back({line, ratio, goal.ratio});
  char buf[64];
  if (ratio >= goal.ratio)
    std::snprintf(buf, sizeof buf, "goal >= %.2f MET", goal.ratio);
  else
    std::snprintf(buf, sizeof buf, "goal >= %.2f MISSED by %.0f%%", goal.ratio, (1 - ratio / goal.ratio) * 100);
  return buf;
}

}  // namespace

void report_line(const std::string& mode, const std::string& what, const Measured& ours,
                 const std::vector<Measured>& peers, double work, Work unit, const Goal& goal,
                 const std::string& extra) {
  std::printf("[%s] %s\n", mode.c_str(), what.c_str());
  print_time(ours, work, unit);
  const Measured* best = nullptr;
  for (const Measured& p : peers) {
    print_time(p, work, unit);
    if (!best || p.seconds < best->seconds) best = &p;
  }
  if (!best) {
    std::printf("    no peer ran: no ratio\n");
    return;
  }
  const double ratio = best->seconds / ours.seconds;
  const std::string line = "[" + mode + "] " + what + " vs " + best->name;
  std::printf("    speed ratio = best peer (%s) time / our time = %.2f; %s%s\n", best->name.c_str(), ratio,
              judge(line, ratio, goal).c_str(), extra.c_str());
}

void report_line_per_peer(const std::string& mode, const std::string& what, const Measured& ours,
                          const std::vector<Measured>& peers, const std::vector<Absent>& absent, double work,
                          Work unit, const std::vector<PeerGoal>& goals, const std::string& extra) {
  std::printf("[%s] %s\n", mode.c_str(), what.c_str());
  print_time(ours, work, unit);
  for (const Measured& p : peers) print_time(p, work, unit);
  for (const Absent& a : absent) std::printf("    %-14s absent: %s\n", a.name.c_str(), a.why.c_str());
  for (const Measured& p : peers) {
    const double ratio = p.seconds / ours.seconds;
    Goal goal;
    for (const PeerGoal& g : goals)
      if (g.peer == p.name) goal = g.goal;
    std::printf("    speed ratio = %s time / our time = %.2f; %s\n", p.name.c_str(), ratio,
                judge("[" + mode + "] " + what + " vs " + p.name, ratio, goal).c_str());
  }
  for (const Absent& a : absent) std::printf("    no ratio to %s (absent), so no goal against it\n", a.name.c_str());
  if (!extra.empty()) std::printf("    %s\n", extra.c_str());
}

void report_not_run(const std::string& mode, const std::string& what, const std::string& why) {
  std::printf("[%s] %s\n    NOT RUN: %s\n", mode.c_str(), what.c_str(), why.c_str());
}

void report_ratio(const std::string& what, double ratio, const Goal& goal, const std::string& detail) {
  std::printf("%s\n%s    ratio %.2f; %s\n", what.c_str(), detail.c_str(), ratio, judge(what, ratio, goal).c_str());
}

void print_summary() {
  std::printf("\nGoals (issue 11 item 5, issues 26 and 27), speed ratio = the named peer's time / our time:\n");
  int met = 0;
  for (const Verdict& v : verdicts()) {
    const bool ok = v.ratio >= v.goal;
    met += ok;
    std::printf("  %-6s %5.2f (goal %.2f)  %s\n", ok ? "MET" : "MISSED", v.ratio, v.goal, v.line.c_str());
  }
  std::printf("  %d of %zu goals met\n", met, verdicts().size());
}

}  // namespace tsr::bench
