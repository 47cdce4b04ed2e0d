// Shared fixtures for the archive and runtime-stub tests: a small archive
// whose x86 variants are real shared objects compiled here with cc.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "archive/archive_contents.h"
#include "support/sha256.h"
#include "support/subprocess.h"
#include "x86/x86_kernel_abi_text.h"

namespace tsr::testing {

inline std::filesystem::path make_temp_dir(const std::string& tag) {
  std::string tmpl = (std::filesystem::temp_directory_path() / ("tsr-" + tag + "-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const char* dir = mkdtemp(buf.data());
  return dir ? std::filesystem::path(dir) : std::filesystem::path();
}

// Compiles C source into a shared object; empty on failure. extra_flag
// (e.g. "-Wl,-z,nodelete") goes to cc when not empty.
inline std::vector<uint8_t> compile_shared_object(const std::string& source, const std::string& tag,
                                                  const std::string& extra_flag = "") {
  std::filesystem::path dir = make_temp_dir(tag);
  std::ofstream(dir / "k.c") << source;
  std::vector<std::string> argv = {"cc", "-O2", "-shared", "-fPIC", "-o", (dir / "k.so").string(), (dir / "k.c").string()};
  if (!extra_flag.empty()) argv.push_back(extra_flag);
  ProcessResult r = run_process(argv);
  std::vector<uint8_t> bytes;
  if (r.exit_code == 0) {
    std::ifstream in(dir / "k.so", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::filesystem::remove_all(dir);
  return bytes;
}

// C source of an x86 kernel (ABI v2, tesserart_kernel.h): the ABI text,
// `helpers`, then `void <entry>(ctx, b, s) { body }` and, unless
// workspace_body is empty, `uint64_t <entry>_workspace(s, workers) { workspace_body }`.
inline std::string x86_kernel_source(const std::string& entry, const std::string& body,
                                     const std::string& workspace_body = "return 0;",
                                     const std::string& helpers = "") {
  std::string src = std::string(x86::kKernelAbiText) + helpers +
                    "__attribute__((visibility(\"default\"))) void " + entry +
                    "(const tsr_kernel_context* ctx, void* const* b, const int64_t* s) {\n" + body + "}\n";
  if (!workspace_body.empty())
    src += "__attribute__((visibility(\"default\"))) uint64_t " + entry +
           "_workspace(const int64_t* s, uint32_t workers) {\n  (void)s; (void)workers;\n  " + workspace_body + "\n}\n";
  return src;
}

// out[i] = in0[i] + in1[i] * factor, for n = scalars[0] elements. The factor
// differs per variant so tests see which one ran. Like a generated kernel it
// splits the work into tasks (16 elements each) through ctx->parallel_for and
// stages in1 * factor in its workspace (n floats), so every launch in the
// stub's tests goes through the executor and the workspace pool.
inline const std::vector<uint8_t>& vadd_object(int factor) {
  static std::vector<uint8_t> cache[8];
  if (cache[factor].empty())
    cache[factor] = compile_shared_object(
        x86_kernel_source(
            "vadd_tsr_entry",
            "  vadd_job j = {(const float*)b[0], (const float*)b[1], (float*)b[2], (float*)ctx->workspace, s[0]};\n"
            "  ctx->parallel_for(ctx->executor_state, (s[0] + 15) / 16, vadd_task, &j);\n",
            "return (uint64_t)s[0] * sizeof(float);",
            "typedef struct { const float* x; const float* y; float* o; float* ws; int64_t n; } vadd_job;\n"
            "static void vadd_task(void* arg, int64_t t, uint32_t w) {\n"
            "  const vadd_job* j = (const vadd_job*)arg;\n  (void)w;\n"
            "  for (int64_t i = t * 16; i < j->n && i < (t + 1) * 16; ++i) {\n"
            "    j->ws[i] = " + std::to_string(factor) + ".0f * j->y[i];\n"
            "    j->o[i] = j->x[i] + j->ws[i];\n  }\n}\n"),
        "vadd");
  return cache[factor];
}

inline Binding buffer(const std::string& name, Role role, DType dtype, std::vector<Dim> shape) {
  return Binding{name, role, dtype, std::move(shape)};
}

inline Artifact x86_artifact(const std::string& kernel, const std::string& arch, std::vector<uint8_t> bytes) {
  Artifact a;
  a.target = {"x86", arch};
  a.kind = "shared_object";
  a.entry = kernel + "_tsr_entry";
  a.key = std::string(64, 'a');
  a.toolchain = "cc test";
  a.bytes = std::move(bytes);
  a.metadata = {{"x86.flags", "-O2"}};
  return a;
}

// vadd: f32 in0[n], in1[n] -> out[n]; variants x86:v1 (factor 1), x86:v2
// (factor 2), x86:v3 (factor 3), cuda:sm_90 and cuda:ptx (fake bytes).
// scale: bf16 x[4, M] -> y[4, M] with one fake cuda variant only.
inline ArchiveContents sample_contents() {
  ArchiveContents c;
  c.metadata = {{"tesserac.version", "0.1.0"}, {"build.profile", "test"}};
  ArchiveKernel k;
  k.name = "vadd";
  k.identity = std::string(63, '0') + "1";
  k.family = "elementwise";
  k.dtype = DType::f32;
  k.abi.bindings = {buffer("in0", Role::input, DType::f32, {Dim{0, "n"}}),
                    buffer("in1", Role::input, DType::f32, {Dim{0, "n"}}),
                    buffer("out", Role::output, DType::f32, {Dim{0, "n"}}),
                    Binding{"n", Role::scalar, DType::f32, {}}};
  k.variants.push_back(x86_artifact("vadd", "v3", vadd_object(3)));
  k.variants.push_back(x86_artifact("vadd", "v1", vadd_object(1)));
  k.variants.push_back(x86_artifact("vadd", "v2", vadd_object(2)));
  Artifact cubin;
  cubin.target = {"cuda", "sm_90"};
  cubin.kind = "cubin";
  cubin.entry = "vadd_kernel";
  cubin.key = std::string(64, 'b');
  cubin.toolchain = "ptxas 13.0";
  cubin.bytes = std::vector<uint8_t>(300, 0x5a);
  cubin.metadata = {{"cuda.block", "256,1,1"}, {"cuda.grid", "cdiv(n,256),1,1"}, {"cuda.shared_bytes", "0"}};
  k.variants.push_back(cubin);
  Artifact ptx = cubin;
  ptx.target = {"cuda", "ptx"};
  ptx.kind = "ptx";
  std::string text = ".version 8.0\n.target sm_75\n";
  ptx.bytes.assign(text.begin(), text.end());
  k.variants.push_back(ptx);
  k.verdicts.push_back(OracleVerdictRecord{{"x86", "v3"}, ArchiveVerdict::pass, 1e-7, 2e-7, 1e-5, 1e-5, 42, ""});
  k.verdicts.push_back(OracleVerdictRecord{{"cuda", "sm_90"}, ArchiveVerdict::not_run, 0, 0, 1e-5, 1e-5, 42, "no CUDA device"});
  c.kernels.push_back(k);

  ArchiveKernel s;
  s.name = "scale";
  s.identity = std::string(64, 'f');
  s.family = "rowwise";
  s.dtype = DType::bf16;
  s.abi.bindings = {buffer("x", Role::input, DType::bf16, {Dim{4, ""}, Dim{0, "M"}}),
                    buffer("y", Role::output, DType::bf16, {Dim{4, ""}, Dim{0, "M"}}),
                    Binding{"M", Role::scalar, DType::f32, {}}};
  Artifact only = cubin;
  only.entry = "scale_kernel";
  only.bytes = std::vector<uint8_t>(5000, 0x33);
  s.variants.push_back(only);
  c.kernels.push_back(s);
  return c;
}

// vadd with the given variants only and no verdicts (the GPU test doubles' archives).
inline ArchiveContents vadd_with_only(std::vector<Artifact> variants) {
  ArchiveContents c = sample_contents();
  c.kernels.resize(1);   // vadd
  c.kernels[0].variants = std::move(variants);
  c.kernels[0].verdicts.clear();
  return c;
}

// A receipt bound to `kernel`'s variant `target` (its blob's SHA-256); the
// stub never parses the text, so any UTF-8 does.
inline ArchiveReceipt receipt_for(const ArchiveKernel& kernel, const TargetName& target, const std::string& text) {
  for (const Artifact& a : kernel.variants)
    if (a.target == target) return ArchiveReceipt{target, sha256_hex(a.bytes.data(), a.bytes.size()), text};
  return ArchiveReceipt{target, std::string(64, '0'), text};
}

// sample_contents() with receipts (format 2.1), in archive order: RCPT 0
// scale cuda:sm_90; 1 vadd x86:v1; 2, 3 vadd x86:v3 "...A", "...B".
inline ArchiveContents sample_with_receipts() {
  ArchiveContents c = sample_contents();
  ArchiveKernel& vadd = c.kernels[0];
  ArchiveKernel& scale = c.kernels[1];
  vadd.receipts = {receipt_for(vadd, {"x86", "v3"}, "format = 1\nkernel = \"vadd\"  # B\n"),
                   receipt_for(vadd, {"x86", "v1"}, "format = 1\nkernel = \"vadd\"\n"),
                   receipt_for(vadd, {"x86", "v3"}, "format = 1\nkernel = \"vadd\"  # A\n")};
  scale.receipts = {receipt_for(scale, {"cuda", "sm_90"}, "format = 1\nkernel = \"scale\"\n")};
  return c;
}

// Runs fn in a forked child; returns its exit code, or -signal if it died
// by a signal (tests treat that as a failure: the stub must not crash).
inline int run_in_child(const std::function<int()>& fn) {
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) _exit(fn() & 0xff);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1000;
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace tsr::testing
