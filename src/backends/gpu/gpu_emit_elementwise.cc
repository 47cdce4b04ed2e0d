// Elementwise family for the CUDA and HIP dialects (CUDA C++ Programming
// Guide: grid-stride loops, 16-byte vector accesses). One 16-byte vector per thread per step, a
// scalar tail, and a scalar path when any pointer is not 16-byte aligned.
#include <string>

#include "spec/abi.h"
#include "gpu/gpu_emit_families.h"

namespace tsr::gpu {

namespace {

// The op pipeline as one f32 function of the inputs: v = in0; binary ops take
// the next input, unary ops transform v.
std::string apply_function(const ElementwiseSpec& e) {
  std::string s = "__device__ __forceinline__ float tsr_apply(";
  for (int i = 0; i < e.num_inputs(); ++i) s += (i ? ", float x" : "float x") + std::to_string(i);
  s += ") {\n  float v = x0;\n";
  int next = 1;
  for (Op op : e.ops) {
    const std::string rhs = op_is_binary(op) ? binary_expr(op, "v", "x" + std::to_string(next++)) : unary_expr(op, "v");
    s += "  v = " + rhs + ";   // " + op_name(op) + "\n";
  }
  return s + "  return v;\n}\n\n";
}

}  // namespace

EmittedKernel emit_elementwise(const KernelSpec& spec, const GpuDialect& dialect, int block) {
  const ElementwiseSpec& e = spec.elementwise();
  const int inputs = e.num_inputs();
  const int vec = vector_width(spec.dtype);
  auto in = [](int i) { return buffer_param("in" + std::to_string(i)); };
  const std::string out = buffer_param("out");

  std::string s = dialect.prelude + apply_function(e);
  s += kernel_signature(spec, block) + " {\n";
  s += "  const long long n = " + dim_expr(spec, e.n) + ";\n";
  s += "  if (n == 0) return;\n";
  s += "  const long long stride = (long long)gridDim.x * blockDim.x;\n";
  s += "  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n";
  s += "  long long done = 0;\n";
  s += "  if (tsr_aligned16(" + out + ")";
  for (int i = 0; i < inputs; ++i) s += " && tsr_aligned16(" + in(i) + ")";
  s += ") {\n";
  s += "    const long long nvec = n / TSR_VEC;\n";
  s += "    for (long long vi = tid; vi < nvec; vi += stride) {\n";
  for (int i = 0; i < inputs; ++i)
    s += "      float x" + std::to_string(i) + "[TSR_VEC]; tsr_ld_vec(" + in(i) + ", vi, x" + std::to_string(i) + ");\n";
  s += "      float y[TSR_VEC];\n#pragma unroll\n      for (int j = 0; j < TSR_VEC; ++j) y[j] = tsr_apply(";
  for (int i = 0; i < inputs; ++i) s += (i ? ", x" : "x") + std::to_string(i) + "[j]";
  s += ");\n      tsr_st_vec(" + out + ", vi, y);\n    }\n";
  s += "    done = nvec * TSR_VEC;\n  }\n";
  s += "  for (long long i = done + tid; i < n; i += stride)\n";
  s += "    tsr_st(" + out + ", i, tsr_apply(";
  for (int i = 0; i < inputs; ++i) s += (i ? ", tsr_ld(" : "tsr_ld(") + in(i) + ", i)";
  s += "));\n}\n";

  EmittedKernel k{std::move(s), {}};
  k.plan.block_x = block;
  k.plan.grid_x = grid_cdiv(e.n, static_cast<int64_t>(block) * vec);
  return k;
}

}  // namespace tsr::gpu
