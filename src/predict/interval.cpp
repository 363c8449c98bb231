// The range a latency prediction carries (perfpred/predict/interval.hpp).
#include "perfpred/predict/interval.hpp"

#include <algorithm>
#include <cmath>

#include "perfpred/hw/power_limit.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"

namespace perfpred {
namespace {

constexpr int k_schema_version = 1;
const char* const k_bin_names[] = {"gpu-bound", "mixed", "host-bound"};

double number(const nlohmann::json& j, const char* name, const std::string& where) {
  if (!j.contains(name)) throw InputError(where + ": missing field " + name);
  if (!j[name].is_number()) throw InputError(where + "." + name + ": must be a number");
  const double v = j[name].get<double>();
  if (!std::isfinite(v)) throw InputError(where + "." + name + ": must be finite");
  return v;
}

double share(const nlohmann::json& j, const char* name, const std::string& where) {
  const double v = number(j, name, where);
  if (!(v > 0 && v < 1)) throw InputError(where + "." + name + ": " + std::to_string(v) + " is not a share in (0, 1)");
  return v;
}

IntervalRegime regime_from_json(const nlohmann::json& r, const std::string& where) {
  if (!r.is_object()) throw InputError(where + ": must be an object with rows, low and high");
  IntervalRegime g;
  const double rows = number(r, "rows", where);
  if (!(rows >= 1) || rows != std::floor(rows) || rows > 1e9)
    throw InputError(where + ".rows: must be a positive whole number");
  g.rows = static_cast<int>(rows);
  g.low = number(r, "low", where);
  g.high = number(r, "high", where);
  if (!(g.low > 0) || !(g.high >= g.low))
    throw InputError(where + ": low " + std::to_string(g.low) + " and high " + std::to_string(g.high) +
                     " must be positive ratios with low <= high");
  if (r.contains("tail_mass")) share(r, "tail_mass", where);
  if (r.contains("left_out_coverage") != r.contains("left_out_rows"))
    throw InputError(where + ": give left_out_coverage and left_out_rows together");
  if (r.contains("left_out_coverage")) {
    const double c = number(r, "left_out_coverage", where);
    if (!(c >= 0 && c <= 1)) throw InputError(where + ".left_out_coverage: must be a share in [0, 1]");
    g.left_out_coverage = c;
    const double n = number(r, "left_out_rows", where);
    if (!(n >= 1) || n != std::floor(n) || n > 1e9)
      throw InputError(where + ".left_out_rows: must be a positive whole number");
    g.left_out_rows = static_cast<int>(n);
  }
  return g;
}

std::map<std::string, IntervalRegime> regimes_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.contains("regimes") || !j["regimes"].is_object() || j["regimes"].empty())
    throw InputError(where + ".regimes: must be a non-empty object of regime name -> {rows, low, high}");
  std::map<std::string, IntervalRegime> out;
  for (const auto& [name, r] : j["regimes"].items()) out[name] = regime_from_json(r, where + ".regimes." + name);
  return out;
}

MetricRanges metric_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where + ": must be an object with machines, held_out_coverage and regimes");
  MetricRanges m;
  const double machines = number(j, "machines", where);
  if (!(machines >= 1) || machines != std::floor(machines) || machines > 1e6)
    throw InputError(where + ".machines: must be a positive whole number");
  m.machines = static_cast<int>(machines);
  m.held_out_coverage = share(j, "held_out_coverage", where);
  m.regimes = regimes_from_json(j, where);
  if (!m.regimes.count("all")) throw InputError(where + ".regimes: must have the pooled regime \"all\"");
  return m;
}

}  // namespace

IntervalTable interval_table_from_json(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object()) throw InputError(label + ": must be a JSON object (tools/fit_intervals.py writes it)");
  const double version = number(j, "schema_version", label);
  if (version != k_schema_version)
    throw InputError(label + ": schema_version " + std::to_string(static_cast<long long>(version)) +
                     " is not " + std::to_string(k_schema_version) + "; regenerate it with tools/fit_intervals.py");
  IntervalTable t;
  t.nominal_coverage = share(j, "nominal_coverage", label);
  t.held_out_coverage = share(j, "held_out_coverage", label);
  t.tail_mass = share(j, "tail_mass", label);
  if (!j.contains("host_share_bins") || !j["host_share_bins"].is_array() || j["host_share_bins"].size() != 2)
    throw InputError(label + ".host_share_bins: must be an array of two ascending shares");
  for (size_t i = 0; i < 2; ++i) {
    const auto& e = j["host_share_bins"][i];
    if (!e.is_number() || !(e.get<double>() > 0 && e.get<double>() < 1))
      throw InputError(label + ".host_share_bins[" + std::to_string(i) + "]: must be a share in (0, 1)");
    t.host_share_bins.push_back(e.get<double>());
  }
  if (!(t.host_share_bins[0] < t.host_share_bins[1]))
    throw InputError(label + ".host_share_bins: the two edges must ascend");
  t.regimes = regimes_from_json(j, label);
  for (const char* section : {"host_calibrated", "gpu_calibrated"}) {
    if (!j.contains(section)) continue;
    const std::string where = label + "." + section;
    const auto& c = j[section];
    if (!c.is_object()) throw InputError(where + ": must be an object with held_out_coverage and regimes");
    const bool host = std::string(section) == "host_calibrated";
    (host ? t.host_calibrated_coverage : t.gpu_calibrated_coverage) = share(c, "held_out_coverage", where);
    (host ? t.host_calibrated : t.gpu_calibrated) = regimes_from_json(c, where);
  }
  if (j.contains("energy_mj")) t.energy = metric_from_json(j["energy_mj"], label + ".energy_mj");
  if (j.contains("power_w")) t.power = metric_from_json(j["power_w"], label + ".power_w");
  return t;
}

IntervalTable load_interval_table(const std::filesystem::path& path) {
  return interval_table_from_json(read_json_file(path, "latency range table"), path.string());
}

std::vector<std::string> interval_regimes(const IntervalTable& t, const Prediction& p, const PredictOptions& o) {
  // A TensorRT engine or a captured CUDA graph has no host call per op; eager PyTorch and ONNX Runtime do.
  const std::string engine = (o.runtime == Runtime::tensorrt || o.cuda_graphs) ? "graph" : "eager";
  const double host_share = p.latency_ms > 0 ? p.host_overhead_ms / p.latency_ms : 0;
  size_t bin = 0;
  for (double edge : t.host_share_bins) bin += host_share >= edge;
  const std::string b = engine + "/" + k_bin_names[std::min<size_t>(bin, 2)];
  return {b + "/" + to_string(o.mode), b, engine};
}

namespace {

std::optional<PredictionRange> range_from(const std::map<std::string, IntervalRegime>& regimes,
                                          const std::vector<std::string>& names, double value,
                                          double nominal_coverage, double pooled_coverage, const std::string& prefix) {
  for (const std::string& name : names) {
    const auto it = regimes.find(name);
    if (it == regimes.end()) continue;
    PredictionRange r;
    r.low = value * it->second.low;
    r.high = value * it->second.high;
    r.regime = prefix + name;
    r.rows = it->second.rows;
    r.nominal_coverage = nominal_coverage;
    r.held_out_coverage = it->second.left_out_coverage >= 0 ? it->second.left_out_coverage : pooled_coverage;
    return r;
  }
  return std::nullopt;
}

std::optional<PredictionRange> metric_range(const IntervalTable& t, const std::optional<MetricRanges>& m, double value,
                                            const PredictOptions& o) {
  if (!m || !(value > 0) || !std::isfinite(value)) return std::nullopt;
  auto r = range_from(m->regimes, {to_string(o.mode), "all"}, value, t.nominal_coverage, m->held_out_coverage, "");
  if (r) r->machines = m->machines;
  return r;
}

}  // namespace

std::optional<PredictionRange> latency_range(const IntervalTable& t, const Prediction& p, const PredictOptions& o) {
  if (!(p.latency_ms > 0) || !std::isfinite(p.latency_ms)) return std::nullopt;
  const std::vector<std::string> names = interval_regimes(t, p, o);
  // A timed host (predict --host-factor) narrows the host-bound ranges, a timed GPU (--gpu-factor) the GPU-bound
  // ones; each section holds only its own regimes, so a prediction in another regime falls through to the others.
  if (o.host_factor != 1 && !t.host_calibrated.empty())
    if (auto r = range_from(t.host_calibrated, names, p.latency_ms, t.nominal_coverage, t.host_calibrated_coverage,
                            "host-calibrated/"))
      return r;
  if (o.gpu_factor != 1 && !t.gpu_calibrated.empty())
    if (auto r = range_from(t.gpu_calibrated, names, p.latency_ms, t.nominal_coverage, t.gpu_calibrated_coverage,
                            "gpu-calibrated/"))
      return r;
  return range_from(t.regimes, names, p.latency_ms, t.nominal_coverage, t.held_out_coverage, "");
}

std::optional<PredictionRange> energy_range(const IntervalTable& t, const Prediction& p, const PredictOptions& o) {
  return metric_range(t, t.energy, p.energy_mj, o);
}

std::optional<PredictionRange> power_range(const IntervalTable& t, const Prediction& p, const PredictOptions& o,
                                           double cap_w) {
  auto r = metric_range(t, t.power, p.avg_power_w, o);
  if (r && cap_w > 0 && r->high > cap_w) {
    r->high = cap_w;
    r->low = std::min(r->low, cap_w);
    r->capped_at_w = cap_w;
  }
  return r;
}

double power_range_cap_w(const GpuSpec& gpu) {
  if (!gpu.mig_profile.empty()) return 0;
  const double cap = board_power_limit_w(gpu);
  return cap > 0 && std::isfinite(cap) ? cap : 0;
}

}  // namespace perfpred
