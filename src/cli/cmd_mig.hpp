#pragma once
// `perfpred mig MODEL.onnx --gpu ID`: predict every MIG profile of a GPU and recommend one.
#include <optional>
#include <string>
#include <vector>

namespace perfpred::cli {

struct MigCliOptions {
  std::string model;
  std::string gpu;
  std::optional<double> slo_ms;
  double memory_headroom = 0.10;
  long long batch = 1;
  std::string precision = "fp32";
  std::string mode = "inference";
  std::string runtime = "pytorch";
  std::string optimizer;
  std::vector<std::string> input_shapes;
  bool max_batch = false;
  long long max_batch_limit = 65536;
  bool allow_unknown = false;
  std::string bundle;
  bool analytical = false;
  bool json = false;
};

/// 0: a profile is recommended; 1: none fits/meets the SLO; InputError (2) on bad input.
int run_mig(const MigCliOptions& opts);

}  // namespace perfpred::cli
