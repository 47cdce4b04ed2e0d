// oneDNN 2.x C++ API (dnnl.hpp): matmul (primitive_attr output scales),
// binary add (causal), softmax_forward, matmul, each desc -> primitive_desc
// -> primitive, executed in order on one CPU stream over user memory and one
// scores buffer oneDNN allocates. Built only where the bench found libdnnl
// (TSR_BENCH_HAVE_DNNL).
#include "onednn_attention.h"

#ifdef TSR_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>

#include <cmath>
#include <unordered_map>
#include <vector>

#include "onednn_dtype.h"
#include "spec/half.h"
#endif

namespace tsr::bench {

#ifdef TSR_BENCH_HAVE_DNNL

namespace {

using dnnl::memory;

class Composition final : public OnednnAttention {
 public:
  Composition(const OnednnAttentionShape& sh, DType dtype, const void* q, const void* k, const void* v, void* o)
      : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {
    const memory::data_type dt = onednn_data_type(dtype);
    const memory::dim g = sh.groups, m = sh.rows, n = sh.kv_len;
    const memory::desc q_md({g, m, sh.head_dim}, dt, memory::format_tag::abc);
    // K is stored [G, Skv, D]: as the weights [G, D, Skv] of Q·Kᵀ it is the transposed layout.
    const memory::desc kt_md({g, sh.head_dim, n}, dt, memory::format_tag::acb);
    const memory::desc s_md({g, m, n}, dt, memory::format_tag::abc);
    const memory::desc v_md({g, n, sh.v_head_dim}, dt, memory::format_tag::abc);
    const memory::desc o_md({g, m, sh.v_head_dim}, dt, memory::format_tag::abc);
    dnnl::primitive_attr attr;
    attr.set_output_scales(0, {sh.scale});
    const dnnl::matmul::primitive_desc qk_pd(dnnl::matmul::desc(q_md, kt_md, s_md), attr, engine_);
    impl_ = std::string("matmul ") + qk_pd.impl_info_str();
    const memory scores(s_md, engine_);
    if (sh.causal) {
      // The [1, Sq, Skv] mask, broadcast over the heads, added in place by a binary
      // primitive: as a matmul post-op a broadcast mask takes oneDNN's reference
      // matmul, and a full [G, Sq, Skv] one was 1.1x (f32) / 1.8x (bf16) slower (8 x 2048^2, 1 thread).
      const memory::desc mask_md({1, m, n}, dt, memory::format_tag::abc);
      mask_.assign(static_cast<size_t>(m * n) * dtype_size(dtype), 0);
      // Key j is visible to query i where j <= i + (Skv - Sq), as the spec's mask.
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          store_element(mask_.data(), dtype, i * n + j, j <= i + (n - sh.q_len) ? 0.0 : -HUGE_VAL);
      const dnnl::binary::primitive_desc add_pd(dnnl::binary::desc(dnnl::algorithm::binary_add, s_md, mask_md, s_md),
                                                engine_);
      impl_ += ", binary add " + std::string(add_pd.impl_info_str());
      mask_add_ = dnnl::binary(add_pd);
      add_args_ = {{DNNL_ARG_SRC_0, scores}, {DNNL_ARG_SRC_1, memory(mask_md, engine_, mask_.data())},
                   {DNNL_ARG_DST, scores}};
    }
    const dnnl::softmax_forward::primitive_desc sm_pd(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, s_md, 2), engine_);
    const dnnl::matmul::primitive_desc pv_pd(dnnl::matmul::desc(s_md, v_md, o_md), engine_);
    impl_ += std::string(", softmax ") + sm_pd.impl_info_str() + ", matmul " + pv_pd.impl_info_str();
    qk_args_ = {{DNNL_ARG_SRC, memory(q_md, engine_, const_cast<void*>(q))},
                {DNNL_ARG_WEIGHTS, memory(kt_md, engine_, const_cast<void*>(k))},
                {DNNL_ARG_DST, scores}};
    sm_args_ = {{DNNL_ARG_SRC, scores}, {DNNL_ARG_DST, scores}};
    pv_args_ = {{DNNL_ARG_SRC, scores},
                {DNNL_ARG_WEIGHTS, memory(v_md, engine_, const_cast<void*>(v))},
                {DNNL_ARG_DST, memory(o_md, engine_, o)}};
    qk_ = dnnl::matmul(qk_pd);
    softmax_ = dnnl::softmax_forward(sm_pd);
    pv_ = dnnl::matmul(pv_pd);
  }
  void run() override {
    qk_.execute(stream_, qk_args_);
    if (mask_add_) mask_add_.execute(stream_, add_args_);
    softmax_.execute(stream_, sm_args_);
    pv_.execute(stream_, pv_args_);
    stream_.wait();
  }
  std::string implementation() const override { return impl_; }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  std::vector<uint8_t> mask_;   // [1, Sq, Skv] in the scores' dtype: 0 or -inf
  dnnl::primitive qk_, mask_add_, softmax_, pv_;
  std::unordered_map<int, memory> qk_args_, add_args_, sm_args_, pv_args_;
  std::string impl_;
};

}  // namespace

std::unique_ptr<OnednnAttention> OnednnAttention::make(const OnednnAttentionShape& shape, DType dtype, const void* q,
                                                       const void* k, const void* v, void* o, std::string& why) {
  if (shape.causal && shape.rows != shape.q_len) {
    why = "the composition's causal mask is per query row of one head (no grouped query heads)";
    return nullptr;
  }
  try {
    return std::make_unique<Composition>(shape, dtype, q, k, v, o);
  } catch (const dnnl::error& e) {
    why = std::string("oneDNN refused the composition: ") + e.what() + " (" + dnnl_status2str(e.status) + ")";
    return nullptr;
  }
}

#else

std::unique_ptr<OnednnAttention> OnednnAttention::make(const OnednnAttentionShape&, DType, const void*, const void*,
                                                       const void*, void*, std::string& why) {
  why = "oneDNN not built in";
  return nullptr;
}

#endif

}  // namespace tsr::bench
