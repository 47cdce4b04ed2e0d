#include "spec/abi.h"

#include <algorithm>

namespace tsr {

const char* role_name(Role r) {
  switch (r) {
    case Role::input: return "in";
    case Role::output: return "out";
    case Role::scalar: return "scalar";
  }
  return "?";
}

namespace {

void note_dims(const std::vector<Dim>& dims, std::vector<std::string>& names) {
  for (const Dim& d : dims)
    if (!d.is_static() && std::find(names.begin(), names.end(), d.name) == names.end())
      names.push_back(d.name);
}

Binding buffer(std::string name, Role role, DType dtype, std::vector<Dim> shape) {
  return Binding{std::move(name), role, dtype, std::move(shape)};
}

}  // namespace

std::vector<std::string> runtime_scalars(const KernelSpec& spec) {
  std::vector<std::string> names;
  for (const Binding& b : kernel_abi(spec).bindings)
    if (b.role == Role::scalar) names.push_back(b.name);
  return names;
}

// Binding order is part of every target's entry point and of the archive
// format: inputs in the order the family defines, then the output, then the
// runtime scalars in the order the family's shape lists its dimensions.
KernelAbi kernel_abi(const KernelSpec& spec) {
  KernelAbi abi;
  std::vector<std::string> scalars;
  const DType t = spec.dtype;
  switch (spec.family) {
    case Family::elementwise: {
      const ElementwiseSpec& e = spec.elementwise();
      for (int i = 0; i < e.num_inputs(); ++i)
        abi.bindings.push_back(buffer("in" + std::to_string(i), Role::input, t, {e.n}));
      abi.bindings.push_back(buffer("out", Role::output, t, {e.n}));
      break;
    }
    case Family::matmul: {
      const MatmulSpec& m = spec.matmul();
      abi.bindings.push_back(buffer("a", Role::input, t, m.a == Layout::row ? std::vector<Dim>{m.m, m.k}
                                                                         : std::vector<Dim>{m.k, m.m}));
      abi.bindings.push_back(buffer("b", Role::input, t, m.b == Layout::row ? std::vector<Dim>{m.k, m.n}
                                                                         : std::vector<Dim>{m.n, m.k}));
      if (m.has_bias()) abi.bindings.push_back(buffer("bias", Role::input, t, {m.n}));
      if (m.has_residual()) abi.bindings.push_back(buffer("residual", Role::input, t, {m.m, m.n}));
      abi.bindings.push_back(buffer("c", Role::output, t, {m.m, m.n}));
      break;
    }
    case Family::rowwise: {
      const RowwiseSpec& r = spec.rowwise();
      abi.bindings.push_back(buffer("x", Role::input, t, {r.rows, r.cols}));
      if (r.affine) {
        abi.bindings.push_back(buffer("weight", Role::input, t, {r.cols}));
        if (r.op == RowOp::layernorm) abi.bindings.push_back(buffer("bias", Role::input, t, {r.cols}));
      }
      abi.bindings.push_back(buffer("y", Role::output, t, {r.rows, r.cols}));
      break;
    }
    case Family::attention: {
      const AttentionSpec& a = spec.attention();
      // [B, S, H, D] (bshd) or [B, H, S, D] (bhsd), row-major.
      auto tensor = [&](const Dim& s, const Dim& h, const Dim& d) {
        return a.layout == AttentionLayout::bshd ? std::vector<Dim>{a.batch, s, h, d} : std::vector<Dim>{a.batch, h, s, d};
      };
      abi.bindings.push_back(buffer("q", Role::input, t, tensor(a.q_len, a.q_heads, a.head_dim)));
      abi.bindings.push_back(buffer("k", Role::input, t, tensor(a.kv_len, a.kv_heads, a.head_dim)));
      abi.bindings.push_back(buffer("v", Role::input, t, tensor(a.kv_len, a.kv_heads, a.v_head_dim)));
      if (a.alibi) abi.bindings.push_back(buffer("alibi_slopes", Role::input, DType::f32, {a.q_heads}));
      abi.bindings.push_back(buffer("o", Role::output, t, tensor(a.q_len, a.q_heads, a.v_head_dim)));
      if (a.lse) abi.bindings.push_back(buffer("lse", Role::output, DType::f32, {a.batch, a.q_heads, a.q_len}));
      break;
    }
  }
  // Runtime scalars follow the family's shape order (M, N, K; rows, cols; N;
  // batch, q_len, kv_len).
  switch (spec.family) {
    case Family::elementwise: note_dims({spec.elementwise().n}, scalars); break;
    case Family::matmul: note_dims({spec.matmul().m, spec.matmul().n, spec.matmul().k}, scalars); break;
    case Family::rowwise: note_dims({spec.rowwise().rows, spec.rowwise().cols}, scalars); break;
    case Family::attention: {
      const AttentionSpec& a = spec.attention();
      note_dims({a.batch, a.q_heads, a.kv_heads, a.q_len, a.kv_len, a.head_dim, a.v_head_dim}, scalars);
      break;
    }
  }
  for (const std::string& s : scalars) abi.bindings.push_back(Binding{s, Role::scalar, DType::f32, {}});
  return abi;
}

std::vector<const Binding*> KernelAbi::buffers() const {
  std::vector<const Binding*> out;
  for (const Binding& b : bindings)
    if (b.role != Role::scalar) out.push_back(&b);
  return out;
}

std::vector<std::string> KernelAbi::scalar_names() const {
  std::vector<std::string> out;
  for (const Binding& b : bindings)
    if (b.role == Role::scalar) out.push_back(b.name);
  return out;
}

std::optional<int64_t> KernelAbi::element_count(const Binding& b,
                                                const std::map<std::string, int64_t>& scalars) const {
  int64_t count = 1;
  for (const Dim& d : b.shape) {
    int64_t extent = d.value;
    if (!d.is_static()) {
      auto it = scalars.find(d.name);
      if (it == scalars.end() || it->second < 0) return std::nullopt;
      extent = it->second;
    }
    if (extent != 0 && count > INT64_MAX / extent) return std::nullopt;
    count *= extent;
  }
  return count;
}

}  // namespace tsr
