#include "driver/plan.h"

#include <algorithm>

#include "document/document_messages.h"
#include "registry/registry.h"

namespace tsr {

Expected<std::vector<TargetName>> parse_target_list(const std::vector<std::string>& values) {
  std::vector<TargetName> out;
  std::vector<std::string> known;
  for (const TargetName& t : all_target_names()) known.push_back(t.str());
  for (const std::string& value : values) {
    // Every comma-separated item counts, a trailing one too: an empty name
    // would otherwise drop out and `-t ''` would quietly mean every target.
    for (size_t start = 0, end = 0; end != std::string::npos; start = end + 1) {
      end = value.find(',', start);
      const std::string item = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (item.empty()) return Error(ErrorKind::usage, "empty target name in target list '" + value + "'");
      if (std::find(known.begin(), known.end(), item) == known.end())
        return Error(ErrorKind::usage, unknown_target_message(item));
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
      jobs.push_back(Job{&spec, t, target ? target->unsupported_reason(spec, t.arch) : "no such target", target});
    }
  }
  return jobs;
}

namespace {
std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}
}  // namespace

std::vector<std::string> kernels_without_targets(const std::vector<KernelSpec>& specs, const std::vector<Job>& jobs,
                                                 const std::vector<TargetName>& requested) {
  std::vector<std::string> requested_names;
  for (const TargetName& t : requested) requested_names.push_back(t.str());
  std::vector<std::string> out;
  for (const KernelSpec& spec : specs) {
    if (std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.spec == &spec; })) continue;
    out.push_back("kernel '" + spec.name + "' has no target: -t " + joined(requested_names) +
                  " names none of the targets its spec lists (" + joined(spec.targets) + ")");
  }
  return out;
}

}  // namespace tsr
