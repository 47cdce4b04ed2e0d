// Memory-bound lines: an elementwise or rowwise kernel against a plain loop
// that reads and writes the same bytes (bandwidth.h) and against oneDNN's
// primitive for the same op (onednn_memory.h). A kernel whose math keeps up
// with memory measures 1.0x the loop; scalar transcendentals show as a ratio
// well below it.
#include <cstdio>
#include <functional>
#include <memory>

#include "bandwidth.h"
#include "inputs.h"
#include "lines.h"
#include "onednn_memory.h"
#include "ours.h"
#include "report.h"
#include "timing.h"

namespace tsr::bench {

namespace {

constexpr int kRepeats = 15;
constexpr double kOmpQuiet = 0.01;   // libgomp's idle spin, as in matmul_lines.cc
constexpr int64_t kElements = int64_t{16} << 20;
constexpr int64_t kRows = 4096, kCols = 4096;
// Goals: the loop's speed for f32, 0.8 of it for 16-bit types (their
// conversions cost more per byte moved), and 1.5x oneDNN's primitive
// where it has one with math in it (not for add: both only move bytes).
constexpr double kLoopGoalF32 = 0.9, kLoopGoal16 = 0.8, kLoopGoalChain = 0.85, kOnednnGoal = 1.5;

// Makes oneDNN's primitive for the line writing `out`, or says why there is none.
using MakeOnednn = std::function<std::unique_ptr<OnednnMemoryBound>(void* out, std::string& why)>;

// Reads `inputs` arrays of `count` elements and writes one, as the kernel does.
void run_loop(DType dtype, int inputs, LaunchArgs& args, std::vector<uint8_t>& out, int64_t count) {
  if (dtype == DType::f32 && inputs == 2)
    bandwidth_f32_2in(reinterpret_cast<const float*>(args.buffers[0].data()),
                      reinterpret_cast<const float*>(args.buffers[1].data()), reinterpret_cast<float*>(out.data()),
                      count);
  else if (dtype == DType::f32)
    bandwidth_f32_1in(reinterpret_cast<const float*>(args.buffers[0].data()), reinterpret_cast<float*>(out.data()),
                      count, 1.0001f);
  else if (inputs == 2)
    bandwidth_u16_2in(reinterpret_cast<const uint16_t*>(args.buffers[0].data()),
                      reinterpret_cast<const uint16_t*>(args.buffers[1].data()), reinterpret_cast<uint16_t*>(out.data()),
                      count);
  else
    bandwidth_u16_1in(reinterpret_cast<const uint16_t*>(args.buffers[0].data()),
                      reinterpret_cast<uint16_t*>(out.data()), count);
}

// Times ours, the loop over the same bytes and oneDNN in each mode.
void memory_line(const Bench& b, const std::string& arch, const std::string& what, const KernelSpec& spec,
                 LaunchArgs& args, int inputs, int64_t count, double loop_goal, const Goal& onednn_goal,
                 const MakeOnednn& make_onednn) {
  std::string why;
  const std::unique_ptr<Compiled> ours = compile(b.target, spec, arch, why);
  if (!ours) {
    for (const Mode& mode : b.modes) report_not_run(mode.label, what, why);
    return;
  }
  std::vector<uint8_t> out(args.buffers.back().size()), out_dnnl(args.buffers.back().size());
  const double bytes = double(inputs + 1) * double(count) * dtype_size(spec.dtype);
  const std::vector<PeerGoal> goals = {{"loop", Goal{loop_goal, ""}}, {"oneDNN", onednn_goal}};
  for (const Mode& mode : b.modes) {
    enter(mode);
    const double quiet = mode.threads > 1 ? kOmpQuiet : 0;
    std::vector<Contender> contenders = {{"ours x86:" + arch, [&] { (void)ours->run(args); }},
                                         {"loop", [&] { run_loop(spec.dtype, inputs, args, out, count); }, quiet}};
    // After enter(mode): oneDNN fixes its threading when the primitive is made.
    std::string dnnl_why;
    const std::unique_ptr<OnednnMemoryBound> dnnl = make_onednn(out_dnnl.data(), dnnl_why);
    if (dnnl) contenders.push_back({"oneDNN", [&] { dnnl->run(); }, quiet});
    const std::vector<double> t = median_seconds(kRepeats, contenders);
    std::vector<Measured> peers;
    for (size_t i = 1; i < contenders.size(); ++i) peers.push_back({contenders[i].name, t[i]});
    std::vector<Absent> absent;
    if (!dnnl) absent.push_back({"oneDNN", dnnl_why});
    char extra[256];
    std::snprintf(extra, sizeof extra, "median of %d; loop reads %d and writes 1 array%s", kRepeats, inputs,
                  spec.dtype == DType::f32 ? " of f32" : " of 16-bit elements");
    std::string detail = extra;
    if (dnnl) {
      std::snprintf(extra, sizeof extra, "; oneDNN impl %s; max |ours - oneDNN| / max |oneDNN| = %.2g",
                    dnnl->implementation().c_str(),
                    relative_difference(args.buffers.back(), out_dnnl, spec.dtype, count));
      detail += extra;
    }
    report_line_per_peer(mode.label, what, {contenders[0].name, t[0]}, peers, absent, bytes, Work::bytes, goals,
                         detail);
  }
}

}  // namespace

void elementwise_line(const Bench& b, const std::string& arch, DType dtype, const std::vector<Op>& ops) {
  std::string chain;
  for (Op op : ops) chain += (chain.empty() ? "" : ",") + std::string(op_name(op));
  const std::string what = (ops.size() > 1 ? std::to_string(ops.size()) + "-op chain " : "elementwise ") + chain +
                           " " + dtype_name(dtype) + " 16Mi, x86:" + arch;
  if (!b.wants(what)) return;   // before making 16 Mi random inputs
  KernelSpec s;
  s.name = "bench_ew_" + std::to_string(ops.size()) + "_" + op_name(ops[0]) + "_" + dtype_name(dtype);
  s.family = Family::elementwise;
  s.dtype = dtype;
  s.body = ElementwiseSpec{ops, Dim{0, "n"}};
  const int inputs = s.elementwise().num_inputs();
  LaunchArgs args;
  // Activations' typical range, both signs: every branch of a gelu or silu runs.
  for (int i = 0; i < inputs; ++i) args.buffers.push_back(random_values(dtype, kElements, -4.0, 4.0, 3 + i));
  args.buffers.emplace_back(static_cast<size_t>(kElements) * dtype_size(dtype));
  args.scalars = {kElements};
  std::vector<const void*> in;
  for (int i = 0; i < inputs; ++i) in.push_back(args.buffers[i].data());
  // A fused chain: issue 26's goal is 0.85x the loop over the chain's inputs
  // and output; oneDNN has no single primitive for it (its post-ops chain
  // primitives, which is another measurement).
  const bool single = ops.size() == 1;
  const double loop_goal = !single ? kLoopGoalChain : dtype == DType::f32 ? kLoopGoalF32 : kLoopGoal16;
  const Goal onednn_goal = !single           ? Goal{0, "a chain is no single oneDNN primitive"}
                           : ops[0] == Op::add ? Goal{0, "oneDNN's binary add moves the same bytes"}
                                               : Goal{kOnednnGoal, ""};
  memory_line(b, arch, what, s, args, inputs, kElements, loop_goal, onednn_goal, [&](void* out, std::string& why) {
    if (!single) {
      why = "a chain of ops is no single oneDNN primitive";
      return std::unique_ptr<OnednnMemoryBound>();
    }
    return OnednnMemoryBound::elementwise(ops[0], dtype, kElements, in, out, why);
  });
}

void rowwise_line(const Bench& b, const std::string& arch, DType dtype, RowOp op) {
  const std::string what = std::string(row_op_name(op)) + " " + dtype_name(dtype) + " 4096x4096, x86:" + arch;
  if (!b.wants(what)) return;
  KernelSpec s;
  s.name = std::string("bench_row_") + row_op_name(op) + "_" + dtype_name(dtype);
  s.family = Family::rowwise;
  s.dtype = dtype;
  s.accumulate = DType::f32;
  RowwiseSpec r;
  r.op = op, r.rows = Dim{kRows, ""}, r.cols = Dim{kCols, ""}, r.affine = false;
  if (op == RowOp::rmsnorm || op == RowOp::layernorm) r.eps = 1e-5;
  s.body = r;
  LaunchArgs args;
  args.buffers = {random_values(dtype, kRows * kCols, -4.0, 4.0, 5),
                  std::vector<uint8_t>(static_cast<size_t>(kRows * kCols) * dtype_size(dtype))};
  const void* in = args.buffers[0].data();
  const double loop_goal = dtype == DType::f32 ? kLoopGoalF32 : kLoopGoal16;
  memory_line(b, arch, what, s, args, 1, kRows * kCols, loop_goal, Goal{kOnednnGoal, ""}, [&](void* out, std::string& why) {
    return OnednnMemoryBound::rowwise(op, dtype, kRows, kCols, r.eps.value_or(0), in, out, why);
  });
}

}  // namespace tsr::bench
