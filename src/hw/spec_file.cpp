// Spec files: hypothetical GPUs described by a few essentials, or a catalog device with overrides.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fields.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred {

using hw_detail::ArchDefaults;
using hw_detail::Field;
using hw_detail::FieldKind;

namespace {

constexpr double k_idle_fraction = 0.09;
constexpr double k_pcie_efficiency = 0.8;

/// "8.0" -> "sm_80".
std::string sm_name(const char* cc) {
  std::string out = "sm_";
  for (const char* c = cc; *c; ++c)
    if (*c != '.') out += *c;
  return out;
}

std::string fmt(double v) {
  std::ostringstream o;
  o.precision(4);
  o << v;
  return o.str();
}

double pcie_lane_gbps(int gen, const std::string& label) {
  static const std::map<int, double> k_lane = {{1, 0.25}, {2, 0.5}, {3, 0.9846}, {4, 1.9692}, {5, 3.9385}, {6, 7.877}};
  auto it = k_lane.find(gen);
  if (it == k_lane.end()) throw InputError(label + ": field 'pcie_gen' must be 1 to 6, got " + std::to_string(gen));
  return it->second;
}

bool is_derived_only(const std::string& k) {
  return k == "parent_id" || k == "mig_profile" || k == "power_mode" || k == "sm_fraction" || k == "power_limit_w";
}

std::vector<std::string> spec_keys() {
  std::vector<std::string> keys = {"base", "schema_version"};
  for (const auto& f : hw_detail::fields())
    if (!is_derived_only(f.name)) keys.emplace_back(f.name);
  return keys;
}

const char* const k_essentials_hint =
    " (a spec needs sm_count, boost_clock_mhz, fp32_lanes_per_sm or fp32_tflops, mem_bandwidth_gbps and "
    "memory_gb; or \"base\": \"<catalog id>\" plus the fields to change)";

struct Given {
  GpuSpec s;
  std::set<std::string> keys;
  bool has(const char* k) const { return keys.count(k) > 0; }
  int tensor_flag = -1;  // "tensor_cores": true/false (1/0); -1 when absent or an integer count
};

Given read_given(const nlohmann::json& j, const std::string& label) {
  Given g;
  const auto allowed = spec_keys();
  for (const auto& [k, v] : j.items()) {
    if (k == "base" || k == "schema_version") continue;
    if (is_derived_only(k))
      throw InputError(label + ": field '" + k + "' is derived by perfpred for MIG slices, power modes and power " +
                       "limits; it is not accepted in a spec file (remove it; a power limit is --gpu FILE.json@<W>w)");
    const Field* f = hw_detail::find_field(k);
    if (!f) throw InputError(label + ": unknown field '" + k + "'" + hw_detail::did_you_mean(k, allowed));
    if (k == "tensor_cores" && v.is_boolean()) {
      g.tensor_flag = v.get<bool>() ? 1 : 0;
      g.keys.insert(k);
      continue;
    }
    hw_detail::read_field(v, *f, g.s, label);
    g.keys.insert(k);
  }
  if (auto it = j.find("schema_version"); it != j.end() && !(it->is_number_integer() && it->get<int>() == 1))
    throw InputError(label + ": field 'schema_version' must be 1, got " + it->dump());
  return g;
}

void copy_given(const Given& g, GpuSpec& s) {
  for (const auto& f : hw_detail::fields()) {
    if (!g.keys.count(f.name)) continue;
    if (std::string(f.name) == "tensor_cores" && g.tensor_flag >= 0) continue;
    switch (f.kind) {
      case FieldKind::text: s.*f.text = g.s.*f.text; break;
      case FieldKind::integer: s.*f.integer = g.s.*f.integer; break;
      case FieldKind::number: s.*f.number = g.s.*f.number; break;
      case FieldKind::boolean: s.*f.boolean = g.s.*f.boolean; break;
      case FieldKind::text_list: break;  // appended by the caller
    }
  }
}

void set_host_link(GpuSpec& s, const Given& g, const std::string& label, std::vector<std::string>& a) {
  if (s.unified_memory) {
    if (g.has("pcie_gen") || g.has("pcie_lanes") || (g.has("host_link_gbps") && s.host_link_gbps != 0))
      throw InputError(label + ": field 'unified_memory' is true, so pcie_gen, pcie_lanes and host_link_gbps "
                       "must be left out (an integrated GPU has no PCIe hop)");
    s.pcie_gen = 0;
    s.pcie_lanes = 0;
    s.host_link_gbps = 0;
    return;
  }
  if (!g.has("pcie_gen") && s.pcie_gen == 0) {
    s.pcie_gen = 4;
    a.push_back("pcie_gen: 4 assumed.");
  }
  if (!g.has("pcie_lanes") && s.pcie_lanes == 0) {
    s.pcie_lanes = 16;
    a.push_back("pcie_lanes: 16 assumed.");
  }
  if (!g.has("host_link_gbps") && (s.host_link_gbps == 0 || g.has("pcie_gen") || g.has("pcie_lanes"))) {
    s.host_link_gbps = k_pcie_efficiency * pcie_lane_gbps(s.pcie_gen, label) * s.pcie_lanes;
    a.push_back("host_link_gbps: 0.8 x the PCIe " + std::to_string(s.pcie_gen) + " x" +
                std::to_string(s.pcie_lanes) + " theoretical rate per direction = " + fmt(s.host_link_gbps) +
                " GB/s.");
  }
}

double tdp_heuristic(const ArchDefaults& row, double fp32_tflops, double bandwidth_gbps) {
  return 25.0 + row.watts_per_fp32_tflop * fp32_tflops + 0.05 * bandwidth_gbps;
}

GpuSpec from_base(const nlohmann::json& base_json, const Given& g, const std::string& label) {
  if (!base_json.is_string() || base_json.get<std::string>().empty())
    throw InputError(label + ": field 'base' must be a catalog id string such as \"a100-sxm4-40gb\"");
  const std::string base_id = base_json.get<std::string>();
  GpuSpec b;
  try {
    b = GpuCatalog::instance().resolve(base_id);
  } catch (const InputError& e) {
    throw InputError(label + ": field 'base': " + e.what());
  }
  GpuSpec s = b;
  std::vector<std::string> a;
  copy_given(g, s);
  a.push_back("based on catalog device " + b.id + "; fields given in the spec: " +
              join(std::vector<std::string>(g.keys.begin(), g.keys.end()), ", ") + ".");
  const bool shape_changed = g.has("sm_count") || g.has("fp32_lanes_per_sm") || g.has("boost_clock_mhz");
  // Vector rates follow SMs x lanes x clock unless the spec gives them.
  if (shape_changed) {
    const double fv = (double(s.sm_count) * s.fp32_lanes_per_sm * s.boost_clock_mhz) /
                      (double(b.sm_count) * b.fp32_lanes_per_sm * b.boost_clock_mhz);
    for (auto [key, m] : {std::pair{"fp32_tflops", &GpuSpec::fp32_tflops}, {"fp16_tflops", &GpuSpec::fp16_tflops},
                          {"bf16_tflops", &GpuSpec::bf16_tflops}, {"fp64_tflops", &GpuSpec::fp64_tflops},
                          {"int8_tops", &GpuSpec::int8_tops}}) {
      if (g.has(key)) continue;
      s.*m = b.*m * fv;
      a.push_back(std::string(key) + ": scaled from " + b.id + " by SMs x lanes x clock (x" + fmt(fv) + ").");
    }
  } else if (g.has("fp32_tflops") && !g.has("fp32_lanes_per_sm")) {
    a.push_back("fp32_lanes_per_sm: kept from " + b.id + " (fp32_tflops given directly).");
  }
  // Tensor cores follow the SM count unless given; tensor rates follow cores x clock.
  if (g.tensor_flag == 0) {
    s.tensor_cores = 0;
  } else if (!g.has("tensor_cores") && g.has("sm_count") && b.tensor_cores > 0) {
    s.tensor_cores = static_cast<int>(std::lround(double(b.tensor_cores) * s.sm_count / b.sm_count));
    a.push_back("tensor_cores: " + b.id + "'s tensor cores per SM x sm_count.");
  }
  if (g.tensor_flag == 1 && b.tensor_cores == 0)
    throw InputError(label + ": field 'tensor_cores' is true but the base " + b.id +
                     " has no tensor cores; give tensor_cores as a count and the tensor_*_tflops rates");
  const double ft = b.tensor_cores > 0
                        ? (double(s.tensor_cores) * s.boost_clock_mhz) / (double(b.tensor_cores) * b.boost_clock_mhz)
                        : 0.0;
  for (auto [key, m] : {std::pair{"tensor_fp16_tflops", &GpuSpec::tensor_fp16_tflops},
                        {"tensor_fp16_fp16acc_tflops", &GpuSpec::tensor_fp16_fp16acc_tflops},
                        {"tensor_bf16_tflops", &GpuSpec::tensor_bf16_tflops},
                        {"tensor_tf32_tflops", &GpuSpec::tensor_tf32_tflops},
                        {"tensor_int8_tops", &GpuSpec::tensor_int8_tops}}) {
    if (g.has(key) || ft == 1.0 || b.*m == 0) continue;
    s.*m = b.*m * ft;
    a.push_back(std::string(key) + ": scaled from " + b.id + " by tensor cores x clock (x" + fmt(ft) + ").");
  }
  if (g.has("tdp_w") && !g.has("idle_power_w")) {
    s.idle_power_w = b.idle_power_w * s.tdp_w / b.tdp_w;
    a.push_back("idle_power_w: " + b.id + "'s idle share of TDP applied to the given tdp_w.");
  } else if (!g.has("tdp_w") && (shape_changed || g.has("fp32_tflops") || g.has("mem_bandwidth_gbps"))) {
    a.push_back("tdp_w and idle_power_w: kept from " + b.id + " (give tdp_w to change them).");
  }
  if ((g.has("sm_count")) && !g.has("l2_cache_mb"))
    a.push_back("l2_cache_mb: kept from " + b.id + ".");
  if (g.has("unified_memory") && s.unified_memory != b.unified_memory) {
    s.pcie_gen = s.pcie_lanes = 0;
    s.host_link_gbps = 0;
  }
  set_host_link(s, g, label, a);
  s.parent_id.clear();
  s.mig_profile.clear();
  s.power_mode.clear();
  s.sm_fraction = 1.0;
  s.power_limit_w = 0;
  if (!g.has("segment")) s.segment = "hypothetical";
  if (!g.has("name")) s.name = b.name + " (modified)";
  s.assumptions.insert(s.assumptions.end(), a.begin(), a.end());
  return s;
}

GpuSpec from_essentials(const Given& g, const std::string& label) {
  for (const char* k : {"sm_count", "boost_clock_mhz", "mem_bandwidth_gbps", "memory_gb"})
    if (!g.has(k)) throw InputError(label + ": missing required field '" + k + "'" + k_essentials_hint);
  if (!g.has("fp32_lanes_per_sm") && !g.has("fp32_tflops"))
    throw InputError(label + ": missing required field 'fp32_lanes_per_sm' (or 'fp32_tflops')" + k_essentials_hint);
  GpuSpec s;
  copy_given(g, s);
  std::vector<std::string> a;
  // Architecture row: compute_capability decides, else the architecture name, else Ampere (sm_80).
  const ArchDefaults* row = nullptr;
  if (g.has("compute_capability")) {
    row = hw_detail::arch_by_cc(s.compute_capability);
    if (!row) {
      std::vector<std::string> ccs;
      for (const auto& r : hw_detail::arch_table()) ccs.emplace_back(r.compute_capability);
      throw InputError(label + ": field 'compute_capability' '" + s.compute_capability +
                       "' is not one perfpred has defaults for; use one of " + join(ccs, ", "));
    }
    if (!g.has("architecture")) {
      s.architecture = row->architecture;
      a.push_back("architecture: " + s.architecture + ", from compute_capability " + s.compute_capability + ".");
    }
  } else if (g.has("architecture")) {
    row = hw_detail::arch_by_name(s.architecture);
    if (!row)
      throw InputError(label + ": field 'architecture' '" + s.architecture +
                       "' is unknown; use Maxwell, Pascal, Volta, Turing, Ampere, Ada Lovelace or Hopper");
    s.compute_capability = row->compute_capability;
    a.push_back("compute_capability: " + s.compute_capability + ", the default for " + s.architecture + ".");
  } else {
    row = hw_detail::arch_by_cc("8.0");
    s.architecture = "Ampere";
    s.compute_capability = "8.0";
    a.push_back("architecture and compute_capability: neither given; Ampere sm_80 limits assumed.");
  }
  const double clock = s.boost_clock_mhz;
  const double sm = s.sm_count;
  if (!g.has("fp32_lanes_per_sm")) {
    s.fp32_lanes_per_sm = std::max(1, static_cast<int>(std::lround(s.fp32_tflops * 1e6 / (2.0 * sm * clock))));
    a.push_back("fp32_lanes_per_sm: fp32_tflops / (2 x SMs x clock) = " + std::to_string(s.fp32_lanes_per_sm) + ".");
  }
  if (!g.has("fp32_tflops")) {
    s.fp32_tflops = 2.0 * s.fp32_lanes_per_sm * sm * clock / 1e6;
    a.push_back("fp32_tflops: 2 x lanes x SMs x boost clock = " + fmt(s.fp32_tflops) + ".");
  }
  auto ratio = [&](const char* key, double GpuSpec::*m, double r, const char* why) {
    if (g.has(key)) return;
    s.*m = s.fp32_tflops * r;
    a.push_back(std::string(key) + ": FP32 x " + fmt(r) + " (" + why + ", " + row->architecture + " " +
                sm_name(row->compute_capability) + ").");
  };
  ratio("fp16_tflops", &GpuSpec::fp16_tflops, row->fp16_ratio, "non-tensor FP16 ratio");
  ratio("bf16_tflops", &GpuSpec::bf16_tflops, row->bf16_ratio, "non-tensor BF16 ratio; 0 = no BF16 arithmetic");
  ratio("fp64_tflops", &GpuSpec::fp64_tflops, row->fp64_ratio, "FP64 ratio");
  if (!g.has("int8_tops")) {
    s.int8_tops = sm * row->int32_lanes_per_sm * 8.0 * clock / 1e6;
    a.push_back("int8_tops: dp4a = SMs x " + std::to_string(row->int32_lanes_per_sm) +
                " INT32 lanes x 8 x clock = " + fmt(s.int8_tops) + ".");
  }
  // Tensor cores: a count, true/false, or the architecture's default when an architecture was given.
  const bool arch_given = g.has("architecture") || g.has("compute_capability");
  const ArchDefaults* trow = row->tensor_cores_per_sm > 0 ? row : hw_detail::arch_by_cc("8.0");
  int tc = 0;
  if (g.tensor_flag == 1 || (g.tensor_flag < 0 && !g.has("tensor_cores") && arch_given)) {
    tc = (g.tensor_flag == 1 ? trow : row)->tensor_cores_per_sm * s.sm_count;
    if (tc > 0)
      a.push_back("tensor_cores: " + std::to_string(trow->tensor_cores_per_sm) + " per SM (" + trow->architecture +
                  " " + sm_name(trow->compute_capability) + ") x SMs = " + std::to_string(tc) + ".");
  } else if (g.has("tensor_cores") && g.tensor_flag < 0) {
    tc = s.tensor_cores;
  } else if (!g.has("tensor_cores")) {
    const bool rates_given = g.has("tensor_fp16_tflops") || g.has("tensor_bf16_tflops") ||
                             g.has("tensor_tf32_tflops") || g.has("tensor_int8_tops");
    if (rates_given) {
      tc = trow->tensor_cores_per_sm * s.sm_count;
      a.push_back("tensor_cores: tensor rates given without a count; " + std::to_string(tc) + " assumed.");
    } else {
      a.push_back("tensor_cores: none (give \"tensor_cores\": true, a count, or an architecture to get tensor rates).");
    }
  }
  s.tensor_cores = tc;
  if (tc > 0) {
    const double per_tc = trow->tensor_fp16_flop_per_clk_per_sm / trow->tensor_cores_per_sm;
    const bool ampere_plus = std::stod(trow->compute_capability) >= 8.0;
    auto tensor = [&](const char* key, double GpuSpec::*m, double v, const std::string& why) {
      if (g.has(key)) return;
      s.*m = v;
      a.push_back(std::string(key) + ": " + why + " = " + fmt(v) + ".");
    };
    const double fp16 = tc * per_tc * clock / 1e6;
    tensor("tensor_fp16_tflops", &GpuSpec::tensor_fp16_tflops, fp16,
           "tensor cores x " + fmt(per_tc) + " dense FP16 FLOP/clk (" + trow->architecture + ") x clock");
    tensor("tensor_bf16_tflops", &GpuSpec::tensor_bf16_tflops, ampere_plus ? s.tensor_fp16_tflops : 0.0,
           ampere_plus ? "equal to tensor FP16 (Ampere and later)" : "no BF16 tensor path before Ampere");
    tensor("tensor_tf32_tflops", &GpuSpec::tensor_tf32_tflops, ampere_plus ? s.tensor_fp16_tflops / 2 : 0.0,
           ampere_plus ? "half of tensor FP16 (Ampere and later)" : "no TF32 before Ampere");
    tensor("tensor_int8_tops", &GpuSpec::tensor_int8_tops, trow->tensor_int8 ? 2 * s.tensor_fp16_tflops : 0.0,
           trow->tensor_int8 ? "2 x tensor FP16" : "no INT8 tensor mode on this architecture");
  }
  if (!g.has("l2_cache_mb")) {
    s.l2_cache_mb = std::round(row->l2_mb_per_sm * sm * 100.0) / 100.0;
    a.push_back("l2_cache_mb: " + fmt(row->l2_mb_per_sm) + " MB per SM (typical of " + row->architecture +
                ") x SMs = " + fmt(s.l2_cache_mb) + ".");
  }
  if (!g.has("shared_mem_per_sm_kb")) {
    s.shared_mem_per_sm_kb = row->shared_mem_per_sm_kb;
    a.push_back("shared_mem_per_sm_kb: " + sm_name(row->compute_capability) + " limit.");
  }
  if (!g.has("registers_per_sm")) {
    s.registers_per_sm = row->registers_per_sm;
    a.push_back("registers_per_sm: " + sm_name(row->compute_capability) + " limit.");
  }
  if (!g.has("max_threads_per_sm")) {
    s.max_threads_per_sm = row->max_threads_per_sm;
    a.push_back("max_threads_per_sm: " + sm_name(row->compute_capability) + " limit.");
  }
  if (!g.has("memory_type")) {
    s.memory_type = "unspecified";
    a.push_back("memory_type: not given.");
  }
  if (!g.has("dram_ecc") && s.memory_type.rfind("GDDR", 0) == 0)
    a.push_back("dram_ecc: not given, so off (the full GDDR bandwidth; datacenter boards ship with it on, which "
                "costs a GDDR board about 9% of it: give \"dram_ecc\": true).");
  if (!g.has("tdp_w")) {
    s.tdp_w = std::round(tdp_heuristic(*row, s.fp32_tflops, s.mem_bandwidth_gbps));
    a.push_back("tdp_w: heuristic 25 W + " + fmt(row->watts_per_fp32_tflop) + " W per FP32 TFLOPS (" +
                row->architecture + ") + 0.05 W per GB/s = " + fmt(s.tdp_w) + " W.");
  }
  if (!g.has("idle_power_w")) {
    s.idle_power_w = std::round(k_idle_fraction * s.tdp_w * 10.0) / 10.0;
    a.push_back("idle_power_w: 9% of TDP = " + fmt(s.idle_power_w) + " W.");
  }
  if (!g.has("base_clock_mhz")) a.push_back("base_clock_mhz: not given (0 = unknown; peaks use the boost clock).");
  set_host_link(s, g, label, a);
  if (!g.has("segment")) s.segment = "hypothetical";
  s.assumptions.insert(s.assumptions.end(), a.begin(), a.end());
  return s;
}

}  // namespace

GpuSpec spec_from_json(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object()) throw InputError(label + ": a GPU spec must be a JSON object");
  Given g = read_given(j, label);
  GpuSpec s;
  if (auto it = j.find("base"); it != j.end()) s = from_base(*it, g, label);
  else s = from_essentials(g, label);
  if (!g.has("id")) s.id = "spec:" + std::filesystem::path(label).stem().string();
  if (s.name.empty()) s.name = "hypothetical GPU (" + std::filesystem::path(label).stem().string() + ")";
  s.assumptions.insert(s.assumptions.end(), g.s.assumptions.begin(), g.s.assumptions.end());
  s.sources.insert(s.sources.end(), g.s.sources.begin(), g.s.sources.end());
  hw_detail::validate_spec(s, label);
  return s;
}

GpuSpec load_spec_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(path.string() + ": GPU spec file not found (give a catalog id, or a path to a spec JSON; " +
                     "run `perfpred devices` to list ids)");
  nlohmann::json j = read_json_file(path, "GPU spec file");
  // A spec file is a hypothetical device: with a catalog id it would pass for that device in listings
  // (select, report) and to a learned corrector. Without "id" it is "spec:<file stem>".
  if (auto it = j.is_object() ? j.find("id") : j.end(); it != j.end() && it->is_string()) {
    const std::string id = it->get<std::string>();
    if (const std::string clash = catalog_id_clash(id); !clash.empty()) {
      std::string suggestion = trim(id) + "-custom";
      std::replace_if(suggestion.begin(), suggestion.end(), [](char c) { return c == ':' || c == '@'; }, '-');
      throw InputError(path.string() + ": field 'id' '" + id + "' is " + clash +
                       "; a spec file must not reuse it: choose another id (e.g. '" + suggestion +
                       "') or leave 'id' out (the device is then 'spec:" + path.stem().string() + "')");
    }
  }
  return spec_from_json(j, path.string());
}

}  // namespace perfpred
