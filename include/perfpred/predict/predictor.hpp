#pragma once
/// The prediction: kernels per runtime, their times on a GPU, host overhead, copies, training step,
/// memory and energy. Fast path: analyse a graph once, then predict on many GPUs.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/core/graph.hpp"
#include "perfpred/core/precision.hpp"
#include "perfpred/hw/gpu_spec.hpp"

namespace perfpred {

/// What to predict.
struct PredictOptions {
  int64_t batch = 1;  ///< for throughput; the graph is already shaped at this batch
  Precision precision = Precision::fp32;
  Mode mode = Mode::inference;
  Runtime runtime = Runtime::pytorch;
  Optimizer optimizer = Optimizer::sgd;
  bool include_copies = true;  ///< time host-to-device of inputs and device-to-host of outputs
  /// The copies move pageable host memory (an ordinary tensor: x.to('cuda'), a DataLoader without pin_memory,
  /// y.cpu()): the driver stages each through a pinned buffer with a CPU memcpy (k_pageable_stage_gbps, a host
  /// cost that host_factor scales) before the DMA. False: pinned memory, the link's rate.
  bool pageable_copies = false;
  /// FP32 convolutions (and TensorRT's FP32 GEMMs) may run on TF32 tensor cores where the GPU has them:
  /// PyTorch's default torch.backends.cudnn.allow_tf32 = True, TensorRT's TF32 builder flag. False: FP32
  /// math only (allow_tf32 = False, as NeuSight's kernel measurements ran). `--precision tf32` keeps TF32.
  bool allow_tf32 = true;
  /// Host CPU time of this machine over the reference machine the host costs were fitted on (2: every
  /// dispatch, autograd and enqueue cost takes twice as long). The same model's host-bound latency
  /// differs 1.5-1.8x between machines with the same GPU class; one measurement on the user's machine
  /// fixes it (docs/model.md, "Host speed").
  double host_factor = 1;
  /// GPU time of this machine over the model's: every kernel (the learned corrections included) takes this many
  /// times its predicted time, host costs and copies stay. Machines with the same GPU run GPU-bound networks apart
  /// (clocks, cooling, driver and library versions; fitted 0.79-1.41 on the held-out machines); one GPU-bound
  /// measurement on the user's machine fixes it (perfpred fit-gpu; docs/model.md, "GPU speed").
  double gpu_factor = 1;
  /// The iteration is captured once as a CUDA graph and replayed (torch.cuda.graphs, torch.compile's
  /// "reduce-overhead", TensorRT under cudaStreamBeginCapture as MLPerf's harnesses run it): no host cost per
  /// op or kernel, one graph launch per iteration.
  bool cuda_graphs = false;
  /// PyTorch eager inference records autograd: the model is called without torch.no_grad() or
  /// torch.inference_mode(), so every forward op whose inputs require grad (any op past a layer with weights)
  /// builds its backward node and saves its inputs. False (the default, how models are served): each forward op
  /// dispatches at k_pytorch_no_grad_host_share of the grad-mode cost. Inference with runtime pytorch only; a
  /// training step always records.
  bool grad_mode = false;
  /// How many kernels the host may have issued ahead of the GPU: before issuing a kernel it waits until the one
  /// this many launches earlier has finished. 0 (the default): no limit, the host runs ahead as far as the work
  /// lets it, as an asynchronous eager loop does. 1: a kernel is issued only once the previous one has finished,
  /// so the host's work for each op overlaps one kernel at most and an iteration costs about the sum over
  /// kernels of max(host, GPU) -- what a harness measures that synchronises per layer or per module (HELP's
  /// NAS-Bench-201 and FBNet tables; docs/model.md, "Launch queue").
  int launch_queue = 0;
  /// PyTorch eager runs attention as one scaled_dot_product_attention call (PyTorch >= 2.0's
  /// nn.MultiheadAttention and F.scaled_dot_product_attention, HF transformers' and timm's default attention):
  /// a fused flash / memory-efficient kernel that never writes the [.., Sq, Sk] scores. False (--attention
  /// math): the exported MatMul -> Softmax -> MatMul run as written (PyTorch < 2.0, HF's "eager" attention).
  bool fused_attention = true;
  /// PyTorch eager training updates its parameters as PyTorch >= 2.0 does by default: zero_grad() sets every
  /// .grad to None, so autograd hands each parameter's first gradient over without a kernel, and torch.optim's
  /// foreach implementation updates all parameter tensors in a few multi-tensor kernels per pass. False (--param-
  /// updates loop, PyTorch 1.x's defaults): zero_grad() zeroes every .grad (one kernel each), AccumulateGrad adds
  /// each new gradient into it (one kernel each), and the optimizer loops over the tensors, a few kernels each.
  bool foreach_updates = true;
  /// FP16/BF16 PyTorch eager training runs under torch.autocast with a GradScaler (AMP): the weights stay fp32,
  /// each step casts every weight a conv/GEMM reads to half (one kernel each, and autograd casts its gradient
  /// back), and the scaler unscales the gradients before the optimizer. False (--mixed-precision half,
  /// model.half()): weights, gradients and optimizer state are half, with no casts and no scaler.
  bool autocast = true;
  /// The model's tensors are in PyTorch's channels_last memory format (NHWC; model.to(memory_format=
  /// torch.channels_last) and a channels_last input): cuDNN's FP16/BF16 tensor-core convolutions then read and
  /// write them as they are. False (PyTorch's default, ONNX's layout): each such convolution pays cuDNN's
  /// NCHW<->NHWC reorders (three memory-bound kernels). PyTorch and onnxruntime only.
  bool channels_last = false;
  /// Fill Prediction::kernels and Prediction::layers. False gives totals only (sweeps over many
  /// graphs/GPUs: no per-kernel strings are built).
  bool detail = true;
  /// The memory estimate of this graph under these options from an earlier prediction on a device of
  /// the same segment and tensor-core paths; predict() then skips the liveness walk, which does not
  /// depend on rates, bandwidth or capacity (run_sweep passes its first point's). Null: estimate.
  const struct MemoryBreakdown* memory = nullptr;
};

/// What limits a kernel.
enum class Bound { compute, memory, launch };
std::string to_string(Bound b);

/// One kernel the runtime launches (after fusion), with the analytical model's terms. These are also
/// the learned corrector's features.
struct KernelEstimate {
  std::string name;        ///< node name (first node of a fused group)
  std::string op;          ///< op type, "Conv+Relu" for a fused group, "Conv.bwd_data" for backward
  OpFamily family = OpFamily::unknown;
  std::string phase = "forward";  ///< forward | backward_data | backward_weight | backward | loss | optimizer
  int node_index = -1;     ///< graph node this kernel belongs to
  double flops = 0;
  double bytes = 0;        ///< DRAM bytes moved (read + write)
  std::optional<GemmShape> gemm;
  std::vector<std::pair<std::string, double>> attrs;  ///< from NodeCost::attrs
  // Analytical terms (seconds unless noted).
  double compute_s = 0;    ///< flops / effective peak
  double memory_s = 0;     ///< bytes / effective bandwidth
  double launch_s = 0;     ///< per-kernel floor
  double waves = 0;        ///< thread blocks / (SMs x blocks per SM)
  double wave_efficiency = 1;  ///< useful share of the last wave
  double time_s = 0;       ///< analytical estimate
  double corrected_time_s = 0;  ///< after the learned corrector (== time_s without one)
  /// CPU time the runtime spends issuing this record's kernels (framework dispatch, autograd, launch),
  /// before --host-factor and any learned host correction.
  double host_s = 0;
  Bound bound = Bound::compute;
  /// cuDNN's NCHW<->NHWC reorder kernels around an FP16/BF16 tensor-core convolution, included in time_s
  /// (input, filter, result: 3; 0 elsewhere and with PredictOptions::channels_last).
  int reorder_kernels = 0;
};

/// Learned correction of kernel times, implemented by the learn module. Returns a multiplicative
/// factor for the analytical time (exp of the predicted log-ratio).
class KernelCorrector {
 public:
  virtual ~KernelCorrector() = default;
  virtual double factor(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts) const = 0;
  /// Factors of many kernels at once (a bundle predicts them in one model call per family); the
  /// default calls factor() per kernel. predict() should call this once per graph.
  virtual void factors(const std::vector<KernelEstimate>& ks, const GpuSpec& gpu, const PredictOptions& opts,
                       std::vector<double>& out) const {
    out.resize(ks.size());
    for (size_t i = 0; i < ks.size(); ++i) out[i] = factor(ks[i], gpu, opts);
  }
  /// Correction of the per-network host overhead (seconds added), per runtime; default none.
  virtual double host_overhead_s(double analytical_s, const GpuSpec&, const PredictOptions&) const {
    return analytical_s;
  }
  /// Bundle label reported in JSON (model_bundle).
  virtual std::string label() const = 0;
  /// Whether the GPU id was in the training data.
  virtual bool gpu_seen(const GpuSpec& gpu) const = 0;
};

/// Per-layer roll-up (a graph node, possibly fused with its followers).
struct LayerPrediction {
  std::string name;
  std::string op;
  int kernels = 0;
  double time_ms = 0;
  double flops = 0;
  double bytes = 0;
  Bound bound = Bound::compute;
};

/// Peak memory decomposition, bytes.
struct MemoryBreakdown {
  double weights_bytes = 0;
  double activations_bytes = 0;     ///< peak live activations (training: kept for backward + gradients)
  double optimizer_state_bytes = 0; ///< gradients + momentum/Adam state in training
  double workspace_bytes = 0;
  double context_bytes = 0;         ///< CUDA context and runtime allocator overhead
};

/// The whole prediction.
struct Prediction {
  double latency_ms = 0;
  double throughput_samples_per_s = 0;  ///< batch / latency: one batch at a time, its copies included
  /// Batches back to back with the next batch's host-to-device copy (and this one's copy back) overlapping the
  /// work, as serving runtimes and MLPerf harnesses run (pinned buffers, a copy stream): batch / the longer of
  /// the copy-free latency and the longer copy. Equal to throughput_samples_per_s without copies.
  double pipelined_throughput_samples_per_s = 0;
  double energy_mj = 0;
  double avg_power_w = 0;
  double peak_memory_bytes = 0;
  bool fits = true;
  double memory_shortfall_bytes = 0;  ///< > 0 when it does not fit
  // breakdown
  double kernels_ms = 0;
  double host_overhead_ms = 0;
  double h2d_ms = 0;
  double d2h_ms = 0;
  double optimizer_ms = 0;
  MemoryBreakdown memory;
  std::vector<LayerPrediction> layers;
  std::vector<KernelEstimate> kernels;
  std::vector<std::string> notes;  ///< assumptions the prediction rests on
  std::string model_bundle;        ///< "analytical" or the bundle label
  bool gpu_seen_in_training = false;
  /// A whole-network bundle that scaled one target (energy or memory) after the latency prediction.
  struct TargetBundle {
    std::string target;  ///< "energy" or "memory"
    std::string name;    ///< the bundle's label
    double factor = 1;   ///< applied to the analytical value of the target
    bool gpu_seen = false;
  };
  std::vector<TargetBundle> target_bundles;
};

/// One batch's period when batches run back to back with their copies overlapping the work, `instances` such
/// loops sharing one host link (the MIG instances of a GPU): the longer of the copy-free latency and the link's
/// busy time (the longer copy direction, once per instance), ms. Prediction::pipelined_throughput_samples_per_s
/// is batch / this at one instance.
double pipelined_period_ms(const Prediction& p, int instances = 1);

/// Predict from a graph and its analysis. `corrector` may be null (analytical model alone).
Prediction predict(const Graph& g, const GraphCost& cost, const GpuSpec& gpu, const PredictOptions& opts,
                   const KernelCorrector* corrector = nullptr);

/// The kernel list alone (fusion per runtime, backward expansion in training), with analytical terms;
/// what the learned model trains on.
std::vector<KernelEstimate> plan_kernels(const Graph& g, const GraphCost& cost, const GpuSpec& gpu,
                                         const PredictOptions& opts);

/// Analytical time of one kernel on a GPU (fills the terms of k). Exposed for kernel-level datasets, whose
/// rows carry their ideal traffic: a PyTorch LayerNorm row is timed with its statistics pass as plan.cpp
/// plans one (k_ln_forward_passes), so a plan's own kernels are not passed through it again.
void estimate_kernel(KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts);

}  // namespace perfpred
