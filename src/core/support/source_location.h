#pragma once

#include <string>

namespace tsr {

// 1-based line and column into a named file; line 0 means "the whole file".
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

}  // namespace tsr
