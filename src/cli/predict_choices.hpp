#pragma once
// The prediction options every decision subcommand shares (mig, select, sweep, report, diff), as given on
// the command line; main.cpp registers them once and cli::support::predict_options() parses them.
#include <string>
#include <vector>

namespace perfpred::cli {

struct PredictChoices {
  long long batch = 1;
  std::string precision = "fp32";
  std::string mode = "inference";
  std::string runtime = "pytorch";
  std::string optimizer;                  ///< empty: the predictor's default
  double host_factor = 1;                ///< --host-factor: host CPU time over the reference machine's
  double gpu_factor = 1;                 ///< --gpu-factor: GPU kernel time over the model's
  std::vector<std::string> input_shapes;  ///< NAME=D0,D1,...
  std::vector<std::string> branches;      ///< --branch NAME=then|else
  std::vector<std::string> loop_trips;    ///< --loop-trips NAME=N
  std::vector<std::string> dims;          ///< --dim NAME=N (symbolic dims by name)
  std::vector<std::string> data_counts;   ///< --data-count [NAME=]N (data-dependent output sizes)
  std::vector<std::string> nms_candidates;  ///< --nms-candidates [NAME=]K (boxes over an NMS score threshold)
  bool allow_unknown = false;
  bool allow_partial = false;             ///< predict even when working nodes have unknown shapes
  std::string bundle;                     ///< learned latency bundle (`default`: the shipped one); empty: none
  bool analytical = false;
  bool no_tf32 = false;                   ///< --no-tf32: FP32 convolutions stay on FP32 math (allow_tf32 = False)
  bool cuda_graphs = false;               ///< --cuda-graphs: the iteration replayed as a captured CUDA graph
  bool grad_mode = false;                 ///< --grad-mode: inference records autograd (PredictOptions::grad_mode)
  int launch_queue = 0;                   ///< --launch-queue N (PredictOptions::launch_queue; 0: no limit)
  bool channels_last = false;             ///< --channels-last: NHWC tensors (PredictOptions::channels_last)
  std::string attention = "sdpa";         ///< --attention sdpa|math (PredictOptions::fused_attention)
  std::string param_updates = "foreach";  ///< --param-updates foreach|loop (PredictOptions::foreach_updates)
  std::string mixed_precision = "amp";    ///< --mixed-precision amp|half (PredictOptions::autocast)
};

}  // namespace perfpred::cli
