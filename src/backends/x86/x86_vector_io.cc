// Vector loads and stores of the emitted x86 C: VW storage elements widened
// exactly to f32 lanes, and f32 lanes rounded to nearest even at the store
// with the bits of the scalar tsr_store (bf16: NaN kept quiet; f16 through
// F16C VCVTPH2PS / VCVTPS2PH, Intel SDM vol. 2, on v3 and v4; v2 converts
// lane by lane with the portable routines).
#include <sstream>

#include "x86/x86_internal.h"

namespace tsr::x86 {

bool uses_bf16cvt(const KernelSpec& spec, const Tier& tier) { return spec.dtype == DType::bf16 && tier.arch == "v4"; }

std::string emit_cpu_avx512bf16() {
  return "#include <cpuid.h>\n"
         "/* whether this CPU has AVX512-BF16: CPUID.(EAX=7,ECX=1):EAX[5], asked once */\n"
         "static int tsr_cpu_avx512bf16(void) {\n"
         "  static int cached = -1;   /* racing threads compute and store the same value */\n"
         "  int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);\n"
         "  if (v < 0) {\n"
         "    unsigned a = 0, b = 0, c = 0, d = 0;\n"
         "    if (__get_cpuid_max(0, NULL) >= 7) __cpuid_count(7, 1, a, b, c, d);\n"
         "    v = (int)(a >> 5 & 1u);\n"
         "    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);\n"
         "  }\n"
         "  return v;\n"
         "}\n";
}

std::string emit_bf16cvt_dispatch(const std::string& name, const std::string& params, const std::string& args) {
  return emit_cpu_avx512bf16() + "static void " + name + "_any(" + params + ") {\n" +
         "#ifndef TSR_BF16CVT_OFF   /* tests only: the integer narrowing on any CPU */\n" +
         "  if (tsr_cpu_avx512bf16()) { " + name + "_cvt(" + args + "); return; }\n" +
         "#endif\n" +
         "  " + name + "(" + args + ");\n}\n\n";
}

std::string emit_vector_io(const KernelSpec& spec, const Tier& tier) {
  std::ostringstream os;
  os << "/* vectors of VW storage elements as f32 (exact widening), stores rounding like tsr_store */\n";
  switch (spec.dtype) {
    case DType::f32:
      os << "TSR_INLINE tsr_vec tsr_load_vec(const tsr_storage* p) { return *(const tsr_uvec*)p; }\n";
      break;
    case DType::bf16:
      os << "typedef uint16_t tsr_u16vec __attribute__((ext_vector_type(VW), aligned(2)));\n"
         << "TSR_INLINE tsr_vec tsr_load_vec(const tsr_storage* p) {\n"
         << "  tsr_u32vec w = __builtin_convertvector(*(const tsr_u16vec*)p, tsr_u32vec) << 16;\n"
         << "  return (tsr_vec)w;\n}\n";
      break;
    case DType::f16:
      // The empty asm keeps clang 14 from splitting the conversion: without
      // it a later `v < 0` on the loaded lanes became 16 scalar VCVTPH2PS +
      // VUCOMISS (f16 silu at 0.16x the bandwidth loop instead of 0.7x).
      if (tier.arch == "v4")
        os << "TSR_INLINE tsr_vec tsr_load_vec(const tsr_storage* p) {\n"
           << "  tsr_vec v = (tsr_vec)_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)p));\n"
           << "  __asm__(\"\" : \"+v\"(v));\n  return v;\n}\n";
      else if (tier.f16c)
        os << "TSR_INLINE tsr_vec tsr_load_vec(const tsr_storage* p) {\n"
           << "  tsr_vec v = (tsr_vec)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p));\n"
           << "  __asm__(\"\" : \"+x\"(v));\n  return v;\n}\n";
      else
        os << "TSR_INLINE tsr_vec tsr_load_vec(const tsr_storage* p) {\n"
           << "  tsr_vec v;\n  for (int l = 0; l < VW; ++l) v[l] = tsr_load(p, l);\n  return v;\n}\n";
      break;
  }
  // The matching full-vector stores, rounding to nearest even like tsr_store:
  // tsr_store_vec for any address, tsr_stream_vec (non-temporal, bypassing the
  // caches) for an address aligned to the stored vector's size.
  switch (spec.dtype) {
    case DType::f32:
      os << "TSR_INLINE void tsr_store_vec(tsr_storage* p, tsr_vec v) { *(tsr_uvec*)p = v; }\n"
         << "TSR_INLINE void tsr_stream_vec(tsr_storage* p, tsr_vec v) { __builtin_nontemporal_store(v, (tsr_vec*)p); }\n";
      break;
    case DType::bf16:
      os << "typedef uint16_t tsr_u16avec __attribute__((ext_vector_type(VW)));\n"
         << "TSR_INLINE tsr_u16avec tsr_narrow_vec(tsr_vec v) {\n"
         << "  const tsr_u32vec u = (tsr_u32vec)v;\n"
         << "  const tsr_u32vec rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;\n"
         << "  const tsr_u32vec quiet = (u >> 16) | 0x40u;\n"
         << "  const tsr_u32vec nan = (tsr_u32vec)((tsr_ivec)(u & 0x7fffffffu) > 0x7f800000);\n"
         << "  return __builtin_convertvector((quiet & nan) | (rounded & ~nan), tsr_u16avec);\n}\n"
         << "TSR_INLINE void tsr_store_vec(tsr_storage* p, tsr_vec v) { *(tsr_u16vec*)p = tsr_narrow_vec(v); }\n"
         << "TSR_INLINE void tsr_stream_vec(tsr_storage* p, tsr_vec v) {\n"
         << "  __builtin_nontemporal_store(tsr_narrow_vec(v), (tsr_u16avec*)p);\n}\n";
      // VCVTNEPS2BF16 rounds to nearest even and quiets NaN as tsr_narrow_vec
      // does, but reads f32 subnormals as zero (Intel SDM vol. 2): lanes
      // holding one (VFPCLASSPS, class 0x20) take tsr_narrow_vec's bits.
      if (uses_bf16cvt(spec, tier))
        os << "#define TSR_BF16CVT_FN __attribute__((target(\"avx512bf16\"))) TSR_INLINE\n"
           << "TSR_BF16CVT_FN __m256i tsr_narrow_vec_cvt(tsr_vec v) {\n"
           << "  const __m256i h = (__m256i)_mm512_cvtneps_pbh((__m512)v);\n"
           << "  const __mmask16 subnormal = _mm512_fpclass_ps_mask((__m512)v, 0x20);\n"
           << "  return subnormal ? _mm256_mask_blend_epi16(subnormal, h, (__m256i)tsr_narrow_vec(v)) : h;\n}\n"
           << "TSR_BF16CVT_FN void tsr_store_vec_cvt(tsr_storage* p, tsr_vec v) {\n"
           << "  _mm256_storeu_si256((__m256i*)p, tsr_narrow_vec_cvt(v));\n}\n"
           << "TSR_BF16CVT_FN void tsr_stream_vec_cvt(tsr_storage* p, tsr_vec v) {\n"
           << "  _mm256_stream_si256((__m256i*)p, tsr_narrow_vec_cvt(v));\n}\n";
      break;
    case DType::f16:
      if (tier.arch == "v4")
        os << "TSR_INLINE void tsr_store_vec(tsr_storage* p, tsr_vec v) {\n"
           << "  _mm256_storeu_si256((__m256i*)p, _mm512_cvtps_ph((__m512)v, _MM_FROUND_TO_NEAREST_INT));\n}\n"
           << "TSR_INLINE void tsr_stream_vec(tsr_storage* p, tsr_vec v) {\n"
           << "  _mm256_stream_si256((__m256i*)p, _mm512_cvtps_ph((__m512)v, _MM_FROUND_TO_NEAREST_INT));\n}\n";
      else if (tier.f16c)
        os << "TSR_INLINE void tsr_store_vec(tsr_storage* p, tsr_vec v) {\n"
           << "  _mm_storeu_si128((__m128i*)p, _mm256_cvtps_ph((__m256)v, _MM_FROUND_TO_NEAREST_INT));\n}\n"
           << "TSR_INLINE void tsr_stream_vec(tsr_storage* p, tsr_vec v) {\n"
           << "  _mm_stream_si128((__m128i*)p, _mm256_cvtps_ph((__m256)v, _MM_FROUND_TO_NEAREST_INT));\n}\n";
      else
        os << "TSR_INLINE void tsr_store_vec(tsr_storage* p, tsr_vec v) {\n"
           << "  for (int l = 0; l < VW; ++l) tsr_store(p, l, v[l]);\n}\n"
           << "TSR_INLINE void tsr_stream_vec(tsr_storage* p, tsr_vec v) { tsr_store_vec(p, v); }\n";
      break;
  }
  os << "/* up to VW elements from p, missing lanes set to `fill` */\n"
     << "TSR_INLINE tsr_vec tsr_load_partial(const tsr_storage* p, int64_t count, float fill) {\n"
     << "  tsr_vec v = fill;\n"
     << "  for (int64_t l = 0; l < count; ++l) v[l] = tsr_load(p, l);\n"
     << "  return v;\n}\n"
     << "TSR_INLINE void tsr_store_partial(tsr_storage* p, tsr_vec v, int64_t count) {\n"
     << "  for (int64_t l = 0; l < count; ++l) tsr_store(p, l, v[l]);\n}\n\n";
  return os.str();
}

}  // namespace tsr::x86
