// Every one of the 2^32 f32 inputs through the x86 vector math of a tier,
// per function, against the x87 long double reference; exit status 1 when a
// function exceeds the bound the unit test asserts (docs/targets-x86.md,
// "Vector math"). The unit test samples every 2^13-th pattern; this is the
// full sweep, too slow for ctest (minutes per function and thread).
//
//   vector_math_exhaustive [--tier v4] [--function NAME]... [--threads N] [--stride S]
//
// Exit status: 0 every function within its bound, 1 one is not or a bad
// argument or a failed compile, 77 this machine cannot run the tier.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "spec/half.h"
#include "tools/f32_sweep.h"
#include "tools/x86_vector_math_check.h"

namespace {

using namespace tsr;
using namespace tsr::vector_math_check;

constexpr int kSkipped = 77;   // ctest's SKIP_RETURN_CODE for the smoke test
constexpr uint64_t kPatterns = 1ull << 32;

const char kUsage[] =
    "usage: vector_math_exhaustive [--tier v2|v3|v4] [--function NAME]... [--threads N] [--stride S]\n"
    "  --tier      the x86 tier whose vector math is checked (default v4)\n"
    "  --function  one function; repeat for more (default: all but abs, neg and relu)\n"
    "  --threads   worker threads (default: the hardware's, %u here)\n"
    "  --stride    check every S-th f32 bit pattern, 1 <= S <= 2^32 (default 1: all 2^32)\n";

struct Options {
  std::string tier = "v4";
  std::vector<const Function*> functions;
  SweepOptions sweep;
};

unsigned default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

int usage_error(const std::string& message) {
  std::fprintf(stderr, "vector_math_exhaustive: error: %s\n(vector_math_exhaustive --help lists the options)\n",
               message.c_str());
  return 1;
}

bool parse_count(const std::string& text, uint64_t max, uint64_t& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out >= 1 && out <= max;
}

std::string function_names() {
  std::string names;
  for (const Function& f : functions()) names += (names.empty() ? "" : ", ") + f.name;
  return names;
}

// 0 parsed, -1 --help printed, else the exit status of a bad argument.
int parse_options(int argc, char** argv, Options& options) {
  options.sweep.threads = default_threads();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf(kUsage, default_threads());
      return -1;
    }
    if (arg != "--tier" && arg != "--function" && arg != "--threads" && arg != "--stride")
      return usage_error("unknown argument '" + arg + "'");
    if (i + 1 == argc) return usage_error(arg + " needs a value");
    const std::string value = argv[++i];
    uint64_t n = 0;
    if (arg == "--tier") {
      if (value != "v2" && value != "v3" && value != "v4")
        return usage_error("unknown tier '" + value + "' (one of: v2, v3, v4)");
      options.tier = value;
    } else if (arg == "--function") {
      const Function* f = find_function(value);
      if (!f) return usage_error("unknown function '" + value + "' (one of: " + function_names() + ")");
      options.functions.push_back(f);
    } else if (arg == "--threads") {
      if (!parse_count(value, 4096, n)) return usage_error("--threads wants an integer from 1 to 4096, not '" + value + "'");
      options.sweep.threads = static_cast<unsigned>(n);
    } else {
      if (!parse_count(value, kPatterns, n))
        return usage_error("--stride wants an integer from 1 to 4294967296, not '" + value + "'");
      options.sweep.stride = n;
    }
  }
  // abs, neg and relu are bit operations, exact by construction (bound 0):
  // named with --function only.
  if (options.functions.empty())
    for (const Function& f : functions())
      if (f.f32_ulp > 0) options.functions.push_back(&f);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Options first: a bad argument costs no compile.
  Options options;
  if (const int rc = parse_options(argc, argv, options)) return rc < 0 ? 0 : rc;

  // The tier must run here; otherwise a skip with the reason, never a pass.
  if (const Status runnable = check_runnable(options.tier); !runnable) {
    std::printf("SKIP: %s\n", runnable.error().message().c_str());
    return kSkipped;
  }

  // The vector math as kernels get it: the emitter's text, the target's clang flags.
  Expected<void*> handle = load_vector_math(options.tier);
  if (!handle) {
    std::fprintf(stderr, "vector_math_exhaustive: error: %s\n", handle.error().message().c_str());
    return 1;
  }

  // Each function over the inputs, against its reference and its bound.
  const uint64_t per_function = (kPatterns + options.sweep.stride - 1) / options.sweep.stride;
  std::printf("x86:%s, %s: %llu f32 input(s) per function, %u thread%s\n", options.tier.c_str(),
              options.sweep.stride == 1 ? "every bit pattern" : ("stride " + std::to_string(options.sweep.stride)).c_str(),
              static_cast<unsigned long long>(per_function), options.sweep.threads,
              options.sweep.threads == 1 ? "" : "s");
  std::printf("%-9s %10s %16s %12s %12s %8s %6s %9s %9s  %s\n", "function", "max ulp", "worst input", "> 1 ulp",
              "> 2 ulp", "nan/inf", "bound", "wall s", "cpu s", "verdict");
  int over_bound = 0;
  double total_seconds = 0, total_cpu_seconds = 0, worst_ratio = 0;
  std::string worst_function;
  uint64_t total_inputs = 0;
  for (const Function* f : options.functions) {
    const VectorFn fn = find_loop(*handle, f->name);
    if (!fn) {
      std::fprintf(stderr, "vector_math_exhaustive: error: test_%s missing from the compiled vector math\n",
                   f->name.c_str());
      return 1;
    }
    const SweepResult r = sweep_f32(fn, f->ref, options.sweep);
    const bool within = r.max_ulp <= f->f32_ulp;
    over_bound += !within;
    total_seconds += r.seconds;
    total_cpu_seconds += r.cpu_seconds;
    total_inputs += r.inputs;
    const double ratio = f->f32_ulp > 0 ? r.max_ulp / f->f32_ulp : (r.max_ulp > 0 ? INFINITY : 0);
    if (worst_function.empty() || ratio > worst_ratio) worst_ratio = ratio, worst_function = f->name;
    std::printf("%-9s %10.4f %16a %12llu %12llu %8llu %6.1f %9.2f %9.2f  %s\n", f->name.c_str(), r.max_ulp,
                f32_from_bits(r.worst_bits), static_cast<unsigned long long>(r.over_1_ulp),
                static_cast<unsigned long long>(r.over_2_ulp), static_cast<unsigned long long>(r.special_mismatches),
                f->f32_ulp, r.seconds, r.cpu_seconds, within ? "ok" : "OVER BOUND");
    std::fflush(stdout);   // a long sweep shows each function as it finishes
  }

  // One line to compare runs by (the docs table's total).
  std::printf("total: %zu functions, %llu inputs, %.1f s wall, %.1f s cpu, %d over bound, closest to its bound: %s (%.0f%%)\n",
              options.functions.size(), static_cast<unsigned long long>(total_inputs), total_seconds, total_cpu_seconds,
              over_bound,
              worst_function.c_str(), 100 * worst_ratio);
  return over_bound ? 1 : 0;
}
