#pragma once
// `perfpred select MODEL.onnx --devices ID,... | --all`: rank devices under constraints.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "predict_choices.hpp"

namespace perfpred::cli {

/// The shared prediction options come from PredictChoices.
struct SelectCliOptions : PredictChoices {
  std::string model;
  std::vector<std::string> devices;  ///< ids or spec paths (comma-separated values are split)
  bool all = false;
  std::optional<double> max_latency_ms;
  std::optional<double> max_power_w;
  std::optional<double> min_memory_headroom;
  std::optional<double> max_latency_range_high_ms;  ///< the latency range's high end (analytical, shipped table)
  std::optional<double> max_power_range_high_w;     ///< the average power range's high end
  std::string objective = "latency";
  std::string prices;
  bool json = false;
};

/// 0: at least one device meets every constraint; 1: none does; InputError (2) on bad input.
int run_select(const SelectCliOptions& opts);

/// The document `select --json` prints (the Python module's select()); no device ranked is not an error here.
nlohmann::json select_document(const SelectCliOptions& opts);

}  // namespace perfpred::cli
