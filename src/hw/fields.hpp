#pragma once
// Internal to the hw module: the one table of GpuSpec JSON fields, strict readers, architecture
// defaults for spec files, and the "did you mean" helper.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/hw/gpu_spec.hpp"

namespace perfpred::hw_detail {

enum class FieldKind { text, integer, number, boolean, text_list };
/// How a catalog entry constrains a field: required > 0, >= 0 (0 = the device lacks the path), or free.
enum class Rule { positive, non_negative, non_empty, any };

struct Field {
  const char* name;
  FieldKind kind;
  Rule rule;
  std::string GpuSpec::*text = nullptr;
  int GpuSpec::*integer = nullptr;
  double GpuSpec::*number = nullptr;
  bool GpuSpec::*boolean = nullptr;
  std::vector<std::string> GpuSpec::*list = nullptr;
};

/// Every GpuSpec field, in declaration order.
const std::vector<Field>& fields();
const Field* find_field(std::string_view name);

/// Read one field of `j` into `s`, strictly (type, finiteness, the field's rule unless `rule_override`).
/// `where` names the file for messages.
void read_field(const nlohmann::json& j, const Field& f, GpuSpec& s, const std::string& where);
/// Check every field's rule and cross-field consistency on a finished spec.
void validate_spec(const GpuSpec& s, const std::string& where);
/// Value of a field as JSON.
nlohmann::json field_json(const GpuSpec& s, const Field& f);

/// Levenshtein distance (ASCII, case-sensitive).
size_t edit_distance(std::string_view a, std::string_view b);
/// Up to `n` candidates closest to `word`, nearest first (ties by name).
std::vector<std::string> closest(const std::string& word, const std::vector<std::string>& candidates, size_t n);
/// " (did you mean 'x'?)" when a candidate is close enough, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// Per-compute-capability defaults used to complete spec files (values from
/// ../shared/reference/gpu-specs.md, "Per-compute-capability limits" and "Notes for performance modeling").
struct ArchDefaults {
  const char* compute_capability;
  const char* architecture;
  double shared_mem_per_sm_kb;
  int registers_per_sm;
  int max_threads_per_sm;
  double l2_mb_per_sm;            ///< typical L2 per SM of the family
  int fp32_lanes_per_sm;
  int tensor_cores_per_sm;        ///< 0 when the family has none
  double tensor_fp16_flop_per_clk_per_sm;  ///< dense, FP32 accumulate (datacenter rate)
  double fp16_ratio;              ///< non-tensor FP16 / FP32
  double bf16_ratio;              ///< non-tensor BF16 / FP32 (0: none)
  double fp64_ratio;
  int int32_lanes_per_sm;         ///< dp4a runs there; 0 when the family has no dp4a
  bool tensor_int8;               ///< tensor cores run INT8 (Turing, Xavier and later)
  double watts_per_fp32_tflop;    ///< TDP heuristic, see docs/gpus.md
};
const std::vector<ArchDefaults>& arch_table();
const ArchDefaults* arch_by_cc(std::string_view cc);
/// Architecture names ("Ampere", "Ada Lovelace"/"Ada", ...), case-insensitive; the family's default CC row.
const ArchDefaults* arch_by_name(std::string_view name);

}  // namespace perfpred::hw_detail
