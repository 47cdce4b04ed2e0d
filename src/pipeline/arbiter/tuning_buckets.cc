#include "arbiter/tuning_buckets.h"

#include "spec/abi.h"

namespace tsr {

namespace {

// The family's leading dimension: the one whose extent changes which code
// is fastest the most (rows of C for matmul: decode vs prefill).
struct Leading {
  Dim dim;
  std::vector<int64_t> bounds;
  std::vector<int64_t> representatives;   // bounds.size() + 1
};

Leading leading_dim(const KernelSpec& spec) {
  switch (spec.family) {
    case Family::matmul: return {spec.matmul().m, {16, 256}, {16, 256, 1024}};
    case Family::rowwise: return {spec.rowwise().rows, {16, 256}, {16, 256, 1024}};
    case Family::elementwise: return {spec.elementwise().n, {4096, 262144}, {4096, 262144, 4194304}};
    // Decode (a few query rows against the cache) vs prefill.
    case Family::attention: return {spec.attention().q_len, {16, 256}, {1, 256, 1024}};
  }
  return {};
}

std::vector<std::pair<std::string, Dim>> shape_dims(const KernelSpec& spec) {
  switch (spec.family) {
    case Family::matmul: return {{"M", spec.matmul().m}, {"N", spec.matmul().n}, {"K", spec.matmul().k}};
    case Family::rowwise: return {{"rows", spec.rowwise().rows}, {"cols", spec.rowwise().cols}};
    case Family::elementwise: return {{"N", spec.elementwise().n}};
    case Family::attention: {
      const AttentionSpec& a = spec.attention();
      return {{"batch", a.batch},   {"q_heads", a.q_heads},   {"kv_heads", a.kv_heads},    {"q_len", a.q_len},
              {"kv_len", a.kv_len}, {"head_dim", a.head_dim}, {"v_head_dim", a.v_head_dim}};
    }
  }
  return {};
}

}  // namespace

TuneBuckets tuning_buckets(const KernelSpec& spec) {
  TuneBuckets out;
  std::map<std::string, int64_t> others;
  for (const std::string& s : runtime_scalars(spec)) others[s] = kTuneOtherExtent;
  const Leading lead = leading_dim(spec);
  if (lead.dim.is_static() || lead.bounds.empty()) {
    out.buckets.push_back({"all", others});
    return out;
  }
  out.dim = lead.dim.name;
  out.bounds = lead.bounds;
  for (size_t i = 0; i < lead.representatives.size(); ++i) {
    TuneBucket b;
    b.label = i < lead.bounds.size() ? out.dim + "<=" + std::to_string(lead.bounds[i])
                                     : out.dim + ">" + std::to_string(lead.bounds.back());
    b.scalars = others;
    b.scalars[out.dim] = lead.representatives[i];
    out.buckets.push_back(std::move(b));
  }
  return out;
}

std::string bucket_shape_text(const KernelSpec& spec, const TuneBucket& bucket) {
  std::string s;
  for (const auto& [key, dim] : shape_dims(spec)) {
    const int64_t v = dim.is_static() ? dim.value : bucket.scalars.at(dim.name);
    s += (s.empty() ? "" : " ") + key + "=" + std::to_string(v);
  }
  return s;
}

}  // namespace tsr
