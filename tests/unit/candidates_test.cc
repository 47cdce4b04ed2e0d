// `candidates:` decoding into KernelSpec::candidates, Candidate's accessors,
// the closed delegate table and what a delegate can compute.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "delegate/delegate_table.h"
#include "spec_test_util.h"
#include "target/target.h"

namespace tsr {
namespace {

using testing::decode;
using testing::must_decode;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kMatmul = testing::matmul_yaml("mm");

TEST(Candidates, ExampleSpecDecodesBothKernelCalls) {
  const KernelSpec spec = must_decode(read_file(TSR_SOURCE_DIR "/tests/arbiter_specs/mm_f32_candidates.yaml"));
  ASSERT_EQ(spec.candidates.size(), 2u);
  const char* callees[] = {"cblas_sgemm", "dnnl_sgemm"};
  for (size_t i = 0; i < 2; ++i) {
    const Candidate& c = spec.candidates[i];
    EXPECT_EQ(c.kind, Candidate::Kind::kernel_call);
    EXPECT_EQ(c.call.callee, callees[i]);
    EXPECT_EQ(c.name(), callees[i]);
    EXPECT_EQ(c.call.arch, "x86");
    EXPECT_EQ(c.arch(), "x86");
    EXPECT_EQ(c.call.binding, "c_abi");
    EXPECT_EQ(c.call.provenance, Provenance::vendor_library);
    EXPECT_EQ(c.accuracy().kind, Accuracy::Kind::tolerance_bounded);
    EXPECT_EQ(c.accuracy().atol, 1e-4);
    EXPECT_EQ(c.accuracy().rtol, 1e-4);
    EXPECT_EQ(c.determinism(), Determinism::deterministic);
  }
  EXPECT_EQ(spec.candidates[0].location.line, 14);
  EXPECT_EQ(spec.candidates[0].location.column, 7);
  EXPECT_EQ(spec.candidates[1].location.line, 21);
}

TEST(Candidates, KernelCallAndInlinePtxFieldsDecodeExactly) {
  const KernelSpec spec = must_decode(kMatmul + R"(candidates:
  - inline_ptx: {ptx: "fma.rn.f32 %0, %1, %2, %0;", constraints: "+f,f,f", arch: cuda:sm_90,
                 accuracy: {kind: tolerance_bounded, tolerance_rel: 2e-3}, determinism: nondeterministic_allowed,
                 has_side_effects: true}
  - kernel_call: {callee: cublasGemmEx, arch: cuda, binding: c_abi, library: cublas, provenance: hand_tuned,
                  accuracy: {kind: reference_exact}, determinism: deterministic}
  - inline_ptx: {ptx: "mov.f32 %0, %1;", constraints: "=f,f", arch: cuda, accuracy: {kind: tolerance_bounded, tolerance: 0.5},
                 determinism: deterministic}
)");
  ASSERT_EQ(spec.candidates.size(), 3u);
  const Candidate& p1 = spec.candidates[0];
  EXPECT_EQ(p1.kind, Candidate::Kind::inline_ptx);
  EXPECT_EQ(p1.ptx.ptx, "fma.rn.f32 %0, %1, %2, %0;");
  EXPECT_EQ(p1.ptx.constraints, "+f,f,f");
  EXPECT_EQ(p1.arch(), "cuda:sm_90");
  EXPECT_EQ(p1.accuracy().kind, Accuracy::Kind::tolerance_bounded);
  EXPECT_FALSE(p1.accuracy().atol.has_value());
  EXPECT_EQ(p1.accuracy().rtol, 2e-3);
  EXPECT_EQ(p1.determinism(), Determinism::nondeterministic_allowed);
  EXPECT_TRUE(p1.ptx.has_side_effects);
  EXPECT_EQ(p1.name(), "inline_ptx.1");

  const Candidate& call = spec.candidates[1];
  EXPECT_EQ(call.kind, Candidate::Kind::kernel_call);
  EXPECT_EQ(call.name(), "cublasGemmEx");
  EXPECT_EQ(call.call.provenance, Provenance::hand_tuned);
  EXPECT_EQ(call.accuracy().kind, Accuracy::Kind::reference_exact);
  EXPECT_FALSE(call.accuracy().atol.has_value());

  const Candidate& p2 = spec.candidates[2];
  EXPECT_EQ(p2.name(), "inline_ptx.2");
  EXPECT_EQ(p2.accuracy().atol, 0.5);
  EXPECT_FALSE(p2.accuracy().rtol.has_value());
  EXPECT_FALSE(p2.ptx.has_side_effects);
}

TEST(Candidates, AbsentOrEmptyListMeansNoCandidates) {
  EXPECT_TRUE(must_decode(kMatmul).candidates.empty());
  EXPECT_TRUE(must_decode(kMatmul + "candidates: []\n").candidates.empty());
}

TEST(Candidates, AppliesToTheKindOrTheExactTarget) {
  Candidate kind_wide;
  kind_wide.call.arch = "x86";
  EXPECT_TRUE(kind_wide.applies_to(TargetName{"x86", "v2"}));
  EXPECT_TRUE(kind_wide.applies_to(TargetName{"x86", "v4"}));
  EXPECT_FALSE(kind_wide.applies_to(TargetName{"cuda", "sm_90"}));

  Candidate one_arch;
  one_arch.kind = Candidate::Kind::inline_ptx;
  one_arch.ptx.arch = "cuda:sm_90";
  one_arch.call.arch = "x86";   // ignored: the kind says which member holds the arch
  EXPECT_TRUE(one_arch.applies_to(TargetName{"cuda", "sm_90"}));
  EXPECT_FALSE(one_arch.applies_to(TargetName{"cuda", "sm_80"}));
  EXPECT_FALSE(one_arch.applies_to(TargetName{"x86", "v3"}));
  EXPECT_FALSE(one_arch.applies_to(TargetName{"cuda", "sm_90a"}));
}

TEST(Candidates, ArchNarrowedToSpecTargetsIsAccepted) {
  const KernelSpec spec = must_decode(kMatmul + R"(targets: [x86:v3, cuda:sm_90]
candidates:
  - kernel_call: {callee: cblas_sgemm, arch: x86:v3, binding: c_abi, provenance: vendor_library,
                  accuracy: {kind: reference_exact}, determinism: deterministic}
  - kernel_call: {callee: cublasLtMatmul, arch: cuda, binding: c_abi, provenance: vendor_library,
                  accuracy: {kind: reference_exact}, determinism: deterministic}
)");
  ASSERT_EQ(spec.candidates.size(), 2u);
  EXPECT_TRUE(spec.candidates[0].applies_to(TargetName{"x86", "v3"}));
  EXPECT_FALSE(spec.candidates[0].applies_to(TargetName{"x86", "v2"}));
}

TEST(DelegateTable, IsTheClosedSetOfTheContract) {
  const std::vector<DelegateEntry>& t = delegate_table();
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].callee, "cblas_sgemm");
  EXPECT_EQ(t[0].library, "openblas");
  EXPECT_EQ(t[0].sonames, (std::vector<std::string>{"libopenblas.so.0", "libopenblas.so"}));
  EXPECT_EQ(t[0].convention, "cblas_sgemm");
  EXPECT_EQ(t[1].callee, "dnnl_sgemm");
  EXPECT_EQ(t[1].library, "onednn");
  EXPECT_EQ(t[1].sonames, (std::vector<std::string>{"libdnnl.so.2", "libdnnl.so.3", "libdnnl.so"}));
  EXPECT_EQ(t[1].convention, "dnnl_sgemm");
  EXPECT_EQ(t[2].callee, "cublasGemmEx");
  EXPECT_EQ(t[2].library, "cublas");
  // The newest soname first: a CUDA 13 host has only libcublas.so.13.
  EXPECT_EQ(t[2].sonames,
            (std::vector<std::string>{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"}));
  EXPECT_EQ(t[2].convention, "cublas_gemm_ex");
  EXPECT_EQ(t[3].callee, "cublasLtMatmul");
  EXPECT_EQ(t[3].library, "cublasLt");
  EXPECT_EQ(t[3].sonames, (std::vector<std::string>{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11",
                                                    "libcublasLt.so"}));
  EXPECT_EQ(t[3].convention, "cublaslt_matmul");
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].family, Family::matmul);
    EXPECT_EQ(t[i].target_kind, i < 2 ? "x86" : "cuda");
    EXPECT_EQ(t[i].binding, "c_abi");
    EXPECT_EQ(t[i].provenance, Provenance::vendor_library);
  }
}

TEST(DelegateTable, FindsByFamilyTargetKindAndCallee) {
  EXPECT_EQ(find_delegate(Family::matmul, "x86", "dnnl_sgemm"), &delegate_table()[1]);
  EXPECT_EQ(find_delegate(Family::matmul, "cuda", "cblas_sgemm"), nullptr);
  EXPECT_EQ(find_delegate(Family::elementwise, "x86", "cblas_sgemm"), nullptr);
  EXPECT_EQ(delegate_callees(Family::matmul, "cuda"), (std::vector<std::string>{"cublasGemmEx", "cublasLtMatmul"}));
  EXPECT_TRUE(delegate_callees(Family::matmul, "hip").empty());
}

TEST(DelegateTable, SaysWhatADelegateCannotCompute) {
  auto spec_with = [](const std::string& dtype, const std::string& epilogue, const std::string& m = "128") {
    return must_decode("tesserac: 1\nkernel: g\nfamily: matmul\ndtype: " + dtype +
                       "\naccumulate: f32\nshape: {M: " + m + ", N: 8, K: 8}\nlayout: {a: col, b: row}\nepilogue: " +
                       epilogue + "\naccuracy: {kind: reference_exact}\ndeterminism: deterministic\n");
  };
  const DelegateEntry& cblas = *find_delegate(Family::matmul, "x86", "cblas_sgemm");
  const DelegateEntry& dnnl = *find_delegate(Family::matmul, "x86", "dnnl_sgemm");
  const DelegateEntry& gemm_ex = *find_delegate(Family::matmul, "cuda", "cublasGemmEx");
  const DelegateEntry& lt = *find_delegate(Family::matmul, "cuda", "cublasLtMatmul");
  EXPECT_EQ(delegate_cannot_compute(cblas, spec_with("f32", "[]")), "");
  EXPECT_EQ(delegate_cannot_compute(cblas, spec_with("f32", "[{scale: 0.5}]")), "");
  EXPECT_EQ(delegate_cannot_compute(cblas, spec_with("bf16", "[]")), "cblas_sgemm computes f32 only, the kernel is bf16");
  EXPECT_EQ(delegate_cannot_compute(dnnl, spec_with("f16", "[]")), "dnnl_sgemm computes f32 only, the kernel is f16");
  EXPECT_EQ(delegate_cannot_compute(gemm_ex, spec_with("bf16", "[{scale: 2}]")), "");
  EXPECT_EQ(delegate_cannot_compute(lt, spec_with("f16", "[]")), "");
  EXPECT_EQ(delegate_cannot_compute(cblas, spec_with("f32", "[bias]")),
            "epilogue 'bias' is not expressible in cblas_sgemm (only 'scale' folds into alpha)");
  EXPECT_EQ(delegate_cannot_compute(lt, spec_with("f32", "[{scale: 2}, relu]")),
            "epilogue 'relu' is not expressible in cublasLtMatmul (only 'scale' folds into alpha)");
  EXPECT_EQ(delegate_cannot_compute(dnnl, spec_with("f32", "[{scale: 2}, {scale: 3}]")),
            "the epilogue has 2 'scale' ops; dnnl_sgemm folds only one into alpha");
  EXPECT_EQ(delegate_cannot_compute(cblas, spec_with("f32", "[]", "2147483648")),
            "dimension 'M' is 2147483648, above cblas_sgemm's int extents (2147483647)");
  EXPECT_EQ(delegate_cannot_compute(dnnl, spec_with("f32", "[]", "2147483648")), "");
  EXPECT_EQ(delegate_cannot_compute(cblas, spec_with("f32", "[]", "m")), "");
}

TEST(Candidates, DelegateThatCannotComputeIsAnErrorAtItsCallee) {
  const testing::Decoded d = decode(testing::matmul_yaml("mm", "f16", R"(candidates:
  - kernel_call: {callee: dnnl_sgemm, arch: x86, binding: c_abi, provenance: vendor_library,
                  accuracy: {kind: reference_exact}, determinism: deterministic}
)"));
  EXPECT_FALSE(d.spec.has_value());
  EXPECT_NE(d.diagnostics.find("t.yaml:11:27: error: delegate 'dnnl_sgemm' cannot compute this kernel: dnnl_sgemm "
                               "computes f32 only, the kernel is f16"),
            std::string::npos)
      << d.diagnostics;
}

}  // namespace
}  // namespace tsr
