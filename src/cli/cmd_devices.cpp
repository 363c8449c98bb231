#include "cmd_devices.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::cli {
namespace {

std::string num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

/// Up to 4 decimals, trailing zeros dropped.
std::string trimmed(double v) {
  std::string s = num(v, 4);
  while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.')) {
    bool dot = s.back() == '.';
    s.pop_back();
    if (dot) break;
  }
  return s;
}

/// Column of derived devices: "7 MIG", "2 modes", or "-".
std::string derived_column(const GpuCatalog& c, const GpuSpec& d) {
  size_t mig = c.mig_slices(d.id).size();
  size_t modes = c.power_modes(d.id).size();
  if (mig) return std::to_string(mig) + " MIG";
  if (modes) return std::to_string(modes) + " modes";
  return "-";
}

std::vector<std::string> derived_ids(const GpuCatalog& c, const std::string& id) {
  std::vector<std::string> out;
  for (const auto& s : c.mig_slices(id)) out.push_back(s.id);
  for (const auto& s : c.power_modes(id)) out.push_back(s.id);
  return out;
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      bool left = i < 3;  // id, name, arch
      std::string pad(width[i] - r[i].size(), ' ');
      line += left ? r[i] + pad : pad + r[i];
      if (i + 1 < r.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  }
}

nlohmann::json list_json(const GpuCatalog& c) {
  nlohmann::json out = {{"schema_version", 1}, {"devices", nlohmann::json::array()}};
  for (const auto& d : c.devices()) {
    nlohmann::json j = to_json(d);
    j["derived_ids"] = derived_ids(c, d.id);
    out["devices"].push_back(std::move(j));
  }
  return out;
}

int list(const GpuCatalog& c, bool json) {
  if (json) {
    print_json(list_json(c));
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {{"id", "name", "arch", "SMs", "FP32 TFLOPS", "TC FP16 TFLOPS",
                                                 "mem GB", "BW GB/s", "TDP W", "MIG/modes"}};
  for (const auto& d : c.devices())
    rows.push_back({d.id, d.name, d.architecture, std::to_string(d.sm_count), num(d.fp32_tflops, 2),
                    d.tensor_fp16_tflops > 0 ? num(d.tensor_fp16_tflops, 1) : "-", num(d.memory_gb, 0),
                    num(d.mem_bandwidth_gbps, d.mem_bandwidth_gbps < 100 ? 1 : 0), num(d.tdp_w, 0), derived_column(c, d)});
  print_table(rows);
  std::cout << "\n" << c.devices().size() << " devices, " << c.all_ids().size()
            << " ids with MIG slices (ID:PROFILE) and power modes (ID@MODE); `perfpred devices show ID` for one; "
               "a spec JSON describes a hypothetical GPU (docs/gpus.md).\n";
  return 0;
}

void print_list(const char* title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  std::cout << "\n" << title << ":\n";
  for (const auto& s : items) std::cout << "  - " << s << "\n";
}

nlohmann::json show_json(const GpuCatalog* c, const GpuSpec& s) {
  const nlohmann::json* raw = c && s.parent_id.empty() ? c->raw(s.id) : nullptr;
  nlohmann::json j = to_json(s);
  if (raw) {
    for (const char* k : {"chip", "tensor_core_generation", "launch_date", "provisional", "tensor_fp8_tflops",
                          "reference_id", "reference_derived_fields", "reference_unsourced_fields",
                          "reference_conflicts", "reference_notes", "mig_profiles", "power_modes"})
      if (raw->contains(k)) j[k] = raw->at(k);
    j["derived_ids"] = derived_ids(*c, s.id);
  }
  return j;
}

/// A spec file needs the catalog only when it names a base; a catalog id always does.
const GpuCatalog* catalog_for(const std::string& id) {
  return id.find(".json") != std::string::npos ? nullptr : &GpuCatalog::instance();
}

int show(const GpuCatalog* c, const std::string& id, bool json) {
  GpuSpec s = resolve_gpu(id);
  const nlohmann::json* raw = c && s.parent_id.empty() ? c->raw(s.id) : nullptr;
  std::vector<std::string> derived = c && s.parent_id.empty() && raw ? derived_ids(*c, s.id) : std::vector<std::string>{};
  if (json) {
    print_json(show_json(c, s));
    return 0;
  }
  nlohmann::json j = to_json(s);
  std::cout << s.id << ": " << s.name << "\n\n";
  for (const auto& [k, v] : j.items()) {
    if (v.is_array() || k == "id" || k == "name" || k == "schema_version") continue;
    std::string text = v.is_string() ? v.get<std::string>() : v.is_number_float() ? trimmed(v.get<double>()) : v.dump();
    std::cout << "  " << k << std::string(k.size() < 22 ? 22 - k.size() : 1, ' ') << text << "\n";
  }
  std::cout << "  peak FLOP/s by precision (tensor cores where used):";
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::int8})
    std::cout << " " << to_string(p) << " " << num(s.peak_flops(p) / 1e12, 2) << "T"
              << (s.uses_tensor_cores(p) ? "*" : "");
  std::cout << "\n";
  if (raw) {
    if (raw->contains("provisional") && raw->at("provisional").get<bool>())
      std::cout << "\n  PROVISIONAL: not in the reference; derived from the closest published record.\n";
    print_list("MIG slices and power modes", derived);
  }
  print_list("Assumptions", s.assumptions);
  if (raw) {
    auto strings = [&](const char* k) {
      std::vector<std::string> out;
      if (raw->contains(k))
        for (const auto& e : raw->at(k)) out.push_back(e.get<std::string>());
      return out;
    };
    print_list("Reference notes", strings("reference_notes"));
    print_list("Conflicts between sources", strings("reference_conflicts"));
    auto derived_f = strings("reference_derived_fields");
    auto unsourced = strings("reference_unsourced_fields");
    if (!derived_f.empty()) std::cout << "\nDerived in the reference: " << join(derived_f, ", ") << "\n";
    if (!unsourced.empty()) std::cout << "Not sourced in the reference: " << join(unsourced, ", ") << "\n";
  }
  print_list("Sources", s.sources);
  return 0;
}

}  // namespace

int run_devices(const DevicesOptions& opts) {
  if (!opts.show_id.empty()) return show(catalog_for(opts.show_id), opts.show_id, opts.json);
  return list(GpuCatalog::instance(), opts.json);
}

nlohmann::json devices_document() { return list_json(GpuCatalog::instance()); }

nlohmann::json device_document(const std::string& id) { return show_json(catalog_for(id), resolve_gpu(id)); }

}  // namespace perfpred::cli
