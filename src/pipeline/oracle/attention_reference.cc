// The attention family's reference, from the spec's definition
// (docs/spec-format.md "attention"), in double: for query row i of query head
// h (KV head h / group), with off = kv_len − q_len,
//   s_j = softcap(scale · q_i·k_j) − slope_h · |i + off − j|   for allowed j,
//   o_i = Σ_j exp(s_j − m) v_j / Σ_j exp(s_j − m),  lse_i = m + log Σ_j exp(s_j − m),
// where m = max_j s_j. A row with no allowed key is o_i = 0, lse_i = −inf.
// `scale` and `softcap` are the f32 values the kernels apply.
#include <cmath>

#include "oracle/reference.h"
#include "spec/half.h"

namespace tsr {

namespace {

struct Extents {
  int64_t batch, q_heads, kv_heads, q_len, kv_len, d, dv;
};

// Element offset of (b, s, h, 0) in a [B, S, H, X] or [B, H, S, X] tensor.
int64_t row_offset(AttentionLayout layout, int64_t b, int64_t s, int64_t len, int64_t h,
                   int64_t heads, int64_t x) {
  return layout == AttentionLayout::bshd ? ((b * len + s) * heads + h) * x : ((b * heads + h) * len + s) * x;
}

}  // namespace

bool attention_allows(const AttentionSpec& a, int64_t i, int64_t j, int64_t q_len, int64_t kv_len) {
  const int64_t diagonal = i + kv_len - q_len;
  if (a.causal && j > diagonal) return false;
  if (a.window && (j < diagonal - a.window->left || j > diagonal + a.window->right)) return false;
  return true;
}

std::vector<ReferenceValue> attention_reference(const KernelSpec& spec, const std::vector<std::vector<double>>& in,
                                                const std::map<std::string, int64_t>& scalars, uint64_t seed) {
  const AttentionSpec& a = spec.attention();
  const Extents e{dim_value(a.batch, scalars),  dim_value(a.q_heads, scalars), dim_value(a.kv_heads, scalars),
                  dim_value(a.q_len, scalars),  dim_value(a.kv_len, scalars),  dim_value(a.head_dim, scalars),
                  dim_value(a.v_head_dim, scalars)};
  const std::vector<double>& q = in[0];
  const std::vector<double>& k = in[1];
  const std::vector<double>& v = in[2];
  const std::vector<double>* slopes = a.alibi ? &in[3] : nullptr;
  const double scale = a.scale;
  const int64_t group = e.q_heads / e.kv_heads;
  std::vector<ReferenceValue> out;
  std::vector<double> s(static_cast<size_t>(e.kv_len)), acc(static_cast<size_t>(e.dv));
  // Rows in (b, h, i) order; work per row: a dot of d and an axpy of dv per key.
  const int64_t rows = e.batch * e.q_heads * e.q_len;
  for (int64_t row : rows_to_check(rows, static_cast<double>(e.kv_len) * static_cast<double>(e.d + e.dv), seed)) {
    const int64_t i = row % e.q_len, h = (row / e.q_len) % e.q_heads, b = row / (e.q_len * e.q_heads);
    const int64_t hk = h / group;
    const double* qi = q.data() + row_offset(a.layout, b, i, e.q_len, h, e.q_heads, e.d);
    double m = -INFINITY;
    for (int64_t j = 0; j < e.kv_len; ++j) {
      double& sj = s[static_cast<size_t>(j)];
      if (!attention_allows(a, i, j, e.q_len, e.kv_len)) { sj = -INFINITY; continue; }
      const double* kj = k.data() + row_offset(a.layout, b, j, e.kv_len, hk, e.kv_heads, e.d);
      double dot = 0.0;
      for (int64_t d = 0; d < e.d; ++d) dot += qi[d] * kj[d];
      sj = scale * dot;
      if (a.softcap) sj = *a.softcap * std::tanh(sj / *a.softcap);
      if (slopes) sj -= (*slopes)[static_cast<size_t>(h)] * std::fabs(static_cast<double>(i + e.kv_len - e.q_len - j));
      m = std::max(m, sj);
    }
    std::fill(acc.begin(), acc.end(), 0.0);
    double sum = 0.0;
    if (m != -INFINITY) {
      for (int64_t j = 0; j < e.kv_len; ++j) {
        if (s[static_cast<size_t>(j)] == -INFINITY) continue;
        const double p = std::exp(s[static_cast<size_t>(j)] - m);
        sum += p;
        const double* vj = v.data() + row_offset(a.layout, b, j, e.kv_len, hk, e.kv_heads, e.dv);
        for (int64_t d = 0; d < e.dv; ++d) acc[static_cast<size_t>(d)] += p * vj[d];
      }
    }
    const int64_t o_row = row_offset(a.layout, b, i, e.q_len, h, e.q_heads, e.dv);
    for (int64_t d = 0; d < e.dv; ++d)
      out.push_back({o_row + d, round_to_storage(sum > 0.0 ? acc[static_cast<size_t>(d)] / sum : 0.0, spec.dtype), 0});
    if (a.lse) out.push_back({row, round_to_storage(sum > 0.0 ? m + std::log(sum) : -INFINITY, DType::f32), 1});
  }
  return out;
}

}  // namespace tsr
