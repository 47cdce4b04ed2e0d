// Codec rules: what each family accepts, and the exact message for what it
// does not. The golden corpus in tests/bad_specs covers the CLI rendering.
#include <gtest/gtest.h>

#include "spec/abi.h"
#include "spec_test_util.h"

namespace tsr {
namespace {

using testing::decode;
using testing::must_decode;

const char* kGemm = R"(tesserac: 1
kernel: g
family: matmul
dtype: bf16
accumulate: f32
shape: {M: M, N: 4096, K: 4096}
layout: {a: row, b: col}
epilogue: [bias, residual, {scale: 0.5}, {clamp: {min: -2, max: 2}}, gelu_tanh]
accuracy: {kind: tolerance_bounded, atol: 2e-2, rtol: 1e-2}
determinism: deterministic
targets: [x86:v3, cuda:sm_90]
)";

TEST(Codec, MatmulDecodesEveryField) {
  KernelSpec s = must_decode(kGemm);
  EXPECT_EQ(s.name, "g");
  EXPECT_EQ(s.family, Family::matmul);
  EXPECT_EQ(s.dtype, DType::bf16);
  ASSERT_TRUE(s.accumulate.has_value());
  const MatmulSpec& m = s.matmul();
  EXPECT_EQ(m.m, (Dim{0, "M"}));
  EXPECT_EQ(m.n, (Dim{4096, ""}));
  EXPECT_EQ(m.a, Layout::row);
  EXPECT_EQ(m.b, Layout::col);
  ASSERT_EQ(m.epilogue.size(), 5u);
  EXPECT_EQ(m.epilogue[2].kind, EpilogueOp::Kind::scale);
  EXPECT_DOUBLE_EQ(m.epilogue[2].scale, 0.5);
  EXPECT_DOUBLE_EQ(m.epilogue[3].lo, -2.0);
  EXPECT_EQ(m.epilogue[4].activation, Op::gelu_tanh);
  EXPECT_EQ(s.accuracy.kind, Accuracy::Kind::tolerance_bounded);
  EXPECT_DOUBLE_EQ(*s.accuracy.atol, 2e-2);
  EXPECT_EQ(s.targets, (std::vector<std::string>{"x86:v3", "cuda:sm_90"}));
  EXPECT_EQ(s.location.line, 2);
}

TEST(Codec, MatmulAbiOrderIsInputsOutputsScalars) {
  KernelAbi abi = kernel_abi(must_decode(kGemm));
  std::vector<std::string> names;
  for (const Binding& b : abi.bindings) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "bias", "residual", "c", "M"}));
  EXPECT_EQ(abi.bindings[1].shape, (std::vector<Dim>{{4096, ""}, {4096, ""}}));   // col-major B is [N, K]
  EXPECT_EQ(*abi.element_count(abi.bindings[0], {{"M", 3}}), 3 * 4096);
  EXPECT_FALSE(abi.element_count(abi.bindings[0], {}).has_value());
}

TEST(Codec, ElementwiseCountsInputsFromBinaryOps) {
  KernelSpec s = must_decode(R"(tesserac: 1
kernel: e
family: elementwise
dtype: f16
ops: [mul, gelu_erf, add, rsqrt]
shape: {N: n}
accuracy: {kind: reference_exact}
determinism: nondeterministic_allowed
)");
  EXPECT_EQ(s.elementwise().num_inputs(), 3);
  KernelAbi abi = kernel_abi(s);
  ASSERT_EQ(abi.bindings.size(), 5u);
  EXPECT_EQ(abi.bindings[3].name, "out");
  EXPECT_EQ(abi.bindings[4].role, Role::scalar);
  EXPECT_EQ(s.determinism, Determinism::nondeterministic_allowed);
}

TEST(Codec, EveryOpNameRoundTrips) {
  for (Op op : all_ops()) EXPECT_EQ(op_from_name(op_name(op)), op);
  EXPECT_FALSE(op_from_name("swish").has_value());
  EXPECT_EQ(all_ops().size(), 17u);
}

TEST(Codec, RowwiseLayernormAffineHasWeightAndBias) {
  KernelSpec s = must_decode(R"(tesserac: 1
kernel: ln
family: rowwise
dtype: f32
accumulate: f32
op: layernorm
shape: {rows: r, cols: 768}
eps: 1e-5
affine: true
accuracy: {kind: reference_exact}
determinism: deterministic
)");
  std::vector<std::string> names;
  for (const Binding& b : kernel_abi(s).bindings) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "weight", "bias", "y", "r"}));
  EXPECT_DOUBLE_EQ(*s.rowwise().eps, 1e-5);
}

TEST(Codec, SharedRuntimeNameIsOneScalar) {
  KernelSpec s = must_decode(R"(tesserac: 1
kernel: sq
family: matmul
dtype: f32
accumulate: f32
shape: {M: n, N: n, K: n}
layout: {a: row, b: row}
accuracy: {kind: reference_exact}
determinism: deterministic
)");
  EXPECT_EQ(runtime_scalars(s), (std::vector<std::string>{"n"}));
}

struct BadCase {
  const char* name;
  const char* replace_from;
  const char* replace_to;
  const char* message;
};

class CodecRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(CodecRejects, WithExactMessage) {
  const BadCase& c = GetParam();
  std::string yaml = kGemm;
  const size_t at = yaml.find(c.replace_from);
  ASSERT_NE(at, std::string::npos) << c.replace_from;
  yaml.replace(at, std::string(c.replace_from).size(), c.replace_to);
  testing::Decoded d = decode(yaml);
  EXPECT_FALSE(d.spec.has_value());
  EXPECT_NE(d.diagnostics.find(c.message), std::string::npos) << d.diagnostics;
}

INSTANTIATE_TEST_SUITE_P(
    Rules, CodecRejects,
    ::testing::Values(
        BadCase{"unknown_key", "determinism:", "tile: 4\ndeterminism:", "t.yaml:10:1: error: unknown key 'tile' in matmul spec"},
        BadCase{"dtype", "dtype: bf16", "dtype: fp8", "error: unknown dtype 'fp8' (allowed: f32, f16, bf16)"},
        BadCase{"zero_dim", "N: 4096", "N: 0", "error: dimension 'N' must be positive, got 0"},
        BadCase{"float_dim", "N: 4096", "N: 40.5", "must be a positive integer or a runtime scalar name"},
        BadCase{"missing_K", ", K: 4096", "", "error: missing required key 'K' in matmul shape"},
        BadCase{"layout", "b: col", "b: diag", "error: unknown layout 'diag' (allowed: row, col)"},
        BadCase{"missing_layout_b", ", b: col", "", "error: missing required key 'b' in matmul layout"},
        BadCase{"binary_epilogue", "gelu_tanh]", "mul]", "error: unknown epilogue op 'mul'"},
        BadCase{"clamp_key", "min: -2", "lo: -2", "error: unknown key 'lo' in clamp (allowed: min, max)"},
        BadCase{"scale_nan", "scale: 0.5", "scale: .nan", "error: expected a finite number for 'scale', got '.nan'"},
        BadCase{"residual_twice", "residual,", "residual, residual,", "error: epilogue op 'residual' may appear only once"},
        BadCase{"missing_accumulate", "accumulate: f32\n", "", "error: missing required key 'accumulate' in matmul spec"},
        BadCase{"accuracy_kind", "kind: tolerance_bounded", "kind: loose", "error: unknown accuracy kind 'loose'"},
        BadCase{"missing_atol", "atol: 2e-2, ", "", "error: missing required key 'atol' in 'accuracy'"},
        BadCase{"inf_tol", "atol: 2e-2", "atol: .inf", "error: expected a finite number for 'atol', got '.inf'"},
        BadCase{"determinism", "determinism: deterministic", "determinism: yes", "error: unknown determinism 'yes'"},
        BadCase{"unknown_target", "cuda:sm_90", "cuda:sm_70", "error: unknown target 'cuda:sm_70' (known: x86:v2"},
        BadCase{"target_twice", "cuda:sm_90", "x86:v3", "error: target 'x86:v3' is listed twice"},
        BadCase{"targets_scalar", "[x86:v3, cuda:sm_90]", "x86:v3", "error: expected a list for 'targets', got a scalar"},
        BadCase{"version", "tesserac: 1", "tesserac: 1.0", "error: expected an integer for 'tesserac', got '1.0'"},
        BadCase{"name_keyword_chars", "kernel: g", "kernel: g.h", "error: kernel name 'g.h' is not a C identifier"},
        BadCase{"epilogue_nested", "epilogue: [", "epilogue: [[relu], ", "error: expected an epilogue op name or a one-key map, got a list"},
        // Kernel names stem exported C symbols: one reserved table, every class.
        BadCase{"name_libm", "kernel: g", "kernel: expf", "t.yaml:2:9: error: kernel name 'expf' is reserved: it is declared by the C library headers (a kernel name becomes an exported C symbol)"},
        BadCase{"name_macro", "kernel: g", "kernel: INT64_MAX", "t.yaml:2:9: error: kernel name 'INT64_MAX' is reserved: it is a macro of the C library headers or the compiler"},
        BadCase{"name_cpp", "kernel: g", "kernel: template", "t.yaml:2:9: error: kernel name 'template' is reserved: it is a C++ keyword"},
        BadCase{"name_cuda", "kernel: g", "kernel: threadIdx", "t.yaml:2:9: error: kernel name 'threadIdx' is reserved: it is a CUDA built-in"},
        BadCase{"name_main", "kernel: g", "kernel: main", "t.yaml:2:9: error: kernel name 'main' is reserved: it is the C program entry point"},
        BadCase{"name_underscore", "kernel: g", "kernel: _Bool", "t.yaml:2:9: error: kernel name '_Bool' is reserved: names starting with '_' are reserved by C"},
        BadCase{"name_stub_prefix", "kernel: g", "kernel: TSR_g", "t.yaml:2:9: error: kernel name 'TSR_g' is reserved: names starting with 'tsr_' or 'TSR_' belong to the runtime stub's API"},
        // Runtime dimension names are ABI labels: distinct from the buffers.
        BadCase{"dim_is_buffer", "M: M", "M: residual", "t.yaml:6:12: error: runtime dimension 'M' may not be named 'residual': the kernel's input buffer has that name (ABI binding names must be unique)"},
        BadCase{"dim_is_output", "M: M", "M: c", "t.yaml:6:12: error: runtime dimension 'M' may not be named 'c': the kernel's output buffer has that name"},
        // Static extents: at most 2^48, and 2^48 elements per buffer.
        BadCase{"extent_2_62", "N: 4096", "N: 4611686018427387904", "t.yaml:6:18: error: dimension 'N' is 4611686018427387904, above the limit of 281474976710656 (2^48)"},
        BadCase{"extent_2_64", "N: 4096", "N: 18446744073709551616", "t.yaml:6:18: error: dimension 'N' is 18446744073709551616, above the limit of 281474976710656 (2^48)"},
        BadCase{"buffer_2_49", "N: 4096, K: 4096", "N: 4096, K: 137438953472", "t.yaml:6:8: error: buffer 'b' [4096, 137438953472] would hold more than 281474976710656 (2^48) elements, the limit per buffer"},
        // Constants the kernel applies in f32 must round to a finite f32.
        BadCase{"scale_f32_inf", "scale: 0.5", "scale: 1e39", "t.yaml:8:36: error: 'scale' is 1e39, beyond the f32 range (largest finite f32: 3.40282347e38); kernels compute in f32"},
        BadCase{"scale_rounds_up", "scale: 0.5", "scale: -3.4028236e38", "error: 'scale' is -3.4028236e38, beyond the f32 range"},
        BadCase{"clamp_max_f32_inf", "max: 2", "max: 1e300", "error: 'max' is 1e300, beyond the f32 range"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(Codec, RowwiseEpsMustBeAPositiveFiniteF32) {
  const std::string rms = "tesserac: 1\nkernel: r\nfamily: rowwise\ndtype: f32\naccumulate: f32\nop: rmsnorm\n"
                          "affine: false\nshape: {rows: 4, cols: 8}\naccuracy: {kind: reference_exact}\n"
                          "determinism: deterministic\neps: ";
  EXPECT_EQ(decode(rms + "1e39\n").diagnostics,
            "t.yaml:11:6: error: 'eps' is 1e39, beyond the f32 range (largest finite f32: 3.40282347e38); kernels "
            "compute in f32\neps: 1e39\n     ^\n");
  EXPECT_EQ(decode(rms + "1e-50\n").diagnostics,
            "t.yaml:11:6: error: 'eps' is 1e-50, which rounds to 0 in f32 (it must be positive)\neps: 1e-50\n     ^\n");
  EXPECT_DOUBLE_EQ(*must_decode(rms + "1e-45\n").rowwise().eps, 1e-45);   // the smallest f32 subnormal is kept
}

// What the limits and the name rules still accept: every boundary value and
// dimension names a C compiler would choke on (they never reach the code).
TEST(Codec, AcceptsBoundaryValuesAndAnyIdentifierAsDimension) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string yaml = kGemm;
    yaml.replace(yaml.find(from), from.size(), to);
    return yaml;
  };
  EXPECT_EQ(must_decode(with("N: 4096, K: 4096", "N: 281474976710656, K: 1")).matmul().n.value, int64_t{1} << 48);
  EXPECT_EQ(must_decode(with("N: 4096, K: 4096", "N: 65536, K: 4294967296")).matmul().k.value, int64_t{1} << 32);
  EXPECT_DOUBLE_EQ(must_decode(with("scale: 0.5", "scale: 3.40282347e38")).matmul().epilogue[2].scale, 3.40282347e38);
  EXPECT_DOUBLE_EQ(must_decode(with("min: -2", "min: -3.4028235e38")).matmul().epilogue[3].lo, -3.4028235e38);
  for (const char* dim : {"int", "_n", "dim_n", "tsr_n", "TSR_N", "tsr_dim0", "M_PI", "threadIdx", "class", "main"})
    EXPECT_EQ(must_decode(with("M: M", std::string("M: ") + dim)).matmul().m.name, dim);
  for (const char* kernel : {"MR", "VW", "A_AT", "i", "float4", "gemm_tsr_entry"})
    EXPECT_EQ(must_decode(with("kernel: g", std::string("kernel: ") + kernel)).name, kernel);
}

TEST(Codec, YamlSyntaxErrorBecomesDiagnostic) {
  testing::Decoded d = decode("tesserac: 1\nkernel: [unclosed\n");
  EXPECT_FALSE(d.spec);
  EXPECT_EQ(d.diagnostics.rfind("t.yaml:", 0), 0u) << d.diagnostics;
  EXPECT_NE(d.diagnostics.find("error: invalid YAML:"), std::string::npos);
}

TEST(Codec, HostileInputsNeverThrow) {
  const char* inputs[] = {"", "\0", "[[[[[[[[[[", "{a: *x}", "&a [*a]", "? [a]\n: b", "tesserac: !!binary AAAA",
                          "kernel:\n  - - - - - -", ":\n:\n", "tesserac: 1\nfamily: matmul\nshape: {M: {M: 1}}"};
  for (const char* text : inputs) {
    EXPECT_NO_THROW({
      testing::Decoded d = decode(text);
      EXPECT_FALSE(d.spec.has_value());
      EXPECT_NE(d.diagnostics.find("error:"), std::string::npos) << text;
    });
  }
}

}  // namespace
}  // namespace tsr
