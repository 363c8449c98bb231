#include "perfpred/advise/select.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"

namespace perfpred::advise {
namespace {

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void check_positive(const std::optional<double>& v, const std::string& what, const std::string& example) {
  if (v && !(std::isfinite(*v) && *v > 0))
    throw InputError(what + " " + fmt(*v, 3) + ": must be a positive number, e.g. " + example);
}

/// The candidate's ranges from `ranges`, and the range limits' verdicts on them.
void range_checks(SelectCandidate& cand, const SelectConstraints& c, const PredictOptions& opts,
                  const IntervalTable& ranges) {
  const auto& p = cand.prediction;
  cand.latency_range = latency_range(ranges, p, opts);
  cand.energy_range = energy_range(ranges, p, opts);
  cand.power_range = power_range(ranges, p, opts, power_range_cap_w(cand.gpu));
  if (c.max_latency_range_high_ms) {
    if (!cand.latency_range)
      throw InputError("--max-latency-range-high-ms: the range table has no regime for the prediction on " + cand.gpu.id);
    if (cand.latency_range->high > *c.max_latency_range_high_ms)
      cand.violations.push_back("latency range high " + fmt(cand.latency_range->high, 3) + " ms > " +
                                fmt(*c.max_latency_range_high_ms, 3) + " ms (--max-latency-range-high-ms)");
  }
  if (c.max_power_range_high_w) {
    if (!cand.power_range)
      throw InputError("--max-power-range-high-w: the range table has no power range for the prediction on " +
                       cand.gpu.id + " (its power_w section)");
    if (cand.power_range->high > *c.max_power_range_high_w)
      cand.violations.push_back("power range high " + fmt(cand.power_range->high, 1) + " W > " +
                                fmt(*c.max_power_range_high_w, 1) + " W (--max-power-range-high-w)");
  }
}

}  // namespace

std::string to_string(Objective o) {
  switch (o) {
    case Objective::latency: return "latency";
    case Objective::energy: return "energy";
    case Objective::cost: return "cost";
    case Objective::throughput_per_watt: return "throughput_per_watt";
  }
  return "latency";
}

Objective objective_from_string(const std::string& s) {
  for (auto o : {Objective::latency, Objective::energy, Objective::cost, Objective::throughput_per_watt})
    if (to_string(o) == s) return o;
  throw InputError("--objective '" + s + "': expected latency, energy, cost or throughput_per_watt");
}

PriceTable parse_prices(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object()) throw InputError(label + ": expected a JSON object with schema_version and prices_usd_per_hour");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "schema_version" && it.key() != "prices_usd_per_hour")
      throw InputError(label + ": unknown key '" + it.key() + "' (expected schema_version, prices_usd_per_hour)");
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer() || j["schema_version"].get<int>() != 1)
    throw InputError(label + ": schema_version must be 1");
  if (!j.contains("prices_usd_per_hour") || !j["prices_usd_per_hour"].is_object())
    throw InputError(label + ": prices_usd_per_hour must be an object {\"device-id\": USD per hour, ...}");
  PriceTable out;
  for (auto it = j["prices_usd_per_hour"].begin(); it != j["prices_usd_per_hour"].end(); ++it) {
    if (!it.value().is_number() || !(it.value().get<double>() > 0) || !std::isfinite(it.value().get<double>()))
      throw InputError(label + ": prices_usd_per_hour." + it.key() + " must be a positive number (USD per hour)");
    out[it.key()] = it.value().get<double>();
  }
  return out;
}

PriceTable load_prices(const std::filesystem::path& path) {
  return parse_prices(read_json_file(path, "price file"), path.string());
}

void validate_selection(const std::vector<GpuSpec>& devices, const SelectConstraints& c, Objective objective,
                        const PriceTable* prices, bool learned, bool ranges) {
  check_positive(c.max_latency_ms, "--max-latency-ms", "30");
  check_positive(c.max_power_w, "--max-power-w", "15");
  check_positive(c.max_latency_range_high_ms, "--max-latency-range-high-ms", "30");
  check_positive(c.max_power_range_high_w, "--max-power-range-high-w", "15");
  if (c.uses_ranges()) {
    const std::string flag = c.max_latency_range_high_ms ? "--max-latency-range-high-ms" : "--max-power-range-high-w";
    if (learned)
      throw InputError(flag + ": the ranges describe the analytical model's held-out errors; drop --bundle (or use " +
                       (c.max_latency_range_high_ms ? "--max-latency-ms" : "--max-power-w") + ")");
    if (!ranges) throw InputError(flag + ": no range table (models/latency-intervals.json, tools/fit_intervals.py)");
  }
  if (c.min_memory_headroom && !(*c.min_memory_headroom >= 0 && *c.min_memory_headroom < 1))
    throw InputError("--min-memory-headroom " + fmt(*c.min_memory_headroom, 3) + ": must be in [0, 1), e.g. 0.2 for 20%");
  if (devices.empty()) throw InputError("no devices to choose from: give --devices ID,ID,... or --all");
  if (objective == Objective::cost) {
    if (!prices) throw InputError("--objective cost needs --prices prices.json (docs/formats.md)");
    for (const auto& d : devices) {
      // A power mode is priced through its board; a MIG slice needs its own price.
      if (!prices->count(d.id) && !(!d.parent_id.empty() && d.mig_profile.empty() && prices->count(d.parent_id)))
        throw InputError("--prices has no price for device '" + d.id + "': add \"" + d.id +
                         "\": USD_PER_HOUR to prices_usd_per_hour or drop it from --devices");
    }
  }
}

SelectResult select_devices(const AnalyzedModel& model, const std::vector<GpuSpec>& devices, const PredictOptions& opts,
                            const SelectConstraints& c, Objective objective, const PriceTable* prices,
                            const KernelCorrector* corrector, const IntervalTable* ranges) {
  validate_selection(devices, c, objective, prices, corrector != nullptr, ranges != nullptr);
  SelectResult res;
  res.objective = objective;
  for (const auto& d : devices) {
    SelectCandidate cand;
    cand.gpu = d;
    cand.prediction = predict(model.graph, model.cost, d, opts, corrector);
    const auto& p = cand.prediction;
    double cap = d.memory_bytes();
    cand.memory_headroom = cap > 0 ? (cap - p.peak_memory_bytes) / cap : -1;
    cand.samples_per_joule = p.energy_mj > 0 ? opts.batch / (p.energy_mj * 1e-3) : 0;
    if (prices) {
      auto it = prices->find(d.id);
      if (it == prices->end() && !d.parent_id.empty() && d.mig_profile.empty()) it = prices->find(d.parent_id);
      if (it != prices->end()) {
        cand.price_usd_per_hour = it->second;
        // Paid by the hour at full load: batches back to back with their copies overlapped.
        if (p.pipelined_throughput_samples_per_s > 0)
          cand.cost_usd_per_million_samples = it->second / 3600.0 / p.pipelined_throughput_samples_per_s * 1e6;
      }
    }
    if (!p.fits || p.peak_memory_bytes > cap)
      cand.violations.push_back("does not fit: needs " + fmt(p.peak_memory_bytes / 1073741824.0, 2) + " GiB of " +
                                fmt(cap / 1073741824.0, 2) + " GiB");
    else if (c.min_memory_headroom && cand.memory_headroom < *c.min_memory_headroom)
      cand.violations.push_back("memory headroom " + fmt(cand.memory_headroom * 100, 1) + "% < " +
                                fmt(*c.min_memory_headroom * 100, 1) + "% (--min-memory-headroom)");
    if (c.max_latency_ms && p.latency_ms > *c.max_latency_ms)
      cand.violations.push_back("latency " + fmt(p.latency_ms, 3) + " ms > " + fmt(*c.max_latency_ms, 3) +
                                " ms (--max-latency-ms)");
    if (c.max_power_w && p.avg_power_w > *c.max_power_w)
      cand.violations.push_back("power " + fmt(p.avg_power_w, 1) + " W > " + fmt(*c.max_power_w, 1) + " W (--max-power-w)");
    if (ranges && !corrector) range_checks(cand, c, opts, *ranges);
    switch (objective) {
      case Objective::latency: cand.objective_value = p.latency_ms; break;
      case Objective::energy: cand.objective_value = p.energy_mj; break;
      case Objective::cost:
        cand.objective_value = cand.cost_usd_per_million_samples.value_or(std::numeric_limits<double>::infinity());
        break;
      case Objective::throughput_per_watt: cand.objective_value = cand.samples_per_joule; break;
    }
    if (cand.accepted()) res.ranked.push_back(std::move(cand));
    else res.rejected.push_back(std::move(cand));
  }
  const bool descending = objective == Objective::throughput_per_watt;
  std::stable_sort(res.ranked.begin(), res.ranked.end(), [&](const SelectCandidate& a, const SelectCandidate& b) {
    if (a.objective_value != b.objective_value)
      return descending ? a.objective_value > b.objective_value : a.objective_value < b.objective_value;
    return a.gpu.id < b.gpu.id;
  });
  for (size_t i = 0; i < res.ranked.size(); ++i) res.ranked[i].rank = static_cast<int>(i + 1);
  return res;
}

}  // namespace perfpred::advise
