// Attention lines (bhsd, batch 1): ours against the unfused composition a
// user writes with oneDNN (onednn_attention.h), against our own matmul at
// the same FLOPs (M = Sq, N = Skv, K = D: the two products' shape per head)
// and, for decode, against a loop reading K and V once (bandwidth.h).
#include <cstdio>
#include <memory>
#include <optional>

#include "bandwidth.h"
#include "driver/spec_loading.h"
#include "inputs.h"
#include "lines.h"
#include "onednn_attention.h"
#include "ours.h"
#include "report.h"
#include "timing.h"

namespace tsr::bench {

namespace {

constexpr double kOmpQuiet = 0.01;   // libgomp's idle spin, as in matmul_lines.cc
// Goals: 2x the composition at S = 4096, D = 128 (its three passes over
// the Sq x Skv scores are what fusing saves), 0.7x our matmul's FLOP rate
// for prefill, 0.8x the K + V read for decode (one query row per head).
constexpr double kOnednnGoal = 2.0, kMatmulGoal = 0.7, kReadGoal = 0.8;

bool is_decode(const AttentionShape& a) { return a.q_len == 1; }

std::string line_name(DType dtype, const AttentionShape& a, const std::string& arch) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "attention %s %s Hq=%lld Hkv=%lld Sq=%lld Skv=%lld D=%lld%s, x86:%s",
                dtype_name(dtype), is_decode(a) ? "decode" : "prefill", (long long)a.q_heads,
                (long long)a.kv_heads, (long long)a.q_len, (long long)a.kv_len, (long long)a.head_dim,
                a.causal ? " causal" : "", arch.c_str());
  return buf;
}

// The spec a user writes for the line, decoded as tesserac decodes a file.
std::optional<KernelSpec> attention_spec(DType dtype, const AttentionShape& a, std::string& why) {
  char text[640];
  std::snprintf(text, sizeof text,
                "tesserac: 1\nkernel: bench_attn_%s_%lld_%lld_%lld_%lld_%lld%s\nfamily: attention\ndtype: %s\n"
                "accumulate: f32\nlayout: bhsd\n"
                "shape: {batch: 1, q_heads: %lld, kv_heads: %lld, q_len: %lld, kv_len: %lld, head_dim: %lld, "
                "v_head_dim: %lld}\nmask: %s\nscale: default\nsoftcap: none\nalibi: false\nlse: false\n"
                "accuracy: {kind: reference_exact}\ndeterminism: deterministic\n",
                dtype_name(dtype), (long long)a.q_heads, (long long)a.kv_heads, (long long)a.q_len,
                (long long)a.kv_len, (long long)a.head_dim, a.causal ? "_causal" : "", dtype_name(dtype),
                (long long)a.q_heads, (long long)a.kv_heads, (long long)a.q_len, (long long)a.kv_len,
                (long long)a.head_dim, (long long)a.head_dim, a.causal ? "causal" : "none");
  DiagnosticEngine diag;
  std::optional<KernelSpec> spec = decode_spec(text, "bench_attention.yaml", diag);
  if (!spec) why = "the bench's spec did not decode: " + diag.render();
  return spec;
}

}  // namespace

void attention_line(const Bench& b, const std::string& arch, DType dtype, const AttentionShape& a, int repeats) {
  const std::string what = line_name(dtype, a, arch);
  if (!b.wants(what)) return;
  std::string why;
  const std::optional<KernelSpec> spec = attention_spec(dtype, a, why);
  const std::unique_ptr<Compiled> ours = spec ? compile(b.target, *spec, arch, why) : nullptr;
  if (!ours) {
    for (const Mode& mode : b.modes) report_not_run(mode.label, what, why);
    return;
  }
  const int64_t d = a.head_dim, q_count = a.q_heads * a.q_len * d, kv_count = a.kv_heads * a.kv_len * d;
  LaunchArgs args;
  args.buffers = {random_values(dtype, q_count, -1.0, 1.0, 11), random_values(dtype, kv_count, -1.0, 1.0, 12),
                  random_values(dtype, kv_count, -1.0, 1.0, 13),
                  std::vector<uint8_t>(static_cast<size_t>(q_count) * dtype_size(dtype))};
  std::vector<uint8_t> o_dnnl(args.buffers[3].size());
  const double flops = 2.0 * a.q_heads * a.q_len * a.kv_len * (d + d) * (a.causal ? 0.5 : 1.0);
  const int64_t kv_bytes_each = kv_count * dtype_size(dtype);
  const double kv_bytes = 2.0 * double(kv_bytes_each);

  // Our matmul of one head's product shape, its time scaled to the line's FLOPs.
  std::string mm_why;
  const std::unique_ptr<Compiled> mm = compile(b.target, matmul_spec(dtype, a.q_len, a.kv_len, d), arch, mm_why);
  LaunchArgs mm_args;
  mm_args.buffers = {random_values(dtype, a.q_len * d, -1.0, 1.0, 1), random_values(dtype, d * a.kv_len, -1.0, 1.0, 2),
                     std::vector<uint8_t>(static_cast<size_t>(a.q_len * a.kv_len) * dtype_size(dtype))};
  const double mm_scale = flops / (2.0 * a.q_len * a.kv_len * d);

  const OnednnAttentionShape shape{a.kv_heads, a.q_heads / a.kv_heads * a.q_len, a.q_len, a.kv_len, d, d, a.causal,
                                   static_cast<float>(spec->attention().scale)};
  const std::vector<PeerGoal> goals = {
      {"oneDNN", a.q_len == 4096 && d == 128 ? Goal{kOnednnGoal, ""} : Goal{0, "the goal is at S=4096 D=128"}},
      {"ours matmul", is_decode(a) ? Goal{0, "decode: against the K+V read"} : Goal{kMatmulGoal, ""}},
      {"loop K+V read", Goal{kReadGoal, ""}}};
  volatile uint64_t sink = 0;
  for (const Mode& mode : b.modes) {
    enter(mode);
    const double quiet = mode.threads > 1 ? kOmpQuiet : 0;
    std::vector<Contender> contenders = {{"ours x86:" + arch, [&] { (void)ours->run(args); }}};
    // After enter(mode): oneDNN fixes its threading when the primitives are made.
    std::string dnnl_why;
    const std::unique_ptr<OnednnAttention> dnnl =
        OnednnAttention::make(shape, dtype, args.buffers[0].data(), args.buffers[1].data(), args.buffers[2].data(),
                              o_dnnl.data(), dnnl_why);
    if (dnnl) contenders.push_back({"oneDNN", [&] { dnnl->run(); }, quiet});
    if (mm) contenders.push_back({"ours matmul", [&] { (void)mm->run(mm_args); }});
    if (is_decode(a))
      contenders.push_back({"loop K+V read", [&] {
                              sink = sink ^ bandwidth_read_2in(args.buffers[1].data(), args.buffers[2].data(),
                                                               kv_bytes_each);
                            },
                            quiet});
    const std::vector<double> t = median_seconds(repeats, contenders);
    std::vector<Measured> peers;
    double mm_ms = 0, read_s = 0;
    for (size_t i = 1; i < contenders.size(); ++i) {
      const bool is_mm = contenders[i].name == "ours matmul";
      if (is_mm) mm_ms = t[i] * 1e3;
      if (contenders[i].name == "loop K+V read") read_s = t[i];
      peers.push_back({contenders[i].name, is_mm ? t[i] * mm_scale : t[i]});
    }
    std::vector<Absent> absent;
    if (!dnnl) absent.push_back({"oneDNN", dnnl_why});
    if (!mm) absent.push_back({"ours matmul", mm_why});
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "median of %d; ours matmul: M=%lld N=%lld K=%lld %.3f ms, times %.0f for the same FLOPs", repeats,
                  (long long)a.q_len, (long long)a.kv_len, (long long)d, mm_ms, mm_scale);
    std::string detail = buf;
    if (is_decode(a)) {
      std::snprintf(buf, sizeof buf, "\n    K+V %.0f MiB: ours %.1f GB/s, loop %.1f GB/s", kv_bytes / (1 << 20),
                    kv_bytes / t[0] * 1e-9, kv_bytes / read_s * 1e-9);
      detail += buf;
    }
    if (dnnl) {
      detail += std::string("\n    oneDNN: Q·Kt (scale as output scale)") +
                (a.causal ? " -> binary add of a [1,Sq,Skv] 0/-inf mask in place" : "") +
                " -> softmax in place -> P·V, scores in " + dtype_name(dtype) + "\n    oneDNN impl " +
                dnnl->implementation();
      std::snprintf(buf, sizeof buf, "\n    max |ours - oneDNN| / max |oneDNN| = %.2g",
                    relative_difference(args.buffers[3], o_dnnl, dtype, q_count));
      detail += buf;
    }
    report_line_per_peer(mode.label, what, {contenders[0].name, t[0]}, peers, absent, flops, Work::flops, goals,
                         detail);
  }
}

}  // namespace tsr::bench
