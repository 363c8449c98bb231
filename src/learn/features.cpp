// Feature definitions of the learned model: the single place where a kernel, the host overhead or a
// whole-network prediction becomes a feature vector. Training and prediction both call these.
#include "perfpred/learn/features.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "perfpred/analysis/features.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::learn {
namespace {

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();

// log10 of a positive quantity; missing when not positive or not finite.
float lg(double v) { return (v > 0 && std::isfinite(v)) ? static_cast<float>(std::log10(v)) : k_nan; }
// log10(1 + v) for counts that may be zero.
float lg1(double v) { return (v >= 0 && std::isfinite(v)) ? static_cast<float>(std::log10(1.0 + v)) : k_nan; }
float f(double v) { return std::isfinite(v) ? static_cast<float>(v) : k_nan; }

const std::vector<std::string> k_families = {"conv", "gemm", "norm", "elementwise", "pool",
                                             "softmax", "reduce", "data_movement", "rnn"};

// Append-only: an op's code is its index.
const std::vector<std::string> k_ops = {
    "Conv", "ConvTranspose", "Gemm", "MatMul", "Einsum", "BatchNormalization", "LayerNormalization",
    "InstanceNormalization", "GroupNormalization", "LRN", "Relu", "Gelu", "Tanh", "Sigmoid", "Add", "Mul",
    "Div", "Sub", "Pow", "Clip", "LeakyRelu", "HardSigmoid", "HardSwish", "Erf", "Exp", "Log", "Sqrt",
    "Neg", "Abs", "Max", "Min", "Softplus", "Mish", "Elu", "Selu", "PRelu", "Reciprocal", "MaxPool",
    "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "ReduceMean", "ReduceSum", "ReduceMax",
    "ReduceMin", "ReduceProd", "ReduceL2", "Softmax", "LogSoftmax", "Concat", "Split", "Slice", "Gather",
    "Transpose", "Pad", "Resize", "Tile", "Cast", "Expand", "Where", "LSTM", "GRU", "RNN", "Dropout",
    "SkipLayerNormalization", "FusedMatMul", "Attention", "BiasGelu", "FastGelu", "QuickGelu",
    "SimplifiedLayerNormalization", "Upsample", "DepthToSpace", "SpaceToDepth", "ArgMax", "TopK",
    "CumSum", "ScatterND", "GatherElements", "Equal", "Less", "Greater", "Not", "And", "Or",
    "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Identity", "Flatten", "Reshape",
    "SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss", "MeanSquaredError", "HardTanh", "Swish", "Silu"};

// Node attributes: every name analysis writes (feature::names, the one definition), families in enum order,
// first occurrence kept, so the order is stable as long as analysis only appends.
const std::vector<std::string> k_attrs = [] {
  std::vector<std::string> v;
  for (OpFamily fam : {OpFamily::conv, OpFamily::conv_transpose, OpFamily::gemm, OpFamily::norm,
                       OpFamily::elementwise, OpFamily::pool, OpFamily::reduce, OpFamily::softmax,
                       OpFamily::data_movement, OpFamily::rnn})
    for (std::string_view n : feature::names(fam))
      if (std::find(v.begin(), v.end(), n) == v.end()) v.emplace_back(n);
  return v;
}();

const std::vector<std::string> k_gpu = {
    "gpu_sm_count", "gpu_boost_clock_mhz", "gpu_log_fp32_gflops_per_sm", "gpu_log_peak_gflops_per_sm",
    "gpu_log_bw_gbps_per_sm", "gpu_l2_kb_per_sm", "gpu_smem_kb_per_sm", "gpu_log_bytes_per_flop",
    "gpu_tensor_cores", "gpu_compute_capability", "gpu_log_fp32_tflops", "gpu_log_bw_gbps",
    "gpu_l2_mb", "gpu_embedded", "gpu_host_link_gbps", "gpu_max_threads_per_sm"};

const std::vector<std::string> k_options = {"opt_precision", "opt_runtime", "opt_mode", "opt_log_batch"};

std::vector<std::string> concat(std::initializer_list<const std::vector<std::string>*> parts) {
  std::vector<std::string> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

const std::vector<std::string> k_kernel_own = {
    "family_code", "op_code", "fused_ops", "phase_code", "log_flops", "log_bytes", "log_intensity",
    "log_compute_s", "log_memory_s", "log_launch_s", "log_time_s", "log_compute_over_memory", "bound_code",
    "waves", "log_waves", "wave_efficiency", "gemm_log_batch", "gemm_log_m", "gemm_log_n", "gemm_log_k",
    "gemm_log_mnk"};

const std::vector<std::string> k_attr_features = [] {
  std::vector<std::string> v;
  for (const auto& a : k_attrs) v.push_back("attr_" + a);
  return v;
}();

const std::vector<std::string> k_host_own = {"log_host_s"};

const std::vector<std::string> k_network_own = {
    "log_latency_ms", "log_kernels_ms", "log_host_overhead_ms", "log_copy_ms", "log_optimizer_ms",
    "log_energy_mj", "log_avg_power_w", "log_peak_memory_bytes", "log_weights_bytes", "log_activations_bytes",
    "log_optimizer_state_bytes", "log_workspace_bytes", "log_context_bytes", "gpu_memory_gb", "gpu_tdp_w",
    "gpu_idle_power_w"};

double peak_flops(const GpuSpec& g, Precision p) {
  auto pick = [](std::initializer_list<double> vs) {
    for (double v : vs)
      if (v > 0) return v;
    return 0.0;
  };
  double tflops = 0;
  switch (p) {
    case Precision::fp32: tflops = g.fp32_tflops; break;
    case Precision::tf32: tflops = pick({g.tensor_tf32_tflops, g.fp32_tflops}); break;
    case Precision::fp16: tflops = pick({g.tensor_fp16_tflops, g.fp16_tflops, g.fp32_tflops}); break;
    case Precision::bf16: tflops = pick({g.tensor_bf16_tflops, g.bf16_tflops, g.fp32_tflops}); break;
    case Precision::int8: tflops = pick({g.tensor_int8_tops, g.int8_tops, g.fp32_tflops}); break;
  }
  return tflops * 1e12;
}

bool tensor_path(const GpuSpec& g, Precision p) {
  switch (p) {
    case Precision::fp32: return false;
    case Precision::tf32: return g.tensor_tf32_tflops > 0;
    case Precision::fp16: return g.tensor_fp16_tflops > 0;
    case Precision::bf16: return g.tensor_bf16_tflops > 0;
    case Precision::int8: return g.tensor_int8_tops > 0;
  }
  return false;
}

double compute_capability(const std::string& cc) {
  if (cc.empty()) return std::numeric_limits<double>::quiet_NaN();
  try {
    return parse_double(cc, "compute_capability");
  } catch (const InputError&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

int phase_code(const std::string& phase) {
  static const std::vector<std::string> phases = {"forward", "backward_data", "backward_weight",
                                                  "backward", "loss", "optimizer"};
  auto it = std::find(phases.begin(), phases.end(), phase);
  return it == phases.end() ? -1 : static_cast<int>(it - phases.begin());
}

}  // namespace

std::string to_string(Target t) {
  switch (t) {
    case Target::latency: return "latency";
    case Target::energy: return "energy";
    case Target::memory: return "memory";
  }
  return "latency";
}

Target target_from_string(const std::string& s, const std::string& what) {
  if (s == "latency") return Target::latency;
  if (s == "energy") return Target::energy;
  if (s == "memory") return Target::memory;
  throw InputError(what + ": '" + s + "' is not a target; use latency, energy or memory");
}

std::string booster_family(OpFamily f) {
  switch (f) {
    case OpFamily::conv:
    case OpFamily::conv_transpose: return "conv";
    case OpFamily::gemm: return "gemm";
    case OpFamily::norm: return "norm";
    case OpFamily::elementwise: return "elementwise";
    case OpFamily::pool: return "pool";
    case OpFamily::softmax: return "softmax";
    case OpFamily::reduce: return "reduce";
    case OpFamily::data_movement: return "data_movement";
    case OpFamily::rnn: return "rnn";
    case OpFamily::view:
    case OpFamily::unknown: return "";
  }
  return "";
}

const std::vector<std::string>& booster_families() { return k_families; }
const std::vector<std::string>& attr_feature_names() { return k_attrs; }

int op_code(const std::string& op) {
  static const std::unordered_map<std::string, int> index = [] {
    std::unordered_map<std::string, int> m;
    for (size_t i = 0; i < k_ops.size(); ++i) m.emplace(k_ops[i], static_cast<int>(i));
    return m;
  }();
  // "Conv+Relu" -> Conv; "Conv.bwd_data" -> Conv.
  std::string head = op.substr(0, op.find_first_of("+."));
  auto it = index.find(head);
  return it == index.end() ? -1 : it->second;
}

const std::vector<std::string>& gpu_feature_names() { return k_gpu; }

void gpu_features(const GpuSpec& g, const PredictOptions& opts, float* out) {
  const double sms = g.sm_count > 0 ? g.sm_count : std::numeric_limits<double>::quiet_NaN();
  const double peak = peak_flops(g, opts.precision);
  size_t i = 0;
  out[i++] = f(g.sm_count > 0 ? g.sm_count : std::numeric_limits<double>::quiet_NaN());
  out[i++] = f(g.boost_clock_mhz > 0 ? g.boost_clock_mhz : std::numeric_limits<double>::quiet_NaN());
  out[i++] = lg(g.fp32_tflops * 1e3 / sms);
  out[i++] = lg(peak / 1e9 / sms);
  out[i++] = lg(g.mem_bandwidth_gbps / sms);
  out[i++] = f(g.l2_cache_mb > 0 ? g.l2_cache_mb * 1024.0 / sms : std::numeric_limits<double>::quiet_NaN());
  out[i++] = f(g.shared_mem_per_sm_kb > 0 ? g.shared_mem_per_sm_kb : std::numeric_limits<double>::quiet_NaN());
  out[i++] = lg(peak > 0 ? g.mem_bandwidth_gbps * 1e9 / peak : 0);
  out[i++] = tensor_path(g, opts.precision) ? 1.0f : 0.0f;
  out[i++] = f(compute_capability(g.compute_capability));
  out[i++] = lg(g.fp32_tflops);
  out[i++] = lg(g.mem_bandwidth_gbps);
  out[i++] = f(g.l2_cache_mb > 0 ? g.l2_cache_mb : std::numeric_limits<double>::quiet_NaN());
  out[i++] = (g.segment == "embedded" || g.unified_memory) ? 1.0f : 0.0f;
  out[i++] = f(g.host_link_gbps > 0 ? g.host_link_gbps : std::numeric_limits<double>::quiet_NaN());
  out[i++] = f(g.max_threads_per_sm > 0 ? g.max_threads_per_sm : std::numeric_limits<double>::quiet_NaN());
}

namespace {
void option_features(const PredictOptions& opts, float* out) {
  out[0] = static_cast<float>(static_cast<int>(opts.precision));
  out[1] = static_cast<float>(static_cast<int>(opts.runtime));
  out[2] = static_cast<float>(static_cast<int>(opts.mode));
  out[3] = lg(static_cast<double>(opts.batch));
}
}  // namespace

const std::vector<std::string>& kernel_feature_names() {
  static const std::vector<std::string> names = concat({&k_kernel_own, &k_attr_features, &k_options, &k_gpu});
  return names;
}

void kernel_features(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts, float* out) {
  size_t i = 0;
  const std::string fam = booster_family(k.family);
  auto fit = std::find(k_families.begin(), k_families.end(), fam);
  out[i++] = fit == k_families.end() ? -1.0f : static_cast<float>(fit - k_families.begin());
  out[i++] = static_cast<float>(op_code(k.op));
  out[i++] = static_cast<float>(std::count(k.op.begin(), k.op.end(), '+') + 1);
  out[i++] = static_cast<float>(phase_code(k.phase));
  out[i++] = lg1(k.flops);
  out[i++] = lg1(k.bytes);
  out[i++] = k.bytes > 0 ? lg(k.flops / k.bytes) : k_nan;
  out[i++] = lg(k.compute_s);
  out[i++] = lg(k.memory_s);
  out[i++] = lg(k.launch_s);
  out[i++] = lg(k.time_s);
  out[i++] = (k.compute_s > 0 && k.memory_s > 0) ? lg(k.compute_s / k.memory_s) : k_nan;
  out[i++] = static_cast<float>(static_cast<int>(k.bound));
  out[i++] = f(k.waves);
  out[i++] = lg(k.waves);
  out[i++] = f(k.wave_efficiency);
  if (k.gemm) {
    out[i++] = lg(static_cast<double>(k.gemm->batch));
    out[i++] = lg(static_cast<double>(k.gemm->m));
    out[i++] = lg(static_cast<double>(k.gemm->n));
    out[i++] = lg(static_cast<double>(k.gemm->k));
    out[i++] = lg(static_cast<double>(k.gemm->m) * static_cast<double>(k.gemm->n) * static_cast<double>(k.gemm->k));
  } else {
    for (int j = 0; j < 5; ++j) out[i++] = k_nan;
  }
  for (size_t a = 0; a < k_attrs.size(); ++a) out[i + a] = k_nan;
  for (const auto& [name, value] : k.attrs) {
    auto it = std::find(k_attrs.begin(), k_attrs.end(), name);
    if (it != k_attrs.end()) out[i + static_cast<size_t>(it - k_attrs.begin())] = f(value);
  }
  i += k_attrs.size();
  option_features(opts, out + i);
  i += k_options.size();
  gpu_features(gpu, opts, out + i);
}

std::vector<float> kernel_features(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts) {
  std::vector<float> v(kernel_feature_names().size());
  kernel_features(k, gpu, opts, v.data());
  return v;
}

const std::vector<std::string>& host_feature_names() {
  static const std::vector<std::string> names = concat({&k_host_own, &k_options, &k_gpu});
  return names;
}

void host_features(double analytical_host_s, const GpuSpec& gpu, const PredictOptions& opts, float* out) {
  out[0] = lg(analytical_host_s);
  option_features(opts, out + 1);
  gpu_features(gpu, opts, out + 1 + k_options.size());
}

const std::vector<std::string>& network_feature_names() {
  static const std::vector<std::string> names = concat({&k_network_own, &k_options, &k_gpu});
  return names;
}

void network_features(const Prediction& p, const GpuSpec& gpu, const PredictOptions& opts, float* out) {
  // Totals only: Prediction::kernels is empty when PredictOptions::detail is off.
  size_t i = 0;
  out[i++] = lg(p.latency_ms);
  out[i++] = lg(p.kernels_ms);
  out[i++] = lg(p.host_overhead_ms);
  out[i++] = lg(p.h2d_ms + p.d2h_ms);
  out[i++] = lg(p.optimizer_ms);
  out[i++] = lg(p.energy_mj);
  out[i++] = lg(p.avg_power_w);
  out[i++] = lg(p.peak_memory_bytes);
  out[i++] = lg(p.memory.weights_bytes);
  out[i++] = lg(p.memory.activations_bytes);
  out[i++] = lg(p.memory.optimizer_state_bytes);
  out[i++] = lg(p.memory.workspace_bytes);
  out[i++] = lg(p.memory.context_bytes);
  out[i++] = f(gpu.memory_gb > 0 ? gpu.memory_gb : std::numeric_limits<double>::quiet_NaN());
  out[i++] = f(gpu.tdp_w > 0 ? gpu.tdp_w : std::numeric_limits<double>::quiet_NaN());
  out[i++] = f(gpu.idle_power_w > 0 ? gpu.idle_power_w : std::numeric_limits<double>::quiet_NaN());
  option_features(opts, out + i);
  i += k_options.size();
  gpu_features(gpu, opts, out + i);
}

}  // namespace perfpred::learn
