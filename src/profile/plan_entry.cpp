// PlanEntry's accessors, apart from plan.cpp: the CUDA plugin links these without pulling in plan
// parsing (which imports ONNX models for model sweeps).
#include "perfpred/profile/plan.hpp"

#include "perfpred/util/strings.hpp"

namespace perfpred {

int64_t PlanEntry::param(const std::string& k, int64_t def) const {
  auto it = params.find(k);
  return it == params.end() ? def : it->second;
}

std::string PlanEntry::label(const std::string& k, const std::string& def) const {
  auto it = labels.find(k);
  return it == labels.end() ? def : it->second;
}

std::string PlanEntry::inputs_text() const {
  std::vector<std::string> parts;
  for (const auto& shape : inputs) {
    std::vector<std::string> dims;
    for (auto d : shape) dims.push_back(std::to_string(d));
    parts.push_back(join(dims, "x"));
  }
  return join(parts, ";");
}

std::string PlanEntry::attrs_text() const {
  std::vector<std::string> parts;
  for (const auto& [k, v] : params) parts.push_back(k + "=" + std::to_string(v));
  for (const auto& [k, v] : labels) parts.push_back(k + "=" + v);
  return join(parts, ";");
}

}  // namespace perfpred
