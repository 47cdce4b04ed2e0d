#include "oracle/input_generator.h"

#include <algorithm>
#include <cmath>

#include "spec/abi.h"
#include "spec/half.h"

namespace tsr {

const char* distribution_name(Distribution d) {
  switch (d) {
    case Distribution::uniform: return "uniform";
    case Distribution::normal: return "normal";
    case Distribution::large: return "large";
    case Distribution::tiny: return "tiny";
  }
  return "?";
}

const std::vector<Distribution>& all_distributions() {
  static const std::vector<Distribution> all = {Distribution::uniform, Distribution::normal, Distribution::large,
                                                Distribution::tiny};
  return all;
}

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Rng::uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  const double u1 = 1.0 - uniform01();   // (0, 1]
  const double u2 = uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

namespace {

double dtype_max(DType t) { return t == DType::f16 ? 65504.0 : 3.0e38; }

bool needs_non_negative(const KernelSpec& spec) {
  if (spec.family != Family::elementwise) return false;
  for (Op op : spec.elementwise().ops)
    if (op == Op::sqrt || op == Op::rsqrt) return true;
  return false;
}

// Largest magnitude for the "large" distribution that keeps a correct
// result representable: a matmul sums K products, so the headroom shrinks.
double large_scale(const KernelSpec& spec, const std::map<std::string, int64_t>& scalars) {
  if (spec.family != Family::matmul) return std::min(1024.0, std::sqrt(dtype_max(spec.dtype)) / 4);
  const Dim& k = spec.matmul().k;
  const double kk = static_cast<double>(k.is_static() ? k.value : std::max<int64_t>(1, scalars.at(k.name)));
  return std::min(64.0, std::sqrt(dtype_max(spec.dtype) / (16.0 * kk)));
}

// attention's "large" q and k: logits of a few hundred (scale · |q·k| ≈
// 200), where a softmax that does not subtract the row maximum overflows f32
// (e^89), yet far from where the f32 dot product loses the budget.
double attention_large_qk(const AttentionSpec& a) {
  const double d = static_cast<double>(a.head_dim.value);
  return std::sqrt(200.0 / (0.58 * a.scale * std::sqrt(d)));
}

}  // namespace

std::vector<double> generate_values(const KernelSpec& spec, const std::string& binding, int64_t count,
                                    Distribution dist, const std::map<std::string, int64_t>& scalars, Rng& rng) {
  std::vector<double> v(static_cast<size_t>(count));
  const bool non_negative = needs_non_negative(spec);
  // A matmul with large operands of mixed sign cancels to results far below
  // the rounding error of its partial sums; positive operands keep every
  // element's relative error meaningful.
  const bool positive_large = spec.family == Family::matmul && binding != "bias" && binding != "residual";
  double scale = large_scale(spec, scalars);
  if (spec.family == Family::attention) {
    // ALiBi slopes are positive, geometric as in the ALiBi paper: 2^-1 .. 2^-8.
    if (binding == "alibi_slopes") {
      for (double& x : v) x = round_to_storage(std::exp2(-1.0 - 7.0 * rng.uniform01()), DType::f32);
      return v;
    }
    // v keeps unit magnitudes under "large": the output is a convex combination of its rows.
    if (dist == Distribution::large && binding == "v") dist = Distribution::normal;
    if (binding == "q" || binding == "k") scale = attention_large_qk(spec.attention());
  }
  // Small enough to exercise tiny magnitudes, large enough that products of
  // two stay normal in the f32 registers every kernel computes in.
  const double tiny = spec.dtype == DType::f16 ? 0x1.0p-12 : 0x1.0p-60;
  for (double& x : v) {
    double sign = (rng.next() & 1) ? -1.0 : 1.0;
    switch (dist) {
      case Distribution::uniform: x = 2.0 * rng.uniform01() - 1.0; break;
      case Distribution::normal: x = rng.normal(); break;
      case Distribution::large:
        if (positive_large) sign = 1.0;
        x = sign * scale * (0.5 + 0.5 * rng.uniform01());
        break;
      case Distribution::tiny: x = sign * tiny * (1.0 + rng.uniform01()); break;
    }
    if (non_negative) x = std::fabs(x);
    x = round_to_storage(x, spec.dtype);
  }
  return v;
}

Distribution trial_distribution(int trial) {
  const std::vector<Distribution>& all = all_distributions();
  return all[static_cast<size_t>(trial) % all.size()];
}

std::map<std::string, int64_t> trial_scalars(const KernelSpec& spec, int trial) {
  // One row per trial (kTrialCount rows). Odd sizes, then aligned ones:
  // 4096 and 1032 are multiples of 8 (4096 of 128 too); matmul trial 1 has
  // every extent a multiple of 8 with K = 40 (not a multiple of 32), trial 4
  // multiples of 128, trial 5 multiples of 8 and 16 with K = 72.
  static const int64_t elementwise_sizes[kTrialCount] = {100003, 4099, 1, 777, 4096, 1032};
  static const int64_t matmul_sizes[kTrialCount][3] = {{97, 130, 67}, {128, 256, 40}, {1, 33, 1},
                                                       {67, 97, 130}, {256, 128, 256}, {48, 16, 72}};
  static const int64_t rowwise_sizes[kTrialCount][2] = {{37, 1000}, {9, 4099}, {1, 1},
                                                        {5, 33},    {16, 4096}, {128, 256}};
  // batch, q_len, kv_len: ragged blocks, one token, decode against a cache
  // long enough to be split into key chunks (x86 split-KV: 2100 keys, few
  // blocks), q_len > kv_len (a causal mask leaves the first rows without keys).
  static const int64_t attention_sizes[kTrialCount][3] = {{2, 37, 53}, {1, 96, 80},   {2, 1, 2100},
                                                          {1, 1, 1},    {1, 77, 40},  {1, 65, 100}};
  std::map<std::string, int64_t> values;
  const int t = trial % kTrialCount;
  // A dimension named twice (N: M) keeps its first value.
  auto assign = [&](const Dim& d, int64_t value) {
    if (!d.is_static() && !values.count(d.name)) values[d.name] = value;
  };
  switch (spec.family) {
    case Family::elementwise: assign(spec.elementwise().n, elementwise_sizes[t]); break;
    case Family::matmul:
      assign(spec.matmul().m, matmul_sizes[t][0]);
      assign(spec.matmul().n, matmul_sizes[t][1]);
      assign(spec.matmul().k, matmul_sizes[t][2]);
      break;
    case Family::rowwise:
      assign(spec.rowwise().rows, rowwise_sizes[t][0]);
      assign(spec.rowwise().cols, rowwise_sizes[t][1]);
      break;
    case Family::attention:
      assign(spec.attention().batch, attention_sizes[t][0]);
      assign(spec.attention().q_len, attention_sizes[t][1]);
      assign(spec.attention().kv_len, attention_sizes[t][2]);
      break;
  }
  return values;
}

}  // namespace tsr
