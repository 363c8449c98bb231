#include "perfpred/hw/catalog.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fields.hpp"
#include "perfpred/hw/power_limit.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/paths.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred {

using hw_detail::Field;
using hw_detail::FieldKind;

namespace {

constexpr int k_schema_version = 1;

// Keys a catalog file may carry besides GpuSpec fields: provenance and the derived-device tables.
const std::set<std::string>& catalog_extra_keys() {
  static const std::set<std::string> k = {
      "schema_version", "chip", "tensor_core_generation", "launch_date", "provisional", "reference_id",
      "reference_derived_fields", "reference_unsourced_fields", "reference_conflicts", "reference_notes",
      "tensor_fp8_tflops", "mig_profiles", "power_modes"};
  return k;
}
// GpuSpec fields only derived devices carry; optional in a catalog file.
bool derived_only(const std::string& name) {
  return name == "parent_id" || name == "mig_profile" || name == "power_mode" || name == "sm_fraction" ||
         name == "power_limit_w";
}

std::string fmt(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

double get_number(const nlohmann::json& obj, const char* key, const std::string& where, bool positive) {
  auto it = obj.find(key);
  if (it == obj.end()) throw InputError(where + ": missing required field '" + key + "'");
  if (!it->is_number())
    throw InputError(where + ": field '" + key + "' must be a finite number, got " + it->dump());
  double v = it->get<double>();
  if (!std::isfinite(v) || (positive ? !(v > 0) : v < 0))
    throw InputError(where + ": field '" + key + "' must be " + (positive ? "greater than 0" : "non-negative") +
                     ", got " + it->dump());
  return v;
}

std::string get_text(const nlohmann::json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw InputError(where + ": missing required field '" + key + "'");
  if (!it->is_string() || it->get<std::string>().empty())
    throw InputError(where + ": field '" + key + "' must be a non-empty string");
  return it->get<std::string>();
}

std::vector<std::string> get_list(const nlohmann::json& obj, const char* key) {
  std::vector<std::string> out;
  if (auto it = obj.find(key); it != obj.end() && it->is_array())
    for (const auto& e : *it)
      if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

void check_keys(const nlohmann::json& obj, const std::set<std::string>& allowed, const std::string& where) {
  std::vector<std::string> names(allowed.begin(), allowed.end());
  for (const auto& [k, v] : obj.items())
    if (!allowed.count(k))
      throw InputError(where + ": unknown field '" + k + "'" + hw_detail::did_you_mean(k, names));
}

void validate_mig_profiles(const nlohmann::json& list, const GpuSpec& parent, const std::string& file) {
  static const std::set<std::string> k_keys = {
      "name", "gi_profile_id", "sm_count", "compute_slices", "compute_slices_total", "memory_slices",
      "memory_slices_total", "memory_gib_usable", "memory_fraction", "sm_fraction", "l2_cache_mb",
      "mem_bandwidth_gbps", "max_instances", "assumptions", "sources", "reference_id",
      "reference_derived_fields", "reference_unsourced_fields", "reference_conflicts", "reference_notes"};
  if (!list.is_array()) throw InputError(file + ": field 'mig_profiles' must be a list");
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& p = list[i];
    std::string where = file + ": mig_profiles[" + std::to_string(i) + "]";
    if (!p.is_object()) throw InputError(where + " must be an object");
    check_keys(p, k_keys, where);
    std::string name = get_text(p, "name", where);
    where += " (" + name + ")";
    if (!seen.insert(name).second) throw InputError(where + ": duplicate profile name");
    double sms = get_number(p, "sm_count", where, true);
    if (sms > parent.sm_count)
      throw InputError(where + ": field 'sm_count' (" + fmt(sms) + ") exceeds the device's " +
                       std::to_string(parent.sm_count) + " SMs");
    if (p.contains("compute_slices") || p.contains("compute_slices_total")) {
      const double c = get_number(p, "compute_slices", where, true);
      const double c_total = get_number(p, "compute_slices_total", where, true);
      if (c > c_total || c != std::floor(c) || c_total != std::floor(c_total))
        throw InputError(where + ": fields 'compute_slices' (" + fmt(c) + ") and 'compute_slices_total' (" +
                         fmt(c_total) + ") must be whole numbers with compute_slices <= compute_slices_total");
    }
    get_number(p, "memory_gib_usable", where, true);
    double mf = get_number(p, "memory_fraction", where, true);
    double sf = get_number(p, "sm_fraction", where, true);
    if (mf > 1 || sf > 1) throw InputError(where + ": memory_fraction and sm_fraction must be at most 1");
    get_number(p, "l2_cache_mb", where, true);
    get_number(p, "mem_bandwidth_gbps", where, true);
    get_number(p, "max_instances", where, true);
  }
}

void validate_power_modes(const nlohmann::json& list, const GpuSpec& parent, const std::string& file) {
  static const std::set<std::string> k_keys = {"name", "nvpmodel", "gpu_max_clock_mhz", "active_sms", "power_w",
                                               "assumptions", "notes"};
  if (!list.is_array() || list.empty()) throw InputError(file + ": field 'power_modes' must be a non-empty list");
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& m = list[i];
    std::string where = file + ": power_modes[" + std::to_string(i) + "]";
    if (!m.is_object()) throw InputError(where + " must be an object");
    check_keys(m, k_keys, where);
    std::string name = get_text(m, "name", where);
    where += " (" + name + ")";
    if (!seen.insert(name).second) throw InputError(where + ": duplicate power mode name");
    get_number(m, "gpu_max_clock_mhz", where, true);
    double sms = get_number(m, "active_sms", where, true);
    if (sms > parent.sm_count) throw InputError(where + ": field 'active_sms' exceeds the device's SM count");
    get_number(m, "power_w", where, true);
  }
}

/// Parse one catalog file strictly.
GpuSpec parse_catalog_entry(const nlohmann::json& j, const std::string& file, const std::string& stem) {
  if (!j.is_object()) throw InputError(file + ": expected a JSON object");
  std::set<std::string> allowed(catalog_extra_keys());
  for (const auto& f : hw_detail::fields()) allowed.insert(f.name);
  check_keys(j, allowed, file);
  auto sv = j.find("schema_version");
  if (sv == j.end() || !sv->is_number_integer() || sv->get<int>() != k_schema_version)
    throw InputError(file + ": field 'schema_version' must be " + std::to_string(k_schema_version));
  GpuSpec s;
  for (const auto& f : hw_detail::fields()) {
    auto it = j.find(f.name);
    if (it == j.end()) {
      if (derived_only(f.name)) continue;
      throw InputError(file + ": missing required field '" + f.name + "'");
    }
    hw_detail::read_field(*it, f, s, file);
  }
  if (s.id != stem)
    throw InputError(file + ": field 'id' is '" + s.id + "' but the file is named " + stem + ".json");
  if (s.id.find_first_of(":@") != std::string::npos)
    throw InputError(file + ": field 'id' must not contain ':' or '@' (reserved for MIG slices and power modes)");
  hw_detail::validate_spec(s, file);
  if (auto it = j.find("mig_profiles"); it != j.end()) validate_mig_profiles(*it, s, file);
  if (auto it = j.find("power_modes"); it != j.end()) validate_power_modes(*it, s, file);
  return s;
}

/// SMs a GPU in MIG mode can give to instances: the largest profile's (A100: 98 of 108; H100: all).
int mig_mode_sm_count(const nlohmann::json& profiles) {
  int most = 0;
  for (const auto& p : profiles) most = std::max(most, static_cast<int>(p.at("sm_count").get<double>()));
  return most;
}

/// A MIG slice of `parent`. `mig_sms` = mig_mode_sm_count() of the parent's profiles.
GpuSpec make_mig_slice(const GpuSpec& parent, const nlohmann::json& p, int mig_sms) {
  GpuSpec s = parent;
  const std::string profile = p.at("name").get<std::string>();
  const int sms = static_cast<int>(p.at("sm_count").get<double>());
  const double f = static_cast<double>(sms) / parent.sm_count;
  s.id = parent.id + ":" + profile;
  s.name = parent.name + " MIG " + profile;
  s.parent_id = parent.id;
  s.mig_profile = profile;
  s.power_mode.clear();
  s.sm_count = sms;
  s.sm_fraction = f;
  for (double GpuSpec::*m : {&GpuSpec::fp32_tflops, &GpuSpec::fp16_tflops, &GpuSpec::bf16_tflops,
                             &GpuSpec::fp64_tflops, &GpuSpec::tensor_fp16_tflops, &GpuSpec::tensor_fp16_fp16acc_tflops,
                             &GpuSpec::tensor_bf16_tflops,
                             &GpuSpec::tensor_tf32_tflops, &GpuSpec::tensor_int8_tops, &GpuSpec::int8_tops})
    s.*m = parent.*m * f;
  s.tensor_cores = static_cast<int>(std::lround(parent.tensor_cores * f));
  // Published capacities are binary ("80GB" = 80 GiB), so usable GiB are in the parent's unit.
  s.memory_gb = p.at("memory_gib_usable").get<double>();
  s.mem_bandwidth_gbps = p.at("mem_bandwidth_gbps").get<double>();
  s.l2_cache_mb = p.at("l2_cache_mb").get<double>();
  s.assumptions = get_list(p, "assumptions");
  s.assumptions.push_back("MIG slice of " + parent.id + ": " + std::to_string(sms) + " of " +
                          std::to_string(parent.sm_count) + " SMs; peak rates scaled by the SM share (" +
                          fmt(f) + "); memory_gb = " + fmt(p.at("memory_gib_usable").get<double>()) +
                          " GiB usable (published capacities are GiB too, so the unit matches the parent's).");
  // Power: the slice's share of the board, so that a slice running flat out draws at most its share and the
  // instances of a fully partitioned GPU add up to about the whole board. Idle power (board, memory, fans,
  // the uncore) is shared by compute partitions: compute slices / total. Dynamic power follows the SMs the
  // slice runs on, out of the SMs MIG mode can hand out (the largest profile's: a 7g instance is the board).
  const int c = p.value("compute_slices", 0), c_total = p.value("compute_slices_total", 0);
  const double dyn_share = mig_sms > 0 ? std::min(1.0, static_cast<double>(sms) / mig_sms) : f;
  const double idle_share = c > 0 && c_total >= c ? static_cast<double>(c) / c_total : dyn_share;
  s.idle_power_w = parent.idle_power_w * idle_share;
  s.tdp_w = s.idle_power_w + std::max(0.0, parent.tdp_w - parent.idle_power_w) * dyn_share;
  const std::string idle_basis = c > 0 && c_total >= c
                                     ? std::to_string(c) + "/" + std::to_string(c_total) + " compute slices"
                                     : "the SM share";
  s.assumptions.push_back("tdp_w and idle_power_w are this instance's share of the board's: idle_power_w = " +
                          parent.id + "'s idle x " + idle_basis + " = " + fmt(s.idle_power_w) +
                          " W; tdp_w = that + (TDP - idle) x " + std::to_string(sms) + " of the " +
                          std::to_string(mig_sms > 0 ? mig_sms : parent.sm_count) +
                          " SMs MIG mode hands out = " + fmt(s.tdp_w) +
                          " W. NVML reports only the whole board, other instances included.");
  auto srcs = get_list(p, "sources");
  s.sources.insert(s.sources.end(), srcs.begin(), srcs.end());
  return s;
}

GpuSpec make_power_mode(const GpuSpec& parent, const nlohmann::json& m) {
  GpuSpec s = parent;
  const std::string mode = m.at("name").get<std::string>();
  const double cap = m.at("gpu_max_clock_mhz").get<double>();
  const int sms = static_cast<int>(m.at("active_sms").get<double>());
  const double clock = std::min(cap, parent.boost_clock_mhz);
  const double fc = clock / parent.boost_clock_mhz;
  const double fs = static_cast<double>(sms) / parent.sm_count;
  s.id = parent.id + "@" + mode;
  s.name = parent.name + " (" + mode + ")";
  s.parent_id = parent.id;
  s.power_mode = mode;
  s.mig_profile.clear();
  s.sm_count = sms;
  s.boost_clock_mhz = clock;
  if (s.base_clock_mhz > clock) s.base_clock_mhz = clock;
  for (double GpuSpec::*f : {&GpuSpec::fp32_tflops, &GpuSpec::fp16_tflops, &GpuSpec::bf16_tflops,
                             &GpuSpec::fp64_tflops, &GpuSpec::tensor_fp16_tflops, &GpuSpec::tensor_fp16_fp16acc_tflops,
                             &GpuSpec::tensor_bf16_tflops,
                             &GpuSpec::tensor_tf32_tflops, &GpuSpec::tensor_int8_tops, &GpuSpec::int8_tops})
    s.*f = parent.*f * fc * fs;
  s.tensor_cores = static_cast<int>(std::lround(parent.tensor_cores * fs));
  s.tdp_w = m.at("power_w").get<double>();
  s.idle_power_w = std::min(parent.idle_power_w, 0.5 * s.tdp_w);
  s.assumptions = get_list(m, "assumptions");
  s.assumptions.push_back("power mode " + mode + " of " + parent.id + ": GPU clock capped at " + fmt(clock) +
                          " MHz, " + std::to_string(sms) + " of " + std::to_string(parent.sm_count) +
                          " SMs active; peak rates scaled by both; tdp_w = the mode's power budget (" +
                          fmt(s.tdp_w) + " W, whole module).");
  s.assumptions.push_back("mem_bandwidth_gbps kept at the maximum: the memory clock caps of low-power modes "
                          "are not modelled.");
  for (const auto& a : parent.assumptions)
    if (a.rfind("idle_power_w", 0) == 0) s.assumptions.push_back(a);
  return s;
}

}  // namespace

GpuCatalog::GpuCatalog(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError("GPU catalog directory " + dir.string() +
                     " not found (set PERFPRED_DATA_DIR to the folder holding gpus/)");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError("GPU catalog directory " + dir.string() + " has no .json files");
  for (const auto& path : files) add_file(path);
}

void GpuCatalog::add_file(const std::filesystem::path& path) {
  nlohmann::json j = read_json_file(path, "GPU catalog file");
  m_devices.push_back(parse_catalog_entry(j, path.string(), path.stem().string()));
  m_raw.push_back(std::move(j));
}

GpuCatalog GpuCatalog::single(const std::filesystem::path& file) {
  GpuCatalog c;
  c.add_file(file);
  return c;
}

namespace {

// Set once instance() has loaded the whole catalog: later single-id lookups use it instead of files.
std::atomic<const GpuCatalog*> g_full_catalog{nullptr};

// The device part of an id ("a100-sxm4-40gb" of "a100-sxm4-40gb:3g.20gb"), when it can name a file in
// the catalog directory: lower-case letters, digits, '-', '_' and '.', not starting with '.'.
std::optional<std::string> device_file_stem(const std::string& id_in) {
  const std::string id = to_lower(trim(id_in));
  const std::string base = id.substr(0, id.find_first_of(":@"));
  if (base.empty() || base[0] == '.') return std::nullopt;
  for (char c : base)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return std::nullopt;
  return base;
}

}  // namespace

GpuSpec GpuCatalog::resolve_in(const std::filesystem::path& dir, const std::string& id) {
  if (auto stem = device_file_stem(id)) {
    const auto file = dir / (*stem + ".json");
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) return single(file).resolve(id);
  }
  return GpuCatalog(dir).resolve(id);  // unknown device: the whole catalog names the close ids
}

const GpuCatalog& GpuCatalog::instance() {
  static const GpuCatalog k_catalog(data_dir() / "gpus");
  g_full_catalog.store(&k_catalog, std::memory_order_release);
  return k_catalog;
}

const nlohmann::json* GpuCatalog::raw(const std::string& id) const {
  for (size_t i = 0; i < m_devices.size(); ++i)
    if (m_devices[i].id == id) return &m_raw[i];
  return nullptr;
}

std::vector<GpuSpec> GpuCatalog::mig_slices(const std::string& id) const {
  std::vector<GpuSpec> out;
  for (size_t i = 0; i < m_devices.size(); ++i) {
    if (m_devices[i].id != id) continue;
    if (auto it = m_raw[i].find("mig_profiles"); it != m_raw[i].end())
      for (const auto& p : *it) out.push_back(make_mig_slice(m_devices[i], p, mig_mode_sm_count(*it)));
  }
  return out;
}

std::vector<GpuSpec> GpuCatalog::power_modes(const std::string& id) const {
  std::vector<GpuSpec> out;
  for (size_t i = 0; i < m_devices.size(); ++i) {
    if (m_devices[i].id != id) continue;
    if (auto it = m_raw[i].find("power_modes"); it != m_raw[i].end())
      for (const auto& m : *it) out.push_back(make_power_mode(m_devices[i], m));
  }
  return out;
}

std::vector<std::string> GpuCatalog::all_ids() const {
  std::vector<std::string> ids;
  for (size_t i = 0; i < m_devices.size(); ++i) {
    ids.push_back(m_devices[i].id);
    if (auto it = m_raw[i].find("mig_profiles"); it != m_raw[i].end())
      for (const auto& p : *it) ids.push_back(m_devices[i].id + ":" + p.at("name").get<std::string>());
    if (auto it = m_raw[i].find("power_modes"); it != m_raw[i].end())
      for (const auto& m : *it) ids.push_back(m_devices[i].id + "@" + m.at("name").get<std::string>());
  }
  return ids;
}

GpuSpec GpuCatalog::resolve(const std::string& id_in) const {
  const std::string id = to_lower(trim(id_in));
  auto unknown = [&](const std::string& what, const std::vector<std::string>& candidates) {
    auto near = hw_detail::closest(id, candidates, 5);
    return InputError("unknown " + what + " '" + id_in + "'" +
                      (near.empty() ? "" : "; closest: " + join(near, ", ")) +
                      " (run `perfpred devices` to list all ids)");
  };
  const size_t colon = id.find(':');
  const size_t at = id.find('@');
  const std::string base = id.substr(0, std::min(colon, at));
  const GpuSpec* parent = nullptr;
  size_t index = 0;
  for (size_t i = 0; i < m_devices.size(); ++i)
    if (m_devices[i].id == base) {
      parent = &m_devices[i];
      index = i;
    }
  if (!parent) throw unknown("GPU", all_ids());
  const auto& raw = m_raw[index];
  if (colon != std::string::npos) {
    const std::string profile = id.substr(colon + 1);
    auto it = raw.find("mig_profiles");
    if (it == raw.end())
      throw InputError("GPU '" + base + "' has no MIG profiles ('" + id_in +
                       "'); MIG exists on A100, A30, H100 and H200 (run `perfpred devices show " + base + "`)");
    std::vector<std::string> names;
    for (const auto& p : *it) {
      if (p.at("name").get<std::string>() == profile) return make_mig_slice(*parent, p, mig_mode_sm_count(*it));
      names.push_back(base + ":" + p.at("name").get<std::string>());
    }
    throw unknown("MIG profile", names);
  }
  auto modes = raw.find("power_modes");
  if (at != std::string::npos) {
    const std::string mode = id.substr(at + 1);
    if (modes == raw.end()) {
      if (auto watts = parse_power_limit_suffix(mode)) return with_power_limit(*parent, *watts, id_in);
      throw InputError("GPU '" + base + "' has no power modes ('" + id_in + "'); only Jetsons have them; a power " +
                       "limit is " + base + "@<W>w with W in (" + fmt(parent->idle_power_w) + ", " +
                       fmt(parent->tdp_w) + "] W");
    }
    std::vector<std::string> names;
    for (const auto& m : *modes) {
      if (m.at("name").get<std::string>() == mode) return make_power_mode(*parent, m);
      names.push_back(base + "@" + m.at("name").get<std::string>());
    }
    throw unknown("power mode", names);
  }
  GpuSpec s = *parent;
  if (modes != raw.end() && !modes->empty()) s.power_mode = (*modes)[0].at("name").get<std::string>();
  return s;
}

nlohmann::json to_json(const GpuSpec& s) {
  nlohmann::json j = nlohmann::json::object();
  j["schema_version"] = k_schema_version;
  for (const auto& f : hw_detail::fields()) {
    if (derived_only(f.name) && f.kind == FieldKind::text && (s.*f.text).empty()) continue;
    if (std::string(f.name) == "sm_fraction" && s.mig_profile.empty()) continue;
    if (std::string(f.name) == "power_limit_w" && !(s.power_limit_w > 0)) continue;
    j[f.name] = hw_detail::field_json(s, f);
  }
  return j;
}

GpuSpec resolve_gpu(const std::string& id_or_path) {
  std::error_code ec;
  // "<spec file>@<W>w": the spec under a power limit (catalog ids take theirs in GpuCatalog::resolve)
  if (const size_t at = id_or_path.rfind('@'); at != std::string::npos && at > 0) {
    const std::string file = id_or_path.substr(0, at);
    const bool json_file = std::filesystem::is_regular_file(file, ec) ||
                           (file.size() > 5 && to_lower(file.substr(file.size() - 5)) == ".json");
    if (json_file)
      if (auto watts = parse_power_limit_suffix(id_or_path.substr(at + 1)))
        return with_power_limit(load_spec_file(file), *watts, id_or_path);
  }
  const bool is_file = std::filesystem::is_regular_file(id_or_path, ec);
  const bool looks_json = id_or_path.size() > 5 && to_lower(id_or_path.substr(id_or_path.size() - 5)) == ".json";
  if (is_file || looks_json) return load_spec_file(id_or_path);
  if (const GpuCatalog* full = g_full_catalog.load(std::memory_order_acquire)) return full->resolve(id_or_path);
  // One device file per id, parsed once: a prediction resolves a single GPU and need not parse the
  // whole catalog (34 files, about a quarter of a CLI prediction's time when it did).
  const auto stem = device_file_stem(id_or_path);
  if (!stem) return GpuCatalog::instance().resolve(id_or_path);
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const GpuCatalog>> cache;  // by file path
  const auto file = data_dir() / "gpus" / (*stem + ".json");
  std::shared_ptr<const GpuCatalog> one;
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(file.string()); it != cache.end()) one = it->second;
  }
  if (!one) {
    if (!std::filesystem::is_regular_file(file, ec)) return GpuCatalog::instance().resolve(id_or_path);
    one = std::make_shared<const GpuCatalog>(GpuCatalog::single(file));
    std::lock_guard lock(mutex);
    cache.emplace(file.string(), one);
  }
  return one->resolve(id_or_path);
}

void validate_gpu_spec(const GpuSpec& s, const std::string& where) { hw_detail::validate_spec(s, where); }

std::string catalog_id_clash(const std::string& id_in) {
  const std::string id = to_lower(trim(id_in));
  const auto stem = device_file_stem(id);
  if (!stem) return "";
  const GpuCatalog* full = g_full_catalog.load(std::memory_order_acquire);
  std::optional<GpuCatalog> one;
  if (!full) {
    std::error_code ec;
    const auto file = data_dir() / "gpus" / (*stem + ".json");
    if (!std::filesystem::is_regular_file(file, ec)) return "";  // no such catalog device
    one.emplace(GpuCatalog::single(file));
    full = &*one;
  }
  if (!full->raw(*stem)) return "";
  const auto ids = full->all_ids();
  if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
    if (id == *stem) return "the catalog GPU '" + id + "'";
    return std::string(id.find(':') != std::string::npos ? "the MIG slice '" : "the power mode '") + id + "'";
  }
  if (id != *stem)  // "<catalog id>:..." and "<catalog id>@..." name that device's slices and modes
    return "an id of the form '" + *stem + ":PROFILE' or '" + *stem + "@MODE', reserved for " + *stem +
           "'s MIG slices and power modes";
  return "";
}

}  // namespace perfpred
