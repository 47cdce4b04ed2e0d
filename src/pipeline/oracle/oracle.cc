#include "oracle/oracle.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "oracle/compare.h"
#include "oracle/input_generator.h"
#include "oracle/reference.h"
#include "oracle/route_trials.h"
#include "spec/half.h"

namespace tsr {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::not_run: return "NOT_RUN";
    case Verdict::pass_emulated: return "PASS_EMULATED";
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
  std::vector<std::vector<uint8_t>> input_bytes;   // the inputs as launched, to check they are unchanged
  std::map<std::string, int64_t> scalars;
};

// The canary byte at position i of a guard zone: not a constant, so a
// kernel storing one repeated value cannot happen to write it back.
uint8_t canary(size_t i) { return static_cast<uint8_t>(0xA5 ^ (i * 0x3B)); }

// What trial `index` runs: the standard trials first (trial_scalars), then
// the route trials, whose distributions continue the cycle.
struct TrialShape {
  std::string label;   // empty for a standard trial
  std::map<std::string, int64_t> scalars;
  Distribution distribution;
};

std::vector<TrialShape> trial_shapes(const KernelSpec& spec, const std::vector<ShapeTrial>& routes) {
  std::vector<TrialShape> out;
  for (int i = 0; i < kTrialCount; ++i) out.push_back({"", trial_scalars(spec, i), trial_distribution(i)});
  for (const ShapeTrial& r : routes)
    out.push_back({r.label, r.scalars, trial_distribution(static_cast<int>(out.size()))});
  return out;
}

Trial make_trial(const KernelSpec& spec, const KernelAbi& abi, const TrialShape& shape, int index, uint64_t seed) {
  Trial t;
  t.scalars = shape.scalars;
  t.args.guard_bytes = kGuardBytes;
  Rng rng(seed + 0x1000u * static_cast<uint64_t>(index));
  for (const Binding* b : abi.buffers()) {
    const int64_t count = *abi.element_count(*b, t.scalars);
    const size_t payload = static_cast<size_t>(count) * dtype_size(b->dtype);
    std::vector<uint8_t> bytes(payload + 2 * kGuardBytes);
    for (size_t i = 0; i < kGuardBytes; ++i) bytes[i] = bytes[kGuardBytes + payload + i] = canary(i);
    uint8_t* data = bytes.data() + kGuardBytes;
    if (b->role == Role::input) {
      std::vector<double> values = generate_values(spec, b->name, count, shape.distribution, t.scalars, rng);
      for (int64_t i = 0; i < count; ++i) store_element(data, b->dtype, i, values[static_cast<size_t>(i)]);
      t.inputs.push_back(std::move(values));
      t.input_bytes.emplace_back(data, data + payload);
    } else {
      // Poison outputs so an element the kernel never writes cannot pass.
      for (int64_t i = 0; i < count; ++i) store_element(data, b->dtype, i, NAN);
    }
    t.args.buffers.push_back(std::move(bytes));
  }
  for (const std::string& s : abi.scalar_names()) t.args.scalars.push_back(t.scalars.at(s));
  return t;
}

// Why the launch touched memory it must not: a changed guard byte (named by
// buffer and side) or a changed input; empty when nothing did.
std::string memory_violation(const KernelAbi& abi, const Trial& t) {
  const std::vector<const Binding*> buffers = abi.buffers();
  for (size_t b = 0; b < buffers.size(); ++b) {
    const std::vector<uint8_t>& bytes = t.args.buffers[b];
    const size_t payload = t.args.payload_size(b);
    for (size_t i = 0; i < kGuardBytes; ++i) {
      if (bytes[kGuardBytes - 1 - i] != canary(kGuardBytes - 1 - i))
        return "the launch wrote before buffer '" + buffers[b]->name + "' (guard byte at offset -" +
               std::to_string(i + 1) + " changed)";
      if (bytes[kGuardBytes + payload + i] != canary(i))
        return "the launch wrote after the end of buffer '" + buffers[b]->name + "' (guard byte at offset +" +
               std::to_string(i) + " past its " + std::to_string(payload) + " bytes changed)";
    }
  }
  size_t input = 0;
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (buffers[b]->role != Role::input) continue;
    const std::vector<uint8_t>& before = t.input_bytes[input++];
    const uint8_t* now = t.args.payload(b);
    const auto diff = std::mismatch(before.begin(), before.end(), now);
    if (diff.first != before.end()) {
      const size_t offset = static_cast<size_t>(diff.first - before.begin());
      return "the launch changed input '" + buffers[b]->name + "' (element " +
             std::to_string(offset / dtype_size(buffers[b]->dtype)) + ")";
    }
  }
  return "";
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

namespace {

// Bytes the oracle holds for one trial of `spec` at `scalars`.
double trial_bytes(const KernelSpec& spec, const KernelAbi& abi, const std::map<std::string, int64_t>& scalars) {
  double bytes = 0.0;
  for (const Binding* b : abi.buffers()) {
    double count = 1.0;   // in double: static extents may multiply past int64
    for (const Dim& d : b->shape) count *= static_cast<double>(d.is_static() ? d.value : scalars.at(d.name));
    // Storage bytes and values as doubles, twice for the determinism rerun;
    // an input also as the copy that proves it unchanged (twice); the
    // output also widened to double and as reference values.
    bytes += 2.0 * count * (dtype_size(b->dtype) + sizeof(double));
    if (b->role == Role::input) bytes += 2.0 * count * dtype_size(b->dtype);
    if (b->role == Role::output) bytes += count * (sizeof(double) + sizeof(ReferenceValue));
  }
  return bytes;
}

// The standard trial whose buffers are largest: what a latency figure is measured on.
int largest_trial(const KernelSpec& spec, const KernelAbi& abi) {
  int best = 0;
  for (int i = 1; i < kTrialCount; ++i)
    if (trial_bytes(spec, abi, trial_scalars(spec, i)) > trial_bytes(spec, abi, trial_scalars(spec, best))) best = i;
  return best;
}

double largest_bytes(const KernelSpec& spec, const std::vector<TrialShape>& shapes) {
  const KernelAbi abi = kernel_abi(spec);
  double most = 0.0;
  for (const TrialShape& s : shapes) most = std::max(most, trial_bytes(spec, abi, s.scalars));
  return most;
}

}  // namespace

double oracle_trial_bytes(const KernelSpec& spec) { return largest_bytes(spec, trial_shapes(spec, {})); }

namespace {

// The trials and the determinism rerun on a present device: PASS or FAIL.
OracleReport run_trials(const KernelSpec& spec, const Launcher& launcher, const Artifact& artifact,
                        const std::vector<TrialShape>& shapes, const OracleOptions& options) {
  OracleReport report;
  report.seed = options.seed;
  report.budget = effective_budget(spec, launcher.budget_floor(spec));
  const KernelAbi abi = kernel_abi(spec);
  // The output slots among the buffers, in ABI order (attention: o, then lse).
  std::vector<size_t> output_slots;
  for (size_t b = 0; b < abi.buffers().size(); ++b)
    if (abi.buffers()[b]->role == Role::output) output_slots.push_back(b);
  for (int i = 0; i < static_cast<int>(shapes.size()); ++i) {
    const TrialShape& shape = shapes[static_cast<size_t>(i)];
    Trial trial = make_trial(spec, abi, shape, i, options.seed);
    std::string sizes;
    for (const auto& [name, value] : trial.scalars) sizes += " " + name + "=" + std::to_string(value);
    const std::string trial_name = std::string("trial ") + std::to_string(i) + " (" +
                                   (shape.label.empty() ? "" : shape.label + ", ") +
                                   distribution_name(shape.distribution) + (sizes.empty() ? "" : "," + sizes) + ")";
    Status ran = launcher.launch(spec, artifact, trial.args);
    if (!ran.ok()) {
      report.verdict = Verdict::fail;
      report.reason = "launch failed: " + ran.error().message();
      return report;
    }
    if (options.corrupt_outputs) options.corrupt_outputs(trial.args);
    ++report.trials;
    report.trial_shapes.push_back(trial.scalars);
    if (const std::string violation = memory_violation(abi, trial); !violation.empty()) {
      report.verdict = Verdict::fail;
      report.reason = trial_name + ": " + violation;
      return report;
    }

    std::vector<std::vector<double>> outs;
    for (size_t slot : output_slots) {
      const DType dtype = abi.buffers()[slot]->dtype;
      const int64_t count = static_cast<int64_t>(trial.args.payload_size(slot)) / dtype_size(dtype);
      std::vector<double>& out = outs.emplace_back(static_cast<size_t>(count));
      for (int64_t j = 0; j < count; ++j) out[static_cast<size_t>(j)] = load_element(trial.args.payload(slot), dtype, j);
    }
    const std::vector<ReferenceValue> ref = reference_output(spec, trial.inputs, trial.scalars, options.seed + i);
    const Comparison c = compare_outputs(ref, outs, report.budget);
    report.max_abs_err = std::max(report.max_abs_err, c.max_abs_err);
    report.max_rel_err = std::max(report.max_rel_err, c.max_rel_err);
    if (c.budget_use > report.budget_use) {
      report.budget_use = c.budget_use;
      report.absolute_term_decided = c.absolute_term_decided;
    }
    if (!c.pass && report.verdict != Verdict::fail) {
      report.verdict = Verdict::fail;
      const std::string where = output_slots.size() > 1
                                    ? "output '" + abi.buffers()[output_slots[static_cast<size_t>(c.first_fail_output)]]->name + "' "
                                    : "";
      report.reason = trial_name + ": " + std::to_string(c.failures) + " of " + std::to_string(c.checked) +
                      " elements outside budget; first at " + where + "index " + std::to_string(c.first_fail_index) + ": got " +
                      format_double(c.first_fail_out) + ", expected " + format_double(c.first_fail_ref);
    }
    // A kernel claimed deterministic must reproduce its first trial bit for bit.
    if (i == 0 && spec.determinism == Determinism::deterministic) {
      Trial again = make_trial(spec, abi, shape, i, options.seed);
      Status reran = launcher.launch(spec, artifact, again.args);
      if (options.corrupt_outputs) options.corrupt_outputs(again.args);
      report.determinism_checked = true;
      bool same = reran.ok();
      for (size_t slot : output_slots)
        same = same && std::equal(trial.args.payload(slot), trial.args.payload(slot) + trial.args.payload_size(slot),
                                  again.args.payload(slot));
      if (!same) {
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

// Median wall time of `launches` launches of the largest trial; the first
// error stops it.
Status time_launches(const KernelSpec& spec, const Launcher& launcher, const Artifact& artifact, int launches,
                     uint64_t seed, OracleReport& report) {
  const KernelAbi abi = kernel_abi(spec);
  const int largest = largest_trial(spec, abi);
  Trial trial = make_trial(spec, abi, {"", trial_scalars(spec, largest), trial_distribution(largest)}, largest, seed);
  std::vector<double> ns;
  for (int i = 0; i < launches; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (Status s = launcher.launch(spec, artifact, trial.args); !s.ok()) return s;
    ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ns.begin(), ns.end());
  report.timed_launches = launches;
  report.median_latency_ns = ns.empty() ? 0.0 : ns[ns.size() / 2];
  return ok();
}

}  // namespace

OracleReport run_oracle(const KernelSpec& spec, const Launcher& launcher, const Artifact& artifact,
                        const OracleOptions& options) {
  const DeviceInfo device = launcher.device(artifact.target.arch);
  if (!device.present) return not_run(device.description, spec, options.seed);
  // A routed variant also runs every bucket's route (oracle/route_trials.h).
  Expected<std::vector<ShapeTrial>> routes = route_trials(spec, artifact.metadata);
  if (!routes) {
    OracleReport bad = not_run("", spec, options.seed);
    bad.verdict = Verdict::fail;
    bad.reason = "the variant's routes cannot be checked: " + routes.error().message();
    return bad;
  }
  std::vector<ShapeTrial> extra = options.extra_trials;
  extra.insert(extra.end(), routes->begin(), routes->end());
  const std::vector<TrialShape> shapes = trial_shapes(spec, extra);
  if (const double need = largest_bytes(spec, shapes); need > kOracleMemoryBudgetBytes)
    return not_run("the oracle would hold " + format_bytes(need) + " for one trial of these static extents, above its " +
                       "memory budget of " + format_bytes(kOracleMemoryBudgetBytes),
                   spec, options.seed);
  OracleReport report = run_trials(spec, launcher, artifact, shapes, options);
  if (report.verdict == Verdict::pass && options.timed_launches > 0)
    if (Status timed = time_launches(spec, launcher, artifact, options.timed_launches, options.seed, report);
        !timed.ok()) {
      report.verdict = Verdict::fail;
      report.reason = "launch failed while timing: " + timed.error().message();
    }
  // An emulated run is evidence of semantics only: its pass is a kind of its
  // own and every emulated verdict says so.
  if (device.emulated) {
    if (report.verdict == Verdict::pass) {
      report.verdict = Verdict::pass_emulated;
      report.reason = kEmulatedReason;
    } else {
      report.reason = std::string(kEmulatedReason) + "; " + report.reason;
    }
  }
  return report;
}

}  // namespace tsr
