// The tuning cache (docs/arbiter.md, "The tuning cache"): an arbiter result
// stored in the compile cache's directory under the SHA-256 of everything
// the measurement depends on, so a later build on the same machine with the
// same versions reuses it, and any version change re-measures.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arbiter/arbiter.h"

namespace tsr {

// Every input of a measurement, as the key hashes it.
struct TuningKeyFields {
  std::string identity;            // kernel identity (covers the spec's candidates)
  TargetName target;
  std::string device;              // DeviceInfo name + capability
  std::string driver;              // DeviceInfo driver (the OS kernel for CPUs)
  std::string tesserac_version;
  std::string toolchain;           // the target's toolchain version
  std::vector<std::pair<std::string, std::string>> candidates;   // name -> artifact SHA-256 or library version
  uint32_t workers = 0;
  std::string method;              // MeasurePlan::describe(): rounds, sample, warm-up, settle
  uint64_t oracle_seed = 0;        // the seed every candidate's oracle verdict was drawn with
};

std::string tuning_cache_key(const TuningKeyFields& fields);

// The stored form of an outcome's candidates, routes and measurement facts
// (not the artifact: that is rebuilt from the compile cache).
std::string serialize_tuning(const TuningKeyFields& fields, const TuneOutcome& outcome);
// Fills candidates, routes, workers, rounds, method and device; nullopt when the entry does not parse.
std::optional<TuneOutcome> deserialize_tuning(const std::string& text);

}  // namespace tsr
