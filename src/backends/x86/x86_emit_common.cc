// Shared pieces of the emitted C for the x86 target: prelude, conversions,
// op formulas, signatures. The generated code follows the System V AMD64
// psABI (calling convention, visibility) and the x86-64 microarchitecture
// levels of psABI §3.1.1; F16C conversions per the Intel SDM vol. 2
// (VCVTPH2PS / VCVTPS2PH, imm8 rounding control 0 = round to nearest even).
#include <cmath>
#include <sstream>

#include "spec/abi.h"
#include "spec/target_catalogue.h"
#include "target/c_expr.h"
#include "x86/x86_internal.h"
#include "x86/x86_kernel_abi_text.h"   // generated from runtime-stub/include/tesserart_kernel.h


namespace tsr::x86 {

std::optional<Tier> tier_for_arch(const std::string& arch) {
  if (arch == "v2") return Tier{"v2", 4, 16, false, false};
  if (arch == "v3") return Tier{"v3", 8, 16, true, true};
  if (arch == "v4") return Tier{"v4", 16, 32, true, true};
  if (arch == "v4+amx") return Tier{"v4", 16, 32, true, true, true};
  return std::nullopt;
}

std::vector<std::string> tier_names() { return find_target_kind("x86")->archs; }

std::string tier_name(const Tier& tier) { return tier.amx ? tier.arch + "+amx" : tier.arch; }

bool uses_amx(const KernelSpec& spec, const Tier& tier) {
  return tier.amx && spec.family == Family::matmul && spec.dtype == DType::bf16;
}

Tier code_tier(const KernelSpec& spec, const Tier& tier) {
  Tier code = tier;
  code.amx = uses_amx(spec, tier);
  return code;
}

std::vector<CParam> c_params(const KernelSpec& spec) {
  std::vector<CParam> params;
  size_t scalar_index = 0;
  for (const Binding& b : kernel_abi(spec).bindings) {
    CParam p;
    p.abi_name = b.name;
    p.is_buffer = b.role != Role::scalar;
    p.is_output = b.role == Role::output;
    if (p.is_buffer && b.dtype != spec.dtype) p.elem = "float";
    // Buffer names are the family's fixed ABI names; scalars are the spec's.
    p.c_name = p.is_buffer ? b.name : c_scalar_param(scalar_index++);
    params.push_back(p);
  }
  return params;
}

std::string dim_expr(const KernelSpec& spec, const Dim& d) {
  return d.is_static() ? "INT64_C(" + std::to_string(d.value) + ")" : c_scalar_param(spec, d);
}

std::string float_literal(double v) {
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  if (std::isnan(v)) return "NAN";
  return "(" + c_f32_digits(v) + "f)";
}

namespace {

const char* kF32Conversions = R"(/* storage dtype f32: loads and stores are plain */
typedef float tsr_storage;
TSR_INLINE float tsr_load(const tsr_storage* p, int64_t i) { return p[i]; }
TSR_INLINE void tsr_store(tsr_storage* p, int64_t i, float v) { p[i] = v; }
)";

const char* kBf16Conversions = R"(/* storage dtype bf16 (uint16_t bits): widen by shift, narrow with
 * round-to-nearest-even (+0x7fff + lsb), NaN kept quiet */
typedef uint16_t tsr_storage;
TSR_INLINE float tsr_load(const tsr_storage* p, int64_t i) {
  uint32_t u = (uint32_t)p[i] << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
TSR_INLINE void tsr_store(tsr_storage* p, int64_t i, float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  p[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? ((u >> 16) | 0x40u) : rounded);
}
)";

const char* kF16PortableConversions = R"(/* storage dtype f16 (uint16_t bits), no F16C at this level: bit-exact
 * IEEE binary16 conversions with round-to-nearest-even */
typedef uint16_t tsr_storage;
TSR_INLINE float tsr_load(const tsr_storage* p, int64_t i) {
  uint32_t h = p[i];
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, u;
  if (exp == 0) {
    float v = (float)mant * 0x1p-24f;
    return sign ? -v : v;
  }
  u = exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112u) << 23) | (mant << 13));
  float f;
  memcpy(&f, &u, 4);
  return f;
}
TSR_INLINE void tsr_store(tsr_storage* p, int64_t i, float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  uint32_t sign = (u >> 16) & 0x8000u, abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) { p[i] = (uint16_t)(sign | 0x7e00u); return; }
  if (abs >= 0x477ff000u) { p[i] = (uint16_t)(sign | 0x7c00u); return; }
  if (abs < 0x38800000u) {
    if (abs < 0x33000000u) { p[i] = (uint16_t)sign; return; }
    uint32_t shift = 126u - (abs >> 23), mant = (abs & 0x7fffffu) | 0x800000u;
    uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    p[i] = (uint16_t)(sign | half);
    return;
  }
  uint32_t r = abs - 0x38000000u;
  r += 0xfffu + ((r >> 13) & 1u);
  p[i] = (uint16_t)(sign | (r >> 13));
}
)";

const char* kF16HardwareConversions = R"(/* storage dtype f16 (uint16_t bits) through F16C; imm8 0 selects
 * round-to-nearest-even independent of MXCSR */
typedef uint16_t tsr_storage;
TSR_INLINE float tsr_load(const tsr_storage* p, int64_t i) { return _cvtsh_ss(p[i]); }
TSR_INLINE void tsr_store(tsr_storage* p, int64_t i, float v) { p[i] = (uint16_t)_cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT); }
)";

// Span conversions used by packing and row buffers. The F16C variant converts
// eight lanes at a time; the others are loops the vectorizer handles.
const char* kSpanGeneric = R"(TSR_HELPER void tsr_load_span(float* restrict dst, const tsr_storage* restrict src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = tsr_load(src, i);
}
TSR_HELPER void tsr_store_span(tsr_storage* restrict dst, const float* restrict src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) tsr_store(dst, i, src[i]);
}
)";

const char* kSpanF16c = R"(TSR_HELPER void tsr_load_span(float* restrict dst, const tsr_storage* restrict src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(src + i))));
  for (; i < n; ++i) dst[i] = tsr_load(src, i);
}
TSR_HELPER void tsr_store_span(tsr_storage* restrict dst, const float* restrict src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128((__m128i*)(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) tsr_store(dst, i, src[i]);
}
)";

}  // namespace

std::string emit_prelude(const KernelSpec& spec, const Tier& tier, const std::string& description,
                         const std::string& entry_suffix) {
  const std::string entry = spec.name + "_tsr_entry" + entry_suffix;
  std::ostringstream os;
  os << "/* generated by tesserac " << TESSERAC_VERSION << " for target x86:" << tier_name(tier)
     << " (-march=x86-64-" << tier.arch << (tier.amx ? " -mamx-tile -mamx-bf16" : "") << ")\n"
     << " * kernel: " << spec.name << "\n"
     << " * family: " << family_name(spec.family) << "; storage dtype: " << dtype_name(spec.dtype)
     << "; compute: f32\n"
     << " * " << description << "\n"
     << " * System V AMD64 psABI, x86 kernel ABI v2; entry points: " << entry << ", " << entry << "_workspace\n"
     << " * do not edit: regenerate from the spec */\n"
     << "#include <math.h>\n#include <stdint.h>\n#include <string.h>\n";
  const bool f16c = spec.dtype == DType::f16 && tier.f16c;
  os << "#include <immintrin.h>\n";
  os << "\n/* ---- x86 kernel ABI v2: runtime-stub/include/tesserart_kernel.h, verbatim ---- */\n"
     << kKernelAbiText << "/* ---- end of the kernel ABI ---- */\n"
     << "\n#define TSR_EXPORT __attribute__((visibility(\"default\")))\n"
     << "/* helpers are shared text; a kernel may not use all of them */\n"
     << "#define TSR_INLINE static inline __attribute__((always_inline, unused))\n"
     << "#define TSR_HELPER static __attribute__((unused))\n"
     << "/* explicit-vector functions use full-width registers even where the\n"
     << " * compiler prefers narrower ones for auto-vectorized code (AVX-512) */\n"
     << "#define TSR_VECTOR_FN __attribute__((min_vector_width(" << tier.vector_floats * 32 << ")))\n\n"
     << "/* runs tasks [0, count): a single one on the calling thread (as worker 0),\n"
     << " * more through the executor */\n"
     << "TSR_INLINE void tsr_run(const tsr_kernel_context* ctx, int64_t count, tsr_task_fn task, void* arg) {\n"
     << "  if (count == 1) task(arg, 0, 0);\n"
     << "  else if (count > 1) ctx->parallel_for(ctx->executor_state, count, task, arg);\n"
     << "}\n\n";
  switch (spec.dtype) {
    case DType::f32: os << kF32Conversions; break;
    case DType::bf16: os << kBf16Conversions; break;
    case DType::f16: os << (tier.f16c ? kF16HardwareConversions : kF16PortableConversions); break;
  }
  os << (f16c ? kSpanF16c : kSpanGeneric) << "\n" << emit_vector_math(tier, spec.dtype);
  return os.str();
}

std::string buffer_params(const KernelSpec& spec) {
  std::string s;
  for (const CParam& p : c_params(spec)) {
    if (!p.is_buffer) continue;
    if (!s.empty()) s += ", ";
    s += (p.is_output ? "" : "const ") + p.elem + "* restrict " + p.c_name;
  }
  return s;
}

std::string buffer_args(const KernelSpec& spec) {
  std::string s;
  for (const CParam& p : c_params(spec))
    if (p.is_buffer) s += p.c_name + ", ";
  return s;
}

namespace {

// The buffers as arguments read from the tsr_launch pointer `from`, in ABI order.
std::string buffer_args(const KernelSpec& spec, const std::string& from) {
  std::string s;
  for (const CParam& p : c_params(spec)) {
    if (!p.is_buffer) continue;
    if (!s.empty()) s += ", ";
    s += from + "->" + p.c_name;
  }
  return s;
}

}  // namespace

std::string emit_launch_struct(const KernelSpec& spec, const std::string& fields) {
  std::ostringstream os;
  os << "/* what the tasks of one launch share */\n"
     << "typedef struct tsr_launch {\n";
  for (const CParam& p : c_params(spec))
    if (p.is_buffer) os << "  " << (p.is_output ? "" : "const ") << p.elem << "* " << p.c_name << ";\n";
  os << fields << "} tsr_launch;\n\n";
  return os.str();
}

std::string emit_range_task(const KernelSpec& spec, const std::string& count, const std::string& per_task,
                            const std::string& function, const std::string& extra_args) {
  return "static void tsr_task(void* arg, int64_t task, uint32_t worker) {\n"
         "  const tsr_launch* l = (const tsr_launch*)arg;\n"
         "  const int64_t first = task * " + per_task + ";\n"
         "  const int64_t last = l->" + count + " - first < " + per_task + " ? l->" + count + " : first + " +
         per_task + ";\n"
         "  (void)worker;\n"
         "  " + function + "(" + buffer_args(spec, "l") + ", first, last" + extra_args + ");\n"
         "}\n\n";
}

namespace {

// `const int64_t tsr_dimN = scalars[N];   /* name */` for every runtime scalar,
// or a (void) of scalars when there is none.
std::string scalar_locals(const KernelSpec& spec) {
  std::ostringstream os;
  size_t index = 0;
  for (const CParam& p : c_params(spec))
    if (!p.is_buffer) os << "  const int64_t " << p.c_name << " = scalars[" << index++ << "];   /* " << p.abi_name << " */\n";
  if (index == 0) os << "  (void)scalars;\n";
  return os.str();
}

}  // namespace

std::string emit_entry_head(const KernelSpec& spec, const std::string& entry_suffix) {
  const std::string entry = spec.name + "_tsr_entry" + entry_suffix;
  std::ostringstream os;
  const std::string head =
      "TSR_EXPORT void tsr_entry(const tsr_kernel_context* ctx, void* const* buffers, const int64_t* scalars)";
  os << "/* entry '" << entry << "' (tesserart_kernel.h): buffers in ABI order (inputs, outputs),\n"
     << " * then runtime scalars; the stub calls it only for a validated, non-empty launch */\n"
     << head << " __asm__(\"" << entry << "\");\n"
     << head << " {\n"
     << scalar_locals(spec) << "  tsr_launch l;\n";
  int buffer_index = 0;
  for (const CParam& p : c_params(spec)) {
    if (!p.is_buffer) continue;
    os << "  l." << p.c_name << " = (" << (p.is_output ? "" : "const ") << p.elem << "*)buffers["
       << buffer_index++ << "];\n";
  }
  return os.str();
}

namespace {

std::string workspace_signature(const KernelSpec& spec, const std::string& entry_suffix) {
  const std::string workspace = spec.name + "_tsr_entry" + entry_suffix + "_workspace";
  const std::string head = "TSR_EXPORT uint64_t tsr_workspace(const int64_t* scalars, uint32_t worker_count)";
  return "/* '" + workspace + "' (tesserart_kernel.h): scratch bytes the entry needs\n" +
         " * for these scalars when its tasks may run on worker_count workers */\n" + head + " __asm__(\"" +
         workspace + "\");\n" + head + " {\n";
}

}  // namespace

std::string emit_workspace_head(const KernelSpec& spec, const std::string& entry_suffix) {
  return workspace_signature(spec, entry_suffix) + scalar_locals(spec);
}

std::string emit_no_workspace(const KernelSpec& spec, const std::string& entry_suffix) {
  return workspace_signature(spec, entry_suffix) + "  (void)scalars;\n  (void)worker_count;\n  return 0;\n}\n";
}

}  // namespace tsr::x86
