#include "oracle/route_trials.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "oracle/input_generator.h"
#include "spec/abi.h"

namespace tsr {

namespace {

// An odd extent strictly inside (lo, hi], or above lo when the bucket is the last.
int64_t inside(int64_t lo, const int64_t* hi) {
  if (!hi) return 2 * lo + 1;
  const int64_t v = (lo + (*hi - lo) / 2 + 1) | 1;
  return v <= *hi ? v : *hi;
}

bool parse_int(const std::string& text, int64_t& out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && p == end && out > 0;
}

}  // namespace

std::vector<ShapeTrial> bucket_trials(const KernelSpec& spec, const std::string& dim,
                                      const std::vector<int64_t>& bounds, const std::vector<std::string>& labels,
                                      const std::vector<std::map<std::string, int64_t>>& timed) {
  std::vector<ShapeTrial> out;
  const size_t count = dim.empty() ? 1 : bounds.size() + 1;
  for (size_t i = 0; i < count; ++i) {
    const std::string label = i < labels.size() ? labels[i] : std::to_string(i);
    if (!dim.empty()) {
      ShapeTrial t{"route " + label, trial_scalars(spec, 0)};
      t.scalars[dim] = inside(i == 0 ? 0 : bounds[i - 1], i < bounds.size() ? &bounds[i] : nullptr);
      out.push_back(std::move(t));
    }
    if (i < timed.size() && !timed[i].empty()) out.push_back({"timed " + label, timed[i]});
  }
  return out;
}

std::string scalars_text(const KernelSpec& spec, const std::map<std::string, int64_t>& scalars) {
  std::string s;
  for (const std::string& name : runtime_scalars(spec))
    if (auto it = scalars.find(name); it != scalars.end())
      s += (s.empty() ? "" : " ") + name + "=" + std::to_string(it->second);
  return s;
}

Expected<std::vector<ShapeTrial>> route_trials(const KernelSpec& spec,
                                               const std::map<std::string, std::string>& metadata) {
  const std::vector<std::string> names = runtime_scalars(spec);
  auto get = [&](const std::string& key) {
    auto it = metadata.find(key);
    return it == metadata.end() ? std::string() : it->second;
  };
  const std::string dim = get("route.dim");
  std::vector<int64_t> bounds;
  if (!dim.empty()) {
    if (std::find(names.begin(), names.end(), dim) == names.end())
      return invalid_input("route.dim '" + dim + "' is not a runtime scalar of " + spec.name);
    std::stringstream ss(get("route.bounds"));
    for (std::string item; std::getline(ss, item, ',');) {
      int64_t v = 0;
      if (!parse_int(item, v) || (!bounds.empty() && v <= bounds.back()))
        return invalid_input("route.bounds '" + get("route.bounds") + "' is not an ascending list of extents");
      bounds.push_back(v);
    }
    if (bounds.empty()) return invalid_input("route.dim '" + dim + "' without route.bounds");
  }
  std::vector<std::string> labels;
  std::vector<std::map<std::string, int64_t>> timed;
  const size_t count = dim.empty() ? 1 : bounds.size() + 1;
  for (size_t i = 0; i < count; ++i) {
    labels.push_back(dim.empty() ? "all"
                     : i < bounds.size() ? dim + "<=" + std::to_string(bounds[i])
                                         : dim + ">" + std::to_string(bounds.back()));
    const std::string text = get("tune.scalars." + std::to_string(i));
    std::map<std::string, int64_t> scalars;
    std::stringstream ss(text);
    for (std::string item; ss >> item;) {
      const size_t eq = item.find('=');
      int64_t v = 0;
      if (eq == std::string::npos || !parse_int(item.substr(eq + 1), v) ||
          std::find(names.begin(), names.end(), item.substr(0, eq)) == names.end())
        return invalid_input("tune.scalars." + std::to_string(i) + " '" + text + "' is not NAME=EXTENT of " +
                             spec.name + "'s runtime scalars");
      scalars[item.substr(0, eq)] = v;
    }
    if (!text.empty() && scalars.size() != names.size())
      return invalid_input("tune.scalars." + std::to_string(i) + " '" + text + "' does not give every runtime scalar");
    timed.push_back(std::move(scalars));
  }
  return bucket_trials(spec, dim, bounds, labels, timed);
}

}  // namespace tsr
