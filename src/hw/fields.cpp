#include "fields.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::hw_detail {
namespace {

Field text(const char* n, std::string GpuSpec::*m, Rule r) {
  Field f{n, FieldKind::text, r};
  f.text = m;
  return f;
}
Field integer(const char* n, int GpuSpec::*m, Rule r) {
  Field f{n, FieldKind::integer, r};
  f.integer = m;
  return f;
}
Field number(const char* n, double GpuSpec::*m, Rule r) {
  Field f{n, FieldKind::number, r};
  f.number = m;
  return f;
}
Field boolean(const char* n, bool GpuSpec::*m) {
  Field f{n, FieldKind::boolean, Rule::any};
  f.boolean = m;
  return f;
}
Field list(const char* n, std::vector<std::string> GpuSpec::*m) {
  Field f{n, FieldKind::text_list, Rule::any};
  f.list = m;
  return f;
}

std::string fmt(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

}  // namespace

const std::vector<Field>& fields() {
  static const std::vector<Field> k_fields = {
      text("id", &GpuSpec::id, Rule::non_empty),
      text("name", &GpuSpec::name, Rule::non_empty),
      text("architecture", &GpuSpec::architecture, Rule::non_empty),
      text("compute_capability", &GpuSpec::compute_capability, Rule::non_empty),
      text("segment", &GpuSpec::segment, Rule::non_empty),
      integer("sm_count", &GpuSpec::sm_count, Rule::positive),
      integer("fp32_lanes_per_sm", &GpuSpec::fp32_lanes_per_sm, Rule::positive),
      number("base_clock_mhz", &GpuSpec::base_clock_mhz, Rule::non_negative),
      number("boost_clock_mhz", &GpuSpec::boost_clock_mhz, Rule::positive),
      number("fp32_tflops", &GpuSpec::fp32_tflops, Rule::positive),
      number("fp16_tflops", &GpuSpec::fp16_tflops, Rule::non_negative),
      number("bf16_tflops", &GpuSpec::bf16_tflops, Rule::non_negative),
      number("fp64_tflops", &GpuSpec::fp64_tflops, Rule::non_negative),
      number("tensor_fp16_tflops", &GpuSpec::tensor_fp16_tflops, Rule::non_negative),
      number("tensor_fp16_fp16acc_tflops", &GpuSpec::tensor_fp16_fp16acc_tflops, Rule::non_negative),
      number("tensor_bf16_tflops", &GpuSpec::tensor_bf16_tflops, Rule::non_negative),
      number("tensor_tf32_tflops", &GpuSpec::tensor_tf32_tflops, Rule::non_negative),
      number("tensor_int8_tops", &GpuSpec::tensor_int8_tops, Rule::non_negative),
      number("int8_tops", &GpuSpec::int8_tops, Rule::non_negative),
      integer("tensor_cores", &GpuSpec::tensor_cores, Rule::non_negative),
      number("memory_gb", &GpuSpec::memory_gb, Rule::positive),
      text("memory_type", &GpuSpec::memory_type, Rule::non_empty),
      boolean("dram_ecc", &GpuSpec::dram_ecc),
      number("mem_bandwidth_gbps", &GpuSpec::mem_bandwidth_gbps, Rule::positive),
      number("l2_cache_mb", &GpuSpec::l2_cache_mb, Rule::positive),
      number("shared_mem_per_sm_kb", &GpuSpec::shared_mem_per_sm_kb, Rule::positive),
      integer("registers_per_sm", &GpuSpec::registers_per_sm, Rule::positive),
      integer("max_threads_per_sm", &GpuSpec::max_threads_per_sm, Rule::positive),
      number("tdp_w", &GpuSpec::tdp_w, Rule::positive),
      number("idle_power_w", &GpuSpec::idle_power_w, Rule::positive),
      boolean("unified_memory", &GpuSpec::unified_memory),
      integer("pcie_gen", &GpuSpec::pcie_gen, Rule::non_negative),
      integer("pcie_lanes", &GpuSpec::pcie_lanes, Rule::non_negative),
      number("host_link_gbps", &GpuSpec::host_link_gbps, Rule::non_negative),
      text("parent_id", &GpuSpec::parent_id, Rule::any),
      text("mig_profile", &GpuSpec::mig_profile, Rule::any),
      text("power_mode", &GpuSpec::power_mode, Rule::any),
      number("sm_fraction", &GpuSpec::sm_fraction, Rule::positive),
      number("power_limit_w", &GpuSpec::power_limit_w, Rule::non_negative),
      list("assumptions", &GpuSpec::assumptions),
      list("sources", &GpuSpec::sources),
  };
  return k_fields;
}

const Field* find_field(std::string_view name) {
  for (const auto& f : fields())
    if (name == f.name) return &f;
  return nullptr;
}

namespace {

// No GPU field is near these: a value past them (a rate of 5e-324 TFLOP/s, 1e17 GB of memory) is a typo,
// and would make every derived time, energy and plot axis span hundreds of decades.
constexpr double k_min_positive_value = 1e-6;
constexpr double k_max_field_value = 1e9;

void check_rule(const Field& f, double v, const std::string& where) {
  if (f.rule == Rule::positive && !(v > 0))
    throw InputError(where + ": field '" + f.name + "' must be greater than 0, got " + fmt(v));
  if (v > k_max_field_value)
    throw InputError(where + ": field '" + f.name + "' is " + fmt(v) + ", over the limit of " + fmt(k_max_field_value));
  if (v > 0 && v < k_min_positive_value)
    throw InputError(where + ": field '" + f.name + "' is " + fmt(v) + ", below the smallest value a device has (" +
                     fmt(k_min_positive_value) + "); use 0 when the device lacks the path");
  if (f.rule == Rule::non_negative && v < 0)
    throw InputError(where + ": field '" + f.name + "' must not be negative, got " + fmt(v) +
                     " (use 0 when the device lacks the path)");
}

}  // namespace

void read_field(const nlohmann::json& j, const Field& f, GpuSpec& s, const std::string& where) {
  const std::string w = where + ": field '" + f.name + "'";
  if (j.is_null()) throw InputError(w + " is null; give a value or leave the key out");
  switch (f.kind) {
    case FieldKind::text:
      if (!j.is_string()) throw InputError(w + " must be a string, got " + json_excerpt(j));
      if (f.rule == Rule::non_empty && j.get<std::string>().empty()) throw InputError(w + " must not be empty");
      s.*f.text = j.get<std::string>();
      return;
    case FieldKind::boolean:
      if (!j.is_boolean()) throw InputError(w + " must be true or false, got " + json_excerpt(j));
      s.*f.boolean = j.get<bool>();
      return;
    case FieldKind::text_list:
      if (!j.is_array()) throw InputError(w + " must be a list of strings");
      (s.*f.list).clear();
      for (const auto& e : j) {
        if (!e.is_string()) throw InputError(w + " must be a list of strings, got element " + json_excerpt(e));
        (s.*f.list).push_back(e.get<std::string>());
      }
      return;
    case FieldKind::integer:
    case FieldKind::number: {
      if (!j.is_number())
        throw InputError(w + " must be a finite number, got " + json_excerpt(j) +
                         (j.is_string() ? " (write numbers without quotes; NaN is not accepted)" : ""));
      double v = j.get<double>();
      if (!std::isfinite(v)) throw InputError(w + " must be a finite number, got " + fmt(v));
      check_rule(f, v, where);
      if (f.kind == FieldKind::integer) {
        if (v != std::floor(v) || std::abs(v) > 2e9) throw InputError(w + " must be a whole number, got " + json_excerpt(j));
        s.*f.integer = static_cast<int>(v);
      } else {
        s.*f.number = v;
      }
      return;
    }
  }
}

void validate_spec(const GpuSpec& s, const std::string& where) {
  for (const auto& f : fields()) {
    double v = 0;
    if (f.kind == FieldKind::integer) v = s.*f.integer;
    else if (f.kind == FieldKind::number) v = s.*f.number;
    else if (f.kind == FieldKind::text) {
      if (f.rule == Rule::non_empty && (s.*f.text).empty())
        throw InputError(where + ": missing required field '" + f.name + "'");
      continue;
    } else {
      continue;
    }
    if (!std::isfinite(v)) throw InputError(where + ": field '" + f.name + "' must be a finite number");
    if (f.rule == Rule::positive && !(v > 0)) {
      throw InputError(where + ": " + (v == 0 ? "missing or zero" : "negative") + " required field '" + f.name +
                       "' (must be greater than 0)");
    }
    check_rule(f, v, where);
  }
  if (s.idle_power_w > s.tdp_w)
    throw InputError(where + ": field 'idle_power_w' (" + fmt(s.idle_power_w) + " W) exceeds 'tdp_w' (" +
                     fmt(s.tdp_w) + " W)");
  if (s.sm_fraction > 1.0) throw InputError(where + ": field 'sm_fraction' must be at most 1");
  if (!s.unified_memory && (s.host_link_gbps <= 0))
    throw InputError(where + ": field 'host_link_gbps' must be greater than 0 for a device with its own memory "
                     "(set \"unified_memory\": true for an integrated GPU)");
  if (s.unified_memory && s.host_link_gbps != 0)
    throw InputError(where + ": field 'host_link_gbps' must be 0 when 'unified_memory' is true");
}

nlohmann::json field_json(const GpuSpec& s, const Field& f) {
  switch (f.kind) {
    case FieldKind::text: return s.*f.text;
    case FieldKind::integer: return s.*f.integer;
    case FieldKind::number: return s.*f.number;
    case FieldKind::boolean: return s.*f.boolean;
    case FieldKind::text_list: return s.*f.list;
  }
  return nullptr;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> closest(const std::string& word, const std::vector<std::string>& candidates, size_t n) {
  std::vector<std::pair<size_t, std::string>> scored;
  const std::string w = to_lower(word);
  for (const auto& c : candidates) scored.emplace_back(edit_distance(w, to_lower(c)), c);
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(scored[i].second);
  return out;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  auto best = closest(word, candidates, 1);
  if (best.empty()) return "";
  size_t d = edit_distance(to_lower(word), to_lower(best[0]));
  if (d > std::max<size_t>(2, word.size() / 2)) return "";
  return " (did you mean '" + best[0] + "'?)";
}

const std::vector<ArchDefaults>& arch_table() {
  // cc, name, smem KB, regs, threads, L2 MB/SM, lanes, TC/SM, TC FP16 flop/clk/SM, fp16, bf16, fp64,
  // int32 lanes (dp4a), tensor int8, W per FP32 TFLOPS.
  static const std::vector<ArchDefaults> k_table = {
      {"5.2", "Maxwell", 96, 65536, 2048, 0.125, 128, 0, 0, 1.0 / 64, 0, 1.0 / 32, 0, false, 35},
      {"5.3", "Maxwell", 64, 65536, 2048, 0.25, 128, 0, 0, 2, 0, 1.0 / 32, 0, false, 35},
      {"6.0", "Pascal", 64, 65536, 2048, 0.0714, 64, 0, 0, 2, 0, 0.5, 0, false, 24},
      {"6.1", "Pascal", 96, 65536, 2048, 0.1, 128, 0, 0, 1.0 / 64, 0, 1.0 / 32, 128, false, 20},
      {"6.2", "Pascal", 64, 65536, 2048, 0.25, 128, 0, 0, 2, 0, 1.0 / 32, 128, false, 20},
      {"7.0", "Volta", 96, 65536, 2048, 0.075, 64, 8, 1024, 2, 0, 0.5, 64, false, 16},
      {"7.2", "Volta", 96, 65536, 2048, 0.0833, 64, 8, 1024, 2, 0, 1.0 / 32, 64, true, 16},
      {"7.5", "Turing", 64, 65536, 1024, 0.08, 64, 8, 1024, 2, 0, 1.0 / 32, 64, true, 15},
      {"8.0", "Ampere", 164, 65536, 2048, 0.37, 64, 4, 2048, 4, 2, 0.5, 64, true, 12},
      {"8.6", "Ampere", 100, 65536, 1536, 0.075, 128, 4, 1024, 1, 1, 1.0 / 64, 64, true, 8},
      {"8.7", "Ampere", 164, 65536, 1536, 0.25, 128, 4, 2048, 2, 1, 1.0 / 64, 64, true, 8},
      {"8.9", "Ada Lovelace", 100, 65536, 1536, 0.5625, 128, 4, 1024, 1, 1, 1.0 / 64, 64, true, 4.5},
      {"9.0", "Hopper", 228, 65536, 2048, 0.38, 128, 4, 4096, 2, 2, 0.5, 64, true, 8},
  };
  return k_table;
}

const ArchDefaults* arch_by_cc(std::string_view cc) {
  for (const auto& a : arch_table())
    if (cc == a.compute_capability) return &a;
  return nullptr;
}

const ArchDefaults* arch_by_name(std::string_view name) {
  std::string n = to_lower(trim(name));
  const char* cc = nullptr;
  if (n == "maxwell") cc = "5.2";
  else if (n == "pascal") cc = "6.1";
  else if (n == "volta") cc = "7.0";
  else if (n == "turing") cc = "7.5";
  else if (n == "ampere") cc = "8.0";
  else if (n == "ada" || n == "ada lovelace" || n == "lovelace") cc = "8.9";
  else if (n == "hopper") cc = "9.0";
  return cc ? arch_by_cc(cc) : nullptr;
}

}  // namespace perfpred::hw_detail
