#pragma once
// `perfpred predict MODEL.onnx --gpu ID|SPEC.json [...]`: latency, throughput, energy and memory.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred {
struct Graph;
struct GraphCost;
}  // namespace perfpred

namespace perfpred::cli {

struct PredictCmdOptions {
  std::string model;        ///< path of the .onnx file, or the label of model_bytes in messages
  std::string model_bytes;  ///< a serialized ModelProto to import instead of the file (the Python module)
  std::string gpu;
  int64_t batch = 1;
  bool batch_given = false;               ///< --batch was on the command line (not the default)
  std::vector<std::string> input_shapes;  ///< NAME=D0,D1,...
  std::vector<std::string> branches;      ///< --branch NAME=then|else
  std::vector<std::string> loop_trips;    ///< --loop-trips NAME=N
  std::vector<std::string> dims;          ///< --dim NAME=N (symbolic dims by name)
  std::vector<std::string> data_counts;   ///< --data-count [NAME=]N (data-dependent output sizes)
  std::vector<std::string> nms_candidates;  ///< --nms-candidates [NAME=]K (boxes over an NMS score threshold)
  std::string precision = "fp32";
  std::string mode = "inference";
  std::string optimizer = "sgd";
  std::string runtime = "pytorch";
  bool layers = false;
  bool json = false;
  bool allow_unknown = false;
  bool allow_partial = false;  ///< predict even when working nodes have unknown shapes ("complete": false)
  bool no_meta = false;
  bool no_copies = false;  ///< leave host<->device copies out of the latency
  bool pageable_copies = false;  ///< --pageable-copies: the copies move pageable memory (PredictOptions::pageable_copies)
  double host_factor = 1;  ///< --host-factor: this machine's host CPU time over the reference machine's
  double gpu_factor = 1;   ///< --gpu-factor: this machine's GPU kernel time over the model's
  bool no_tf32 = false;    ///< --no-tf32: FP32 convolutions stay on FP32 math (allow_tf32 = False)
  bool cuda_graphs = false;  ///< --cuda-graphs: the iteration replayed as a captured CUDA graph
  bool grad_mode = false;    ///< --grad-mode: inference records autograd (PredictOptions::grad_mode)
  int launch_queue = 0;      ///< --launch-queue N: kernels the host may issue ahead of the GPU (0: no limit)
  bool channels_last = false;  ///< --channels-last: NHWC tensors (PredictOptions::channels_last)
  std::string attention = "sdpa";  ///< --attention sdpa|math: PyTorch eager's attention (PredictOptions::fused_attention)
  /// --param-updates foreach|loop: PyTorch eager training's parameter updates (PredictOptions::foreach_updates)
  std::string param_updates = "foreach";
  /// --mixed-precision amp|half: how PyTorch trains at fp16/bf16 (PredictOptions::autocast)
  std::string mixed_precision = "amp";
};

/// Applied to the prediction before it is printed (energy and memory bundles); gets what predict() got.
using PredictionHook =
    std::function<void(Prediction&, const Graph&, const GraphCost&, const GpuSpec&, const PredictOptions&)>;

/// Which predictor made each part of a prediction (`predict --json` "predictor"), and why.
struct PredictorChoice {
  struct Part {
    std::string part;       ///< "kernels", "host"
    bool learned = false;
    std::string rule;       ///< the bundle policy's rule that decided, or ""
    std::string evidence;   ///< held-out figures or the reason
  };
  std::string bundle;       ///< the bundle consulted ("" when none)
  std::vector<Part> parts;  ///< empty: not reported (subcommands other than predict)
};

/// One prediction with what its JSON and text need: `shown` is the options with the batch the model ran at.
struct PredictRun {
  Prediction prediction;
  GpuSpec gpu;
  PredictCmdOptions shown;
  std::string model_name;  ///< the model file's stem
  PredictorChoice predictor;
  /// The latency's range from the shipped table (latency_range), where the analytical model predicted it.
  std::optional<PredictionRange> latency_range;
  std::string latency_range_note;  ///< why there is no range, where predict reports one and there is none
  /// Energy and average power ranges from the same table, under the same conditions (the table's energy_mj and
  /// power_w sections; none where it has no such section).
  std::optional<PredictionRange> energy_range;
  std::optional<PredictionRange> power_range;
};

/// Validate the options, import and cost the model, predict. Throws InputError on bad input.
PredictRun compute_predict(const PredictCmdOptions& opts, const KernelCorrector* corrector = nullptr,
                           const PredictionHook& after = {});

/// The document `predict --json` prints: prediction_json() plus "meta" unless shown.no_meta.
nlohmann::json predict_document(const PredictRun& run);

/// Print a prediction as `predict` does (JSON with --json, else text).
int print_predict(const PredictRun& run);

/// Run a prediction and print it. `corrector` (a learned bundle) may be null: analytical model alone.
int run_predict(const PredictCmdOptions& opts, const KernelCorrector* corrector = nullptr,
                const PredictionHook& after = {});

/// The JSON document `predict --json` prints (without "meta"); shared with other subcommands.
nlohmann::json prediction_json(const Prediction& p, const PredictCmdOptions& opts, const std::string& model_name,
                               const std::string& gpu_id);

}  // namespace perfpred::cli
