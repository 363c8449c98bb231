#include "perfpred/advise/budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <set>

#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::advise {
namespace {

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string fmt_g(double v) {
  char buf[64];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return fmt(b, u == 0 ? 0 : 2) + " " + units[u];
}

const std::set<std::string> k_entry_keys = {"name",       "model",       "gpu",  "batch",   "precision",
                                            "allow_tf32", "cuda_graphs", "grad_mode", "launch_queue", "channels_last", "attention", "param_updates", "mixed_precision", "mode", "runtime", "optimizer",
                                            "input_shapes", "branches",  "dims", "loop_trips", "data_counts", "nms_candidates", "limits"};
const std::set<std::string> k_limit_keys = {"latency_ms", "min_throughput_samples_per_s", "peak_memory_bytes",
                                            "peak_memory_fraction", "energy_mj", "avg_power_w",
                                            "latency_range_high_ms", "energy_range_high_mj", "power_range_high_w"};

std::string get_string(const nlohmann::json& e, const std::string& key, const std::string& where, bool required,
                       const std::string& def = "") {
  if (!e.contains(key)) {
    if (required) throw InputError(where + ": missing required field '" + key + "'");
    return def;
  }
  if (!e[key].is_string() || e[key].get<std::string>().empty())
    throw InputError(where + ": field '" + key + "' must be a non-empty string");
  return e[key].get<std::string>();
}

std::optional<double> get_limit(const nlohmann::json& limits, const std::string& key, const std::string& where) {
  if (!limits.contains(key)) return std::nullopt;
  const auto& v = limits[key];
  if (!v.is_number()) throw InputError(where + ": limits." + key + " must be a number");
  double d = v.get<double>();
  if (!std::isfinite(d) || d <= 0) throw InputError(where + ": limits." + key + " must be positive (got " + fmt_g(d) + ")");
  return d;
}

BudgetCheck upper(const std::string& name, double value, double limit) {
  BudgetCheck c{name, value, limit, 0, value <= limit};
  c.margin_pct = (limit - value) / limit * 100.0;
  return c;
}

BudgetCheck lower(const std::string& name, double value, double limit) {
  BudgetCheck c{name, value, limit, 0, value >= limit};
  c.margin_pct = (value - limit) / limit * 100.0;
  return c;
}

std::string describe(const BudgetCheck& c) {
  if (c.limit == "latency_ms")
    return "latency " + fmt(c.value, 3) + " ms " + (c.passed ? "<=" : ">") + " " + fmt_g(c.limit_value) + " ms";
  if (c.limit == "latency_range_high_ms")
    return "latency range high " + fmt(c.value, 3) + " ms " + (c.passed ? "<=" : ">") + " " + fmt_g(c.limit_value) + " ms";
  if (c.limit == "min_throughput_samples_per_s")
    return "throughput " + fmt(c.value, 1) + " samples/s " + (c.passed ? ">=" : "<") + " " + fmt_g(c.limit_value);
  if (c.limit == "energy_range_high_mj")
    return "energy range high " + fmt(c.value, 2) + " mJ " + (c.passed ? "<=" : ">") + " " + fmt_g(c.limit_value) + " mJ";
  if (c.limit == "power_range_high_w")
    return "power range high " + fmt(c.value, 1) + " W " + (c.passed ? "<=" : ">") + " " + fmt_g(c.limit_value) + " W";
  if (c.limit == "avg_power_w")
    return "average power " + fmt(c.value, 1) + " W " + (c.passed ? "<=" : ">") + " " + fmt_g(c.limit_value) + " W";
  if (c.limit == "energy_mj")
    return "energy " + fmt(c.value, 2) + " mJ " + (c.passed ? "<=" : ">") + " " + fmt_g(c.limit_value) + " mJ";
  return std::string("peak memory ") + human_bytes(c.value) + " " + (c.passed ? "<=" : ">") + " " +
         human_bytes(c.limit_value) + (c.limit == "peak_memory_fraction" ? " (fraction of device memory)" : "");
}

// An optional boolean field of an entry: unchanged where absent, else true or false (exit 2 naming it).
void read_flag(const nlohmann::json& e, const char* key, const std::string& where, bool& out) {
  if (!e.contains(key)) return;
  const auto& v = e[key];
  if (!v.is_boolean())
    throw InputError(where + ": field '" + key + "' must be true or false (got " + json_excerpt(v) + ")");
  out = v.get<bool>();
}

// `allow_tf32`: true (the default) or false, as --no-tf32: fp32 entries only (after `precision` is read).
// `cuda_graphs`: true when the deployed model is replayed as a captured CUDA graph (predict's --cuda-graphs).
// `grad_mode`: true when the deployed model's inference records autograd (predict's --grad-mode).
// `launch_queue`: kernels the host may issue ahead of the GPU, 0 (no limit) to 65536 (predict's --launch-queue).
// `channels_last`: true when the deployed model runs in torch.channels_last (predict's --channels-last).
// `attention`: "sdpa" (the default) or "math", as predict's --attention.
// `param_updates`: "foreach" (the default) or "loop", as predict's --param-updates.
// `mixed_precision`: "amp" (the default) or "half", as predict's --mixed-precision.
void parse_flags(const nlohmann::json& e, const std::string& where, PredictOptions& o) {
  read_flag(e, "allow_tf32", where, o.allow_tf32);
  if (!o.allow_tf32 && o.precision != Precision::fp32)
    throw InputError(where + ": field 'allow_tf32': false applies to precision fp32 only (it is " +
                     to_string(o.precision) + "); drop it, or set \"precision\": \"fp32\"");
  read_flag(e, "cuda_graphs", where, o.cuda_graphs);
  read_flag(e, "grad_mode", where, o.grad_mode);
  if (o.grad_mode && (o.mode != Mode::inference || o.runtime != Runtime::pytorch))
    throw InputError(where + ": field 'grad_mode': true describes PyTorch eager inference (it is " + to_string(o.mode) +
                     " with runtime " + to_string(o.runtime) + "; a training step always records autograd); drop it");
  if (e.contains("launch_queue")) {
    const auto& v = e["launch_queue"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 65536)
      throw InputError(where + ": field 'launch_queue' must be a count of kernels from 0 (no limit) to 65536 (got " +
                       json_excerpt(v) + ")");
    o.launch_queue = static_cast<int>(v.get<int64_t>());
  }
  read_flag(e, "channels_last", where, o.channels_last);
  if (e.contains("attention")) {
    const auto& v = e["attention"];
    if (!v.is_string()) throw InputError(where + ": field 'attention' must be \"sdpa\" or \"math\" (got " + json_excerpt(v) + ")");
    o.fused_attention = fused_attention_from_string(v.get<std::string>(), where + ": field 'attention'");
  }
  if (e.contains("param_updates")) {
    const auto& v = e["param_updates"];
    if (!v.is_string())
      throw InputError(where + ": field 'param_updates' must be \"foreach\" or \"loop\" (got " + json_excerpt(v) + ")");
    o.foreach_updates = foreach_updates_from_string(v.get<std::string>(), where + ": field 'param_updates'");
  }
  if (e.contains("mixed_precision")) {
    const auto& v = e["mixed_precision"];
    if (!v.is_string())
      throw InputError(where + ": field 'mixed_precision' must be \"amp\" or \"half\" (got " + json_excerpt(v) + ")");
    o.autocast = autocast_from_string(v.get<std::string>(), where + ": field 'mixed_precision'");
  }
}

// `input_shapes`: {"input": [1, 3, 224, 224]}, positive dims.
void parse_input_shapes(const nlohmann::json& e, const std::string& where, BudgetEntry& b) {
  if (e.contains("input_shapes")) {
    const auto& s = e["input_shapes"];
    if (!s.is_object()) throw InputError(where + ": input_shapes must be an object {\"input\": [1, 3, 224, 224]}");
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (!it.value().is_array() || it.value().empty())
        throw InputError(where + ": input_shapes." + it.key() + " must be a non-empty array of positive integers");
      std::vector<int64_t> dims;
      for (const auto& d : it.value()) {
        if (!d.is_number_integer() || d.get<int64_t>() < 1)
          throw InputError(where + ": input_shapes." + it.key() + " must be a non-empty array of positive integers");
        dims.push_back(d.get<int64_t>());
      }
      b.input_shapes[it.key()] = dims;
    }
  }
}

// An entry's object of names to integers >= `min` (dims, loop_trips, data_counts), each error naming the key.
void read_int_map(const nlohmann::json& e, const std::string& key, const std::string& where, int64_t min,
                  const std::string& form, const std::string& what, std::map<std::string, int64_t>& out) {
  if (!e.contains(key)) return;
  const auto& s = e[key];
  if (!s.is_object()) throw InputError(where + ": " + key + " must be an object " + form);
  for (auto it = s.begin(); it != s.end(); ++it) {
    if (it.key().empty()) throw InputError(where + ": " + key + " has an empty " + what + " name");
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < min)
      throw InputError(where + ": " + key + "." + printable(it.key(), 80) + " must be an integer >= " +
                       std::to_string(min) + " (got " + json_excerpt(it.value()) + ")");
    out[it.key()] = it.value().get<int64_t>();
  }
}

// `branches` {IF: "then"|"else"}, `dims` {DIM: N >= 1}, `loop_trips` {LOOP: N >= 0}, `data_counts`
// {NODE or "*": N >= 0} and `nms_candidates` {NMS or "*": K >= 0}: the --branch, --dim, --loop-trips,
// --data-count and --nms-candidates of an entry.
void parse_control_flow(const nlohmann::json& e, const std::string& where, BudgetEntry& b) {
  if (e.contains("branches")) {
    const auto& s = e["branches"];
    if (!s.is_object()) throw InputError(where + ": branches must be an object {\"IF_NAME\": \"then\" or \"else\"}");
    for (auto it = s.begin(); it != s.end(); ++it) {
      const std::string key = "branches." + printable(it.key(), 80);
      if (it.key().empty()) throw InputError(where + ": branches has an empty If name");
      if (!it.value().is_string() || (it.value() != "then" && it.value() != "else"))
        throw InputError(where + ": " + key + " must be \"then\" or \"else\" (got " + json_excerpt(it.value()) + ")");
      b.branches[it.key()] = it.value().get<std::string>();
    }
  }
  read_int_map(e, "dims", where, 1, "{\"DIM_NAME\": value}", "dim", b.dims);
  read_int_map(e, "loop_trips", where, 0, "{\"LOOP_NAME\": iterations}", "Loop", b.loop_trips);
  read_int_map(e, "data_counts", where, 0, "{\"NODE_NAME\": length, \"*\": length for every other}", "node",
               b.data_counts);
  read_int_map(e, "nms_candidates", where, 0, "{\"NMS_NAME\": boxes per image and class, \"*\": for every other}",
               "node", b.nms_candidates);
}

// `limits`: at least one known limit, each positive.
void parse_limits(const nlohmann::json& e, const std::string& where, BudgetLimits& L) {
  if (!e.contains("limits") || !e["limits"].is_object())
    throw InputError(where + ": missing 'limits' object (one or more of " +
                     join(std::vector<std::string>(k_limit_keys.begin(), k_limit_keys.end()), ", ") + ")");
  const auto& lim = e["limits"];
  for (auto it = lim.begin(); it != lim.end(); ++it)
    if (!k_limit_keys.count(it.key()))
      throw InputError(where + ": unknown limit 'limits." + it.key() + "' (expected " +
                       join(std::vector<std::string>(k_limit_keys.begin(), k_limit_keys.end()), ", ") + ")");
  L.latency_ms = get_limit(lim, "latency_ms", where);
  L.min_throughput_samples_per_s = get_limit(lim, "min_throughput_samples_per_s", where);
  L.peak_memory_bytes = get_limit(lim, "peak_memory_bytes", where);
  L.peak_memory_fraction = get_limit(lim, "peak_memory_fraction", where);
  L.energy_mj = get_limit(lim, "energy_mj", where);
  L.avg_power_w = get_limit(lim, "avg_power_w", where);
  L.latency_range_high_ms = get_limit(lim, "latency_range_high_ms", where);
  L.energy_range_high_mj = get_limit(lim, "energy_range_high_mj", where);
  L.power_range_high_w = get_limit(lim, "power_range_high_w", where);
  if (L.peak_memory_bytes && L.peak_memory_fraction)
    throw InputError(where + ": give limits.peak_memory_bytes or limits.peak_memory_fraction, not both");
  if (L.peak_memory_fraction && *L.peak_memory_fraction > 1)
    throw InputError(where + ": limits.peak_memory_fraction must be in (0, 1] (a share of device memory)");
  if (lim.empty()) throw InputError(where + ": 'limits' is empty; set at least one limit");
}

}  // namespace

BudgetFile parse_budget_json(const nlohmann::json& j, const std::filesystem::path& path) {
  const std::string label = path.string();
  if (!j.is_object()) throw InputError(label + ": expected a JSON object with schema_version and entries");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "schema_version" && it.key() != "entries")
      throw InputError(label + ": unknown top-level key '" + it.key() + "' (expected schema_version, entries)");
  if (!j.contains("schema_version")) throw InputError(label + ": missing schema_version (this perfpred reads 1)");
  if (!j["schema_version"].is_number_integer() || j["schema_version"].get<int64_t>() != 1)
    throw InputError(label + ": schema_version " + json_excerpt(j["schema_version"]) + " is not supported (this perfpred reads 1)");
  if (!j.contains("entries") || !j["entries"].is_array())
    throw InputError(label + ": 'entries' must be an array of budget entries");
  if (j["entries"].empty()) throw InputError(label + ": 'entries' is empty; add at least one entry");
  BudgetFile file;
  file.path = path;
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::set<std::string> names;
  for (size_t i = 0; i < j["entries"].size(); ++i) {
    const auto& e = j["entries"][i];
    BudgetEntry b;
    b.index = i;
    std::string where = label + ": entries[" + std::to_string(i) + "]";
    if (!e.is_object()) throw InputError(where + ": must be an object");
    if (e.contains("name") && e["name"].is_string()) where += " (\"" + e["name"].get<std::string>() + "\")";
    for (auto it = e.begin(); it != e.end(); ++it)
      if (!k_entry_keys.count(it.key()))
        throw InputError(where + ": unknown field '" + it.key() + "' (expected " +
                         join(std::vector<std::string>(k_entry_keys.begin(), k_entry_keys.end()), ", ") + ")");
    b.where = where;
    b.name = get_string(e, "name", where, true);
    if (!names.insert(b.name).second) throw InputError(where + ": name '" + b.name + "' is used by an earlier entry");
    b.model = get_string(e, "model", where, true);
    b.model_path = std::filesystem::path(b.model).is_absolute() ? std::filesystem::path(b.model) : dir / b.model;
    b.gpu = get_string(e, "gpu", where, true);
    if (e.contains("batch")) {
      if (!e["batch"].is_number_integer() || e["batch"].get<int64_t>() < 1)
        throw InputError(where + ": field 'batch' must be an integer >= 1");
      b.batch = e["batch"].get<int64_t>();
    }
    b.options.batch = b.batch;
    try {
      b.options.precision = precision_from_string(get_string(e, "precision", where, false, "fp32"), "precision");
      b.options.mode = mode_from_string(get_string(e, "mode", where, false, "inference"), "mode");
      b.options.runtime = runtime_from_string(get_string(e, "runtime", where, false, "pytorch"), "runtime");
      if (e.contains("optimizer"))
        b.options.optimizer = optimizer_from_string(get_string(e, "optimizer", where, false), "optimizer");
    } catch (const InputError& err) {
      throw InputError(where + ": " + err.what());
    }
    parse_flags(e, where, b.options);
    parse_input_shapes(e, where, b);
    parse_control_flow(e, where, b);
    parse_limits(e, where, b.limits);
    file.entries.push_back(std::move(b));
  }
  return file;
}

BudgetFile parse_budget_file(const std::filesystem::path& path) {
  return parse_budget_json(read_json_file(path, "budget file"), path);
}

bool BudgetEntryResult::passed() const {
  for (const auto& c : checks)
    if (!c.passed) return false;
  return true;
}

bool BudgetReport::passed() const { return failed_entries() == 0; }

size_t BudgetReport::failed_entries() const {
  size_t n = 0;
  for (const auto& r : results) n += r.passed() ? 0 : 1;
  return n;
}

namespace {
/// The high end of the range `limit` checks (limits.latency_range_high_ms: the latency's, energy_range_high_mj:
/// the energy's, power_range_high_w: the average power's) of entry `e`'s prediction `p`.
double range_high(const std::string& limit, const BudgetEntry& e, const GpuSpec& gpu, const Prediction& p,
                  const PredictOptions& opts, const KernelCorrector* corrector, const IntervalTable* ranges) {
  const bool energy = limit == "energy_range_high_mj", power = limit == "power_range_high_w";
  const std::string what = e.where + ": limits." + limit + ": ";
  if (corrector)
    throw InputError(what + "the ranges describe the analytical model's held-out errors; drop --bundle (or check "
                     "limits." + (energy ? "energy_mj" : power ? "avg_power_w" : "latency_ms") + ")");
  if (!ranges) throw InputError(what + "no range table (models/latency-intervals.json, tools/fit_intervals.py)");
  const auto r = energy  ? energy_range(*ranges, p, opts)
                 : power ? power_range(*ranges, p, opts, power_range_cap_w(gpu))
                         : latency_range(*ranges, p, opts);
  if (!r)
    throw InputError(what + (energy  ? "the range table has no energy range for this prediction (its energy_mj section)"
                             : power ? "the range table has no power range for this prediction (its power_w section)"
                                     : "the range table has no regime for this prediction"));
  return r->high;
}
}  // namespace

BudgetReport check_budgets(const BudgetFile& file, const ModelLoader& load, const DeviceResolver& resolve,
                           const KernelCorrector* corrector, const IntervalTable* ranges) {
  BudgetReport rep;
  for (const auto& e : file.entries) {
    BudgetEntryResult r;
    r.entry = &e;
    std::shared_ptr<const AnalyzedModel> m;
    try {
      r.gpu = resolve(e.gpu);
    } catch (const InputError& err) {
      throw InputError(e.where + ": field 'gpu': " + err.what());
    }
    try {
      m = load(e);
    } catch (const InputError& err) {
      throw InputError(e.where + ": field 'model': " + err.what());
    }
    r.batch = m->batch;
    PredictOptions opts = e.options;
    opts.batch = m->batch;  // throughput per sample of the batch the model actually runs at
    try {
      r.prediction = predict(m->graph, m->cost, r.gpu, opts, corrector);
    } catch (const InputError& err) {  // a combination of the entry's fields the planner refuses
      throw InputError(e.where + ": " + err.what());
    }
    const auto& p = r.prediction;
    const auto& L = e.limits;
    if (L.latency_ms) r.checks.push_back(upper("latency_ms", p.latency_ms, *L.latency_ms));
    if (L.min_throughput_samples_per_s)
      r.checks.push_back(lower("min_throughput_samples_per_s", p.throughput_samples_per_s, *L.min_throughput_samples_per_s));
    if (L.peak_memory_bytes) r.checks.push_back(upper("peak_memory_bytes", p.peak_memory_bytes, *L.peak_memory_bytes));
    if (L.peak_memory_fraction)
      r.checks.push_back(upper("peak_memory_fraction", p.peak_memory_bytes, *L.peak_memory_fraction * r.gpu.memory_bytes()));
    if (L.energy_mj) r.checks.push_back(upper("energy_mj", p.energy_mj, *L.energy_mj));
    if (L.avg_power_w) r.checks.push_back(upper("avg_power_w", p.avg_power_w, *L.avg_power_w));
    if (L.latency_range_high_ms)
      r.checks.push_back(upper("latency_range_high_ms",
                               range_high("latency_range_high_ms", e, r.gpu, p, opts, corrector, ranges),
                               *L.latency_range_high_ms));
    if (L.energy_range_high_mj)
      r.checks.push_back(upper("energy_range_high_mj", range_high("energy_range_high_mj", e, r.gpu, p, opts, corrector, ranges),
                               *L.energy_range_high_mj));
    if (L.power_range_high_w)
      r.checks.push_back(upper("power_range_high_w", range_high("power_range_high_w", e, r.gpu, p, opts, corrector, ranges),
                               *L.power_range_high_w));
    rep.results.push_back(std::move(r));
  }
  return rep;
}

nlohmann::json budget_verdict_json(const BudgetReport& rep) {
  nlohmann::json entries = nlohmann::json::array();
  size_t passed = 0;
  for (const auto& r : rep.results) {
    const auto& e = *r.entry;
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& c : r.checks)
      checks.push_back({{"limit", c.limit},
                        {"value", c.value},
                        {"limit_value", c.limit_value},
                        {"margin_pct", c.margin_pct},
                        {"passed", c.passed}});
    const auto& p = r.prediction;
    nlohmann::json entry = {{"index", e.index},
                       {"name", e.name},
                       {"model", e.model},
                       {"gpu", e.gpu},
                       {"gpu_id", r.gpu.id},
                       {"batch", r.batch},
                       {"precision", to_string(e.options.precision)},
                       {"mode", to_string(e.options.mode)},
                       {"runtime", to_string(e.options.runtime)},
                       {"passed", r.passed()},
                       {"prediction",
                        {{"latency_ms", p.latency_ms},
                         {"throughput_samples_per_s", p.throughput_samples_per_s},
                         {"energy_mj", p.energy_mj},
                         {"avg_power_w", p.avg_power_w},
                         {"peak_memory_bytes", p.peak_memory_bytes},
                         {"fits", p.fits},
                         {"model_bundle", p.model_bundle}}},
                       {"checks", checks}};
    if (!e.options.allow_tf32) entry["allow_tf32"] = false;  // as predict --json echoes --no-tf32
    if (e.options.cuda_graphs) entry["cuda_graphs"] = true;   // and --cuda-graphs
    if (e.options.grad_mode) entry["grad_mode"] = true;       // and --grad-mode
    if (e.options.launch_queue > 0) entry["launch_queue"] = e.options.launch_queue;  // and --launch-queue
    if (e.options.channels_last) entry["channels_last"] = true;  // and --channels-last
    if (!e.options.fused_attention) entry["attention"] = attention_name(false);  // and --attention math
    if (!e.options.foreach_updates) entry["param_updates"] = param_updates_name(false);  // and --param-updates loop
    if (!e.options.autocast) entry["mixed_precision"] = mixed_precision_name(false);  // and --mixed-precision half
    entries.push_back(std::move(entry));
    passed += r.passed() ? 1 : 0;
  }
  return {{"schema_version", 1},
          {"passed", rep.passed()},
          {"summary", {{"entries", rep.results.size()}, {"passed", passed}, {"failed", rep.results.size() - passed}}},
          {"entries", entries}};
}

std::string budget_text(const BudgetReport& rep) {
  std::string out;
  size_t width = 0;
  for (const auto& r : rep.results) width = std::max(width, r.entry->name.size());
  for (const auto& r : rep.results) {
    std::string line = std::string(r.passed() ? "PASS  " : "FAIL  ") + r.entry->name +
                       std::string(width - r.entry->name.size() + 2, ' ') + r.gpu.id + "  ";
    for (size_t i = 0; i < r.checks.size(); ++i) {
      const auto& c = r.checks[i];
      if (i) line += "; ";
      line += describe(c) + " (margin " + (c.margin_pct >= 0 ? "+" : "") + fmt(c.margin_pct, 1) + "%)";
    }
    out += line + "\n";
  }
  out += "budget: " + std::to_string(rep.results.size()) + " entries, " +
         std::to_string(rep.results.size() - rep.failed_entries()) + " passed, " + std::to_string(rep.failed_entries()) +
         " failed\n";
  return out;
}

}  // namespace perfpred::advise
