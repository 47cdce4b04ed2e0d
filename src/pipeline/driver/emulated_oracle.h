// The oracle in the CPU emulator for the GPU jobs of one run that have no
// device (build/test --emulate, docs/emulator.md), one emulation per group of
// jobs whose emitted source is byte-identical.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "driver/plan.h"
#include "driver/pass_options.h"
#include "driver/verdict_row.h"

namespace tsr {

// The cuda emitter writes the same source for every arch (the hip emitter for
// every arch of one wave size) and the emulator models no other arch
// difference, so one emulation is the evidence for every job of a kernel with
// that source. The job emulated is the group's first target in the target
// catalogue's order: not the -t order and not whichever arch the compile
// cache happens to hold, so the verdicts, their reasons and the archive are
// the same whatever the cache's state.
class EmulatedOracle {
 public:
  EmulatedOracle(const std::vector<Job>& jobs, const PassOptions& options);

  // Job `i` (of kernel identity `identity`) runs its oracle emulated over
  // `source`, or fails to with `source`'s error. `use_cache`: its pass may
  // come from and go to options.cache. Every job is added before the first
  // qualify().
  void add(size_t i, const std::string& identity, const Expected<std::string>& source, bool use_cache);
  bool covers(size_t i) const { return members_.count(i) != 0; }

  // Job i's report and route: its group's, emulated (or found in the cache)
  // once, for the group's first target; the others' reasons name that target.
  void qualify(size_t i, VerdictRow& row);

 private:
  struct Result {
    OracleReport report;
    std::string route;
    bool cached = false;   // from the compile cache
  };
  struct Member {
    std::string group;        // identity ":" sha256 of the source; empty when it could not be emitted
    std::string emit_error;
    std::string identity;
    std::string source;
    bool use_cache = false;
  };
  struct Group {
    size_t canonical = 0;
    std::optional<Result> result;
  };

  Result emulate(size_t i);

  const std::vector<Job>& jobs_;
  const PassOptions& options_;
  std::map<size_t, Member> members_;
  std::map<std::string, Group> groups_;
};

}  // namespace tsr
