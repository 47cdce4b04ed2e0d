// Memory-bound lines: an elementwise or rowwise kernel against a plain loop
// that reads and writes the same bytes (bandwidth.h). A kernel whose math
// keeps up with memory measures 1.0x; scalar transcendentals show as a
// ratio well below it.
#include <cstdio>

#include "bandwidth.h"
#include "inputs.h"
#include "lines.h"
#include "ours.h"
#include "report.h"
#include "timing.h"

namespace tsr::bench {

namespace {

constexpr int kRepeats = 15;
constexpr double kOmpQuiet = 0.01;   // libgomp's idle spin, as in matmul_lines.cc
constexpr int64_t kElements = int64_t{16} << 20;
constexpr int64_t kRows = 4096, kCols = 4096;

// Reads `inputs` arrays of `count` elements and writes one, as the kernel does.
void run_loop(DType dtype, int inputs, LaunchArgs& args, std::vector<uint8_t>& out, int64_t count) {
  if (dtype == DType::f32 && inputs == 2)
    bandwidth_f32_2in(reinterpret_cast<const float*>(args.buffers[0].data()),
                      reinterpret_cast<const float*>(args.buffers[1].data()), reinterpret_cast<float*>(out.data()),
                      count);
  else if (dtype == DType::f32)
    bandwidth_f32_1in(reinterpret_cast<const float*>(args.buffers[0].data()), reinterpret_cast<float*>(out.data()),
                      count, 1.0001f);
  else
    bandwidth_u16_1in(reinterpret_cast<const uint16_t*>(args.buffers[0].data()),
                      reinterpret_cast<uint16_t*>(out.data()), count);
}

// Times `ours` against the loop over the same bytes in each mode.
void memory_line(const Bench& b, const std::string& arch, const std::string& what, const KernelSpec& spec,
                 LaunchArgs& args, int inputs, int64_t count) {
  std::string why;
  const std::unique_ptr<Compiled> ours = compile(b.target, spec, arch, why);
  if (!ours) {
    for (const Mode& mode : b.modes) report_not_run(mode.label, what, why);
    return;
  }
  std::vector<uint8_t> out(args.buffers.back().size());
  const double bytes = double(inputs + 1) * double(count) * dtype_size(spec.dtype);
  for (const Mode& mode : b.modes) {
    enter(mode);
    const std::vector<Contender> contenders = {
        {"ours x86:" + arch, [&] { (void)ours->run(args); }},
        {"loop", [&] { run_loop(spec.dtype, inputs, args, out, count); }, mode.threads > 1 ? kOmpQuiet : 0}};
    const std::vector<double> t = median_seconds(kRepeats, contenders);
    char extra[96];
    std::snprintf(extra, sizeof extra, "\n    median of %d; loop reads %d and writes 1 array%s", kRepeats, inputs,
                  spec.dtype == DType::f32 ? " of f32" : " of 16-bit elements");
    report_line(mode.label, what, {contenders[0].name, t[0]}, {{contenders[1].name, t[1]}}, bytes, Work::bytes,
                Goal{0.9, ""}, extra);
  }
}

}  // namespace

void elementwise_line(const Bench& b, const std::string& arch, DType dtype, Op op) {
  const std::string what = std::string("elementwise ") + op_name(op) + " " + dtype_name(dtype) + " 16Mi, x86:" + arch;
  if (!b.wants(what)) return;   // before making 16 Mi random inputs
  KernelSpec s;
  s.name = std::string("bench_ew_") + op_name(op) + "_" + dtype_name(dtype);
  s.family = Family::elementwise;
  s.dtype = dtype;
  s.body = ElementwiseSpec{{op}, Dim{0, "n"}};
  const int inputs = s.elementwise().num_inputs();
  LaunchArgs args;
  // Activations' typical range, both signs: every branch of a gelu or silu runs.
  for (int i = 0; i < inputs; ++i) args.buffers.push_back(random_values(dtype, kElements, -4.0, 4.0, 3 + i));
  args.buffers.emplace_back(static_cast<size_t>(kElements) * dtype_size(dtype));
  args.scalars = {kElements};
  memory_line(b, arch, what, s, args, inputs, kElements);
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
  memory_line(b, arch, what, s, args, 1, kRows * kCols);
}

}  // namespace tsr::bench
