#pragma once
/// JSON serialisation of predictions, shared by every subcommand that prints one. Keys equal the C++
/// field names; the output is deterministic (sorted keys, no timestamps).
#include <nlohmann/json.hpp>

#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::report {

/// A whole prediction: totals, breakdown, memory, notes and layers; kernels only when asked (they can
/// number thousands in training mode).
nlohmann::json to_json(const Prediction& p, bool include_kernels = false);
/// The headline numbers only (latency, throughput, energy, power, memory, fit).
nlohmann::json summary_json(const Prediction& p);
/// One layer.
nlohmann::json to_json(const LayerPrediction& l);
/// One kernel with its analytical terms.
nlohmann::json to_json(const KernelEstimate& k);
/// The few device fields a verdict needs to be read on its own (id, name, memory, bandwidth, SMs).
nlohmann::json device_brief_json(const GpuSpec& g);
/// A finite double, or null for NaN/inf (JSON has no NaN).
nlohmann::json number_or_null(double v);

}  // namespace perfpred::report
