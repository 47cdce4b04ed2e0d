#include "delegate/delegate_table.h"

#include <algorithm>
#include <climits>

namespace tsr {

const std::vector<DelegateEntry>& delegate_table() {
  // oneDNN's "matmul" is its dnnl_sgemm C function (row-major, f32): one
  // call, no primitive cache to manage in the stub.
  static const std::vector<DelegateEntry> table = {
      {"cblas_sgemm", "openblas", {"libopenblas.so.0", "libopenblas.so"}, "cblas_sgemm", Family::matmul, "x86",
       "c_abi", Provenance::vendor_library},
      {"dnnl_sgemm", "onednn", {"libdnnl.so.2", "libdnnl.so.3", "libdnnl.so"}, "dnnl_sgemm", Family::matmul, "x86",
       "c_abi", Provenance::vendor_library},
      // Newest toolkit first: CUDA 13 ships libcublas.so.13, 12.x .so.12, 11.x .so.11.
      {"cublasGemmEx", "cublas", {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"},
       "cublas_gemm_ex", Family::matmul, "cuda", "c_abi", Provenance::vendor_library},
      {"cublasLtMatmul", "cublasLt",
       {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", "libcublasLt.so"}, "cublaslt_matmul",
       Family::matmul, "cuda", "c_abi", Provenance::vendor_library},
  };
  return table;
}

const DelegateEntry* find_delegate(Family family, const std::string& target_kind, const std::string& callee) {
  for (const DelegateEntry& d : delegate_table())
    if (d.family == family && d.target_kind == target_kind && d.callee == callee) return &d;
  return nullptr;
}

std::vector<std::string> delegate_callees(Family family, const std::string& target_kind) {
  std::vector<std::string> names;
  for (const DelegateEntry& d : delegate_table())
    if (d.family == family && d.target_kind == target_kind) names.push_back(d.callee);
  return names;
}

namespace {

// The op as the spec spells it: 'relu', not 'activation'.
const char* epilogue_op_name(const EpilogueOp& e) {
  return e.kind == EpilogueOp::Kind::activation ? op_name(e.activation) : epilogue_kind_name(e.kind);
}

// cblas_sgemm and cublasGemmEx take int extents and leading dimensions.
bool takes_int_extents(const DelegateEntry& d) { return d.convention == "cblas_sgemm" || d.convention == "cublas_gemm_ex"; }

}  // namespace

std::string delegate_cannot_compute(const DelegateEntry& d, const KernelSpec& spec) {
  if (spec.family != d.family || spec.family != Family::matmul)
    return d.callee + " computes " + family_name(d.family) + ", the kernel is " + family_name(spec.family);
  if (d.target_kind == "x86" && spec.dtype != DType::f32)
    return d.callee + " computes f32 only, the kernel is " + dtype_name(spec.dtype);
  const MatmulSpec& mm = spec.matmul();
  // alpha·(A·B) is all a GEMM call adds: one scale folds into alpha, nothing else does.
  int scales = 0;
  for (const EpilogueOp& e : mm.epilogue) {
    if (e.kind != EpilogueOp::Kind::scale)
      return std::string("epilogue '") + epilogue_op_name(e) + "' is not expressible in " + d.callee +
             " (only 'scale' folds into alpha)";
    ++scales;
  }
  if (scales > 1)
    return "the epilogue has " + std::to_string(scales) + " 'scale' ops; " + d.callee + " folds only one into alpha";
  if (takes_int_extents(d)) {
    for (const auto& [key, dim] : {std::pair{"M", mm.m}, std::pair{"N", mm.n}, std::pair{"K", mm.k}})
      if (dim.is_static() && dim.value > INT_MAX)
        return std::string("dimension '") + key + "' is " + std::to_string(dim.value) + ", above " + d.callee +
               "'s int extents (2147483647)";
  }
  return "";
}

}  // namespace tsr
