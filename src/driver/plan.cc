#include "driver/plan.h"

#include <algorithm>
#include <sstream>

#include "spec/yaml_reader.h"
#include "targets/registry.h"

namespace tsr {

Expected<std::vector<TargetName>> parse_target_list(const std::vector<std::string>& values) {
  std::vector<TargetName> out;
  std::vector<std::string> known;
  for (const TargetName& t : all_target_names()) known.push_back(t.str());
  for (const std::string& value : values) {
    std::stringstream ss(value);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.empty()) continue;
      if (std::find(known.begin(), known.end(), item) == known.end())
        return Error(ErrorKind::usage, "unknown target '" + item + "' (known: " + join(known) + ")");
      TargetName name = *parse_target_name(item);
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
  }
  return out;
}

std::vector<Job> plan_jobs(const std::vector<KernelSpec>& specs, const std::vector<TargetName>& requested) {
  const std::vector<TargetName> candidates = requested.empty() ? all_target_names() : requested;
  std::vector<Job> jobs;
  for (const KernelSpec& spec : specs) {
    for (const TargetName& t : candidates) {
      if (!spec.targets.empty() &&
          std::find(spec.targets.begin(), spec.targets.end(), t.str()) == spec.targets.end())
        continue;
      const Target* target = find_target(t.kind);
      jobs.push_back(Job{&spec, t, target ? target->unsupported_reason(spec, t.arch) : "no such target"});
    }
  }
  return jobs;
}

}  // namespace tsr
