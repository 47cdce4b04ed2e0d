#include "arbiter/tuning_cache.h"

#include <nlohmann/json.hpp>

#include "support/sha256.h"

namespace tsr {

namespace {

using nlohmann::ordered_json;

ordered_json fields_json(const TuningKeyFields& f) {
  ordered_json j;
  j["format"] = kTuneFormat;
  j["identity"] = f.identity;
  j["target"] = f.target.str();
  j["device"] = f.device;
  j["driver"] = f.driver;
  j["tesserac"] = f.tesserac_version;
  j["toolchain"] = f.toolchain;
  j["candidates"] = ordered_json::array();
  for (const auto& [name, version] : f.candidates) j["candidates"].push_back({name, version});
  j["workers"] = f.workers;
  j["method"] = f.method;
  j["oracle_seed"] = std::to_string(f.oracle_seed);   // a string: JSON numbers lose u64 precision in some readers
  return j;
}

}  // namespace

std::string tuning_cache_key(const TuningKeyFields& fields) { return sha256_hex(fields_json(fields).dump()); }

std::string serialize_tuning(const TuningKeyFields& fields, const TuneOutcome& outcome) {
  ordered_json j;
  j["key"] = fields_json(fields);
  j["device"] = outcome.device;
  j["workers"] = outcome.workers;
  j["rounds"] = outcome.rounds;
  j["method"] = outcome.method;
  j["candidates"] = ordered_json::array();
  for (const CandidateResult& c : outcome.candidates) {
    ordered_json jc;
    jc["name"] = c.name;
    jc["kind"] = c.kind;
    jc["tier"] = c.tier;
    jc["callee"] = c.callee;
    jc["generated"] = c.generated;
    jc["tunables"] = c.tunables;
    jc["outcome"] = static_cast<int>(c.outcome);
    jc["reason"] = c.reason;
    jc["verdict"] = c.verdict;
    jc["errors"] = {c.max_abs_err, c.max_rel_err, c.budget_atol, c.budget_rtol};
    jc["version"] = c.version;
    jc["median_ns"] = c.median_ns;
    j["candidates"].push_back(jc);
  }
  j["routes"] = outcome.routes;
  return j.dump(1) + "\n";
}

std::optional<TuneOutcome> deserialize_tuning(const std::string& text) {
  try {
    const ordered_json j = ordered_json::parse(text);
    TuneOutcome o;
    o.device = j.at("device").get<std::string>();
    o.workers = j.at("workers").get<uint32_t>();
    o.rounds = j.at("rounds").get<int>();
    o.method = j.at("method").get<std::string>();
    for (const ordered_json& jc : j.at("candidates")) {
      CandidateResult c;
      c.name = jc.at("name").get<std::string>();
      c.kind = jc.at("kind").get<std::string>();
      c.tier = jc.at("tier").get<std::string>();
      c.callee = jc.at("callee").get<std::string>();
      c.generated = jc.at("generated").get<std::string>();
      c.tunables = jc.at("tunables").get<std::map<std::string, std::string>>();
      const int outcome = jc.at("outcome").get<int>();
      if (outcome < 0 || outcome > static_cast<int>(CandidateOutcome::looser_budget)) return std::nullopt;
      c.outcome = static_cast<CandidateOutcome>(outcome);
      c.reason = jc.at("reason").get<std::string>();
      c.verdict = jc.at("verdict").get<std::string>();
      const std::vector<double> errors = jc.at("errors").get<std::vector<double>>();
      if (errors.size() != 4) return std::nullopt;
      c.max_abs_err = errors[0], c.max_rel_err = errors[1], c.budget_atol = errors[2], c.budget_rtol = errors[3];
      c.version = jc.at("version").get<std::string>();
      c.median_ns = jc.at("median_ns").get<std::vector<double>>();
      o.candidates.push_back(std::move(c));
    }
    o.routes = j.at("routes").get<std::vector<std::vector<size_t>>>();
    for (const std::vector<size_t>& route : o.routes)
      for (size_t i : route)
        if (i >= o.candidates.size()) return std::nullopt;
    return o;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace tsr
