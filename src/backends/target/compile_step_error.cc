#include "target/compile_step_error.h"

namespace tsr {

Error compile_step_error(const KernelSpec& spec, const std::string& target, const std::string& step, const Error& e) {
  std::string where;
  if (!spec.location.file.empty()) {
    where = spec.location.file;
    if (spec.location.line > 0) where += ":" + std::to_string(spec.location.line);
    if (spec.location.column > 0) where += ":" + std::to_string(spec.location.column);
    where += ": ";
  }
  return Error(e.kind(), where + "error: " + step + " failed for kernel '" + spec.name + "' (" + target +
                             "): " + e.message());
}

}  // namespace tsr
