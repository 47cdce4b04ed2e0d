// The Target defaults for generated candidates (src/backends/target/target.h): a target
// without tunables offers "default" (its emit()) and one source per artifact.
#include "target/target_candidates.h"

namespace tsr {

std::string candidate_names(const std::vector<GeneratedCandidate>& candidates) {
  std::string names;
  for (const GeneratedCandidate& c : candidates) names += (names.empty() ? "" : ", ") + c.name;
  return names;
}

Expected<GeneratedCandidate> find_generated_candidate(const Target& target, const KernelSpec& spec,
                                                      const std::string& arch, const std::string& name) {
  const std::vector<GeneratedCandidate> candidates = target.generated_candidates(spec, arch);
  for (const GeneratedCandidate& c : candidates)
    if (c.name == name) return c;
  return invalid_input("kernel '" + spec.name + "': unknown candidate '" + name + "' for target " + target.kind() +
                       ":" + arch + " (known: " + candidate_names(candidates) + ")");
}

int candidate_tunable(const GeneratedCandidate& candidate, const std::string& key, int fallback) {
  auto it = candidate.tunables.find(key);
  return it == candidate.tunables.end() ? fallback : std::stoi(it->second);
}

std::vector<GeneratedCandidate> Target::generated_candidates(const KernelSpec&, const std::string&) const {
  return {GeneratedCandidate{"default", {}}};
}

Expected<std::string> Target::emit_candidate(const KernelSpec& spec, const std::string& arch,
                                             const std::string& candidate, const std::string& entry_suffix) const {
  Expected<GeneratedCandidate> found = find_generated_candidate(*this, spec, arch, candidate);
  if (!found) return found.take_error();
  if (!entry_suffix.empty())
    return invalid_input("kernel '" + spec.name + "': target " + kind() + ":" + arch +
                         " cannot rename its entry points (entry suffix '" + entry_suffix + "')");
  return emit(spec, arch);
}

Expected<Artifact> Target::compile_candidates(const KernelSpec& spec, const std::string& arch,
                                              const std::vector<std::string>& sources) const {
  if (sources.size() == 1) return compile(spec, arch, sources[0]);
  return invalid_input("kernel '" + spec.name + "': target " + kind() + ":" + arch + " builds one source per artifact, " +
                       "not " + std::to_string(sources.size()));
}

}  // namespace tsr
