// Private interfaces of the x86 target. The emitted C follows the System V
// AMD64 psABI (x86-64 psABI 1.0, microarchitecture levels in §3.1.1); the
// tiers map to -march=x86-64-v2 / -v3 / -v4.
#pragma once

#include <string>
#include <vector>

#include "target/target.h"

namespace tsr::x86 {

// What the emitter may assume about one psABI level.
struct Tier {
  std::string arch;        // v2 | v3 | v4
  int vector_floats = 4;   // f32 lanes per vector register (SSE 4, AVX2 8, AVX-512 16)
  int vector_registers = 16;
  bool f16c = false;       // hardware f16 <-> f32 conversion (v3 and up)
  bool fma = false;
  bool amx = false;        // x86:v4+amx: AMX tiles for bf16 matmul; the code level stays v4
};

// Empty optional for an arch this target does not know.
std::optional<Tier> tier_for_arch(const std::string& arch);
std::vector<std::string> tier_names();
// The arch as targets name it: "v4+amx" for the AMX tier, else tier.arch.
std::string tier_name(const Tier& tier);
// Whether `spec` takes AMX tiles on `tier` (bf16 matmul on v4+amx only: f16
// cannot be narrowed to bf16 exactly). Every other kernel of the AMX tier is
// the v4 code: code_tier gives the tier its source and flags come from.
bool uses_amx(const KernelSpec& spec, const Tier& tier);
Tier code_tier(const KernelSpec& spec, const Tier& tier);

// --- tunables and generated candidates (x86_candidates.cc) ------------------

// The GotoBLAS blocking of the matmul emitter (x86_emit_matmul.cc).
struct MatmulTiling {
  int mr = 0;              // rows of C per micro-tile
  int nv = 0;              // vectors per micro-tile row; NR = nv * vector_floats
  int kc = 0;              // depth of one packed block
  int mc = 0;              // rows of A per packed block (multiple of mr)
  long b_budget = 0;       // bytes of packed B kept live per column block
  int tasks_wanted = 16;   // tasks per column block to aim for (never the worker count)
  bool skinny_plan = true; // a C of one MC row block packs B per task (the decode plan)
};

// What one emitted source is beyond the spec and tier: the emitter's tunables
// and the suffix of its exported entry symbols. Value-initialized (and the
// tier's default tiling): exactly what emit() writes.
struct EmitChoice {
  MatmulTiling tiling;       // matmul only
  int unroll = 1;            // elementwise: vectors per step of the vector loop (1, 2, 4)
  std::string entry_suffix;  // <kernel>_tsr_entry<suffix>, <kernel>_tsr_entry<suffix>_workspace
};

// Today's tiling of the tier (the "default" candidate).
MatmulTiling default_tiling(const Tier& tier);
// Whether a tiling fits the tier's vector registers: mr * nv accumulators +
// nv B vectors + one broadcast (docs/targets-x86.md).
bool fits_registers(const MatmulTiling& t, const Tier& tier);
// "default" first, then the tier's other candidates for `spec` on code tier `tier`.
std::vector<GeneratedCandidate> candidates_for(const KernelSpec& spec, const Tier& tier);
// The choice a generated candidate names (its tunables applied to the defaults).
EmitChoice choice_for(const KernelSpec& spec, const Tier& tier, const GeneratedCandidate& candidate);
// The family's source for one choice on the code tier.
std::string emit_source(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice);

// --- emitter helpers (x86_emit_common.cc) ---------------------------------

// One binding of the kernel, as the emitted C names it, in ABI order.
struct CParam {
  std::string c_name;      // identifier used in the emitted C (never a spec-chosen name)
  std::string abi_name;    // name of the ABI binding
  bool is_buffer = true;
  bool is_output = false;
  std::string elem = "tsr_storage";   // element type: tsr_storage, or float for an f32 buffer of a 16-bit kernel
};
std::vector<CParam> c_params(const KernelSpec& spec);

// The C expression a Dim is read through inside the entry: a literal for a
// static dim, the local holding the runtime scalar for a runtime one.
std::string dim_expr(const KernelSpec& spec, const Dim& d);

// Header comment, includes, the kernel ABI (tesserart_kernel.h, embedded at
// build time), tsr_run and the dtype conversion and math helpers.
// `entry_suffix` as in EmitChoice: the entry names it lists.
std::string emit_prelude(const KernelSpec& spec, const Tier& tier, const std::string& description,
                         const std::string& entry_suffix);

// The buffers as restrict parameters of a family's work function, in ABI
// order ("const tsr_storage* restrict in0, ..., tsr_storage* restrict out").
std::string buffer_params(const KernelSpec& spec);
// The same buffers as call arguments, each followed by ", ".
std::string buffer_args(const KernelSpec& spec);
// `static void tsr_task(arg, task, worker)` running items [first, last) of
// `count` (a tsr_launch field), `per_task` (a C expression) per task, by
// calling `function(<buffers>, first, last<extra_args>)`.
std::string emit_range_task(const KernelSpec& spec, const std::string& count, const std::string& per_task,
                            const std::string& function, const std::string& extra_args);
// `typedef struct tsr_launch { <buffers> <fields> } tsr_launch;`: what the
// tasks of one launch share. `fields` are member declarations, one per line.
std::string emit_launch_struct(const KernelSpec& spec, const std::string& fields);
// The head of the entry `<name>_tsr_entry(ctx, buffers, scalars)` (C name
// tsr_entry): runtime scalars in locals tsr_dimN, `tsr_launch l` with its
// buffers set. The family adds the rest and the closing brace.
std::string emit_entry_head(const KernelSpec& spec, const std::string& entry_suffix);
// The head of `<name>_tsr_entry_workspace(scalars, worker_count)` (C name
// tsr_workspace) with the runtime scalars in locals; the family adds the
// rest. emit_no_workspace is the whole function for a kernel needing none.
std::string emit_workspace_head(const KernelSpec& spec, const std::string& entry_suffix);
std::string emit_no_workspace(const KernelSpec& spec, const std::string& entry_suffix);

// --- vector math and vector I/O (x86_vector_math.cc, x86_vector_io.cc) ------

// `enum { VW }`, the tsr_vec family of vector types and the vector math
// functions tsr_v<op> for every unary op (no libm call); part of the prelude.
std::string emit_vector_math(const Tier& tier, DType output);
// A C expression applying a unary op to the tsr_vec expression `v`.
std::string vector_unary_expr(Op op, const std::string& v);
// A C expression applying an op (binary, or unary to `a`) to tsr_vec expressions.
std::string vector_binary_expr(Op op, const std::string& a, const std::string& b);
// tsr_load_vec / tsr_store_vec / tsr_stream_vec (VW storage elements) and
// tsr_load_partial / tsr_store_partial for the spec's dtype on this tier.
std::string emit_vector_io(const KernelSpec& spec, const Tier& tier);
// bf16 on x86:v4: whether the kernel also carries the VCVTNEPS2BF16 store
// (tsr_store_vec_cvt, target "avx512bf16", bit for bit tsr_store_vec's
// result) for the CPUs that have AVX512-BF16, chosen at run time through
// tsr_cpu_avx512bf16() (emit_cpu_avx512bf16) unless TSR_BF16CVT_OFF is defined.
bool uses_bf16cvt(const KernelSpec& spec, const Tier& tier);
// `static int tsr_cpu_avx512bf16(void)`: CPUID.(EAX=7,ECX=1):EAX[5], asked once.
std::string emit_cpu_avx512bf16();
// `static void <name>_any(<params>)`: calls <name>_cvt(<args>) where the CPU
// has AVX512-BF16 (and TSR_BF16CVT_OFF is not defined), else <name>(<args>);
// with tsr_cpu_avx512bf16. `args` ends with the trailing scalar arguments.
std::string emit_bf16cvt_dispatch(const std::string& name, const std::string& params, const std::string& args);

// The rowwise family's per-row pass (x86_emit_rowwise_pass.cc) as the
// function `name` over rows [row0, row1), storing through `store` / `stream`.
struct RowStores {
  std::string name, store, stream;
  std::string attributes;   // e.g. a target attribute, with a trailing space
};
std::string emit_rows_function(const KernelSpec& spec, const Tier& tier, const RowStores& stores);
// In place: row[0 : NR) = op(row[...]) as vectors, for the matmul epilogue;
// a C statement list (NR a multiple of VW, `row` 64-byte aligned).
std::string vector_row_expr(Op op, const std::string& row, const std::string& count);

// C literal for a double, exact when the value is an f32 (e.g. "0.5f").
std::string float_literal(double v);

// --- family emitters --------------------------------------------------------

std::string emit_elementwise(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice);
std::string emit_matmul(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice);
std::string emit_rowwise(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice);
std::string emit_attention(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice);
// bf16 matmul on AMX tiles (x86_emit_matmul_amx.cc).
std::string emit_matmul_amx(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice);

// Shared by the matmul emitters (x86_emit_matmul.cc): the epilogue's text,
// the epilogue operands as call arguments (", <prefix>bias, ..."), and
// `tsr_store_tile(tile, c, <operands>, m0, n0, rows, cols, dim_n)`, which runs
// the epilogue on an f32 tile of row stride NR (an enum of the caller) and stores C.
std::string epilogue_description(const MatmulSpec& mm);
std::string operand_args(const MatmulSpec& mm, const std::string& prefix);
std::string emit_store_tile(const MatmulSpec& mm);
// The entry and E_workspace of a GotoBLAS-shaped kernel: tsr_make_plan(m, n, k)
// (fields nc_max, tile_n, m_blocks, bp_bytes, worker_bytes), packed B at the
// workspace's start, then plan.worker_bytes per worker; per column block of
// nc_max columns, tsr_pack_b_task over the NR-column panels (not for K = 0),
// then tsr_block_task over m_blocks x tiles_n tasks. With skinny_plan the plan
// has a `skinny` field, and a skinny launch packs no shared B (its tasks pack
// their own).
std::string emit_matmul_entry(const KernelSpec& spec, bool skinny_plan, const std::string& entry_suffix);

// bf16 matmul on x86:v4 takes VDPBF16PS where the CPU has AVX512-BF16, chosen
// at run time (x86_emit_matmul_bf16dot.cc): the helpers define
// tsr_pack_a_any, tsr_pack_b_any and tsr_micro_kernel_any with the
// signatures of tsr_pack_a, tsr_pack_b and tsr_micro_kernel (emitted after them).
bool uses_bf16dot(const KernelSpec& spec, const Tier& tier);
std::string emit_bf16dot_helpers(const KernelSpec& spec, int mr, int nv);

// --- compile step (x86_toolchain.cc) ----------------------------------------

ToolchainInfo find_clang();
std::vector<std::string> clang_flags(const Tier& tier);
// `tier` is the code tier (code_tier), `arch` the target's arch as named
// ("v4+amx" builds v4 code for a kernel that takes no AMX).
// Several sources (each its own translation unit: the static helpers of
// one never meet another's) link into one shared object with Artifact.entry
// `entry`; the key covers every source.
Expected<Artifact> compile_sources(const KernelSpec& spec, const Tier& tier, const std::string& arch,
                                   const std::vector<std::string>& sources, const std::string& entry);
// The entry symbol an emitted source exports (its `__asm__` label), or
// <kernel>_tsr_entry where the source names none (hand-edited text).
std::string exported_entry(const KernelSpec& spec, const std::string& source);

// --- device discovery (cpu_features.cc) -------------------------------------

// Whether this CPU runs `tier`'s code, as libtesserart's detection sees it.
DeviceInfo cpu_device(const Tier& tier);

}  // namespace tsr::x86
