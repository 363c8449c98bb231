#pragma once
// `perfpred train --data PATH... --out BUNDLE [...]`: fit a learned bundle on measured data sets.
#include <string>
#include <vector>

#include "perfpred/learn/train.hpp"

namespace perfpred::cli {

struct TrainCmdOptions {
  std::vector<std::string> data;
  std::string out;
  std::string target = "latency";
  std::string kernel_target = "efficiency";  ///< efficiency | ratio
  std::vector<std::string> holdout_gpus;
  std::vector<std::string> holdout_families;
  int rounds = 300;
  int max_depth = 6;
  double eta = 0.08;
  int threads = 2;
  int seed = 0;
  double network_fraction = 1.0;
  bool allow_unlicensed_eval = false;
  std::string name;
  double kernel_blend = learn::k_default_kernel_blend;  ///< efficiency boosters against the analytical time
  double min_host_sensitivity = 0.25;  ///< host-overhead rows: latency share moved by doubling the host cost
  std::vector<std::string> drop_features;  ///< feature names or prefixes ending in '*' left out of training
  std::string base;  ///< reuse the kernel boosters of this latency bundle
  std::string policy;  ///< JSON file ({"rules": [...]}) embedded as the bundle's policy (learn/policy.hpp)
  bool json = false;
};

int run_train(const TrainCmdOptions& opts);

}  // namespace perfpred::cli
