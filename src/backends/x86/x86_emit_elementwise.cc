// Elementwise family for x86 (System V AMD64 psABI; x86-64 levels v2-v4):
// one fused pass over the operands in f32 vectors (vector math, no libm),
// one rounding at the store.
// Tasks are fixed-size chunks of elements (x86 kernel ABI v2).
#include <sstream>

#include "x86/x86_internal.h"

namespace tsr::x86 {

namespace {

// Elements per task: enough to hide a task's dispatch, small enough to spread
// a bandwidth-bound pass over many cores. Fixed, so the split is the shape's.
constexpr int kTaskElements = 32768;
// How far ahead the vector pass prefetches: 4 KiB measured best of 1-16 KiB
// for f32 silu on one core (docs/performance.md, "Elementwise").
constexpr int kPrefetchBytes = 4096;

std::string pipeline_description(const ElementwiseSpec& e) {
  std::string s = "v = in0";
  int next = 1;
  for (Op op : e.ops) {
    if (op_is_binary(op)) s += std::string("; v = ") + op_name(op) + "(v, in" + std::to_string(next++) + ")";
    else s += std::string("; v = ") + op_name(op) + "(v)";
  }
  return s + "; out = v";
}

// `count` full vectors from the operands at the given pointers: the only code
// that computes an element. It is not inlined, so the array's tail (copied
// into zero-padded vectors) runs the very instructions the body runs and an
// element's bits never depend on where a task or the array ends.
std::string vector_pass(const KernelSpec& spec, int unroll, const std::string& name, const std::string& store,
                        const std::string& attributes) {
  const ElementwiseSpec& e = spec.elementwise();
  std::ostringstream os;
  os << attributes << "TSR_VECTOR_FN __attribute__((noinline)) static void " << name << "(" << buffer_params(spec)
     << ", int64_t count) {\n";
  // unroll > 1 (a generated candidate): the same instructions per vector,
  // more vectors in flight per loop step.
  if (unroll > 1) os << "#pragma clang loop unroll_count(" << unroll << ")\n";
  os << "  for (int64_t i = 0; i < count * VW; i += VW) {\n";
  // Software prefetch a fixed distance ahead, every operand read and the
  // output for writing: with the math between loads, the hardware prefetcher
  // alone keeps too few lines in flight (docs/performance.md, "Elementwise").
  // Prefetches never fault and change no value.
  for (const CParam& p : c_params(spec))
    if (p.is_buffer)
      os << "    __builtin_prefetch((const char*)(" << p.c_name << " + i) + TSR_PREFETCH_BYTES"
         << (p.is_output ? ", 1" : "") << ");\n";
  os << "    tsr_vec v = tsr_load_vec(in0 + i);\n";
  int next = 1;
  for (Op op : e.ops) {
    if (op_is_binary(op))
      os << "    v = " << vector_binary_expr(op, "v", "tsr_load_vec(in" + std::to_string(next++) + " + i)") << ";\n";
    else
      os << "    v = " << vector_unary_expr(op, "v") << ";\n";
  }
  os << "    " << store << "(out + i, v);\n  }\n}\n\n";
  return os.str();
}

// tsr_vectors_any: the pass; with bf16 on v4 two of them, the one with the
// VCVTNEPS2BF16 store where the CPU has AVX512-BF16 (the same bits).
std::string vector_passes(const KernelSpec& spec, const Tier& tier, int unroll) {
  std::ostringstream os;
  os << vector_pass(spec, unroll, "tsr_vectors", "tsr_store_vec", "");
  if (!uses_bf16cvt(spec, tier)) {
    os << "#define tsr_vectors_any tsr_vectors\n\n";
    return os.str();
  }
  os << vector_pass(spec, unroll, "tsr_vectors_cvt", "tsr_store_vec_cvt", "__attribute__((target(\"avx512bf16\"))) ")
     << emit_bf16cvt_dispatch("tsr_vectors", buffer_params(spec) + ", int64_t count", buffer_args(spec) + "count");
  return os.str();
}

// tsr_elements: full vectors in place, then the last i1 - i0 < VW elements
// through zero-padded copies (tasks start at multiples of VW).
std::string element_range(const KernelSpec& spec) {
  std::vector<std::string> inputs;
  for (const CParam& p : c_params(spec))
    if (p.is_buffer && !p.is_output) inputs.push_back(p.c_name);
  std::ostringstream os;
  os << "/* out[i] for i in [i0, i1) */\n"
     << "static void tsr_elements(" << buffer_params(spec) << ", int64_t i0, int64_t i1) {\n"
     << "  const int64_t full = (i1 - i0) / VW, i = i0 + full * VW, rest = i1 - i;\n"
     << "  tsr_vectors_any(";
  for (const std::string& in : inputs) os << in << " + i0, ";
  os << "out + i0, full);\n"
     << "  if (rest == 0) return;\n"
     << "  tsr_storage ";
  for (const std::string& in : inputs) os << "t_" << in << "[VW], ";
  os << "t_out[VW];\n";
  for (const std::string& in : inputs)
    os << "  memset(t_" << in << ", 0, sizeof t_" << in << ");\n"
       << "  memcpy(t_" << in << ", " << in << " + i, (size_t)rest * sizeof(tsr_storage));\n";
  os << "  tsr_vectors_any(";
  for (const std::string& in : inputs) os << "t_" << in << ", ";
  os << "t_out, 1);\n"
     << "  memcpy(out + i, t_out, (size_t)rest * sizeof(tsr_storage));\n"
     << "}\n\n";
  return os.str();
}

}  // namespace

std::string emit_elementwise(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice) {
  const ElementwiseSpec& e = spec.elementwise();
  std::ostringstream os;
  os << emit_prelude(spec, tier, "elementwise over n = " + e.n.str() + " elements: " + pipeline_description(e),
                     choice.entry_suffix);
  os << "enum { TASK_ELEMENTS = " << kTaskElements << " }; /* elements per task, whatever the worker count */\n"
     << "enum { TSR_PREFETCH_BYTES = " << kPrefetchBytes << " }; /* software prefetch distance */\n"
     << "_Static_assert(TASK_ELEMENTS % VW == 0, \"tasks start on whole vectors\");\n\n"
     << emit_vector_io(spec, tier) << vector_passes(spec, tier, choice.unroll) << element_range(spec)
     << emit_launch_struct(spec, "  int64_t dim_count;\n")
     << emit_range_task(spec, "dim_count", "TASK_ELEMENTS", "tsr_elements", "")
     << emit_entry_head(spec, choice.entry_suffix)
     << "  l.dim_count = " << dim_expr(spec, e.n) << ";\n"
     << "  if (l.dim_count <= 0) return;\n"
     << "  tsr_run(ctx, (l.dim_count + TASK_ELEMENTS - 1) / TASK_ELEMENTS, tsr_task, &l);\n"
     << "}\n\n"
     << emit_no_workspace(spec, choice.entry_suffix);
  return os.str();
}

}  // namespace tsr::x86
