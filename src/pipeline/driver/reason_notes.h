// Long reason tails that several rows of a verdict table share (the xdna
// target's whole manifest after "the NPU runs only: ..."), printed once
// under the table as numbered notes that the rows refer to.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tsr {

class ReasonNotes {
 public:
  // A tail is the text after one of a detail's "; " separators; one at
  // least kMinLength long that two or more details end with becomes a note.
  static constexpr size_t kMinLength = 80;

  explicit ReasonNotes(const std::vector<std::string>& details);

  // `detail` with its earliest shared tail replaced by "see [N]"; notes are
  // numbered in the order rows first use them.
  std::string shorten(const std::string& detail);

  // "[1] tail\n" for every note used, in number order; empty when none.
  std::string render() const;

 private:
  std::map<std::string, size_t> rows_ending_with_;   // tail -> how many details end with it
  std::map<std::string, size_t> number_;             // tail -> its note number, once used
  std::vector<std::string> used_;                    // tails in number order
};

}  // namespace tsr
