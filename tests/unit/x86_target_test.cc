// The x86 target: emit, compile and run against a double-precision naive
// reference, for every tier this CPU has (tiers it lacks skip with a reason).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>

#include "launch/stub_launcher.h"
#include "oracle/reference.h"
#include "spec/abi.h"
#include "spec/half.h"
#include "x86/x86_target.h"
#include "tesserart_kernel.h"
#include "tests/unit/spec_builders.h"
#include "tests/unit/test_executor.h"

namespace tsr {
namespace {

using namespace spec_builders;

std::vector<EpilogueOp> every_epilogue_kind() {
  EpilogueOp scale = epi(EpilogueOp::Kind::scale);
  scale.scale = 0.75;
  EpilogueOp clamp = epi(EpilogueOp::Kind::clamp);
  clamp.lo = -3.0, clamp.hi = 2.5;
  EpilogueOp act = epi(EpilogueOp::Kind::activation);
  act.activation = Op::gelu_tanh;
  return {epi(EpilogueOp::Kind::bias), epi(EpilogueOp::Kind::residual), scale, clamp, act};
}

// Buffers filled from a seeded generator, in ABI order, with the reference.
struct Case {
  LaunchArgs args;
  std::vector<double> expected;   // the output buffer, in double
};

std::vector<uint8_t> random_buffer(DType t, int64_t count, std::mt19937& rng, double lo, double hi) {
  std::vector<uint8_t> bytes(static_cast<size_t>(count) * dtype_size(t));
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < count; ++i) store_element(bytes.data(), t, i, dist(rng));
  return bytes;
}

double at(const std::vector<uint8_t>& b, DType t, int64_t i) { return load_element(b.data(), t, i); }

Case make_case(const KernelSpec& spec, const std::map<std::string, int64_t>& dims, uint32_t seed) {
  std::mt19937 rng(seed);
  const KernelAbi abi = kernel_abi(spec);
  Case c;
  for (const std::string& name : abi.scalar_names()) c.args.scalars.push_back(dims.at(name));
  const DType t = spec.dtype;
  std::vector<int64_t> counts;
  for (const Binding* b : abi.buffers()) counts.push_back(*abi.element_count(*b, dims));
  const size_t n_in = counts.size() - 1;
  // Positive inputs keep sqrt/rsqrt/div defined; matmul and rows use signed values.
  const bool positive = spec.family == Family::elementwise;
  for (size_t i = 0; i < n_in; ++i)
    c.args.buffers.push_back(random_buffer(t, counts[i], rng, positive ? 0.5 : -1.0, positive ? 2.0 : 1.0));
  c.args.buffers.emplace_back(static_cast<size_t>(counts.back()) * dtype_size(t), 0xcd);
  const auto& in = c.args.buffers;
  c.expected.assign(static_cast<size_t>(counts.back()), 0.0);

  auto dim = [&](const Dim& d) { return d.is_static() ? d.value : dims.at(d.name); };
  switch (spec.family) {
    case Family::elementwise: {
      const ElementwiseSpec& e = spec.elementwise();
      for (int64_t i = 0; i < counts.back(); ++i) {
        double v = at(in[0], t, i);
        size_t next = 1;
        for (Op op : e.ops) v = op_is_binary(op) ? apply_binary(op, v, at(in[next++], t, i)) : apply_unary(op, v);
        c.expected[i] = v;
      }
      break;
    }
    case Family::matmul: {
      const MatmulSpec& mm = spec.matmul();
      const int64_t M = dim(mm.m), N = dim(mm.n), K = dim(mm.k);
      size_t next = 2;
      const std::vector<uint8_t>* bias = mm.has_bias() ? &in[next++] : nullptr;
      const std::vector<uint8_t>* residual = mm.has_residual() ? &in[next++] : nullptr;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          double v = 0;
          for (int64_t k = 0; k < K; ++k)
            v += at(in[0], t, mm.a == Layout::row ? m * K + k : k * M + m) *
                 at(in[1], t, mm.b == Layout::row ? k * N + n : n * K + k);
          for (const EpilogueOp& op : mm.epilogue) {
            switch (op.kind) {
              case EpilogueOp::Kind::bias: v += at(*bias, t, n); break;
              case EpilogueOp::Kind::residual: v += at(*residual, t, m * N + n); break;
              case EpilogueOp::Kind::scale: v *= op.scale; break;
              case EpilogueOp::Kind::clamp: v = std::min(std::max(v, op.lo), op.hi); break;
              case EpilogueOp::Kind::activation: v = apply_unary(op.activation, v); break;
            }
          }
          c.expected[m * N + n] = v;
        }
      break;
    }
    case Family::rowwise: {
      const RowwiseSpec& r = spec.rowwise();
      const int64_t rows = dim(r.rows), cols = dim(r.cols);
      for (int64_t row = 0; row < rows; ++row) {
        auto x = [&](int64_t i) { return at(in[0], t, row * cols + i); };
        double mx = -INFINITY, sum = 0, sq = 0;
        for (int64_t i = 0; i < cols; ++i) mx = std::max(mx, x(i)), sum += x(i), sq += x(i) * x(i);
        double sum_exp = 0, var = 0;
        const double mean = sum / cols;
        for (int64_t i = 0; i < cols; ++i) sum_exp += std::exp(x(i) - mx), var += (x(i) - mean) * (x(i) - mean);
        var /= cols;
        for (int64_t i = 0; i < cols; ++i) {
          double y = 0;
          switch (r.op) {
            case RowOp::softmax: y = std::exp(x(i) - mx) / sum_exp; break;
            case RowOp::log_softmax: y = x(i) - mx - std::log(sum_exp); break;
            case RowOp::rmsnorm:
              y = x(i) / std::sqrt(sq / cols + *r.eps);
              if (r.affine) y *= at(in[1], t, i);
              break;
            case RowOp::layernorm:
              y = (x(i) - mean) / std::sqrt(var + *r.eps);
              if (r.affine) y = y * at(in[1], t, i) + at(in[2], t, i);
              break;
          }
          c.expected[row * cols + i] = y;
        }
      }
      break;
    }
  }
  return c;
}

double tolerance(DType t) { return t == DType::f32 ? 1e-4 : t == DType::f16 ? 4e-3 : 1.6e-2; }

// Every output element within atol + rtol * |ref|, reporting the first miss.
void expect_close(const KernelSpec& spec, const Case& c, const std::string& what, double scale_tol = 1.0) {
  const DType t = spec.dtype;
  const double tol = tolerance(t) * scale_tol;
  const std::vector<uint8_t>& out = c.args.buffers.back();
  for (size_t i = 0; i < c.expected.size(); ++i) {
    const double got = at(out, t, static_cast<int64_t>(i)), want = c.expected[i];
    if (!(std::fabs(got - want) <= tol + tol * std::fabs(want))) {
      ADD_FAILURE() << spec.name << " " << what << ": element " << i << " got " << got << " want " << want;
      return;
    }
  }
}

class X86Test : public ::testing::Test {
 protected:
  void SetUp() override {
    target_ = make_x86_target();
    ASSERT_NE(target_, nullptr);
    if (!target_->toolchain().found) GTEST_SKIP() << "clang unavailable: " << target_->toolchain().why_unavailable;
  }

  Artifact build(const KernelSpec& spec, const std::string& arch) {
    Expected<std::string> src = target_->emit(spec, arch);
    EXPECT_TRUE(src.ok()) << (src.ok() ? "" : src.error().message());
    if (!src) return {};
    Expected<Artifact> art = target_->compile(spec, arch, *src);
    EXPECT_TRUE(art.ok()) << (art.ok() ? "" : art.error().message());
    return art ? *art : Artifact{};
  }

  // Launches through libtesserart from a one-kernel archive in memory, as
  // the oracle does: the x86 target has no loader of its own.
  Status run(const KernelSpec& spec, const Artifact& art, LaunchArgs& args) {
    Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, art);
    if (!stub) return stub.take_error();
    return (*stub)->launch(spec, art, args);
  }

  // Whether `arch` runs on this CPU. When it does not, the test is reported
  // skipped with the reason (the rest of it still runs), so a launch that
  // was never made is never counted as a pass.
  bool runs_here(const std::string& arch) {
    const DeviceInfo device = target_->device(arch);
    if (!device.present) mark_skipped("x86:" + arch + " cannot run on this CPU (" + device.description + ")");
    return device.present;
  }
  void mark_skipped(const std::string& why) { GTEST_SKIP() << why << ": compiled, not launched"; }

  // Runs one case at the given runtime sizes when the tier runs here.
  void check(const KernelSpec& spec, const Artifact& art, const std::map<std::string, int64_t>& dims,
             double scale_tol = 1.0) {
    if (!runs_here(art.target.arch)) return;
    Case c = make_case(spec, dims, 1234);
    std::string what = art.target.str();
    for (const auto& [k, v] : dims) what += " " + k + "=" + std::to_string(v);
    const Status s = run(spec, art, c.args);
    ASSERT_TRUE(s.ok()) << what << ": " << s.error().message();
    expect_close(spec, c, what, scale_tol);
  }

  std::unique_ptr<Target> target_;
};

const DType kDtypes[] = {DType::f32, DType::f16, DType::bf16};
const char* kArchs[] = {"v2", "v3", "v4"};

TEST_F(X86Test, NamesAndSupport) {
  EXPECT_EQ(target_->kind(), "x86");
  EXPECT_EQ(target_->archs(), (std::vector<std::string>{"v2", "v3", "v4", "v4+amx"}));
  EXPECT_EQ(target_->unsupported_reason(elementwise("e", DType::f32, {Op::add}, st(4)), "v3"), "");
}

TEST_F(X86Test, EmitIsDeterministicAndNamesBothEntryPoints) {
  const KernelSpec spec = matmul("gemm_det", DType::bf16, rt("M"), st(64), rt("K"), Layout::col, Layout::row,
                                 every_epilogue_kind());
  for (const char* arch : kArchs) {
    Expected<std::string> a = target_->emit(spec, arch), b = target_->emit(spec, arch);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
    EXPECT_EQ(a->rfind("/* generated by tesserac", 0), 0u);
    EXPECT_NE(a->find("TSR_EXPORT void tsr_entry(const tsr_kernel_context* ctx, void* const* buffers, "
                      "const int64_t* scalars) __asm__(\"gemm_det_tsr_entry\");"),
              std::string::npos);
    EXPECT_NE(a->find("TSR_EXPORT uint64_t tsr_workspace(const int64_t* scalars, uint32_t worker_count) "
                      "__asm__(\"gemm_det_tsr_entry_workspace\");"),
              std::string::npos);
    // Scalars in shape order M, N, K.
    EXPECT_NE(a->find("  const int64_t tsr_dim0 = scalars[0];   /* M */\n"
                      "  const int64_t tsr_dim1 = scalars[1];   /* K */\n"),
              std::string::npos);
  }
}

// The text between tesserart_kernel.h's TSR_KERNEL_ABI markers, read from the
// header in the source tree now.
std::string kernel_abi_text() {
  std::ifstream in(TSR_SOURCE_DIR "/runtime-stub/include/tesserart_kernel.h");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string begin = "/* TSR_KERNEL_ABI_BEGIN */\n", end = "/* TSR_KERNEL_ABI_END */";
  const size_t from = header.find(begin), to = header.find(end);
  if (from == std::string::npos || to == std::string::npos) return "";
  return header.substr(from + begin.size(), to - from - begin.size());
}

// Every family's kernel carries the ABI header's own text (embedded at build
// time, so stub and kernels compile the same declarations), splits its work
// through ctx->parallel_for, and never allocates: scratch memory is the
// runtime's workspace.
TEST_F(X86Test, EveryFamilyPastesTheKernelAbiAndNeverAllocates) {
  const std::string abi = kernel_abi_text();
  ASSERT_NE(abi.find("typedef struct tsr_kernel_context {"), std::string::npos);
  ASSERT_NE(abi.find("#define TSR_KERNEL_ABI_VERSION 2"), std::string::npos);
  for (const KernelSpec& spec : {elementwise("ew_abi", DType::f16, {Op::add, Op::exp}, rt("n")),
                                 matmul("mm_abi", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::col),
                                 rowwise("row_abi", DType::bf16, RowOp::layernorm, rt("rows"), st(64), true)})
    for (const char* arch : kArchs) {
      Expected<std::string> src = target_->emit(spec, arch);
      ASSERT_TRUE(src.ok());
      EXPECT_NE(src->find(abi), std::string::npos) << spec.name << " x86:" << arch;
      EXPECT_NE(src->find("ctx->parallel_for(ctx->executor_state, count, task, arg)"), std::string::npos);
      EXPECT_NE(src->find("  tsr_run(ctx, "), std::string::npos) << spec.name << " x86:" << arch;
      for (const char* allocation : {"malloc", "free(", "aligned_alloc", "calloc", "<stdlib.h>"})
        EXPECT_EQ(src->find(allocation), std::string::npos) << spec.name << " x86:" << arch << ": " << allocation;
    }
}

// Runtime dims never become C identifiers (tsr_dimN), so names that once
// clashed with the body or hung the emitter (`_n`, `dim_n`, `tsr_n`, `TSR_N`:
// appending '_' never removed the prefix) compile and run, even the private
// names themselves in swapped positions.
TEST_F(X86Test, RuntimeDimNamesNeverReachTheCode) {
  const KernelSpec ew = elementwise("ew_clash", DType::f16, {Op::add}, rt("_n"));
  const Artifact ew_art = build(ew, "v3");
  check(ew, ew_art, {{"_n", 17}});
  const KernelSpec mm = matmul("mm_clash", DType::f32, rt("dim_n"), rt("tsr_n"), rt("TSR_N"), Layout::row, Layout::col);
  const Artifact mm_art = build(mm, "v4");
  check(mm, mm_art, {{"dim_n", 5}, {"tsr_n", 7}, {"TSR_N", 300}}, 10.0);
  const KernelSpec row = rowwise("row_clash", DType::bf16, RowOp::softmax, rt("tsr_dim1"), rt("tsr_dim0"), false);
  const Artifact row_art = build(row, "v2");
  check(row, row_art, {{"tsr_dim1", 3}, {"tsr_dim0", 33}});
}

// The kernel name is only an asm label: even names the codec refuses (a
// keyword, a libm function the body calls, an enum of the generated matmul)
// compile, export exactly `<name>_tsr_entry` and `<name>_tsr_entry_workspace`, and run.
TEST_F(X86Test, KernelNameNeverReachesTheCNamespace) {
  for (const KernelSpec& spec : {elementwise("int", DType::f32, {Op::exp}, rt("n")),
                                 elementwise("expf", DType::f32, {Op::sigmoid}, rt("n")),
                                 matmul("MR", DType::f32, rt("M"), st(9), st(5), Layout::row, Layout::row)}) {
    const Artifact art = build(spec, "v2");
    EXPECT_EQ(art.entry, spec.name + "_tsr_entry");
    check(spec, art, {{spec.family == Family::matmul ? "M" : "n", 7}});
  }
}

TEST_F(X86Test, SameSourceCompilesToIdenticalBytes) {
  const KernelSpec spec = rowwise("rms_repro", DType::f32, RowOp::rmsnorm, rt("rows"), st(64), true);
  const Artifact a = build(spec, "v3"), b = build(spec, "v3");
  ASSERT_FALSE(a.bytes.empty());
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.key.size(), 64u);
  EXPECT_EQ(a.kind, "shared_object");
  EXPECT_EQ(a.entry, "rms_repro_tsr_entry");
  EXPECT_EQ(a.toolchain, "clang " + target_->toolchain().version);
  const Artifact other = build(spec, "v4");
  EXPECT_NE(a.key, other.key);
}

// A context that runs every task on the calling thread, without workspace.
void run_serially(void*, int64_t count, tsr_task_fn task, void* arg) {
  for (int64_t t = 0; t < count; ++t) task(arg, t, 0);
}
tsr_kernel_context serial_context() {
  return tsr_kernel_context{TSR_KERNEL_ABI_VERSION, 1, run_serially, nullptr, nullptr, 0};
}

// The shared object of `art`, loaded straight from memory (nullptr on failure).
void* load_object(const Artifact& art) {
  const int fd = memfd_create("x86-test", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  const bool written = write(fd, art.bytes.data(), art.bytes.size()) == static_cast<ssize_t>(art.bytes.size());
  void* h = written ? dlopen(("/proc/self/fd/" + std::to_string(fd)).c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  close(fd);
  return h;
}

// An artifact loaded, and its kernel entry (nullptr when either fails).
using EntryFn = void (*)(const tsr_kernel_context*, void* const*, const int64_t*);
std::pair<void*, EntryFn> load_entry(const Artifact& art) {
  void* h = load_object(art);
  return {h, h ? reinterpret_cast<EntryFn>(dlsym(h, art.entry.c_str())) : nullptr};
}

// Exactly the entry and its workspace function are exported.
TEST_F(X86Test, ExportsExactlyTheEntryAndItsWorkspaceFunction) {
  const KernelSpec spec = matmul("gemm_syms", DType::f32, st(8), st(8), st(8), Layout::row, Layout::row);
  const Artifact art = build(spec, "v2");
  ASSERT_FALSE(art.bytes.empty());
  void* h = load_object(art);
  ASSERT_NE(h, nullptr) << dlerror();
  EXPECT_NE(dlsym(h, "gemm_syms_tsr_entry"), nullptr);
  EXPECT_NE(dlsym(h, "gemm_syms_tsr_entry_workspace"), nullptr);
  EXPECT_EQ(dlsym(h, "gemm_syms"), nullptr);    // no typed export: it would have no context
  EXPECT_EQ(dlsym(h, "tsr_entry"), nullptr);    // the private C names behind the asm labels
  EXPECT_EQ(dlsym(h, "tsr_workspace"), nullptr);
  EXPECT_EQ(dlsym(h, "tsr_micro_kernel"), nullptr);
  EXPECT_EQ(dlsym(h, "tsr_pack_a"), nullptr);
  dlclose(h);
}

using WorkspaceFn = uint64_t (*)(const int64_t*, uint32_t);

// The workspace a kernel asks for: none for elementwise and rowwise; for
// matmul the shared packed B plus one slice per worker, 64-byte multiples,
// and none for an empty C.
TEST_F(X86Test, WorkspaceIsSharedPlusPerWorker) {
  const KernelSpec mm = matmul("mm_ws", DType::bf16, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
  void* h = load_object(build(mm, "v2"));
  ASSERT_NE(h, nullptr);
  auto ws = reinterpret_cast<WorkspaceFn>(dlsym(h, "mm_ws_tsr_entry_workspace"));
  ASSERT_NE(ws, nullptr);
  const int64_t shape[3] = {300, 200, 600};   // M, N, K: several KC blocks, so partial sums too
  const uint64_t one = ws(shape, 1), two = ws(shape, 2), seven = ws(shape, 7);
  EXPECT_GT(one, 0u);
  EXPECT_EQ(one % 64, 0u);
  EXPECT_GT(two, one);
  EXPECT_EQ(seven - one, 6 * (two - one));   // the same slice for every worker
  EXPECT_EQ(ws(shape, 7), seven);             // pure
  const int64_t empty_c[3] = {0, 200, 600}, empty_k[3] = {3, 5, 0};
  EXPECT_EQ(ws(empty_c, 4), 0u);
  EXPECT_GT(ws(empty_k, 1), 0u);              // K = 0 still runs (epilogue of the empty sum)
  dlclose(h);
  for (const KernelSpec& spec : {elementwise("ew_ws", DType::f32, {Op::add}, rt("n")),
                                 rowwise("row_ws", DType::f32, RowOp::softmax, rt("rows"), rt("cols"), false)}) {
    void* lib = load_object(build(spec, "v2"));
    ASSERT_NE(lib, nullptr);
    auto none = reinterpret_cast<WorkspaceFn>(dlsym(lib, (spec.name + "_tsr_entry_workspace").c_str()));
    ASSERT_NE(none, nullptr);
    const int64_t dims[2] = {1000, 1000};
    EXPECT_EQ(none(dims, 1), 0u);
    EXPECT_EQ(none(dims, 64), 0u);
    dlclose(lib);
  }
}

// A launch whose output is empty returns at once, whatever the other extents
// (rows = 2^40 with cols = 0 once looped over every row for hours); K = 0
// leaves a full C of epilogue(0), the empty sum.
TEST_F(X86Test, ZeroExtentsReturnAtOnce) {
  constexpr int64_t kHuge = int64_t{1} << 40;
  using Dims = std::map<std::string, int64_t>;
  struct Launch {
    KernelSpec spec;
    const char* arch;
    std::vector<Dims> zero;
  };
  const std::vector<Launch> launches = {
      {elementwise("ew_zero", DType::f16, {Op::add, Op::exp}, rt("n")), "v3", {{{"n", 0}}}},
      {matmul("mm_zero", DType::bf16, rt("M"), rt("N"), rt("K"), Layout::col, Layout::row,
              {epi(EpilogueOp::Kind::residual), epi(EpilogueOp::Kind::activation)}),   // no bias: it holds N
       "v2",
       {{{"M", kHuge}, {"N", 0}, {"K", 0}}, {{"M", 0}, {"N", kHuge}, {"K", 0}}, {{"M", 0}, {"N", 0}, {"K", kHuge}}}},
      {rowwise("ln_zero", DType::f32, RowOp::layernorm, rt("rows"), rt("cols"), true), "v2",
       {{{"rows", kHuge}, {"cols", 0}}}},
      {rowwise("sm_zero", DType::bf16, RowOp::softmax, rt("rows"), rt("cols"), false), "v4",
       {{{"rows", kHuge}, {"cols", 0}}, {{"rows", 0}, {"cols", kHuge}}}},
  };
  for (const Launch& l : launches) {
    if (!runs_here(l.arch)) continue;
    const Artifact art = build(l.spec, l.arch);
    for (const Dims& dims : l.zero) {
      // Every buffer is empty (make_case's reference would walk the 2^40 rows).
      const KernelAbi abi = kernel_abi(l.spec);
      LaunchArgs args;
      for (const std::string& name : abi.scalar_names()) args.scalars.push_back(dims.at(name));
      for (const Binding* b : abi.buffers()) {
        ASSERT_EQ(abi.element_count(*b, dims), 0) << l.spec.name << " " << b->name;
        args.buffers.emplace_back();
      }
      const auto start = std::chrono::steady_clock::now();
      const Status s = run(l.spec, art, args);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      EXPECT_TRUE(s.ok()) << l.spec.name << ": " << (s.ok() ? "" : s.error().message());
      EXPECT_LT(seconds, 1.0) << l.spec.name;
    }
  }
  const KernelSpec k0 = matmul("mm_k0", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::col,
                               every_epilogue_kind());
  check(k0, build(k0, "v2"), {{"M", 3}, {"N", 21}, {"K", 0}});
}

// Which elements a rowwise output pass writes through its head, full-vector
// or tail path depends on y's address; they must round alike, or the
// determinism rerun (fresh buffers) fails. Layernorm's `* w + b` once fused
// on some paths only under -ffp-contract=fast.
TEST_F(X86Test, RowwiseOutputDoesNotDependOnAlignment) {
  for (const char* arch : {"v3", "v4"}) {
    if (!runs_here(arch)) continue;
    for (const KernelSpec& spec : {rowwise("ln_align", DType::f32, RowOp::layernorm, rt("n"), rt("n"), true),
                                   rowwise("rms_align", DType::f32, RowOp::rmsnorm, rt("n"), rt("n"), true),
                                   rowwise("sm_align", DType::f32, RowOp::softmax, rt("n"), rt("n"), false)}) {
      const auto [h, entry] = load_entry(build(spec, arch));
      ASSERT_NE(entry, nullptr);
      const tsr_kernel_context ctx = serial_context();
      const int64_t n = 37;   // rows of 148 bytes: every row starts at another offset
      Case c = make_case(spec, {{"n", n}}, 11);
      std::vector<float> first;
      for (int offset = 0; offset < 16; ++offset) {
        std::vector<float> y(static_cast<size_t>(n * n + 16));
        std::vector<void*> buffers;
        for (size_t i = 0; i + 1 < c.args.buffers.size(); ++i) buffers.push_back(c.args.buffers[i].data());
        buffers.push_back(y.data() + offset);
        entry(&ctx, buffers.data(), &n);
        std::vector<float> out(y.begin() + offset, y.begin() + offset + n * n);
        if (first.empty()) first = out;
        EXPECT_EQ(std::memcmp(out.data(), first.data(), first.size() * sizeof(float)), 0)
            << spec.name << " x86:" << arch << " with y at +" << offset << " floats";
      }
      dlclose(h);
    }
  }
}

// An elementwise element is computed by the one vector pass wherever it
// falls: in a full vector, in the zero-padded tail, in any task. The same
// 37 inputs repeat over three lengths (a tail only; a task plus a tail; two
// tasks plus a tail) and every output must have the bits of its first copy.
TEST_F(X86Test, ElementwiseBitsDoNotDependOnPosition) {
  const float values[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -3.75f, 12.5f, -12.5f, 88.0f, -88.0f, 1e-3f, -1e-3f,
                          2.0f, -2.0f, 0.3f, -0.3f, 7.0f, -7.0f, 0.999f, -0.999f, 40.0f, -40.0f, 1e-7f, -1e-7f,
                          3.0f, -3.0f, 0.1f, -0.1f, 5.5f, -5.5f, 0.7f, -0.7f, 20.0f, -20.0f, 1.5f, -1.5f, INFINITY};
  const int64_t period = sizeof values / sizeof values[0];
  const int64_t lengths[] = {21, 32768 + 5, 2 * 32768 + period + 3};
  for (const char* arch : kArchs) {
    if (!runs_here(arch)) continue;
    for (DType t : kDtypes) {
      const KernelSpec spec = elementwise("ew_position", t, {Op::silu, Op::gelu_erf, Op::tanh, Op::sigmoid}, rt("n"));
      const auto [h, entry] = load_entry(build(spec, arch));
      ASSERT_NE(entry, nullptr);
      const tsr_kernel_context ctx = serial_context();
      const size_t size = dtype_size(t);
      std::vector<uint8_t> first;   // outputs of the 37 inputs in the first run that has them all
      for (int64_t n : {lengths[2], lengths[0], lengths[1]}) {
        std::vector<uint8_t> in(static_cast<size_t>(n) * size), out(in.size());
        for (int64_t i = 0; i < n; ++i) store_element(in.data(), t, i, values[i % period]);
        void* buffers[] = {in.data(), out.data()};
        entry(&ctx, buffers, &n);
        if (first.empty()) first.assign(out.begin(), out.begin() + period * static_cast<int64_t>(size));
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(std::memcmp(&out[i * size], &first[(i % period) * size], size), 0)
              << "x86:" << arch << " " << dtype_name(t) << " n = " << n << ": element " << i
              << " differs from element " << i % period << " (input " << values[i % period] << ")";
      }
      dlclose(h);
    }
  }
}

// The split into tasks (docs/targets-x86.md, "Tasks"), seen by a counting
// executor: elementwise 32,768 elements per task; rowwise 32768 / cols rows
// per task; matmul (v2: MC = 120, NR = 8) one task per B panel, then per
// (row block x column tile of at least 8 panels), 16 tasks wanted; a C of
// one row block, per column tile of a 16th of the panels.
TEST_F(X86Test, GeneratedKernelsSplitByShapeThroughTheExecutor) {
  struct Split {
    KernelSpec spec;
    std::map<std::string, int64_t> dims;
    uint64_t calls, tasks;
  };
  const std::vector<Split> splits = {
      {elementwise("ew_split", DType::f32, {Op::add}, rt("n")), {{"n", 3 * 32768 + 17}}, 1, 4},
      {elementwise("ew_one", DType::f32, {Op::add}, rt("n")), {{"n", 32768}}, 0, 0},   // one task: no executor
      {rowwise("row_split", DType::f32, RowOp::softmax, rt("rows"), rt("cols"), false), {{"rows", 77}, {"cols", 1100}}, 1, 3},
      // 26 panels of B; 3 row blocks x 4 tiles of 64 columns.
      {matmul("mm_split", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row), {{"M", 300}, {"N", 203}, {"K", 600}}, 2, 26 + 12},
      // One row block (skinny): no B phase; 26 panels in tiles of 2, 13 tasks.
      {matmul("mm_skinny_split", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row), {{"M", 64}, {"N", 203}, {"K", 600}}, 1, 13},
  };
  for (const Split& split : splits) {
    const Artifact art = build(split.spec, "v2");
    testing::ScrambledExecutor counting(3);
    testing::ExecutorScope scope(counting.executor());
    check(split.spec, art, split.dims, 10.0);
    EXPECT_EQ(counting.calls(), split.calls) << split.spec.name;
    EXPECT_EQ(counting.tasks(), split.tasks) << split.spec.name;
  }
}

// Every family x dtype x tier compiles; present tiers run odd runtime sizes.
TEST_F(X86Test, ElementwiseEveryTierAndDtype) {
  for (DType t : kDtypes)
    for (const char* arch : kArchs) {
      const KernelSpec spec = elementwise(std::string("ew_") + dtype_name(t), t, {Op::add, Op::silu, Op::mul}, rt("n"));
      const Artifact art = build(spec, arch);
      for (int64_t n : {0, 1, 17, 1000}) check(spec, art, {{"n", n}});
    }
}

TEST_F(X86Test, ElementwiseEveryOp) {
  // Inputs in [0.5, 2]: each op sees a value where it is defined.
  const std::vector<Op> ops = {Op::add,  Op::sqrt,    Op::rsqrt, Op::mul,      Op::max,      Op::min,
                               Op::sub,  Op::div,     Op::neg,   Op::abs,      Op::gelu_tanh, Op::gelu_erf,
                               Op::silu, Op::sigmoid, Op::tanh,  Op::exp,      Op::relu};
  for (DType t : kDtypes)
    for (const char* arch : {"v2", "v4"}) {
      const KernelSpec spec = elementwise("ew_all_ops", t, ops, st(1000));
      check(spec, build(spec, arch), {});
    }
}

TEST_F(X86Test, RowwiseEveryOpTierAndDtype) {
  struct Variant {
    RowOp op;
    bool affine;
  };
  const Variant variants[] = {{RowOp::softmax, false}, {RowOp::log_softmax, false}, {RowOp::rmsnorm, true},
                              {RowOp::layernorm, true}, {RowOp::layernorm, false}};
  auto run_variant = [&](DType t, const char* arch, const Variant& v) {
    const KernelSpec spec = rowwise(std::string("row_") + row_op_name(v.op), t, v.op, rt("rows"), rt("cols"), v.affine);
    const Artifact art = build(spec, arch);
    for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{0, 5}, {1, 1}, {3, 17}, {2, 1000}})
      check(spec, art, {{"rows", rows}, {"cols", cols}}, v.op == RowOp::log_softmax ? 4.0 : 1.0);
  };
  // Every op in f32 on AVX-512; the 16-bit dtypes there take the ops with
  // dtype-specific code (vector exp + stores, weight/bias loads); the other
  // tiers rotate through the ops (the reductions are shared text, only the
  // vector width and the loads/stores differ).
  for (const Variant& v : variants) run_variant(DType::f32, "v4", v);
  for (DType t : {DType::f16, DType::bf16})
    for (const Variant& v : {variants[0], variants[3]}) run_variant(t, "v4", v);
  int rotate = 0;
  for (const char* arch : {"v2", "v3"})
    for (DType t : kDtypes) run_variant(t, arch, variants[rotate++ % 5]);
}

// Launches moving over 32 MiB (x and y) take the non-temporal store path (odd
// shapes, so rows start at every alignment and the head/tail paths run too);
// softmax on 4095 columns keeps its exponentials in the row scratch, on 4111
// it computes them twice; bf16 on v4 stores through VCVTNEPS2BF16 where the
// CPU has it.
TEST_F(X86Test, RowwiseLargeOutputsStream) {
  struct Big {
    DType t;
    RowOp op;
    const char* arch;
    int64_t rows, cols;
  };
  for (const Big& b : {Big{DType::f32, RowOp::rmsnorm, "v4", 2049, 4097}, Big{DType::bf16, RowOp::layernorm, "v3", 4097, 4111},
                       Big{DType::f16, RowOp::softmax, "v4", 4097, 4111},
                       Big{DType::bf16, RowOp::softmax, "v4", 2049, 4095}}) {
    const KernelSpec spec = rowwise("row_big", b.t, b.op, rt("rows"), rt("cols"), b.op != RowOp::softmax);
    check(spec, build(spec, b.arch), {{"rows", b.rows}, {"cols", b.cols}});
  }
}

TEST_F(X86Test, MatmulEveryTierAndDtype) {
  for (DType t : kDtypes)
    for (const char* arch : kArchs) {
      const KernelSpec spec = matmul("mm", t, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
      const Artifact art = build(spec, arch);
      for (auto [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
               {0, 5, 3}, {1, 1, 1}, {17, 17, 17}, {1000, 3, 5}, {130, 45, 300}, {7, 9, 0}})
        check(spec, art, {{"M", m}, {"N", n}, {"K", k}}, t == DType::f32 ? 10.0 : 1.0);
    }
}

TEST_F(X86Test, MatmulEveryLayoutWithEveryEpilogueKind) {
  for (Layout a : {Layout::row, Layout::col})
    for (Layout b : {Layout::row, Layout::col}) {
      const KernelSpec spec = matmul("mm_epi", DType::f32, rt("M"), rt("N"), st(260), a, b, every_epilogue_kind());
      const Artifact art = build(spec, "v4");
      for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {17, 33}, {129, 70}})
        check(spec, art, {{"M", m}, {"N", n}}, 10.0);
    }
  // Each epilogue kind alone, static shape, on the AVX2 tier.
  for (const EpilogueOp& e : every_epilogue_kind()) {
    const KernelSpec spec = matmul("mm_one_epi", DType::bf16, st(19), st(23), st(29), Layout::col, Layout::col, {e});
    check(spec, build(spec, "v3"), {});
  }
}

TEST_F(X86Test, DeviceReportsTiers) {
  for (const char* arch : kArchs) {
    const DeviceInfo d = target_->device(arch);
    EXPECT_FALSE(d.description.empty());
    if (d.present) EXPECT_NE(d.description.find(std::string("x86-64-") + arch), std::string::npos) << d.description;
    else EXPECT_NE(d.description.find("lacks x86-64-"), std::string::npos) << d.description;
  }
  EXPECT_FALSE(target_->device("v9").present);
  // v2 is the floor every x86-64 machine running this suite has.
  EXPECT_TRUE(target_->device("v2").present);
}

// The stub's launch validation (tesserart.h) is the only one on the x86 path.
TEST_F(X86Test, RunValidatesArgumentsAgainstTheAbi) {
  const KernelSpec spec = elementwise("ew_validate", DType::f32, {Op::add}, rt("n"));
  const Artifact art = build(spec, "v2");
  LaunchArgs args;
  args.scalars = {4};
  args.buffers = {std::vector<uint8_t>(16), std::vector<uint8_t>(16)};
  Status s = run(spec, art, args);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "stub: tsr_kernel_launch: wrong argument count: ew_validate: expected 3 buffers and 1 scalars, got 2 and 1");
  args.buffers.emplace_back(12);
  s = run(spec, art, args);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "stub: tsr_kernel_launch: buffer too small: ew_validate: buffer 'out' has 12 bytes, needs 16");
  args.buffers.back().resize(16);
  args.scalars = {};
  EXPECT_FALSE(run(spec, art, args).ok());
  args.scalars = {-1};
  EXPECT_FALSE(run(spec, art, args).ok());
  // Runtime extents whose byte size overflows are refused before the launch.
  args.scalars = {INT64_MAX};
  s = run(spec, art, args);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "stub: tsr_kernel_launch: invalid runtime scalar: ew_validate: size of buffer 'in0' overflows");
  args.scalars = {4};
  EXPECT_TRUE(run(spec, art, args).ok());
}

// Two artifacts with one kernel name, loaded one after the other through the
// stub, run their own code (glibc would hand back the first object for a
// reused /proc/self/fd path).
TEST_F(X86Test, SameNameDifferentArtifactsRunTheirOwnCode) {
  const KernelSpec add = elementwise("same_name", DType::f32, {Op::add}, st(4));
  const KernelSpec sub = elementwise("same_name", DType::f32, {Op::sub}, st(4));
  const Artifact add_art = build(add, "v2"), sub_art = build(sub, "v2");
  for (int round = 0; round < 2; ++round) {
    for (const auto* pair : {&add, &sub}) {
      Case c = make_case(*pair, {}, 7);
      ASSERT_TRUE(run(*pair, pair == &add ? add_art : sub_art, c.args).ok());
      expect_close(*pair, c, pair == &add ? "add" : "sub");
    }
  }
}

TEST_F(X86Test, CompilerFailureCarriesTheLog) {
  const KernelSpec spec = elementwise("broken_kernel", DType::f32, {Op::add}, st(4));
  Expected<Artifact> art = target_->compile(spec, "v3", "void broken_kernel(void) { this is not C; }\n");
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::toolchain);
  EXPECT_NE(art.error().message().find("clang failed to compile kernel 'broken_kernel' for x86:v3"), std::string::npos);
  EXPECT_NE(art.error().message().find("error:"), std::string::npos) << art.error().message();
}

TEST_F(X86Test, MissingClangIsTargetUnavailable) {
  const char* old = std::getenv("TESSERAC_CLANG");
  const std::string saved = old ? old : "";
  setenv("TESSERAC_CLANG", "/nonexistent/clang-14", 1);
  const ToolchainInfo tc = target_->toolchain();
  const KernelSpec spec = elementwise("ew_noclang", DType::f32, {Op::add}, st(4));
  Expected<Artifact> art = target_->compile(spec, "v3", "int x;\n");
  setenv("TESSERAC_CLANG", "/bin/false", 1);
  const ToolchainInfo broken = target_->toolchain();
  if (old) setenv("TESSERAC_CLANG", saved.c_str(), 1);
  else unsetenv("TESSERAC_CLANG");
  EXPECT_FALSE(tc.found);
  EXPECT_EQ(tc.why_unavailable, "TESSERAC_CLANG='/nonexistent/clang-14' is not an executable");
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::unavailable);
  EXPECT_EQ(art.error().message().rfind("target unavailable: x86:v3: ", 0), 0u) << art.error().message();
  EXPECT_FALSE(broken.found);
}

TEST_F(X86Test, NoClangInPathNamesThePackage) {
  const char* old_clang = std::getenv("TESSERAC_CLANG");
  const std::string saved_clang = old_clang ? old_clang : "", saved_path = std::getenv("PATH");
  unsetenv("TESSERAC_CLANG");
  setenv("PATH", "/nonexistent-tesserac-test", 1);
  const ToolchainInfo tc = target_->toolchain();
  setenv("PATH", saved_path.c_str(), 1);
  if (old_clang) setenv("TESSERAC_CLANG", saved_clang.c_str(), 1);
  EXPECT_FALSE(tc.found);
  EXPECT_EQ(tc.why_unavailable, "clang not found in PATH (install clang-14)");
}

}  // namespace
}  // namespace tsr
