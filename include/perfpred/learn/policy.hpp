#pragma once
/// Which predictor a part of a prediction uses, decided from held-out evidence. A bundle may carry a
/// policy (written by scripts/eval_learned_policy.py from the leave-one-GPU-out and leave-one-family-out
/// tables, embedded with `perfpred train --policy`): an ordered list of rules, each naming a part (the
/// kernel times, the host overhead), where it applies (device class, runtime, mode, precision; "*" for
/// any), whether the bundle or the analytical model predicts it, and the evidence. The first matching
/// rule decides; a part no rule matches is predicted analytically. A bundle without a policy predicts
/// every part it has boosters for (`predict --model FILE` as before).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::learn {

/// The parts a policy decides.
inline constexpr const char* k_part_kernels = "kernels";
inline constexpr const char* k_part_host = "host";

struct PolicyRule {
  std::string part;                ///< k_part_kernels or k_part_host
  std::string device_class = "*";  ///< GpuSpec::segment: datacenter, desktop, embedded, hypothetical
  std::string runtime = "*";       ///< pytorch, tensorrt, onnxruntime, cudnn
  std::string mode = "*";          ///< inference, training
  std::string precision = "*";     ///< fp32, tf32, fp16, bf16, int8
  bool learned = false;            ///< true: the bundle predicts this part; false: the analytical model
  std::string evidence;            ///< the held-out figures or the reason behind the decision
};

struct Policy {
  std::vector<PolicyRule> rules;
  bool empty() const { return rules.empty(); }
};

/// One decision for one prediction.
struct PartDecision {
  std::string part;
  bool learned = false;
  std::string rule;      ///< "kernels datacenter/pytorch/inference/fp32", or "" when no rule matched
  std::string evidence;  ///< the rule's evidence, or why the analytical model predicts the part
};

/// Parse a policy object ({"rules": [...]}); `label` names the file in errors (the field and rule index).
Policy policy_from_json(const nlohmann::json& j, const std::string& label);
nlohmann::json to_json(const Policy& p);

/// The first rule of `p` for `part` that matches the device class of `gpu` and the options.
/// `has_part`: whether the bundle has boosters for the part at all (kernel boosters; a host booster for
/// this runtime); without them the part is analytical whatever the rules say.
PartDecision decide(const Policy& p, const std::string& part, const GpuSpec& gpu, const PredictOptions& opts,
                    bool has_part);

/// The decision as JSON: {"predictor": "learned"|"analytical", "rule": ..., "evidence": ...}.
nlohmann::json to_json(const PartDecision& d);

}  // namespace perfpred::learn
