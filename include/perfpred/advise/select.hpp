#pragma once
/// Device selection: predict a model on candidate devices, reject those that break a constraint
/// (naming it), and rank the rest by an objective.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "perfpred/advise/model.hpp"
#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::advise {

/// What to rank by. cost = USD per million samples (needs prices); throughput_per_watt = samples per
/// joule; latency and energy per batch. latency, energy and cost rank ascending, throughput_per_watt
/// descending.
enum class Objective { latency, energy, cost, throughput_per_watt };
std::string to_string(Objective o);
/// Throws InputError naming the accepted values.
Objective objective_from_string(const std::string& s);

struct SelectConstraints {
  std::optional<double> max_latency_ms;
  std::optional<double> max_power_w;          ///< predicted average power during the run
  std::optional<double> min_memory_headroom;  ///< free share of device memory at peak, in [0, 1)
  /// The high ends of the latency and average-power ranges (docs/accuracy.md, "Latency ranges"): a device is kept
  /// only where machines left out of the fit would still have met the limit. They need the range table and the
  /// analytical model (the ranges describe its held-out errors).
  std::optional<double> max_latency_range_high_ms;
  std::optional<double> max_power_range_high_w;
  bool uses_ranges() const { return max_latency_range_high_ms || max_power_range_high_w; }
};

/// Prices in USD per hour by device id (prices.json, docs/formats.md).
using PriceTable = std::map<std::string, double>;
/// Parse {"schema_version": 1, "prices_usd_per_hour": {"id": price, ...}}; throws InputError naming
/// the file and key for a missing version, an unknown key, or a price that is not a positive number.
PriceTable parse_prices(const nlohmann::json& j, const std::string& label);
PriceTable load_prices(const std::filesystem::path& path);

/// One device's verdict.
struct SelectCandidate {
  GpuSpec gpu;
  Prediction prediction;
  double memory_headroom = 0;  ///< (capacity - peak) / capacity; negative when it does not fit
  std::optional<double> price_usd_per_hour;
  std::optional<double> cost_usd_per_million_samples;
  double samples_per_joule = 0;
  double objective_value = 0;
  /// The prediction's ranges, where select_devices() was given a range table and predicted analytically.
  std::optional<PredictionRange> latency_range, energy_range, power_range;
  std::vector<std::string> violations;  ///< one line per broken constraint; empty = accepted
  int rank = 0;                         ///< 1 = best; 0 when rejected
  bool accepted() const { return violations.empty(); }
};

struct SelectResult {
  Objective objective = Objective::latency;
  std::vector<SelectCandidate> ranked;    ///< accepted, best first
  std::vector<SelectCandidate> rejected;  ///< in input order
};

/// The input checks of select_devices() alone (before any model is imported): `learned` says a learned bundle
/// predicts and `ranges` whether a range table is there (the range limits need none of the first, the second).
void validate_selection(const std::vector<GpuSpec>& devices, const SelectConstraints& constraints, Objective objective,
                        const PriceTable* prices, bool learned = false, bool ranges = false);

/// Predict on every device and rank. Throws InputError for a non-positive constraint, for
/// --objective cost without prices, or for a device without a price (naming it). With `ranges` (and no
/// corrector) each candidate carries its ranges; a range limit whose range the table lacks for a device is an
/// InputError naming the device.
SelectResult select_devices(const AnalyzedModel& model, const std::vector<GpuSpec>& devices, const PredictOptions& opts,
                            const SelectConstraints& constraints, Objective objective, const PriceTable* prices = nullptr,
                            const KernelCorrector* corrector = nullptr, const IntervalTable* ranges = nullptr);

}  // namespace perfpred::advise
