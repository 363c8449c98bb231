#pragma once
/// The ranges a prediction carries: how far measurements on machines the model never saw fell from the
/// analytical model's prediction of the same kind (latency per regime; energy and average power pooled).
/// tools/fit_intervals.py fits them on the held-out rows of scripts/eval_analytical.sh (quantiles of measured /
/// predicted per regime, the tail mass chosen so that machines left out of the fit fall inside at the nominal
/// rate) and writes models/latency-intervals.json.
/// A regime is the engine (PyTorch eager issues one host call per op; a captured CUDA graph or a TensorRT
/// engine does not), the exposed host share of the predicted latency, and the mode.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/predict/predictor.hpp"

namespace perfpred {

/// The shipped table's file name under model_dir().
inline constexpr const char* k_interval_file = "latency-intervals.json";

/// measured / predicted bounds of one regime and the held-out rows they were fitted on.
struct IntervalRegime {
  int rows = 0;
  double low = 1;
  double high = 1;
  /// The share of left-out machines' rows scored under this regime that fell inside its range (the tail was
  /// chosen on it), and how many; -1 and 0 where the table has none for the regime (a fallback level).
  double left_out_coverage = -1;
  int left_out_rows = 0;
};

/// The ranges of one further quantity (energy, average power): regimes "all" and, where fitted, per mode.
struct MetricRanges {
  int machines = 0;              ///< machines (set, GPU, measuring machine) the held-out rows came from
  double held_out_coverage = 0;  ///< pooled leave-one-machine-out coverage
  std::map<std::string, IntervalRegime> regimes;
};

struct IntervalTable {
  double nominal_coverage = 0;   ///< the share of held-out measurements each regime's range aims to hold (0.8)
  double held_out_coverage = 0;  ///< the share they held pooled, each machine scored with ranges fitted without it
  double tail_mass = 0;          ///< quantile level of the fallback regimes' low bounds (the high at 1 - tail_mass)
  std::vector<double> host_share_bins;  ///< ascending edges of the exposed host share: gpu-bound | mixed | host-bound
  std::map<std::string, IntervalRegime> regimes;  ///< "eager/host-bound/inference", "eager/host-bound", "eager", ...
  /// Ranges of predictions made with a host factor (the machine's host timed: predict --host-factor), fitted on
  /// held-out rows predicted at their machines' fitted factors; host-bound regimes only ("eager/host-bound/..."),
  /// empty where the table has no "host_calibrated" section. A prediction with a factor in another regime, or
  /// where this has none for it, takes `regimes`.
  std::map<std::string, IntervalRegime> host_calibrated;
  double host_calibrated_coverage = 0;  ///< pooled leave-one-machine-out coverage of host_calibrated's rows
  /// The same for predictions made with a GPU factor (predict --gpu-factor, the machine's GPU timed): held-out rows
  /// predicted at their machines' fitted host and GPU factors, GPU-bound regimes only ("eager/gpu-bound/..."); empty
  /// where the table has no "gpu_calibrated" section.
  std::map<std::string, IntervalRegime> gpu_calibrated;
  double gpu_calibrated_coverage = 0;  ///< pooled leave-one-machine-out coverage of gpu_calibrated's rows
  /// Energy and average power ranges ("energy_mj" and "power_w" sections), where the table has them.
  std::optional<MetricRanges> energy;
  std::optional<MetricRanges> power;
};

/// A prediction's range of one quantity, in that quantity's unit (ms, mJ, W).
struct PredictionRange {
  double low = 0;
  double high = 0;
  /// The table's regime it came from (the most specific one the table has); "host-calibrated/" before it where
  /// the range is one of the table's host_calibrated ranges.
  std::string regime;
  int rows = 0;        ///< held-out rows behind that regime
  double nominal_coverage = 0;
  /// The regime's own left-out coverage where the table has it, else the table's pooled one.
  double held_out_coverage = 0;
  int machines = 0;  ///< machines the held-out rows came from, where the table says (energy and power)
  /// An average-power range whose ends were held at the board's power limit (a board cannot average more than
  /// its limit): that limit, W; 0 where nothing was held.
  double capped_at_w = 0;
};

/// Parse a table; `label` names the file in errors (with the field at fault).
IntervalTable interval_table_from_json(const nlohmann::json& j, const std::string& label);
/// Read and parse the table at `path` (InputError naming the file and the field).
IntervalTable load_interval_table(const std::filesystem::path& path);

/// The regime names a prediction falls in, most specific first: engine/bin/mode, engine/bin, engine.
std::vector<std::string> interval_regimes(const IntervalTable& t, const Prediction& p, const PredictOptions& o);

/// The range of `p` (predicted with `o`) from the most specific regime `t` has (its host_calibrated ranges
/// first where `o` has a host factor other than 1); none where `t` has no regime for it or the prediction has
/// no positive latency.
std::optional<PredictionRange> latency_range(const IntervalTable& t, const Prediction& p, const PredictOptions& o);
/// The range of `p`'s energy per iteration (of its average power) from the table's energy (power) section, in
/// the regime of `o`'s mode where the table has one, else "all"; none without the section or a positive value.
std::optional<PredictionRange> energy_range(const IntervalTable& t, const Prediction& p, const PredictOptions& o);
/// `cap_w` > 0: the board's power limit (power_range_cap_w), at which the power range's ends are held.
std::optional<PredictionRange> power_range(const IntervalTable& t, const Prediction& p, const PredictOptions& o,
                                           double cap_w = 0);
/// The most a prediction's average power can be on `gpu`: its board power limit (the TDP, a set limit or a
/// Jetson power mode's budget); 0 (no cap) for a MIG slice, whose share of the board's power is the model's
/// split, not a limit the slice is held to, and for a spec without tdp_w.
double power_range_cap_w(const GpuSpec& gpu);

}  // namespace perfpred
