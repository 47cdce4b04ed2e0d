// Generated from the reserved-identifier table (support/c_identifiers.h):
// every C/C++ keyword, CUDA built-in and libc/libm name is tried as a kernel
// name and as a dimension name on every target. A kernel name in the table
// is refused by the codec with file:line:col; a dimension name always works.
//
// Compiling ~2,300 names x 3 tiers would take most of an hour, so the class
// is closed in two steps that together are sound: (1) for every name,
// family and target the emitted source with comments removed is byte-for-byte
// the source of a reference name, so the compiler and the oracle see the same
// program (dimension names reach only comments and ABI metadata); (2) that
// program builds and passes through `tesserac test` for representative names
// of every class on x86:v2/v3/v4 and compiles with NVRTC for cuda:sm_80.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "spec/abi.h"
#include "spec_test_util.h"
#include "support/c_identifiers.h"
#include "support/file_io.h"
#include "support/subprocess.h"
#include "registry/registry.h"

namespace tsr {
namespace {

// The source without /* */ and // comments; string and character literals kept.
std::string strip_comments(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "/*") == 0) {
      const size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
    } else if (s.compare(i, 2, "//") == 0) {
      i = s.find('\n', i);
      if (i == std::string::npos) i = s.size();
    } else if (s[i] == '"' || s[i] == '\'') {
      const char quote = s[i];
      out += s[i++];
      while (i < s.size() && s[i] != quote) {
        if (s[i] == '\\' && i + 1 < s.size()) out += s[i++];
        out += s[i++];
      }
      if (i < s.size()) out += s[i++];
    } else {
      out += s[i++];
    }
  }
  return out;
}

enum class Fam { elementwise, matmul, rowwise };

// A spec of each family with its optional buffers and the given runtime
// dimension names (YAML-quoted, so names like NULL stay strings): N; M, N, K;
// rows, cols. A family takes the names it needs from the front of `dims`.
std::string spec_yaml(Fam family, const std::string& kernel, std::vector<std::string> dims) {
  for (std::string& d : dims) d = "\"" + d + "\"";
  while (dims.size() < 3) dims.push_back(dims.back());
  const std::string head = "tesserac: 1\nkernel: " + kernel + "\n";
  const std::string tail = "accuracy: {kind: reference_exact}\ndeterminism: deterministic\n";
  switch (family) {
    case Fam::elementwise:
      return head + "family: elementwise\ndtype: f16\nops: [add, relu]\nshape: {N: " + dims[0] + "}\n" + tail;
    case Fam::matmul:
      return head + "family: matmul\ndtype: bf16\naccumulate: f32\nshape: {M: " + dims[0] + ", N: " + dims[1] +
             ", K: " + dims[2] + "}\nlayout: {a: col, b: row}\nepilogue: [bias, residual, {scale: 0.5}, relu]\n" + tail;
    case Fam::rowwise:
      return head + "family: rowwise\ndtype: f32\naccumulate: f32\nop: layernorm\neps: 1e-5\naffine: true\n" +
             "shape: {rows: " + dims[0] + ", cols: " + dims[1] + "}\n" + tail;
  }
  return "";
}

const Fam kFamilies[] = {Fam::elementwise, Fam::matmul, Fam::rowwise};

const std::vector<TargetName> kTargets = {{"x86", "v2"}, {"x86", "v3"}, {"x86", "v4"}, {"cuda", "sm_80"}};

std::string emit_stripped(const KernelSpec& spec, const TargetName& t) {
  Expected<std::string> source = find_target(t.kind)->emit(spec, t.arch);
  return source ? strip_comments(*source) : "emit failed: " + source.error().message();
}

TEST(ReservedNames, TableCoversEveryClassTheIssueNamed) {
  const std::vector<std::string> table = reserved_identifier_table();
  EXPECT_TRUE(std::is_sorted(table.begin(), table.end()));
  EXPECT_EQ(std::set<std::string>(table.begin(), table.end()).size(), table.size());
  EXPECT_GT(table.size(), 2000u);
  const std::pair<const char*, const char*> samples[] = {
      {"main", "it is the C program entry point"},
      {"exp", "it is declared by the C library headers"},
      {"malloc", "it is declared by the C library headers"},
      {"int64_t", "it is declared by the C library headers"},
      {"M_PI", "it is a macro of the C library headers or the compiler"},
      {"INT64_MAX", "it is a macro of the C library headers or the compiler"},
      {"RAND_MAX", "it is a macro of the C library headers or the compiler"},
      {"unix", "it is a macro of the C library headers or the compiler"},
      {"asm", "it is a C keyword"},
      {"typeof", "it is a C keyword"},
      {"int", "it is a C keyword"},
      {"class", "it is a C++ keyword"},
      {"template", "it is a C++ keyword"},
      {"threadIdx", "it is a CUDA built-in"},
      {"rsqrtf", "it is a CUDA built-in"},
      {"_k", "names starting with '_' are reserved by C"},
      {"tsr_load", "names starting with 'tsr_' or 'TSR_' belong to the runtime stub's API"},
      {"TSR_OK", "names starting with 'tsr_' or 'TSR_' belong to the runtime stub's API"},
  };
  for (const auto& [name, why] : samples) EXPECT_EQ(reserved_symbol_reason(name).value_or("(accepted)"), why) << name;
  for (const char* ok : {"gemm", "MR", "VW", "CHUNK", "i", "float4", "kernel"})
    EXPECT_FALSE(reserved_symbol_reason(ok).has_value()) << ok;
}

TEST(ReservedNames, EveryTableNameIsRefusedAsKernelNameWithItsPosition) {
  for (const std::string& name : reserved_identifier_table()) {
    const testing::Decoded d = testing::decode(spec_yaml(Fam::elementwise, "\"" + name + "\"", {"n"}));
    EXPECT_FALSE(d.spec.has_value()) << name;
    EXPECT_EQ(d.diagnostics, "t.yaml:2:9: error: kernel name '" + name + "' is reserved: " +
                                 *reserved_symbol_reason(name) + " (a kernel name becomes an exported C symbol)\n" +
                                 "kernel: \"" + name + "\"\n        ^\n");
  }
}

TEST(ReservedNames, EveryTableNameWorksAsDimensionNameOnEveryTarget) {
  std::vector<std::string> names = reserved_identifier_table();
  for (const char* extra : {"_n", "dim_n", "tsr_n", "TSR_N", "tsr_dim0", "tsr_dim1", "dim_m", "row", "NR", "s_n"})
    names.push_back(extra);
  for (Fam family : kFamilies) {
    const KernelSpec reference = testing::must_decode(spec_yaml(family, "k", {"dim"}));
    const KernelAbi abi = kernel_abi(reference);
    std::set<std::string> buffer_names;
    for (const Binding* b : abi.buffers()) buffer_names.insert(b->name);
    for (const TargetName& t : kTargets) {
      const std::string expected = emit_stripped(reference, t);
      ASSERT_EQ(expected.find("emit failed"), std::string::npos) << expected;
      for (const std::string& name : names) {
        const testing::Decoded d = testing::decode(spec_yaml(family, "k", {name}));
        if (buffer_names.count(name)) {   // an ABI label clash, not a C one
          EXPECT_FALSE(d.spec.has_value()) << name;
          continue;
        }
        ASSERT_TRUE(d.spec.has_value()) << name << "\n" << d.diagnostics;
        EXPECT_EQ(emit_stripped(*d.spec, t), expected)
            << "dimension '" << name << "' reaches the code for " << t.str() << ":\n" << spec_yaml(family, "k", {name});
      }
    }
  }
}

// Step (2): representative names of every class build and pass end to end.
TEST(ReservedNames, RepresentativeNamesBuildAndPassThroughTesseracTest) {
  Expected<ScratchDir> dir = ScratchDir::create("tsr-reserved-names");
  ASSERT_TRUE(dir.ok());
  // Three specs carry names of every class (and the prefixes that once hung
  // the emitter); kernel names are free but spelled like generated identifiers.
  ASSERT_TRUE(write_file(dir->path() + "/ew.yaml", spec_yaml(Fam::elementwise, "CHUNK", {"_n"})).ok());
  ASSERT_TRUE(write_file(dir->path() + "/mm.yaml", spec_yaml(Fam::matmul, "MR", {"class", "threadIdx", "M_PI"})).ok());
  ASSERT_TRUE(write_file(dir->path() + "/row.yaml", spec_yaml(Fam::rowwise, "VW", {"tsr_dim1", "tsr_dim0"})).ok());
  const std::string json = dir->path() + "/verdicts.json", table = dir->path() + "/table.txt";
  const ProcessResult r = run_process({"/bin/sh", "-c",
                                       "exec \"$0\" test \"$1\" -t x86:v2,x86:v3,x86:v4,cuda:sm_80 --no-cache -q --json \"$2\" >\"$3\"",
                                       TSR_BINARY_DIR "/tesserac", dir->path(), json, table});
  Expected<std::vector<uint8_t>> stdout_bytes = read_file_bytes(table);
  ASSERT_EQ(r.exit_code, 0) << r.output << std::string(stdout_bytes->begin(), stdout_bytes->end());
  EXPECT_EQ(r.output, "");   // stderr under -q: no diagnostics, no compiler errors
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(json);
  ASSERT_TRUE(bytes.ok());
  const nlohmann::json verdicts = nlohmann::json::parse(bytes->begin(), bytes->end());
  int x86_pass = 0;
  std::set<std::string> cuda_reasons;
  for (const nlohmann::json& v : verdicts["results"]) {
    const std::string target = v["target"], verdict = v["verdict"], reason = v.value("reason", "");
    SCOPED_TRACE(v.dump());
    if (target.rfind("x86:", 0) == 0) {
      // A tier this CPU lacks is compiled but not run.
      EXPECT_TRUE(verdict == "PASS" || (verdict == "NOT_RUN" && reason.find("lacks") != std::string::npos));
      x86_pass += verdict == "PASS";
    } else {
      EXPECT_TRUE(verdict == "PASS" || verdict == "NOT_RUN");
      EXPECT_EQ(reason.find("compile failed"), std::string::npos);
      cuda_reasons.insert(reason);
    }
  }
  EXPECT_GE(x86_pass, 3);   // x86:v2 is present on every x86-64 machine
  for (const std::string& reason : cuda_reasons)
    if (reason.rfind("target unavailable", 0) == 0) std::cout << "[  SKIP    ] cuda:sm_80 not compiled: " << reason << "\n";
}

// Every table name through the CLI as a kernel name: refused, file:line:col, exit 1.
TEST(ReservedNames, EveryTableNameIsRefusedByTesseracTest) {
  Expected<ScratchDir> dir = ScratchDir::create("tsr-reserved-kernels");
  ASSERT_TRUE(dir.ok());
  const std::vector<std::string> table = reserved_identifier_table();
  std::string expected;
  for (size_t i = 0; i < table.size(); ++i) {
    char file[32];
    std::snprintf(file, sizeof file, "k%05zu.yaml", i);
    ASSERT_TRUE(write_file(dir->path() + "/" + file, spec_yaml(Fam::elementwise, "\"" + table[i] + "\"", {"n"})).ok());
    expected += dir->path() + "/" + file + ":2:9: error: kernel name '" + table[i] + "' is reserved: " +
                *reserved_symbol_reason(table[i]) + " (a kernel name becomes an exported C symbol)\nkernel: \"" +
                table[i] + "\"\n        ^\n";
  }
  const ProcessResult r = run_process(
      {"/bin/sh", "-c", "exec \"$0\" test \"$1\" -t x86:v2 >/dev/null", TSR_BINARY_DIR "/tesserac", dir->path()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, expected);
}

}  // namespace
}  // namespace tsr
