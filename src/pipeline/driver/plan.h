// Which (spec, target) pairs a command works on.
#pragma once

#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "support/error.h"
#include "target/target.h"

namespace tsr {

// Parses "x86:v3,cuda:sm_90" (repeatable -t values) against the registry.
Expected<std::vector<TargetName>> parse_target_list(const std::vector<std::string>& values);

struct Job {
  const KernelSpec* spec;
  TargetName target;
  std::string unsupported;   // non-empty: the target cannot build this spec, and why
  // The registered target of target.kind, looked up once by plan_jobs; set
  // whenever `unsupported` is empty, so no later stage looks it up again.
  const Target* impl = nullptr;
};

// -t narrows to the named targets; a spec's own `targets:` list narrows
// further; with neither, every registered target is planned.
std::vector<Job> plan_jobs(const std::vector<KernelSpec>& specs, const std::vector<TargetName>& requested);

// One message per spec that `jobs` plans for no target at all (its own
// `targets:` shares none with -t): "kernel 'K' has no target: -t
// x86:v4 names none of the targets its spec lists (x86:v3)".
std::vector<std::string> kernels_without_targets(const std::vector<KernelSpec>& specs, const std::vector<Job>& jobs,
                                                 const std::vector<TargetName>& requested);

}  // namespace tsr
