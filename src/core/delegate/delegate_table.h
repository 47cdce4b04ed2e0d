// The closed table of delegates: vendor library functions a spec's
// `kernel_call` candidate may name. It is extended only here, in code, so a
// spec can never make tesserac (or the stub) dlopen an arbitrary library.
#pragma once

#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr {

struct DelegateEntry {
  std::string callee;                 // "cblas_sgemm" | "dnnl_sgemm" | "cublasGemmEx" | "cublasLtMatmul"
  std::string library;                // "openblas" | "onednn" | "cublas" | "cublasLt"
  std::vector<std::string> sonames;   // tried in this order by the stub
  std::string convention;             // the stub's calling convention id
  Family family;                      // what the delegate computes
  std::string target_kind;            // "x86" | "cuda"
  std::string binding;                // how it is called: "c_abi"
  Provenance provenance;              // vendor_library
};

const std::vector<DelegateEntry>& delegate_table();

// The entry for `callee` on `target_kind` computing `family`, or nullptr.
const DelegateEntry* find_delegate(Family family, const std::string& target_kind, const std::string& callee);

// The callees known for `family` on `target_kind`, in table order (for messages).
std::vector<std::string> delegate_callees(Family family, const std::string& target_kind);

// "" when the delegate can compute `spec`, else why not, e.g. "cblas_sgemm
// computes f32 only, the kernel is bf16" or "epilogue 'bias' is not
// expressible in cblas_sgemm (only 'scale' folds into alpha)".
std::string delegate_cannot_compute(const DelegateEntry& d, const KernelSpec& spec);

}  // namespace tsr
