#pragma once
/// Numeric precision, execution mode, runtime and optimizer: the knobs of a prediction.
#include <string>
#include <string_view>

namespace perfpred {

/// Math precision of a run. tf32 = fp32 storage with TF32 tensor-core math.
enum class Precision { fp32, tf32, fp16, bf16, int8 };
/// Inference (forward only) or one training step.
enum class Mode { inference, training };
/// Runtime that executes the graph; decides fusion and host overhead.
enum class Runtime { pytorch, tensorrt, onnxruntime, cudnn };
/// Optimizer of a training step.
enum class Optimizer { none, sgd, momentum, adam };

std::string to_string(Precision p);
std::string to_string(Mode m);
std::string to_string(Runtime r);
std::string to_string(Optimizer o);
/// Parsers: throw InputError naming `what` and the accepted values.
Precision precision_from_string(std::string_view s, std::string_view what = "precision");
Mode mode_from_string(std::string_view s, std::string_view what = "mode");
Runtime runtime_from_string(std::string_view s, std::string_view what = "runtime");
Optimizer optimizer_from_string(std::string_view s, std::string_view what = "optimizer");
/// How PyTorch eager runs attention (PredictOptions::fused_attention): "sdpa" (true: one fused
/// scaled_dot_product_attention, PyTorch >= 2.0) or "math" (false: MatMul, Softmax, MatMul as exported).
bool fused_attention_from_string(std::string_view s, std::string_view what = "attention");
std::string attention_name(bool fused_attention);
/// How PyTorch eager updates parameters in a training step (PredictOptions::foreach_updates): "foreach" (true:
/// PyTorch >= 2.0's defaults) or "loop" (false: PyTorch 1.x's per-tensor loops).
bool foreach_updates_from_string(std::string_view s, std::string_view what = "param-updates");
std::string param_updates_name(bool foreach_updates);
/// How PyTorch trains at fp16/bf16 (PredictOptions::autocast): "amp" (true: torch.autocast + GradScaler, fp32
/// weights) or "half" (false: model.half()).
bool autocast_from_string(std::string_view s, std::string_view what = "mixed-precision");
std::string mixed_precision_name(bool autocast);
/// Bytes of one activation/weight element stored at this precision (tf32 stores fp32).
int element_bytes(Precision p);

}  // namespace perfpred
