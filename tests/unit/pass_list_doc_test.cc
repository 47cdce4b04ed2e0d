// docs/architecture.md's pass table names the passes run_passes runs, in
// the same order: the page a maintainer reads is the list the code runs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "driver/passes.h"

namespace tsr {
namespace {

// The first cell of every row of the table under "## The pass list", in order.
std::vector<std::string> documented_passes() {
  std::ifstream in(TSR_SOURCE_DIR "/docs/architecture.md", std::ios::binary);
  std::vector<std::string> names;
  bool in_section = false, in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      if (in_section) break;
      in_section = line == "## The pass list";
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;   // the first table of the section only
      continue;
    }
    in_table = true;
    const size_t end = line.find('|', 1);
    std::string cell = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
    cell.erase(0, cell.find_first_not_of(' '));
    cell.erase(cell.find_last_not_of(' ') + 1);
    if (cell == "pass" || cell.find("---") != std::string::npos) continue;   // header, rule
    names.push_back(cell);
  }
  return names;
}

TEST(PassList, TheArchitecturePageListsThePassesInTheOrderTheyRun) {
  std::vector<std::string> run;
  for (const char* name : pass_names()) run.push_back(name);
  ASSERT_EQ(run.size(), 6u);
  EXPECT_EQ(documented_passes(), run);
  EXPECT_EQ(run.front(), "identify");
  EXPECT_EQ(run.back(), "qualify");
}

}  // namespace
}  // namespace tsr
