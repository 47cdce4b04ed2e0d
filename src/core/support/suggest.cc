#include "support/suggest.h"

#include <algorithm>
#include <cctype>

namespace tsr {

namespace {

bool equal_ignoring_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  // Three rows of the dynamic-programming table: a transposition looks two back.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::vector<std::string> closest_names(const std::string& typed, const std::vector<std::string>& candidates) {
  if (typed.empty()) return {};
  for (const std::string& c : candidates)
    if (c != typed && equal_ignoring_case(c, typed)) return {c};
  std::vector<std::string> stems;
  for (const std::string& c : candidates)
    if (c.size() > typed.size() + 1 && c.compare(0, typed.size(), typed) == 0 && c[typed.size()] == '_')
      stems.push_back(c);
  if (!stems.empty()) return stems;
  const size_t limit = std::min<size_t>(2, typed.size() / 3);
  const std::string* best = nullptr;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(typed, c);
    if (d > 0 && d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  if (!best) return {};
  return {*best};
}

std::string did_you_mean(const std::string& typed, const std::vector<std::string>& candidates) {
  const std::vector<std::string> names = closest_names(typed, candidates);
  if (names.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t i = 0; i < names.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + "'" + names[i] + "'";
  return out + "?)";
}

}  // namespace tsr
