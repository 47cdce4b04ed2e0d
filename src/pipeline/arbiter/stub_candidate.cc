#include "arbiter/stub_candidate.h"

#include <algorithm>
#include <random>

#include "archive/archive_writer.h"
#include "archive/archive_kernel.h"
#include "launch/stub_launcher.h"
#include "spec/abi.h"
#include "spec/half.h"

namespace tsr {

LaunchBuffers make_launch_buffers(const KernelSpec& spec, const std::map<std::string, int64_t>& scalars,
                                  uint64_t seed) {
  LaunchBuffers out;
  const KernelAbi abi = kernel_abi(spec);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (const Binding* b : abi.buffers()) {
    const int64_t count = abi.element_count(*b, scalars).value_or(0);
    std::vector<uint8_t> bytes(static_cast<size_t>(count) * dtype_size(b->dtype) + 64);
    if (b->role == Role::input)
      for (int64_t i = 0; i < count; ++i) store_element(bytes.data(), b->dtype, i, dist(rng));
    out.storage.push_back(std::move(bytes));
  }
  const std::vector<const Binding*> buffers = abi.buffers();
  for (size_t i = 0; i < buffers.size(); ++i)
    out.args.push_back({out.storage[i].data(), out.storage[i].size(), stub_dtype(buffers[i]->dtype),
                        buffers[i]->role == Role::input ? TSR_ROLE_IN : TSR_ROLE_OUT});
  for (const std::string& s : abi.scalar_names()) out.scalars.push_back(scalars.at(s));
  return out;
}

Expected<std::unique_ptr<StubCandidate>> StubCandidate::open(const KernelSpec& spec, const Artifact& artifact,
                                                             int delegates) {
  std::unique_ptr<StubCandidate> c(new StubCandidate());
  c->name_ = spec.name;
  ArchiveContents contents;
  contents.kernels.push_back(archive_kernel(spec));
  contents.kernels.back().variants.push_back(artifact);
  Expected<std::vector<uint8_t>> bytes = serialize_archive(contents);
  if (!bytes) return bytes.take_error();
  c->bytes_ = std::move(*bytes);
  char message[256] = "";
  tsr_open_options open_options{0, message, sizeof message};
  tsr_status st = tsr_archive_open_memory(c->bytes_.data(), c->bytes_.size(), &open_options, &c->archive_);
  if (st != TSR_OK)
    return toolchain_error("stub: tsr_archive_open_memory: " + std::string(tsr_status_string(st)) + ": " + message);
  tsr_select_options select{};
  select.target_kind = artifact.target.kind.c_str();
  select.arch = artifact.target.arch.c_str();
  select.require_qualified = -1;
  select.delegates = delegates;
  st = tsr_kernel_load(c->archive_, spec.name.c_str(), &select, &c->kernel_);
  if (st != TSR_OK)
    return toolchain_error("stub: tsr_kernel_load: " + std::string(tsr_status_string(st)) + ": " +
                           tsr_archive_last_message(c->archive_));
  return c;
}

StubCandidate::~StubCandidate() {
  tsr_kernel_unload(kernel_);
  tsr_archive_close(archive_);
}

Expected<std::string> StubCandidate::route(const std::vector<int64_t>& scalars) const {
  const char* step = nullptr;
  const tsr_status st = tsr_kernel_route(kernel_, scalars.data(), scalars.size(), &step);
  if (st != TSR_OK)
    return toolchain_error(name_ + ": " + tsr_status_string(st) + ": " + tsr_kernel_last_message(kernel_));
  return std::string(step ? step : "");
}

Status StubCandidate::launch(LaunchBuffers& b) const {
  const tsr_status st =
      tsr_kernel_launch(kernel_, b.args.data(), b.args.size(), b.scalars.data(), b.scalars.size(), nullptr);
  if (st != TSR_OK)
    return toolchain_error(name_ + ": tsr_kernel_launch: " + tsr_status_string(st) + ": " +
                           tsr_kernel_last_message(kernel_));
  return ok();
}

}  // namespace tsr
