#include <gtest/gtest.h>

#include "identity/identity.h"
#include "spec_test_util.h"

namespace tsr {
namespace {

using testing::must_decode;

const char* kBase = R"(tesserac: 1
kernel: rms
family: rowwise
dtype: bf16
accumulate: f32
op: rmsnorm
shape: {rows: tokens, cols: 4096}
eps: 0.0001
affine: true
accuracy: {kind: tolerance_bounded, atol: 0.02, rtol: 0.01}
determinism: deterministic
)";

TEST(Identity, IsSha256Hex) {
  const std::string id = kernel_identity(must_decode(kBase));
  EXPECT_EQ(id.size(), 64u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(Identity, IgnoresKeyOrderWhitespaceCommentsAndNumberSpelling) {
  const char* reordered = R"(# the same kernel, written differently
determinism: deterministic     # trailing comment
accuracy:
  rtol: 1e-2
  atol: 2.0e-2
  kind: tolerance_bounded
affine: true
eps: 1e-4
shape:
  cols: 4096
  rows: tokens
op: rmsnorm
accumulate: f32
dtype: bf16
family: rowwise
kernel: rms
tesserac: 1
targets: [x86:v3]
)";
  EXPECT_EQ(kernel_identity(must_decode(kBase)), kernel_identity(must_decode(reordered)));
}

// Each edit (the first occurrence of `from` replaced by `to`) yields another identity.
template <size_t N>
void expect_each_edit_changes_identity(const std::string& yaml, const std::pair<const char*, const char*> (&edits)[N]) {
  const std::string base = kernel_identity(must_decode(yaml));
  for (const auto& [from, to] : edits) {
    std::string edited = yaml;
    ASSERT_NE(edited.find(from), std::string::npos) << from;
    edited.replace(edited.find(from), std::string(from).size(), to);
    EXPECT_NE(kernel_identity(must_decode(edited)), base) << from << " -> " << to;
  }
}

TEST(Identity, ChangesWithEverySemanticField) {
  const std::pair<const char*, const char*> edits[] = {
      {"kernel: rms", "kernel: rms2"},
      {"dtype: bf16", "dtype: f16"},
      {"op: rmsnorm", "op: layernorm"},
      {"rows: tokens", "rows: batch"},
      {"rows: tokens", "rows: 128"},
      {"cols: 4096", "cols: 4095"},
      {"eps: 0.0001", "eps: 0.00011"},
      {"affine: true", "affine: false"},
      {"atol: 0.02", "atol: 0.021"},
      {"rtol: 0.01", "rtol: 0.02"},
      {"determinism: deterministic", "determinism: nondeterministic_allowed"},
      {"accuracy: {kind: tolerance_bounded, atol: 0.02, rtol: 0.01}", "accuracy: {kind: reference_exact}"},
  };
  expect_each_edit_changes_identity(kBase, edits);
}

TEST(Identity, MatmulEpilogueOrderMatters) {
  auto gemm = [](const std::string& epilogue) {
    return must_decode("tesserac: 1\nkernel: g\nfamily: matmul\ndtype: f32\naccumulate: f32\n"
                       "shape: {M: 8, N: 8, K: 8}\nlayout: {a: row, b: row}\nepilogue: " +
                       epilogue + "\naccuracy: {kind: reference_exact}\ndeterminism: deterministic\n");
  };
  EXPECT_NE(kernel_identity(gemm("[bias, relu]")), kernel_identity(gemm("[relu, bias]")));
  EXPECT_NE(kernel_identity(gemm("[{scale: 2}]")), kernel_identity(gemm("[{scale: 3}]")));
  EXPECT_EQ(kernel_identity(gemm("[{scale: 2}]")), kernel_identity(gemm("[{scale: 2.0e0}]")));
  EXPECT_NE(kernel_identity(gemm("[]")), kernel_identity(gemm("[relu]")));
}

TEST(Identity, CanonicalEncodingStartsWithFormatVersion) {
  const std::vector<uint8_t> bytes = canonical_encoding(must_decode(kBase));
  const std::string text(bytes.begin(), bytes.end());
  EXPECT_NE(text.find(kIdentityFormat), std::string::npos);
  EXPECT_LT(text.find(kIdentityFormat), 64u);
}

// Identities computed by tesserac before `candidates:` existed (inspect --json
// of an archive built from these texts): a spec without candidates keeps them.
TEST(Identity, UnchangedForSpecsWithoutCandidates) {
  EXPECT_EQ(kernel_identity(must_decode(kBase)), "46ab8e6914ba759a96556aa399aeff4106b09f1fd4b1820a8cbadc3f720f44d3");
  EXPECT_EQ(kernel_identity(must_decode(std::string(kBase) + "candidates: []\n")),
            "46ab8e6914ba759a96556aa399aeff4106b09f1fd4b1820a8cbadc3f720f44d3");
  const std::string matmul = testing::matmul_yaml("k");
  EXPECT_EQ(kernel_identity(must_decode(matmul)), "9f07a8325f2e18d6309f3b53020d539bcb3df8f1a2a22338b487018f57ab3da0");
}

const std::string kWithCandidates = testing::matmul_yaml("g", "f32", R"(candidates:
  - kernel_call: {callee: cublasGemmEx, arch: cuda, binding: c_abi, provenance: vendor_library,
                  accuracy: {kind: tolerance_bounded, tolerance: 1e-4, tolerance_rel: 2e-4}, determinism: deterministic}
  - inline_ptx: {ptx: "mov.f32 %0, %1;", constraints: "=f,f", arch: cuda:sm_90, accuracy: {kind: reference_exact},
                 determinism: deterministic, has_side_effects: false}
)");

TEST(Identity, ChangesWithEveryCandidateField) {
  const std::string without = kWithCandidates.substr(0, kWithCandidates.find("candidates:"));
  EXPECT_NE(kernel_identity(must_decode(kWithCandidates)), kernel_identity(must_decode(without)));
  const std::pair<const char*, const char*> edits[] = {
      {"callee: cublasGemmEx", "callee: cublasLtMatmul"},
      {"arch: cuda,", "arch: cuda:sm_80,"},
      {"provenance: vendor_library", "provenance: hand_tuned"},
      {"tolerance: 1e-4", "tolerance: 1e-3"},
      {"tolerance_rel: 2e-4", "tolerance_rel: 3e-4"},
      {"determinism: deterministic}", "determinism: nondeterministic_allowed}"},
      {"mov.f32 %0, %1;", "mov.f32 %0, %1; "},
      {"constraints: \"=f,f\"", "constraints: \"=r,f\""},
      {"arch: cuda:sm_90", "arch: cuda:sm_80"},
      {"accuracy: {kind: reference_exact},\n", "accuracy: {kind: tolerance_bounded, tolerance: 0},\n"},
      {"determinism: deterministic, has_side_effects", "determinism: nondeterministic_allowed, has_side_effects"},
      {"has_side_effects: false", "has_side_effects: true"},
  };
  expect_each_edit_changes_identity(kWithCandidates, edits);
}

TEST(Identity, CandidateOrderMattersAndSpellingDoesNot) {
  const std::string base = kernel_identity(must_decode(kWithCandidates));
  std::string yaml = kWithCandidates;
  const size_t call = yaml.find("  - kernel_call"), ptx = yaml.find("  - inline_ptx");
  const std::string swapped = yaml.substr(0, call) + yaml.substr(ptx) + yaml.substr(call, ptx - call);
  EXPECT_NE(kernel_identity(must_decode(swapped)), base);
  yaml.replace(yaml.find("tolerance: 1e-4"), 15, "tolerance: 0.0001");
  yaml.replace(yaml.find(", has_side_effects: false"), 25, "");   // absent means false
  EXPECT_EQ(kernel_identity(must_decode(yaml)), base);
}

}  // namespace
}  // namespace tsr
