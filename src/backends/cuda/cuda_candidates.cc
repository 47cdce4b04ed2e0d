// Tunables of the cuda emitters and the candidates generated from them
// (CUDA C++ Programming Guide: thread-block tiling, occupancy).
#include "cuda/cuda_candidates.h"

#include "cuda/cuda_prelude.h"
#include "target/target_candidates.h"

namespace tsr::cuda {

namespace {

const char kMarker[] = "// tesserac candidate ";

// Besides the default 64 x 64 x 16 tile of 4 x 4 per thread: a small tile
// for small or skinny C (more blocks to fill the SMs), the classic 128 x 128
// x 8 of 8 x 8 per thread for large squares (more reuse per load), a 16-row
// tile for decode shapes (M of a few rows wastes no threads on padding), and
// a tall 128 x 64 one between them. Every one is 256 threads.
const std::vector<gpu::FmaTiling>& fma_tilings() {
  static const std::vector<gpu::FmaTiling> tilings = {
      {32, 32, 16, 2, 2}, {128, 128, 8, 8, 8}, {16, 128, 16, 1, 8}, {128, 64, 8, 8, 4}};
  return tilings;
}

// Block sizes for the bandwidth-bound elementwise grid-stride loop.
const int kElementwiseBlocks[] = {128, 512, 1024};

std::string tiling_name(const gpu::FmaTiling& t) {
  return "bm" + std::to_string(t.bm) + ".bn" + std::to_string(t.bn) + ".bk" + std::to_string(t.bk) + ".tm" +
         std::to_string(t.tm) + ".tn" + std::to_string(t.tn);
}

}  // namespace

std::vector<GeneratedCandidate> cuda_candidates(const KernelSpec& spec) {
  std::vector<GeneratedCandidate> out = {GeneratedCandidate{"default", {}}};
  if (spec.family == Family::matmul && spec.dtype == DType::f32) {
    for (const gpu::FmaTiling& t : fma_tilings())
      out.push_back({tiling_name(t),
                     {{"bm", std::to_string(t.bm)},
                      {"bn", std::to_string(t.bn)},
                      {"bk", std::to_string(t.bk)},
                      {"tm", std::to_string(t.tm)},
                      {"tn", std::to_string(t.tn)}}});
  } else if (spec.family == Family::elementwise) {
    for (int block : kElementwiseBlocks)
      out.push_back({"block" + std::to_string(block), {{"block", std::to_string(block)}}});
  }
  return out;
}

gpu::EmittedKernel emit_cuda_candidate(const KernelSpec& spec, const GeneratedCandidate& candidate) {
  if (candidate.tunables.empty()) return emit_kernel(spec);
  gpu::EmittedKernel k;
  if (spec.family == Family::matmul) {
    const gpu::FmaTiling d;
    k = emit_matmul(spec, gpu::FmaTiling{candidate_tunable(candidate, "bm", d.bm),
                                         candidate_tunable(candidate, "bn", d.bn),
                                         candidate_tunable(candidate, "bk", d.bk),
                                         candidate_tunable(candidate, "tm", d.tm),
                                         candidate_tunable(candidate, "tn", d.tn)});
  } else {
    k = gpu::emit_elementwise(spec, {prelude(spec), 32}, candidate_tunable(candidate, "block", gpu::kElementwiseBlock));
  }
  k.source = kMarker + candidate.name + "\n" + k.source;
  return k;
}

gpu::LaunchPlan launch_plan_for_source(const KernelSpec& spec, const std::string& source) {
  const std::string marker = kMarker;
  if (source.compare(0, marker.size(), marker) == 0) {
    const std::string name = source.substr(marker.size(), source.find('\n') - marker.size());
    for (const GeneratedCandidate& c : cuda_candidates(spec))
      if (c.name == name) return emit_cuda_candidate(spec, c).plan;
  }
  return emit_kernel(spec).plan;
}

}  // namespace tsr::cuda
