// One printed line per (kernel, thread mode): ours, every peer, the speed
// ratio to the best peer and the goal of issue 11 with MET / MISSED; and the
// summary of every goal at the end of the run.
#pragma once

#include <string>
#include <vector>

namespace tsr::bench {

struct Measured {
  std::string name;   // "ours x86:v4", "OpenBLAS", "oneDNN", "loop"
  double seconds;
};

// A goal is a floor on speed ratio = best peer's time / our time; ratio 0: none.
struct Goal {
  double ratio = 0;
  std::string why_none;   // printed where there is no goal
};

enum class Work { flops, bytes };

// Prints the line and records it for the summary.
void report_line(const std::string& mode, const std::string& what, const Measured& ours,
                 const std::vector<Measured>& peers, double work, Work unit, const Goal& goal,
                 const std::string& extra);
// A line that could not run, with the reason.
void report_not_run(const std::string& mode, const std::string& what, const std::string& why);
// A ratio that is not ours-vs-peer (all-core scaling), with its own goal.
void report_ratio(const std::string& what, double ratio, const Goal& goal, const std::string& detail);

// Every goal line of the run, MET / MISSED, in order.
void print_summary();

}  // namespace tsr::bench
