#include "launch/stub_launcher.h"

#include "archive/archive_writer.h"
#include "archive/archive_kernel.h"
#include "spec/abi.h"
#include "tesserart.h"

namespace tsr {

StubLauncher::StubLauncher(const Target& inner, tsr_archive* archive, TargetName target, bool owns_archive,
                           std::vector<uint8_t> owned_bytes)
    : inner_(inner),
      archive_(archive),
      target_(std::move(target)),
      owns_archive_(owns_archive),
      owned_bytes_(std::move(owned_bytes)) {}

StubLauncher::~StubLauncher() {
  tsr_kernel_unload(kernel_);
  if (owns_archive_) tsr_archive_close(archive_);
}

std::string StubLauncher::route() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return route_;
}

// Loaded once and kept: the determinism rerun and every trial launch the
// same loaded variant, as an application holding a tsr_kernel would.
Status StubLauncher::load(const KernelSpec& spec) const {
  if (kernel_) return ok();
  // Exactly the variant under test, whatever else the archive holds and the
  // machine could run better, on the device the target found for it (the
  // oracle asked device() first, so the machine does run it).
  tsr_select_options options{};
  options.target_kind = target_.kind.c_str();
  options.arch = target_.arch.c_str();
  options.device = inner_.device(target_.arch).ordinal;
  // The oracle qualifies variants that have no receipt yet: the runtime
  // policy (TSR_REQUIRE_QUALIFIED) is for applications, not for this load.
  options.require_qualified = -1;
  tsr_kernel* kernel = nullptr;
  const tsr_status st = tsr_kernel_load(archive_, spec.name.c_str(), &options, &kernel);
  if (st != TSR_OK)
    return toolchain_error("stub: tsr_kernel_load(" + spec.name + "): " + tsr_status_string(st) + ": " +
                           tsr_archive_last_message(archive_));
  tsr_selection selected{};
  tsr_kernel_selection(kernel, &selected);
  const std::string chosen = std::string(selected.target_kind) + ":" + selected.arch;
  if (chosen != target_.str()) {
    tsr_kernel_unload(kernel);
    return toolchain_error("stub selected " + chosen + ", not " + target_.str());
  }
  kernel_ = kernel;
  route_ = std::string("libtesserart ") + selected.route;
  return ok();
}

Status StubLauncher::launch(const KernelSpec& spec, const Artifact&, LaunchArgs& args) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status loaded = load(spec); !loaded.ok()) return loaded;
  const KernelAbi abi = kernel_abi(spec);
  const std::vector<const Binding*> buffers = abi.buffers();
  // A zero-byte buffer may have no storage (NULL): the stub accepts that
  // for a buffer that needs no bytes.
  std::vector<tsr_buffer_arg> bargs;
  for (size_t i = 0; i < buffers.size() && i < args.buffers.size(); ++i)
    bargs.push_back({args.payload(i), args.payload_size(i), stub_dtype(buffers[i]->dtype),
                     buffers[i]->role == Role::input ? TSR_ROLE_IN : TSR_ROLE_OUT});
  const tsr_status st =
      tsr_kernel_launch(kernel_, bargs.data(), bargs.size(), args.scalars.data(), args.scalars.size(), nullptr);
  if (st != TSR_OK)
    return toolchain_error(std::string("stub: tsr_kernel_launch: ") + tsr_status_string(st) + ": " +
                           tsr_kernel_last_message(kernel_));
  return ok();
}

std::unique_ptr<StubLauncher> make_stub_launcher(const Target& inner, tsr_archive* archive, const TargetName& target) {
  return std::make_unique<StubLauncher>(inner, archive, target);
}

Expected<std::unique_ptr<StubLauncher>> make_in_memory_stub_launcher(const Target& inner, const KernelSpec& spec,
                                                                 const Artifact& artifact) {
  ArchiveContents contents;
  contents.kernels.push_back(archive_kernel(spec));
  contents.kernels.back().variants.push_back(artifact);
  Expected<std::vector<uint8_t>> bytes = serialize_archive(contents);
  if (!bytes) return bytes.take_error();
  char message[256] = "";
  tsr_open_options options{0, message, sizeof message};
  tsr_archive* archive = nullptr;
  const tsr_status st = tsr_archive_open_memory(bytes->data(), bytes->size(), &options, &archive);
  if (st != TSR_OK)
    return toolchain_error("stub: tsr_archive_open_memory: " + std::string(tsr_status_string(st)) + ": " + message);
  // The vector's heap block does not move with the vector: the archive keeps pointing into it.
  return std::make_unique<StubLauncher>(inner, archive, artifact.target, true, std::move(*bytes));
}

}  // namespace tsr
