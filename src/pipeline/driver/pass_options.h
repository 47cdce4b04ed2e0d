// What a command asks of the passes (driver/passes.h): where artifacts come
// from, whether the oracle runs, the cache, threads, progress, the arbiter.
#pragma once

#include <cstdint>

#include "arbiter/arbiter.h"
#include "oracle/oracle.h"
#include "progress/build_progress.h"

struct tsr_archive;

namespace tsr {

class CompileCache;

struct PassOptions {
  // When set, artifacts come from this archive and launch through the
  // runtime stub instead of being compiled (tesserac test --archive).
  struct tsr_archive* archive = nullptr;
  uint64_t seed = OracleOptions{}.seed;
  bool run_oracle = true;        // false: record NOT_RUN (skipped by request)
  // Launches timed after a pass, for a receipt's median latency (qualify).
  int timed_launches = 0;
  bool keep_artifacts = false;
  // GPU targets whose device is absent run the oracle on the CPU emulator
  // (docs/emulator.md) over the same emitted source the artifact was compiled
  // from: PASS_EMULATED or FAIL. A present device still runs on hardware.
  bool emulate = false;
  // Compiled artifacts and oracle passes are looked up here first and stored
  // after (docs/cache.md); null: no cache.
  CompileCache* cache = nullptr;
  // Compiles run on this many threads; the oracle runs one job at a time, in
  // job order. Rows, messages and outputs are the same for any value.
  unsigned jobs = 1;
  BuildProgress* progress = nullptr;
  // Set: every job goes through the arbiter first (build --tune, tune); a
  // job it measured gets the tuned variant instead of the default compile.
  const TuneOptions* tune = nullptr;
};

}  // namespace tsr
