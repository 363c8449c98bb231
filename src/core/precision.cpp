#include "perfpred/core/precision.hpp"

#include "perfpred/util/error.hpp"

namespace perfpred {

std::string to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::int8: return "int8";
  }
  return "fp32";
}
std::string to_string(Mode m) { return m == Mode::inference ? "inference" : "training"; }
std::string to_string(Runtime r) {
  switch (r) {
    case Runtime::pytorch: return "pytorch";
    case Runtime::tensorrt: return "tensorrt";
    case Runtime::onnxruntime: return "onnxruntime";
    case Runtime::cudnn: return "cudnn";
  }
  return "pytorch";
}
std::string to_string(Optimizer o) {
  switch (o) {
    case Optimizer::none: return "none";
    case Optimizer::sgd: return "sgd";
    case Optimizer::momentum: return "momentum";
    case Optimizer::adam: return "adam";
  }
  return "sgd";
}

namespace {
template <typename E, size_t N>
E parse_enum(std::string_view s, std::string_view what, const E (&values)[N]) {
  std::string accepted;
  for (E v : values) {
    if (to_string(v) == s) return v;
    if (!accepted.empty()) accepted += "|";
    accepted += to_string(v);
  }
  throw InputError(std::string(what) + ": '" + std::string(s) + "' is not one of " + accepted);
}
}  // namespace

Precision precision_from_string(std::string_view s, std::string_view what) {
  static constexpr Precision v[] = {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::int8};
  return parse_enum(s, what, v);
}
Mode mode_from_string(std::string_view s, std::string_view what) {
  static constexpr Mode v[] = {Mode::inference, Mode::training};
  return parse_enum(s, what, v);
}
Runtime runtime_from_string(std::string_view s, std::string_view what) {
  static constexpr Runtime v[] = {Runtime::pytorch, Runtime::tensorrt, Runtime::onnxruntime, Runtime::cudnn};
  return parse_enum(s, what, v);
}
Optimizer optimizer_from_string(std::string_view s, std::string_view what) {
  static constexpr Optimizer v[] = {Optimizer::none, Optimizer::sgd, Optimizer::momentum, Optimizer::adam};
  return parse_enum(s, what, v);
}

bool fused_attention_from_string(std::string_view s, std::string_view what) {
  if (s == "sdpa") return true;
  if (s == "math") return false;
  throw InputError(std::string(what) + ": '" + std::string(s) + "' is not one of sdpa|math");
}

std::string attention_name(bool fused_attention) { return fused_attention ? "sdpa" : "math"; }

bool foreach_updates_from_string(std::string_view s, std::string_view what) {
  if (s == "foreach") return true;
  if (s == "loop") return false;
  throw InputError(std::string(what) + ": '" + std::string(s) + "' is not one of foreach|loop");
}

std::string param_updates_name(bool foreach_updates) { return foreach_updates ? "foreach" : "loop"; }

bool autocast_from_string(std::string_view s, std::string_view what) {
  if (s == "amp") return true;
  if (s == "half") return false;
  throw InputError(std::string(what) + ": '" + std::string(s) + "' is not one of amp|half");
}

std::string mixed_precision_name(bool autocast) { return autocast ? "amp" : "half"; }

int element_bytes(Precision p) {
  switch (p) {
    case Precision::fp32: case Precision::tf32: return 4;
    case Precision::fp16: case Precision::bf16: return 2;
    case Precision::int8: return 1;
  }
  return 4;
}

}  // namespace perfpred
