#include "oracle/reference.h"

#include <algorithm>
#include <cmath>

#include "oracle/input_generator.h"
#include "spec/half.h"

namespace tsr {

int64_t dim_value(const Dim& d, const std::map<std::string, int64_t>& scalars) {
  return d.is_static() ? d.value : scalars.at(d.name);
}

double apply_unary(Op op, double v) {
  switch (op) {
    case Op::relu: return v > 0.0 ? v : 0.0;
    case Op::gelu_tanh: return 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    case Op::gelu_erf: return 0.5 * v * (1.0 + std::erf(v * 0.7071067811865476));
    case Op::silu: return v / (1.0 + std::exp(-v));
    case Op::sigmoid: return 1.0 / (1.0 + std::exp(-v));
    case Op::tanh: return std::tanh(v);
    case Op::exp: return std::exp(v);
    case Op::neg: return -v;
    case Op::abs: return std::fabs(v);
    case Op::sqrt: return std::sqrt(v);
    case Op::rsqrt: return 1.0 / std::sqrt(v);
    default: return v;
  }
}

double apply_binary(Op op, double a, double b) {
  switch (op) {
    case Op::add: return a + b;
    case Op::sub: return a - b;
    case Op::mul: return a * b;
    case Op::div: return a / b;
    case Op::max: return std::fmax(a, b);
    case Op::min: return std::fmin(a, b);
    default: return a;
  }
}

namespace {

std::vector<ReferenceValue> elementwise_reference(const KernelSpec& spec, const std::vector<std::vector<double>>& in,
                                                  const std::map<std::string, int64_t>& scalars) {
  const ElementwiseSpec& e = spec.elementwise();
  const int64_t n = dim_value(e.n, scalars);
  std::vector<ReferenceValue> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    double v = in[0][static_cast<size_t>(i)];
    size_t next = 1;
    for (Op op : e.ops) {
      // Double throughout: the only storage point an elementwise kernel has is its output.
      v = op_is_binary(op) ? apply_binary(op, v, in[next++][static_cast<size_t>(i)]) : apply_unary(op, v);
    }
    out.push_back({i, round_to_storage(v, spec.dtype)});
  }
  return out;
}

}  // namespace

std::vector<int64_t> rows_to_check(int64_t rows, double work_per_row, uint64_t seed) {
  constexpr double kMaxWork = 1.5e8;
  std::vector<int64_t> picked;
  if (rows * work_per_row <= kMaxWork) {
    for (int64_t r = 0; r < rows; ++r) picked.push_back(r);
    return picked;
  }
  const int64_t count = std::max<int64_t>(8, static_cast<int64_t>(kMaxWork / work_per_row));
  Rng rng(seed ^ 0x5eed5eedull);
  picked.push_back(0);
  picked.push_back(rows - 1);
  while (static_cast<int64_t>(picked.size()) < count) picked.push_back(static_cast<int64_t>(rng.next() % rows));
  std::sort(picked.begin(), picked.end());
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  return picked;
}

namespace {

std::vector<ReferenceValue> matmul_reference(const KernelSpec& spec, const std::vector<std::vector<double>>& in,
                                             const std::map<std::string, int64_t>& scalars, uint64_t seed) {
  const MatmulSpec& mm = spec.matmul();
  const int64_t M = dim_value(mm.m, scalars), N = dim_value(mm.n, scalars), K = dim_value(mm.k, scalars);
  const std::vector<double>& a = in[0];
  const std::vector<double>& b = in[1];
  size_t next = 2;
  const std::vector<double>* bias = mm.has_bias() ? &in[next++] : nullptr;
  const std::vector<double>* residual = mm.has_residual() ? &in[next++] : nullptr;
  std::vector<ReferenceValue> out;
  std::vector<double> brow(static_cast<size_t>(K));
  for (int64_t m : rows_to_check(M, static_cast<double>(N) * static_cast<double>(K), seed)) {
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0.0;
      for (int64_t k = 0; k < K; ++k) {
        const double av = mm.a == Layout::row ? a[static_cast<size_t>(m * K + k)] : a[static_cast<size_t>(k * M + m)];
        const double bv = mm.b == Layout::row ? b[static_cast<size_t>(k * N + n)] : b[static_cast<size_t>(n * K + k)];
        acc += av * bv;
      }
      for (const EpilogueOp& e : mm.epilogue) {
        switch (e.kind) {
          case EpilogueOp::Kind::bias: acc += (*bias)[static_cast<size_t>(n)]; break;
          case EpilogueOp::Kind::residual: acc += (*residual)[static_cast<size_t>(m * N + n)]; break;
          case EpilogueOp::Kind::scale: acc *= static_cast<double>(static_cast<float>(e.scale)); break;
          case EpilogueOp::Kind::clamp:
            acc = std::min(std::max(acc, static_cast<double>(static_cast<float>(e.lo))),
                           static_cast<double>(static_cast<float>(e.hi)));
            break;
          case EpilogueOp::Kind::activation: acc = apply_unary(e.activation, acc); break;
        }
      }
      out.push_back({m * N + n, round_to_storage(acc, spec.dtype)});
    }
  }
  return out;
}

std::vector<ReferenceValue> rowwise_reference(const KernelSpec& spec, const std::vector<std::vector<double>>& in,
                                              const std::map<std::string, int64_t>& scalars, uint64_t seed) {
  const RowwiseSpec& r = spec.rowwise();
  const int64_t rows = dim_value(r.rows, scalars), cols = dim_value(r.cols, scalars);
  const std::vector<double>& x = in[0];
  const std::vector<double>* weight = r.affine ? &in[1] : nullptr;
  const std::vector<double>* bias = (r.affine && r.op == RowOp::layernorm) ? &in[2] : nullptr;
  const double eps = static_cast<float>(r.eps.value_or(0.0));
  std::vector<ReferenceValue> out;
  for (int64_t row : rows_to_check(rows, 4.0 * static_cast<double>(cols), seed)) {
    const double* xr = x.data() + row * cols;
    auto emit = [&](int64_t c, double v) { out.push_back({row * cols + c, round_to_storage(v, spec.dtype)}); };
    switch (r.op) {
      case RowOp::softmax:
      case RowOp::log_softmax: {
        double mx = -INFINITY;
        for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, xr[c]);
        double sum = 0.0;
        for (int64_t c = 0; c < cols; ++c) sum += std::exp(xr[c] - mx);
        for (int64_t c = 0; c < cols; ++c)
          emit(c, r.op == RowOp::softmax ? std::exp(xr[c] - mx) / sum : xr[c] - mx - std::log(sum));
        break;
      }
      case RowOp::rmsnorm: {
        double ss = 0.0;
        for (int64_t c = 0; c < cols; ++c) ss += xr[c] * xr[c];
        const double inv = 1.0 / std::sqrt(ss / static_cast<double>(cols) + eps);
        for (int64_t c = 0; c < cols; ++c) emit(c, xr[c] * inv * (weight ? (*weight)[static_cast<size_t>(c)] : 1.0));
        break;
      }
      case RowOp::layernorm: {
        double mean = 0.0;
        for (int64_t c = 0; c < cols; ++c) mean += xr[c];
        mean /= static_cast<double>(cols);
        double var = 0.0;
        for (int64_t c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
        var /= static_cast<double>(cols);
        const double inv = 1.0 / std::sqrt(var + eps);
        for (int64_t c = 0; c < cols; ++c) {
          double v = (xr[c] - mean) * inv;
          if (weight) v = v * (*weight)[static_cast<size_t>(c)];
          if (bias) v = v + (*bias)[static_cast<size_t>(c)];
          emit(c, v);
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace

std::vector<ReferenceValue> reference_output(const KernelSpec& spec, const std::vector<std::vector<double>>& inputs,
                                             const std::map<std::string, int64_t>& scalars, uint64_t sample_seed) {
  switch (spec.family) {
    case Family::elementwise: return elementwise_reference(spec, inputs, scalars);
    case Family::matmul: return matmul_reference(spec, inputs, scalars, sample_seed);
    case Family::rowwise: return rowwise_reference(spec, inputs, scalars, sample_seed);
    case Family::attention: return attention_reference(spec, inputs, scalars, sample_seed);
  }
  return {};
}

}  // namespace tsr
