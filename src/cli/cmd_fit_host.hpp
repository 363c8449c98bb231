#pragma once
// `perfpred fit-host MODEL.onnx --gpu ID --measured-ms T [predict's options]`: the host factor
// (--host-factor) at which predict's latency equals one measured latency; `perfpred fit-gpu` the same for the
// GPU factor (--gpu-factor), from a GPU-bound measurement.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cmd_eval.hpp"
#include "cmd_predict.hpp"

namespace perfpred::cli {

struct FitHostCmdOptions {
  /// model, device and settings as predict takes them; the fitted factor's own field is unused, the other one
  /// (fit-host's --gpu-factor, fit-gpu's --host-factor) is held while the fit varies this one
  PredictCmdOptions predict;
  MachineFactor factor = MachineFactor::host;  ///< fit-host or fit-gpu
  double measured_ms = 0;           ///< the measured latency per batch (per step in training), ms
  std::vector<std::string> bundles;  ///< predict's --model
  bool analytical = false;
  bool json = false;
};

/// 0 with the fitted factor printed; InputError (2) where no factor in range ([0.1, 10] for the host, [0.25, 4]
/// for the GPU) matches the measurement, or where the GPU factor would be fitted on a host-bound measurement.
int run_fit_host(const FitHostCmdOptions& opts);

/// The document `fit-host --json` (or `fit-gpu --json`) prints.
nlohmann::json fit_host_document(const FitHostCmdOptions& opts);

}  // namespace perfpred::cli
