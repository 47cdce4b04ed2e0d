/* Tests only: a software model of the AMX instructions the x86:v4+amx
 * kernels use, so their logic runs on a CPU without AMX. It replaces the
 * <immintrin.h> intrinsics when the emitted C is compiled with
 * -DTSR_AMX_MODEL='"<this file>"' (x86_emit_matmul_amx.cc). Semantics per
 * the Intel SDM vol. 2 pseudo-code:
 *   LDTILECFG   palette 1 only; rows <= 16, colsb <= 64; all tiles zeroed
 *   TILELOADD   rows x colsb bytes from base + r * stride; rows past zeroed
 *   TILESTORED  rows x colsb bytes to base + r * stride
 *   TILEZERO    the tile's data to 0
 *   TDPBF16PS   dst.fp32[m][n] += a.bf16[m][2k] * b.bf16[k][2n], then
 *               += a.bf16[m][2k+1] * b.bf16[k][2n+1], k upward; input
 *               denormals are zero (DAZ), output denormals flushed (FTZ),
 *               round to nearest even, MXCSR not consulted
 *   TILERELEASE back to the init state: no tile may be used until LDTILECFG
 * Anything the hardware faults on (#UD: no configuration, mismatched tile
 * shapes) aborts, so a kernel using tiles wrongly fails its test.
 * Emulated: evidence of the kernel's logic, not of AMX hardware. */
#ifndef TSR_AMX_MODEL_H
#define TSR_AMX_MODEL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#undef _tile_loadconfig
#undef _tile_loadd
#undef _tile_stored
#undef _tile_zero
#undef _tile_dpbf16ps
#undef _tile_release

typedef struct tsr_model_tile {
  uint8_t rows;
  uint16_t colsb;
  uint8_t data[16][64];
} tsr_model_tile;

/* Tile state is per thread, as on hardware. */
static _Thread_local int tsr_model_configured;
static _Thread_local tsr_model_tile tsr_model_tiles[8];

static tsr_model_tile* tsr_model_use(int t) {
  if (!tsr_model_configured || t < 0 || t > 7 || tsr_model_tiles[t].rows == 0) abort();
  return &tsr_model_tiles[t];
}

static void tsr_model_loadconfig(const void* config) {
  const uint8_t* c = (const uint8_t*)config;
  if (c[0] != 1 || c[1] != 0) abort();   /* palette 1, start_row 0 */
  memset(tsr_model_tiles, 0, sizeof tsr_model_tiles);
  for (int t = 0; t < 8; ++t) {
    uint16_t colsb;
    memcpy(&colsb, c + 16 + 2 * t, 2);
    const uint8_t rows = c[48 + t];
    if (rows > 16 || colsb > 64 || (rows == 0) != (colsb == 0)) abort();
    tsr_model_tiles[t].rows = rows;
    tsr_model_tiles[t].colsb = colsb;
  }
  tsr_model_configured = 1;
}

static void tsr_model_loadd(int t, const void* base, int64_t stride) {
  tsr_model_tile* d = tsr_model_use(t);
  memset(d->data, 0, sizeof d->data);
  for (int r = 0; r < d->rows; ++r) memcpy(d->data[r], (const uint8_t*)base + r * stride, d->colsb);
}

static void tsr_model_stored(int t, void* base, int64_t stride) {
  const tsr_model_tile* s = tsr_model_use(t);
  for (int r = 0; r < s->rows; ++r) memcpy((uint8_t*)base + r * stride, s->data[r], s->colsb);
}

static void tsr_model_zero(int t) { memset(tsr_model_use(t)->data, 0, sizeof tsr_model_tiles[t].data); }

static float tsr_model_f32(uint32_t bits) {
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* bf16 bits to f32 with denormals as zero (DAZ) */
static float tsr_model_bf16(const uint8_t* p) {
  uint16_t h;
  memcpy(&h, p, 2);
  uint32_t bits = (uint32_t)h << 16;
  if ((bits & 0x7f800000u) == 0) bits &= 0x80000000u;
  return tsr_model_f32(bits);
}

/* an f32 result with a denormal flushed to zero of the same sign (FTZ) */
static float tsr_model_ftz(float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  if ((bits & 0x7f800000u) == 0) bits &= 0x80000000u;
  return tsr_model_f32(bits);
}

static void tsr_model_dpbf16ps(int dst, int a, int b) {
  tsr_model_tile *d = tsr_model_use(dst), *s1 = tsr_model_use(a), *s2 = tsr_model_use(b);
  /* the shape checks of TDPBF16PS (#UD otherwise) */
  if (d->colsb != s2->colsb || s1->colsb / 4 != s2->rows || d->rows != s1->rows || d->colsb % 4 ||
      s1->colsb % 4)
    abort();
  for (int m = 0; m < d->rows; ++m) {
    for (int n = 0; n < d->colsb / 4; ++n) {
      float acc;
      memcpy(&acc, d->data[m] + 4 * n, 4);
      for (int k = 0; k < s1->colsb / 4; ++k) {
        /* each product of two bf16 is exact in f32; each sum rounds once (RNE) */
        acc = tsr_model_ftz(acc + tsr_model_bf16(s1->data[m] + 4 * k) * tsr_model_bf16(s2->data[k] + 4 * n));
        acc = tsr_model_ftz(acc + tsr_model_bf16(s1->data[m] + 4 * k + 2) * tsr_model_bf16(s2->data[k] + 4 * n + 2));
      }
      memcpy(d->data[m] + 4 * n, &acc, 4);
    }
  }
}

static void tsr_model_release(void) {
  memset(tsr_model_tiles, 0, sizeof tsr_model_tiles);
  tsr_model_configured = 0;
}

#define _tile_loadconfig(config) tsr_model_loadconfig(config)
#define _tile_loadd(t, base, stride) tsr_model_loadd((t), (base), (int64_t)(stride))
#define _tile_stored(t, base, stride) tsr_model_stored((t), (base), (int64_t)(stride))
#define _tile_zero(t) tsr_model_zero(t)
#define _tile_dpbf16ps(dst, a, b) tsr_model_dpbf16ps((dst), (a), (b))
#define _tile_release() tsr_model_release()

#endif /* TSR_AMX_MODEL_H */
