// One printed line per (kernel, thread mode): ours, every peer, the speed
// ratio to the best peer (matmul) or to each peer (memory-bound lines) and
// the goals with MET / MISSED; and the summary of every goal at the end of
// the run.
#pragma once

#include <string>
#include <vector>

namespace tsr::bench {

struct Measured {
  std::string name;   // "ours x86:v4", "OpenBLAS", "oneDNN", "loop"
  double seconds;
};

// A goal is a floor on a speed ratio, a peer's time / our time (matmul: the best peer's); ratio 0: none.
struct Goal {
  double ratio = 0;
  std::string why_none;   // printed where there is no goal
};

enum class Work { flops, bytes };

// Prints the line and records it for the summary.
void report_line(const std::string& mode, const std::string& what, const Measured& ours,
                 const std::vector<Measured>& peers, double work, Work unit, const Goal& goal,
                 const std::string& extra);

// A goal against one named peer: a floor on that peer's time / our time.
struct PeerGoal {
  std::string peer;   // the Measured::name of one of the line's peers
  Goal goal;
};

// A peer without a result on a line, and why (e.g. no such primitive).
struct Absent {
  std::string name, why;
};

// Prints ours, each peer and each absent one, then the speed ratio to each
// peer that ran with its goal; every goal whose peer ran is recorded for the
// summary. A goal holds only where its peer runs: an absent peer has none.
void report_line_per_peer(const std::string& mode, const std::string& what, const Measured& ours,
                          const std::vector<Measured>& peers, const std::vector<Absent>& absent, double work,
                          Work unit, const std::vector<PeerGoal>& goals, const std::string& extra);

// A line that could not run, with the reason.
void report_not_run(const std::string& mode, const std::string& what, const std::string& why);
// A ratio that is not ours-vs-peer (all-core scaling), with its own goal.
void report_ratio(const std::string& what, double ratio, const Goal& goal, const std::string& detail);

// Every goal line of the run, MET / MISSED, in order.
void print_summary();

}  // namespace tsr::bench
