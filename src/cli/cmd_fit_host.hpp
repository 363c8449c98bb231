#pragma once
// `perfpred fit-host MODEL.onnx --gpu ID --measured-ms T [predict's options]`: the host factor
// (--host-factor) at which predict's latency equals one measured latency.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cmd_predict.hpp"

namespace perfpred::cli {

struct FitHostCmdOptions {
  PredictCmdOptions predict;        ///< model, device and settings as predict takes them (host_factor unused)
  double measured_ms = 0;           ///< the measured latency per batch (per step in training), ms
  std::vector<std::string> bundles;  ///< predict's --model
  bool analytical = false;
  bool json = false;
};

/// 0 with the fitted factor printed; InputError (2) where no factor in [0.1, 10] matches the measurement.
int run_fit_host(const FitHostCmdOptions& opts);

/// The document `fit-host --json` prints.
nlohmann::json fit_host_document(const FitHostCmdOptions& opts);

}  // namespace perfpred::cli
