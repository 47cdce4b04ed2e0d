// Whether a delegate's library can be opened here, the way the runtime stub
// opens it (the sonames in order; only <dir>/<soname> when TSR_DELEGATE_DIR
// is set), and its exact version: part of the tuning cache key, so a library
// upgrade re-measures (docs/arbiter.md, "The tuning cache").
#pragma once

#include <string>
#include <vector>

namespace tsr {

struct LibraryProbe {
  bool found = false;
  std::string soname;    // the one that opened
  std::string version;   // "OpenBLAS 0.3.21 DYNAMIC_ARCH ... (core Zen)", "oneDNN 2.6.3 (cpu runtime 2)"
  std::string why_not;   // when not found: every name tried and dlerror's last word
};

// `library` is the delegate table's id ("openblas", "onednn", "cublas",
// "cublasLt"): it says which version call to make. `symbol` must resolve too.
LibraryProbe probe_library(const std::string& library, const std::vector<std::string>& sonames,
                           const std::string& symbol);

}  // namespace tsr
