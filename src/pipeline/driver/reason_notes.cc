#include "driver/reason_notes.h"

#include <set>

namespace tsr {

namespace {

constexpr const char* kSeparator = "; ";

// Every tail of `detail` at a separator, earliest first.
std::vector<size_t> tail_starts(const std::string& detail) {
  std::vector<size_t> starts;
  for (size_t at = detail.find(kSeparator); at != std::string::npos; at = detail.find(kSeparator, at + 1))
    if (detail.size() - (at + 2) >= ReasonNotes::kMinLength) starts.push_back(at + 2);
  return starts;
}

}  // namespace

ReasonNotes::ReasonNotes(const std::vector<std::string>& details) {
  for (const std::string& d : details) {
    std::set<std::string> tails;   // a detail counts once per tail
    for (size_t start : tail_starts(d)) tails.insert(d.substr(start));
    for (const std::string& t : tails) ++rows_ending_with_[t];
  }
}

std::string ReasonNotes::shorten(const std::string& detail) {
  for (size_t start : tail_starts(detail)) {
    const std::string tail = detail.substr(start);
    auto shared = rows_ending_with_.find(tail);
    if (shared == rows_ending_with_.end() || shared->second < 2) continue;
    auto [it, added] = number_.emplace(tail, used_.size() + 1);
    if (added) used_.push_back(tail);
    return detail.substr(0, start) + "see [" + std::to_string(it->second) + "]";
  }
  return detail;
}

std::string ReasonNotes::render() const {
  std::string out;
  for (size_t i = 0; i < used_.size(); ++i) out += "[" + std::to_string(i + 1) + "] " + used_[i] + "\n";
  return out;
}

}  // namespace tsr
