// The inline PTX of every GPU primitive, pinned to a table written from the
// PTX ISA (8.x; each row names its section). The CPU emulator compiles this
// block out (TSR_EMULATED) and models each primitive itself, so only this
// test and the device conformance program (tests/device/
// cuda_primitive_conformance.cu) see the text NVRTC compiles: an operand
// bound to the wrong register, a swapped mma operand or a wrong wait depth
// would otherwise pass every emulated test.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>

#include "driver/spec_loading.h"
#include "support/diagnostics.h"
#include "cuda/cuda_emit_kernels.h"
#include "cuda/cuda_primitives.h"

namespace tsr {
namespace {

// One asm statement as written: its template (string literals joined), its
// operands as `constraint(expression)` in operand-number order (outputs, then
// inputs) and its clobbers.
struct AsmStatement {
  std::string text;
  std::vector<std::string> operands;
  std::vector<std::string> clobbers;
  std::string error;   // set when the statement could not be read
};

// Splits `s` at commas outside parentheses and string literals.
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (char c : s) {
    if (c == '"') quoted = !quoted;
    if (!quoted && c == '(') ++depth;
    if (!quoted && c == ')') --depth;
    if (!quoted && depth == 0 && c == ',') {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  parts.push_back(cur);
  std::vector<std::string> out;
  for (std::string& p : parts) {
    p.erase(std::remove_if(p.begin(), p.end(), [](char c) { return c == ' ' || c == '\n'; }), p.end());
    if (!p.empty()) out.push_back(p);
  }
  return out;
}

// Reads `asm [volatile] ("..." "..." : outputs : inputs : clobbers);` starting at `at`.
AsmStatement read_asm(const std::string& src, size_t at) {
  AsmStatement a;
  size_t i = src.find('(', at);
  if (i == std::string::npos) return a.error = "no '('", a;
  ++i;
  std::vector<std::string> sections(1);
  int depth = 0;
  for (; i < src.size(); ++i) {
    const char c = src[i];
    if (c == '"') {
      std::string lit;
      for (++i; i < src.size() && src[i] != '"'; ++i) {
        if (src[i] == '\\' && i + 1 < src.size()) {
          ++i;
          lit += src[i] == 'n' ? '\n' : src[i];
        } else {
          lit += src[i];
        }
      }
      if (sections.size() == 1) a.text += lit;
      else sections.back() += "\"" + lit + "\"";
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && depth-- == 0) break;
    if (c == ':' && depth == 0) {
      sections.emplace_back();
      continue;
    }
    if (sections.size() > 1) sections.back() += c;
  }
  if (i == src.size()) return a.error = "unterminated asm", a;
  for (size_t s = 1; s < sections.size() && s <= 2; ++s)
    for (const std::string& op : split_top_level(sections[s])) a.operands.push_back(op);
  if (sections.size() > 3) a.clobbers = split_top_level(sections[3]);
  return a;
}

// The template with every %N replaced by operand N's expression: the binding
// of PTX operands to C++ values, readable in one line.
std::string bound_text(const AsmStatement& a) {
  static const std::regex operand(R"(%(\d+))");
  std::string out;
  std::sregex_iterator it(a.text.begin(), a.text.end(), operand), end;
  size_t last = 0;
  for (; it != end; ++it) {
    out += a.text.substr(last, static_cast<size_t>(it->position()) - last);
    const size_t n = std::stoul((*it)[1]);
    const std::string& op = n < a.operands.size() ? a.operands[n] : "?";
    const size_t paren = op.find('(');
    out += paren == std::string::npos ? "?" : op.substr(paren + 1, op.size() - paren - 2);
    last = static_cast<size_t>(it->position() + it->length());
  }
  return out + a.text.substr(last);
}

// Every `tsr_<name>(...) { ... asm ... }` definition of the primitive block
// that holds inline PTX, by name.
std::map<std::string, AsmStatement> asm_primitives(const std::string& block) {
  std::map<std::string, AsmStatement> out;
  static const std::regex definition(R"(__device__ __forceinline__ [\w *]+ (tsr_\w+)\()");
  std::vector<std::pair<size_t, std::string>> defs;
  for (std::sregex_iterator it(block.begin(), block.end(), definition), end; it != end; ++it)
    defs.emplace_back(static_cast<size_t>(it->position()), (*it)[1]);
  for (size_t d = 0; d < defs.size(); ++d) {
    const size_t stop = d + 1 < defs.size() ? defs[d + 1].first : block.size();
    const std::string body = block.substr(defs[d].first, stop - defs[d].first);
    const size_t at = body.find("asm");
    if (at == std::string::npos) continue;
    EXPECT_EQ(body.find("asm", at + 3), std::string::npos) << defs[d].second << ": one asm statement per primitive";
    out[defs[d].second] = read_asm(body, at);
  }
  return out;
}

struct PtxRow {
  const char* primitive;
  std::string bound;                    // bound_text: the instruction with its operands' values
  std::vector<std::string> operands;    // constraint(expression), operand-number order
  bool clobbers_memory;
};

// The table, from the PTX ISA 8.x. `type` is the mma operand type (bf16 or f16).
std::vector<PtxRow> ptx_table(const std::string& type) {
  const std::vector<std::string> ldmatrix_operands = {"\"=r\"(r[0])", "\"=r\"(r[1])", "\"=r\"(r[2])", "\"=r\"(r[3])",
                                                      "\"r\"(tsr_smem_addr(smem))"};
  return {
      // "Data Movement and Conversion Instructions: cvt": f16 -> f32 is exact
      // (no rounding modifier); f32 -> f16/bf16 narrows and needs one (.rn:
      // nearest even, what the emulator's conversions do). .f16 operands are
      // 16-bit registers ("h"), .f32 ones "f".
      {"tsr_cvt_f16_to_f32", "cvt.f32.f16 f, h;", {"\"=f\"(f)", "\"h\"(h)"}, false},
      {"tsr_cvt_f32_to_f16", "cvt.rn.f16.f32 h, f;", {"\"=h\"(h)", "\"f\"(f)"}, false},
      {"tsr_cvt_f32_to_bf16", "cvt.rn.bf16.f32 h, f;", {"\"=h\"(h)", "\"f\"(f)"}, false},
      // "Data Movement and Conversion Instructions: cvta": cvta.to.shared.u64
      // turns a generic address into a shared-window one; the 32-bit value is
      // what the .shared operands of cp.async and ldmatrix take ("r").
      {"tsr_smem_addr", "{ .reg .u64 t; cvta.to.shared.u64 t, p; cvt.u32.u64 a, t; }", {"\"=r\"(a)", "\"l\"(p)"},
       false},
      // "Data Movement and Conversion Instructions: cp.async":
      // cp.async.cg.shared{::cta}.global [dst], [src], cp-size{, src-size};
      // .cg allows cp-size 16 only (.ca: 4, 8 or 16); src-size < cp-size fills
      // the rest of dst with zeros. dst is a shared address, src a 64-bit
      // global one.
      {"tsr_cp_async16",
       "cp.async.cg.shared.global [tsr_smem_addr(smem)], [gmem], 16, src_bytes;\n",
       {"\"r\"(tsr_smem_addr(smem))", "\"l\"(gmem)", "\"r\"(src_bytes)"},
       true},
      // "Data Movement and Conversion Instructions: cp.async.commit_group":
      // closes the thread's open group of copies.
      {"tsr_cp_async_commit", "cp.async.commit_group;\n", {}, true},
      // "Data Movement and Conversion Instructions: cp.async.wait_group": waits
      // until at most N of the thread's newest groups are pending. The name
      // carries N (wait_depth_of below ties it to the pipeline's stages).
      {"tsr_cp_async_wait1", "cp.async.wait_group 1;\n", {}, true},
      // "Warp-level matrix load instruction: ldmatrix":
      // ldmatrix.sync.aligned.m8n8.num{.trans}.shared.b16 r, [p]; with .x4, r
      // is four .b32 registers, register i the fragment of matrix i, whose
      // row addresses lanes 8i..8i+7 supply in p.
      {"tsr_ldmatrix_x4", "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r[0], r[1], r[2], r[3]}, [tsr_smem_addr(smem)];\n",
       ldmatrix_operands, false},
      {"tsr_ldmatrix_x4_trans",
       "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {r[0], r[1], r[2], r[3]}, [tsr_smem_addr(smem)];\n",
       ldmatrix_operands, false},
      // "Warp-level matrix multiply-accumulate instruction: mma" and "Matrix
      // Fragments for mma.m16n8k16 with floating point type":
      // mma.sync.aligned.m16n8k16.row.col.f32.<type>.<type>.f32 d, a, b, c;
      // d and c are four .f32 registers (c0..c3), a four .b32 registers of two
      // 16-bit elements (a0..a3), b two (b0, b1). C is D (accumulate in
      // place: "+f"); a[i] must be A's register i, b[i] B's register i.
      {"tsr_mma_m16n8k16",
       "mma.sync.aligned.m16n8k16.row.col.f32." + type + "." + type +
           ".f32 {d[0], d[1], d[2], d[3]}, {a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {d[0], d[1], d[2], d[3]};\n",
       {"\"+f\"(d[0])", "\"+f\"(d[1])", "\"+f\"(d[2])", "\"+f\"(d[3])", "\"r\"(a[0])", "\"r\"(a[1])", "\"r\"(a[2])",
        "\"r\"(a[3])", "\"r\"(b[0])", "\"r\"(b[1])"},
       false},
  };
}

std::string every_primitive(DType storage) {
  cuda::PrimitiveSet all;
  all.half_conversions = all.warp_shuffle = all.tensor_core = all.dynamic_shared = true;
  return cuda::primitives_source(all, storage);
}

TEST(CudaPrimitivePtx, EveryInlinePtxPrimitiveMatchesTheIsaTable) {
  for (DType storage : {DType::bf16, DType::f16}) {
    const std::string type = storage == DType::bf16 ? "bf16" : "f16";
    SCOPED_TRACE(type);
    const std::map<std::string, AsmStatement> found = asm_primitives(every_primitive(storage));
    const std::vector<PtxRow> table = ptx_table(type);
    EXPECT_EQ(found.size(), table.size()) << "a primitive with inline PTX is missing from the table, or gone";
    for (const PtxRow& row : table) {
      SCOPED_TRACE(row.primitive);
      auto it = found.find(row.primitive);
      ASSERT_NE(it, found.end()) << "no inline PTX for " << row.primitive;
      const AsmStatement& a = it->second;
      ASSERT_EQ(a.error, "");
      EXPECT_EQ(bound_text(a), row.bound);
      EXPECT_EQ(a.operands, row.operands);
      const bool memory = std::find(a.clobbers.begin(), a.clobbers.end(), "\"memory\"") != a.clobbers.end();
      EXPECT_EQ(memory, row.clobbers_memory) << "the \"memory\" clobber orders the asm with plain shared accesses";
    }
  }
}

// The reader itself: operand numbering, joined literals, a swapped binding.
TEST(CudaPrimitivePtx, AsmReaderBindsOperandsByNumber) {
  const std::string src = "asm volatile(\"op %1,\" \" %0;\\n\" : \"=r\"(x[0]) : \"r\"(f(y, z)) : \"memory\");";
  const AsmStatement a = read_asm(src, 0);
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.text, "op %1, %0;\n");
  EXPECT_EQ(a.operands, (std::vector<std::string>{"\"=r\"(x[0])", "\"r\"(f(y,z))"}));
  EXPECT_EQ(bound_text(a), "op f(y,z), x[0];\n");
  EXPECT_EQ(a.clobbers, std::vector<std::string>{"\"memory\""});
}

// cp.async.wait_group N completes the oldest groups until N are pending.
// The multistage loop commits one group per stage ahead (stages - 1 in the
// prologue, one per iteration before its wait), so the tile it is about to
// read has landed exactly when at most stages - 1 groups are pending. The
// stage count comes from the emitted shared arrays, the depth from the wait
// primitive the loop calls, whose PTX the table pins.
TEST(CudaPrimitivePtx, WaitDepthIsStagesMinusOneInEveryShippedMatmul) {
  DiagnosticEngine diag;
  const std::vector<KernelSpec> specs = load_specs({TSR_SOURCE_DIR "/specs"}, diag);
  ASSERT_FALSE(diag.has_errors()) << diag.render();
  int checked = 0;
  for (const KernelSpec& spec : specs) {
    if (spec.family != Family::matmul || spec.dtype == DType::f32) continue;
    SCOPED_TRACE(spec.name);
    const std::string src = cuda::emit_kernel(spec).source;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(src, m, std::regex(R"(__shared__ __align__\(16\) unsigned short As\[(\d+)\])")));
    const int stages = std::stoi(m[1]);
    std::smatch b;
    ASSERT_TRUE(std::regex_search(src, b, std::regex(R"(__shared__ __align__\(16\) unsigned short Bs\[(\d+)\])")));
    EXPECT_EQ(std::stoi(b[1]), stages);
    const size_t loop = src.find("for (long long kt = 0; kt < ktiles; ++kt)");
    ASSERT_NE(loop, std::string::npos);
    std::smatch w;
    const std::string after = src.substr(loop);
    ASSERT_TRUE(std::regex_search(after, w, std::regex(R"(tsr_cp_async_wait(\d+)\(\))")));
    EXPECT_EQ(std::stoi(w[1]), stages - 1);
    const std::map<std::string, AsmStatement> found = asm_primitives(every_primitive(spec.dtype));
    auto it = found.find("tsr_cp_async_wait" + std::string(w[1]));
    ASSERT_NE(it, found.end());
    EXPECT_EQ(it->second.text, "cp.async.wait_group " + std::to_string(stages - 1) + ";\n");
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

}  // namespace
}  // namespace tsr
