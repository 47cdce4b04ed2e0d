#include "oracle/oracle.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "oracle/compare.h"
#include "oracle/input_generator.h"
#include "oracle/reference.h"
#include "support/half.h"

namespace tsr {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::not_run: return "NOT_RUN";
  }
  return "?";
}

OracleReport not_run(std::string reason, const KernelSpec& spec, uint64_t seed) {
  OracleReport r;
  r.verdict = Verdict::not_run;
  r.reason = std::move(reason);
  r.budget = declared_budget(spec);
  r.seed = seed;
  return r;
}

namespace {

struct Trial {
  LaunchArgs args;
  std::vector<std::vector<double>> inputs;
  std::map<std::string, int64_t> scalars;
};

Trial make_trial(const KernelSpec& spec, const KernelAbi& abi, int index, Distribution dist, uint64_t seed) {
  Trial t;
  t.scalars = trial_scalars(spec, index);
  Rng rng(seed + 0x1000u * static_cast<uint64_t>(index));
  for (const Binding* b : abi.buffers()) {
    const int64_t count = *abi.element_count(*b, t.scalars);
    std::vector<uint8_t> bytes(static_cast<size_t>(count) * dtype_size(b->dtype));
    if (b->role == Role::input) {
      std::vector<double> values = generate_values(spec, b->name, count, dist, t.scalars, rng);
      for (int64_t i = 0; i < count; ++i) store_element(bytes.data(), b->dtype, i, values[static_cast<size_t>(i)]);
      t.inputs.push_back(std::move(values));
    } else {
      // Poison outputs so an element the kernel never writes cannot pass.
      for (int64_t i = 0; i < count; ++i) store_element(bytes.data(), b->dtype, i, NAN);
    }
    t.args.buffers.push_back(std::move(bytes));
  }
  for (const std::string& s : abi.scalar_names()) t.args.scalars.push_back(t.scalars.at(s));
  return t;
}

// "24 TiB": bytes in the largest binary unit that keeps the number >= 1.
std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", bytes, units[u]);
  return buf;
}

std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

double oracle_trial_bytes(const KernelSpec& spec) {
  const KernelAbi abi = kernel_abi(spec);
  double peak = 0.0;
  for (int i = 0; i < static_cast<int>(all_distributions().size()); ++i) {
    const std::map<std::string, int64_t> scalars = trial_scalars(spec, i);
    double bytes = 0.0;
    for (const Binding* b : abi.buffers()) {
      double count = 1.0;   // in double: static extents may multiply past int64
      for (const Dim& d : b->shape) count *= static_cast<double>(d.is_static() ? d.value : scalars.at(d.name));
      // Storage bytes and values as doubles, twice for the determinism rerun;
      // the output also widened to double and as reference values.
      bytes += 2.0 * count * (dtype_size(b->dtype) + sizeof(double));
      if (b->role == Role::output) bytes += count * (sizeof(double) + sizeof(ReferenceValue));
    }
    peak = std::max(peak, bytes);
  }
  return peak;
}

OracleReport run_oracle(const KernelSpec& spec, const Target& target, const Artifact& artifact,
                        const OracleOptions& options) {
  OracleReport report;
  report.seed = options.seed;
  report.budget = effective_budget(spec, target.budget_floor(spec));
  const DeviceInfo device = target.device(artifact.target.arch);
  if (!device.present) return not_run(device.description, spec, options.seed);
  if (const double need = oracle_trial_bytes(spec); need > kOracleMemoryBudgetBytes)
    return not_run("the oracle would hold " + format_bytes(need) + " for one trial of these static extents, above its " +
                       "memory budget of " + format_bytes(kOracleMemoryBudgetBytes),
                   spec, options.seed);

  const KernelAbi abi = kernel_abi(spec);
  const size_t output_slot = abi.buffers().size() - 1;   // every family has exactly one output, last
  const DType out_dtype = abi.buffers().back()->dtype;
  const std::vector<Distribution>& dists = all_distributions();
  for (int i = 0; i < static_cast<int>(dists.size()); ++i) {
    Trial trial = make_trial(spec, abi, i, dists[static_cast<size_t>(i)], options.seed);
    Status ran = target.run(spec, artifact, trial.args);
    if (!ran.ok()) {
      report.verdict = Verdict::fail;
      report.reason = "launch failed: " + ran.error().message();
      return report;
    }
    if (options.corrupt_outputs) options.corrupt_outputs(trial.args);
    ++report.trials;

    const std::vector<uint8_t>& out_bytes = trial.args.buffers[output_slot];
    const int64_t count = static_cast<int64_t>(out_bytes.size()) / dtype_size(out_dtype);
    std::vector<double> out(static_cast<size_t>(count));
    for (int64_t j = 0; j < count; ++j) out[static_cast<size_t>(j)] = load_element(out_bytes.data(), out_dtype, j);
    const std::vector<ReferenceValue> ref = reference_output(spec, trial.inputs, trial.scalars, options.seed + i);
    const Comparison c = compare_output(ref, out, report.budget);
    report.max_abs_err = std::max(report.max_abs_err, c.max_abs_err);
    report.max_rel_err = std::max(report.max_rel_err, c.max_rel_err);
    if (!c.pass && report.verdict != Verdict::fail) {
      report.verdict = Verdict::fail;
      std::string sizes;
      for (const auto& [name, value] : trial.scalars) sizes += " " + name + "=" + std::to_string(value);
      report.reason = std::string("trial ") + std::to_string(i) + " (" + distribution_name(dists[static_cast<size_t>(i)]) +
                      (sizes.empty() ? "" : "," + sizes) + "): " + std::to_string(c.failures) + " of " +
                      std::to_string(c.checked) + " elements outside budget; first at index " +
                      std::to_string(c.first_fail_index) + ": got " + format_double(c.first_fail_out) +
                      ", expected " + format_double(c.first_fail_ref);
    }
    // A kernel claimed deterministic must reproduce its first trial bit for bit.
    if (i == 0 && spec.determinism == Determinism::deterministic) {
      Trial again = make_trial(spec, abi, i, dists[0], options.seed);
      Status reran = target.run(spec, artifact, again.args);
      if (options.corrupt_outputs) options.corrupt_outputs(again.args);
      report.determinism_checked = true;
      if (!reran.ok() || again.args.buffers[output_slot] != out_bytes) {
        report.verdict = Verdict::fail;
        report.reason = reran.ok() ? "kernel is declared deterministic but two runs on identical inputs differ"
                                   : "launch failed on the determinism rerun: " + reran.error().message();
        return report;
      }
    }
  }
  if (report.verdict != Verdict::fail) report.verdict = Verdict::pass;
  return report;
}

}  // namespace tsr
