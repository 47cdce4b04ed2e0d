// oneDNN 2.x C++ API (dnnl.hpp): eltwise_forward, binary, softmax_forward,
// logsoftmax_forward and layer_normalization_forward descriptors ->
// primitive_desc -> primitive, executed on a CPU stream over user memory.
// Built only where the bench found libdnnl (TSR_BENCH_HAVE_DNNL).
#include "onednn_memory.h"

#ifdef TSR_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>
#include <unordered_map>

#include "onednn_dtype.h"
#endif

namespace tsr::bench {

#ifdef TSR_BENCH_HAVE_DNNL

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;

// Every primitive kind shares execution: one stream, one argument map.
class Primitive final : public OnednnMemoryBound {
 public:
  Primitive(const dnnl::engine& engine, const dnnl::primitive& prim, std::string impl,
            std::unordered_map<int, memory> args)
      : engine_(engine), stream_(engine_), prim_(prim), impl_(std::move(impl)), args_(std::move(args)) {}
  void run() override {
    prim_.execute(stream_, args_);
    stream_.wait();
  }
  std::string implementation() const override { return impl_; }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive prim_;
  std::string impl_;
  std::unordered_map<int, memory> args_;
};

// Our unary op's oneDNN algorithm; false where oneDNN 2.6 has no eltwise for it.
bool eltwise_algorithm(Op op, algorithm& alg) {
  switch (op) {
    case Op::silu: alg = algorithm::eltwise_swish; return true;   // x * sigmoid(alpha x), alpha = 1
    case Op::gelu_tanh: alg = algorithm::eltwise_gelu_tanh; return true;
    case Op::gelu_erf: alg = algorithm::eltwise_gelu_erf; return true;
    case Op::exp: alg = algorithm::eltwise_exp; return true;
    case Op::sigmoid: alg = algorithm::eltwise_logistic; return true;
    default: return false;
  }
}

std::unique_ptr<OnednnMemoryBound> make_elementwise(Op op, DType dtype, int64_t count,
                                                    const std::vector<const void*>& in, void* out, std::string& why) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const memory::desc md({count}, onednn_data_type(dtype), memory::format_tag::a);
  auto src = [&](size_t i) { return memory(md, engine, const_cast<void*>(in[i])); };
  const memory dst(md, engine, out);
  if (op == Op::add) {
    const dnnl::binary::primitive_desc pd(dnnl::binary::desc(algorithm::binary_add, md, md, md), engine);
    return std::make_unique<Primitive>(
        engine, dnnl::binary(pd), pd.impl_info_str(),
        std::unordered_map<int, memory>{{DNNL_ARG_SRC_0, src(0)}, {DNNL_ARG_SRC_1, src(1)}, {DNNL_ARG_DST, dst}});
  }
  algorithm alg;
  if (!eltwise_algorithm(op, alg)) {
    why = std::string("oneDNN has no eltwise primitive for ") + op_name(op);
    return nullptr;
  }
  const float alpha = op == Op::silu ? 1.0f : 0.0f;
  const dnnl::eltwise_forward::primitive_desc pd(
      dnnl::eltwise_forward::desc(prop_kind::forward_inference, alg, md, alpha, 0.0f), engine);
  return std::make_unique<Primitive>(engine, dnnl::eltwise_forward(pd), pd.impl_info_str(),
                                     std::unordered_map<int, memory>{{DNNL_ARG_SRC, src(0)}, {DNNL_ARG_DST, dst}});
}

std::unique_ptr<OnednnMemoryBound> make_rowwise(RowOp op, DType dtype, int64_t rows, int64_t cols, double eps,
                                                const void* in, void* out, std::string& why) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const memory::desc md({rows, cols}, onednn_data_type(dtype), memory::format_tag::ab);
  const std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, memory(md, engine, const_cast<void*>(in))},
                                                {DNNL_ARG_DST, memory(md, engine, out)}};
  const prop_kind inference = prop_kind::forward_inference;
  switch (op) {
    case RowOp::softmax: {
      const dnnl::softmax_forward::primitive_desc pd(dnnl::softmax_forward::desc(inference, md, 1), engine);
      return std::make_unique<Primitive>(engine, dnnl::softmax_forward(pd), pd.impl_info_str(), args);
    }
    case RowOp::log_softmax: {
      const dnnl::logsoftmax_forward::primitive_desc pd(dnnl::logsoftmax_forward::desc(inference, md, 1), engine);
      return std::make_unique<Primitive>(engine, dnnl::logsoftmax_forward(pd), pd.impl_info_str(), args);
    }
    case RowOp::layernorm: {
      // Inference without global stats: oneDNN computes mean and variance in its scratchpad.
      const dnnl::layer_normalization_forward::primitive_desc pd(
          dnnl::layer_normalization_forward::desc(inference, md, static_cast<float>(eps),
                                                  dnnl::normalization_flags::none),
          engine);
      return std::make_unique<Primitive>(engine, dnnl::layer_normalization_forward(pd), pd.impl_info_str(), args);
    }
    case RowOp::rmsnorm: break;
  }
  // dnnl_types.h of 2.6 has no RMS flag among dnnl_normalization_flags_t.
  why = "oneDNN " + std::to_string(dnnl_version()->major) + "." + std::to_string(dnnl_version()->minor) +
        " has no RMS normalization primitive (no such normalization flag)";
  return nullptr;
}

// oneDNN's refusal (e.g. "could not create a primitive descriptor iterator"
// for a data type this CPU lacks) becomes the line's reason.
template <typename Make>
std::unique_ptr<OnednnMemoryBound> refused_is_absent(const char* what, DType dtype, std::string& why, Make make) {
  try {
    return make();
  } catch (const dnnl::error& e) {
    why = std::string("oneDNN refused ") + what + " " + dtype_name(dtype) + ": " + e.what() + " (" +
          dnnl_status2str(e.status) + ")";
    return nullptr;
  }
}

}  // namespace

std::unique_ptr<OnednnMemoryBound> OnednnMemoryBound::elementwise(Op op, DType dtype, int64_t count,
                                                                  const std::vector<const void*>& in, void* out,
                                                                  std::string& why) {
  return refused_is_absent(op_name(op), dtype, why, [&] { return make_elementwise(op, dtype, count, in, out, why); });
}

std::unique_ptr<OnednnMemoryBound> OnednnMemoryBound::rowwise(RowOp op, DType dtype, int64_t rows, int64_t cols,
                                                              double eps, const void* in, void* out,
                                                              std::string& why) {
  return refused_is_absent(row_op_name(op), dtype, why,
                           [&] { return make_rowwise(op, dtype, rows, cols, eps, in, out, why); });
}

#else

std::unique_ptr<OnednnMemoryBound> OnednnMemoryBound::elementwise(Op, DType, int64_t, const std::vector<const void*>&,
                                                                  void*, std::string& why) {
  why = "oneDNN not built in";
  return nullptr;
}

std::unique_ptr<OnednnMemoryBound> OnednnMemoryBound::rowwise(RowOp, DType, int64_t, int64_t, double, const void*,
                                                              void*, std::string& why) {
  why = "oneDNN not built in";
  return nullptr;
}

#endif

}  // namespace tsr::bench
