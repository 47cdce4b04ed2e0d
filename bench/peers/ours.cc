#include "ours.h"

#include <cstdio>

#include "tesserart.h"

namespace tsr::bench {

namespace {

void run_inline(void*, int64_t task_count, tsr_task_fn task, void* arg) {
  for (int64_t t = 0; t < task_count; ++t) task(arg, t, 0);
}

}  // namespace

bool Compiled::run(LaunchArgs& args) const {
  const Status s = launcher->launch(spec, artifact, args);
  if (!s.ok()) std::printf("  launch of %s failed: %s\n", spec.name.c_str(), s.error().message().c_str());
  return s.ok();
}

std::unique_ptr<Compiled> compile(const Target& target, const KernelSpec& spec, const std::string& arch,
                                  std::string& why) {
  Expected<std::string> src = target.emit(spec, arch);
  if (!src) {
    why = "emit failed: " + src.error().message();
    return nullptr;
  }
  Expected<Artifact> art = target.compile(spec, arch, *src);
  if (!art) {
    why = "compile failed: " + art.error().message();
    return nullptr;
  }
  Expected<std::unique_ptr<StubLauncher>> launcher = make_in_memory_stub_launcher(target, spec, *art);
  if (!launcher) {
    why = "load failed: " + launcher.error().message();
    return nullptr;
  }
  return std::make_unique<Compiled>(Compiled{spec, *art, std::move(*launcher)});
}

void ours_single_thread() {
  const tsr_executor inline_executor{1, run_inline, nullptr};
  (void)tsr_set_executor(&inline_executor);
}

void ours_all_cores() { (void)tsr_set_executor(nullptr); }

unsigned ours_workers() { return tsr_executor_worker_count(); }

}  // namespace tsr::bench
