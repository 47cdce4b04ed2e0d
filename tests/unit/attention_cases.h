// Attention specs for the unit tests (header-only, test code only): a
// builder with the defaults of a small GQA kernel and the variants the x86
// and emulated GPU kernels are checked on.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "spec_builders.h"

namespace tsr::attention_cases {

using spec_builders::rt;
using spec_builders::st;

struct Attn {
  std::string name = "attn";
  DType dtype = DType::f32;
  AttentionLayout layout = AttentionLayout::bshd;
  int64_t hq = 4, hkv = 2, d = 64, dv = 64;
  Dim batch = rt("batch"), q_len = rt("q_len"), kv_len = rt("kv_len");
  bool causal = false;
  std::optional<AttentionWindow> window;
  double scale = 0.0;   // 0: default
  std::optional<double> softcap;
  bool alibi = false, lse = false;
};

inline KernelSpec attention(const Attn& c) {
  KernelSpec s = spec_builders::base(c.name, Family::attention, c.dtype);
  AttentionSpec a;
  a.batch = c.batch, a.q_heads = st(c.hq), a.kv_heads = st(c.hkv), a.q_len = c.q_len, a.kv_len = c.kv_len;
  a.head_dim = st(c.d), a.v_head_dim = st(c.dv);
  a.layout = c.layout, a.causal = c.causal, a.window = c.window, a.softcap = c.softcap, a.alibi = c.alibi;
  a.lse = c.lse;
  a.scale_default = c.scale == 0.0;
  a.scale = static_cast<float>(a.scale_default ? 1.0 / std::sqrt(static_cast<double>(c.d)) : c.scale);
  s.body = a;
  return s;
}

// The variants every target's kernels are checked on: head dims 64, 80, 128, 256 (and Dv != D), GQA ratios 1,
// 3, 8, both layouts, every mask form, softcap, ALiBi, lse, every dtype.
inline std::vector<KernelSpec> attention_variants() {
  std::vector<KernelSpec> out;
  auto add = [&](Attn c, const std::string& name) {
    c.name = name;
    out.push_back(attention(c));
  };
  Attn c;
  add(c, "attn_f32_d64_g2");
  c.dtype = DType::bf16, c.hq = 3, c.hkv = 1, c.d = c.dv = 80, c.causal = true;
  add(c, "attn_bf16_d80_g3_causal");
  c.dtype = DType::f16, c.hq = 8, c.hkv = 1, c.d = c.dv = 128, c.layout = AttentionLayout::bhsd, c.lse = true;
  add(c, "attn_f16_d128_mqa8_bhsd_lse");
  c.dtype = DType::bf16, c.hq = c.hkv = 2, c.d = c.dv = 256, c.causal = false, c.window = AttentionWindow{20, 9};
  add(c, "attn_bf16_d256_mha_window");
  c.dtype = DType::f32, c.hq = 4, c.hkv = 4, c.d = 64, c.dv = 24, c.causal = true, c.window = AttentionWindow{50, 0};
  c.softcap = 5.0, c.alibi = true, c.scale = 0.2, c.layout = AttentionLayout::bshd;
  add(c, "attn_f32_dv24_causal_window_softcap_alibi");
  Attn s;   // static extents: one batch of 2, q_len 33 against kv_len 70
  s.batch = st(2), s.q_len = st(33), s.kv_len = st(70), s.causal = true, s.lse = true, s.dtype = DType::bf16;
  add(s, "attn_bf16_static_cross");
  return out;
}

}  // namespace tsr::attention_cases
