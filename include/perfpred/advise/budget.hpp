#pragma once
/// Performance budgets for CI: a file of {model, device, settings, limits} entries, checked against
/// predictions. Format: docs/formats.md ("Budget files"). The verdict is deterministic: the same
/// inputs give byte-identical JSON; run metadata lives in a separate "meta" field.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/advise/model.hpp"
#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::advise {

/// Limits of one entry; at least one is set. peak_memory_bytes and peak_memory_fraction exclude each other.
struct BudgetLimits {
  std::optional<double> latency_ms;
  std::optional<double> min_throughput_samples_per_s;
  std::optional<double> peak_memory_bytes;
  std::optional<double> peak_memory_fraction;  ///< of the device's memory, in (0, 1]
  std::optional<double> energy_mj;
  std::optional<double> avg_power_w;  ///< the average board power over the iteration (predict's avg_power_w)
  /// The high end of the latency's range (predict's latency_range_ms.high): where the prediction must hold on
  /// a machine nobody measured, not only on the model's reference one.
  std::optional<double> latency_range_high_ms;
  /// The high ends of the energy's and the average power's ranges (predict's energy_range_mj.high and
  /// power_range_w.high), likewise.
  std::optional<double> energy_range_high_mj;
  std::optional<double> power_range_high_w;
};

/// One entry as written in the file (paths as given, resolved against the file's directory).
struct BudgetEntry {
  size_t index = 0;
  std::string name;
  std::string model;               ///< as written
  std::filesystem::path model_path;  ///< resolved
  std::string gpu;                 ///< id, or a spec path as written
  int64_t batch = 1;
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::map<std::string, std::string> branches;  ///< If name -> "then" | "else" (key `branches`, as --branch)
  std::map<std::string, int64_t> loop_trips;    ///< Loop/Scan name -> iterations (key `loop_trips`, as --loop-trips)
  std::map<std::string, int64_t> dims;          ///< symbolic input dim -> value (key `dims`, as --dim)
  /// Data-dependent node -> output length, "*" for every such node (key `data_counts`, as --data-count)
  std::map<std::string, int64_t> data_counts;
  /// NonMaxSuppression -> boxes per image and class over its score threshold, "*" for every such node (key
  /// `nms_candidates`, as --nms-candidates)
  std::map<std::string, int64_t> nms_candidates;
  PredictOptions options;          ///< batch, precision, mode, runtime, optimizer
  BudgetLimits limits;
  /// "budgets.json: entries[2] (\"resnet50-jetson\")": the prefix of every message about this entry.
  std::string where;
};

struct BudgetFile {
  std::filesystem::path path;
  std::vector<BudgetEntry> entries;
};

/// Parse and validate a budget file. Throws InputError naming the file, the entry (index and name)
/// and the field: missing/unknown keys, wrong types, non-positive limits, duplicate names.
BudgetFile parse_budget_file(const std::filesystem::path& path);
/// Same, from a parsed document; `path` is used for messages and to resolve relative paths.
BudgetFile parse_budget_json(const nlohmann::json& j, const std::filesystem::path& path);

/// One limit of one entry.
struct BudgetCheck {
  /// "latency_ms", "min_throughput_samples_per_s", "peak_memory_bytes", "peak_memory_fraction", "energy_mj",
  /// "avg_power_w", "latency_range_high_ms", "energy_range_high_mj", "power_range_high_w"
  std::string limit;
  double value = 0;         ///< predicted (peak_memory_fraction: bytes)
  double limit_value = 0;   ///< the limit in the value's unit (peak_memory_fraction: fraction x device bytes)
  double margin_pct = 0;    ///< room left, % of the limit; negative when exceeded
  bool passed = false;
};

struct BudgetEntryResult {
  const BudgetEntry* entry = nullptr;
  GpuSpec gpu;
  int64_t batch = 1;  ///< the batch the model ran at: the entry's, unless its input_shapes or export fix another
  Prediction prediction;
  std::vector<BudgetCheck> checks;
  bool passed() const;
};

struct BudgetReport {
  std::vector<BudgetEntryResult> results;
  bool passed() const;
  size_t failed_entries() const;
};

/// Loads an entry's model (model_path) at its batch, input_shapes and control-flow overrides.
using ModelLoader = std::function<std::shared_ptr<const AnalyzedModel>(const BudgetEntry& entry)>;
/// Resolves a device id or spec path (relative to the budget file's directory).
using DeviceResolver = std::function<GpuSpec(const std::string& id_or_path)>;

/// Predict every entry and check its limits. Errors loading a model or device are rethrown as
/// InputError prefixed with the entry's `where`. `ranges`: the range table (models/latency-intervals.json) for
/// limits.latency_range_high_ms, energy_range_high_mj and power_range_high_w; an entry with such a limit and no
/// table, a learned corrector, or no range for its prediction is an InputError naming the entry and the limit.
BudgetReport check_budgets(const BudgetFile& file, const ModelLoader& load, const DeviceResolver& resolve,
                           const KernelCorrector* corrector = nullptr, const IntervalTable* ranges = nullptr);

/// The verdict as JSON (schema_version 1), without "meta".
nlohmann::json budget_verdict_json(const BudgetReport& r);
/// One human line per entry: "PASS name  latency 3.2 ms <= 5 ms (margin 36.0%); ...".
std::string budget_text(const BudgetReport& r);

}  // namespace perfpred::advise
