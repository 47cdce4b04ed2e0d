#include "archive/archive_merge.h"

#include <map>

namespace tsr {
namespace {

struct Origin {
  size_t input;
  size_t index;
};

std::string conflict(const std::string& what, const std::string& a, const std::string& b) {
  return "merge conflict: " + what + " differs between '" + a + "' and '" + b + "'";
}

// Adds `items` to `into`, keyed by target; equal duplicates collapse.
template <typename T, typename Same>
Status merge_by_target(std::vector<T>& into, std::vector<std::string>& from, const std::vector<T>& items,
                       const std::string& input, const std::string& what, Same same) {
  for (const T& item : items) {
    bool found = false;
    for (size_t i = 0; i < into.size(); ++i) {
      if (!(into[i].target == item.target)) continue;
      found = true;
      if (!same(into[i], item))
        return invalid_input(conflict(what + " " + item.target.str(), from[i], input));
    }
    if (!found) {
      into.push_back(item);
      from.push_back(input);
    }
  }
  return ok();
}

}  // namespace

Expected<ArchiveContents> merge_archives(const std::vector<NamedArchive>& inputs) {
  ArchiveContents out;
  std::map<std::string, std::string> metadata_from;
  std::map<std::string, size_t> kernel_at;
  std::vector<std::string> kernel_from;
  std::vector<std::vector<std::string>> variant_from, verdict_from;
  for (const NamedArchive& in : inputs) {
    for (const auto& [key, value] : in.contents.metadata) {
      auto [it, inserted] = out.metadata.emplace(key, value);
      if (!inserted && it->second != value)
        return invalid_input(conflict("metadata '" + key + "'", metadata_from[key], in.name));
      if (inserted) metadata_from[key] = in.name;
    }
    for (const ArchiveKernel& k : in.contents.kernels) {
      auto [it, inserted] = kernel_at.emplace(k.name, out.kernels.size());
      if (inserted) {
        ArchiveKernel copy = k;
        copy.variants.clear();
        copy.verdicts.clear();
        out.kernels.push_back(std::move(copy));
        kernel_from.push_back(in.name);
        variant_from.emplace_back();
        verdict_from.emplace_back();
      }
      const size_t at = it->second;
      ArchiveKernel& into = out.kernels[at];
      const std::string where = "kernel '" + k.name + "'";
      if (into.identity != k.identity) return invalid_input(conflict(where + " identity", kernel_from[at], in.name));
      if (into.family != k.family || into.dtype != k.dtype || !same_abi(into.abi, k.abi))
        return invalid_input(conflict(where + " ABI", kernel_from[at], in.name));
      Status s = merge_by_target(into.variants, variant_from[at], k.variants, in.name, where + " variant",
                                 [](const Artifact& a, const Artifact& b) { return same_artifact(a, b); });
      if (!s) return s.take_error();
      s = merge_by_target(into.verdicts, verdict_from[at], k.verdicts, in.name, where + " verdict",
                          [](const OracleVerdictRecord& a, const OracleVerdictRecord& b) { return a == b; });
      if (!s) return s.take_error();
    }
  }
  return out;
}

}  // namespace tsr
