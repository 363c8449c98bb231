#pragma once
// `perfpred inspect MODEL.onnx`: import a model and print per-layer shapes and costs.
#include <string>
#include <vector>

namespace perfpred::cli {

struct InspectOptions {
  std::string model;                     ///< path of the .onnx file
  long long batch = 1;                   ///< value of each runtime input's leading symbolic dim
  std::vector<std::string> input_shapes; ///< repeated NAME=D0,D1,...
  std::vector<std::string> branches;     ///< --branch NAME=then|else
  std::vector<std::string> loop_trips;   ///< --loop-trips NAME=N
  std::vector<std::string> dims;         ///< --dim NAME=N (symbolic dims by name)
  std::vector<std::string> data_counts;  ///< --data-count [NAME=]N (data-dependent output sizes)
  std::vector<std::string> nms_candidates;  ///< --nms-candidates [NAME=]K (boxes over an NMS score threshold)
  bool json = false;                     ///< one JSON object on stdout instead of the table
  bool allow_unknown = false;            ///< unknown ops become flagged bytes-only estimates
};

/// Returns the process exit code; throws InputError on bad input.
int run_inspect(const InspectOptions& opts);

}  // namespace perfpred::cli
