#pragma once
// Internal: the kernel plan (which kernels a runtime launches for a graph) as plain records without
// strings, so that planning and timing a graph costs no heap churn beyond a few vectors.
#include <cstdint>
#include <optional>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/core/graph.hpp"
#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::detail {

/// gradients: parameter-gradient bookkeeping of a training step (AccumulateGrad, zero_grad), no graph node.
/// casts: torch.autocast's per-step weight casts and their gradients' casts back (AMP training), no graph node.
enum class Phase : uint8_t { forward, backward_data, backward_weight, backward, loss, optimizer, gradients, casts };
const char* phase_name(Phase p);
/// Suffix of KernelEstimate::op for a phase: "", ".bwd_data", ".bwd_weight", ".bwd".
const char* phase_suffix(Phase p);

/// Facts of one kernel the model times. Everything the timing needs, nothing it does not.
struct KernelDraft {
  int node_index = -1;    ///< first graph node, -1 for loss/optimizer/gradients kernels
  int group_begin = 0;    ///< range into Plan::group_nodes: the fused nodes (op label)
  int group_end = 0;
  OpFamily family = OpFamily::unknown;
  Phase phase = Phase::forward;
  bool matrix = false;     ///< has a GEMM view timed with tiles
  bool tensor_ok = false;  ///< the math may run on tensor cores
  /// An FP16/BF16 grouped convolution of NCHW tensors under PyTorch or onnxruntime (set_conv_facts): no tensor-core
  /// kernel before sm_80 (kernel_model.cpp, tensor_allowed).
  bool grouped_nchw_half = false;
  /// A dense convolution whose input channels cuDNN's tensor-core kernels cannot load whole (set_conv_facts): FP16/BF16
  /// needs a multiple of 8 (16-byte vectors of halves), TF32 a multiple of 4, so a 3-channel image stem runs cuDNN's
  /// FP32-math kernels instead (kernel_model.cpp, tensor_allowed).
  bool unaligned_channels = false;
  bool depthwise = false;  ///< depthwise conv (one input channel per group): SIMT, memory/latency bound
  /// Bytes PyTorch's own depthwise kernel (FP32; FP16 before sm_70; no cuDNN) loads per run, one load per filter tap and
  /// output element at 32-byte-sector granularity (depthwise_tap_bytes). Only GPUs whose SMs do not keep
  /// global loads in L1 (GpuRates::l1_caches_global false) serve them from L2 at a bounded rate.
  double depthwise_tap_bytes = 0;
  bool winograd = false;   ///< 3x3 stride-1 conv with enough channels
  bool strided = false;    ///< conv with a stride above 1: its data gradient scatters into the larger input
  bool pointwise = false;  ///< dense 1x1 conv (one group): its filter gradient reduces over every pixel, K = 1
  /// Winograd F(4x4, 3x3) computes whole 4x4 output tiles: the output pixels over the pixels its tiles cover
  /// (1 where the output height and width are multiples of 4; 25/64 at 5x5).
  double winograd_tile_fill = 1;
  bool conv_tf32 = false;  ///< PyTorch fp32 conv on sm_80+: TF32 by default
  /// Which matrix path time_kernel costs: `best` times a tensor-core-eligible conv (and a TensorRT TF32 GEMM)
  /// on both paths and keeps the faster, as cuDNN's algorithm choice and TensorRT's tactics do.
  enum class MatrixPath { best, simt, tensor } path = MatrixPath::best;
  bool conv_bias = false;  ///< the per-channel bias/affine kernel of a conv (PyTorch eager)
  bool backward_cast = false;  ///< Phase::casts: a gradient cast back to fp32 (ToCopyBackward), not a weight cast
  /// torch.autocast's cast of an activation into the dtype its op runs in (fp32 to half for a convolution or GEMM,
  /// half to fp32 for a LayerNorm): a kernel issued inside that node's op. `amp_cast_grad`: the tensor is tracked
  /// by autograd, so the backward casts its gradient back (ToCopyBackward).
  bool amp_cast = false;
  bool amp_cast_grad = false;
  /// PyTorch's LayerNorm forward: bytes count its statistics pass (k_ln_forward_passes); the backward
  /// takes its traffic from the two-pass size.
  bool layer_norm_stats_pass = false;
  bool fused_attention = false;  ///< one fused scaled_dot_product_attention kernel (its own tiles, not cuBLAS's)
  /// cuBLAS runs the product as TN (op(A) = A^T, column-major): PyTorch's nn.Linear forward, x W^T (its gradients
  /// are NN and NT). Kernel rows say so with trans_a=1;trans_b=0.
  bool cublas_tn = false;
  bool windowed_pool = false;  ///< MaxPool/AveragePool with a window > 1 (not global)
  /// Bytes of the int64 index per output element that PyTorch's MaxPool writes on the GPU (ATen's
  /// max_pool2d is max_pool2d_with_indices off the CPU) and its backward reads; part of `bytes`.
  double pool_index_bytes = 0;
  /// Bytes cuDNN's reorders move around an FP16/BF16 tensor-core convolution of NCHW tensors (nchwToNhwc on
  /// the input and the filter, nhwcToNchw on the result: each read and written once more), at the run's
  /// precision. Only the tensor path pays them (time_kernel); 0 where the tensors are NHWC already
  /// (PredictOptions::channels_last), where the runtime picks its own layouts (TensorRT) or the caller's
  /// (a bare cuDNN call), and for PyTorch's own depthwise kernel.
  double layout_reorder_bytes = 0;
  /// A reduction that runs one thread block per channel (cuDNN's NCHW BatchNorm backward): `channel_blocks`
  /// blocks, each streaming `channel_elems` elements `channel_passes` times at a per-block rate
  /// (model_constants.hpp, k_bn_channel_block_elems_per_s). 0 passes: no such bound.
  double channel_blocks = 0;
  double channel_elems = 0;
  double channel_passes = 0;
  /// Threads of such a block where the kernel is not cuDNN's BatchNorm (0: k_bn_channel_block_threads at the
  /// BatchNorm rates): PyTorch's own depthwise filter gradient, one block of min(32 x batch, 256) threads per
  /// filter tap (set_depthwise_grad_weight_blocks), streams at the FP32 BatchNorm rate per warp.
  double channel_block_threads = 0;
  /// cuDNN's NCHW BatchNorm inference kernel (bn_fw_inf_1C11_kernel_NCHW) runs one thread block per (image,
  /// channel) plane: `plane_blocks` blocks of `plane_elems` elements, each paying a fixed latency and one per
  /// pass of its threads over the plane (model_constants.hpp, k_bn_inf_block_s). 0: no such bound.
  double plane_blocks = 0;
  double plane_elems = 0;
  int launches = 1;        ///< GPU kernels this record stands for
  int serial_steps = 1;    ///< sequential repetitions of the GEMM view (RNN time steps)
  double flops = 0;
  double bytes = 0;        ///< DRAM bytes at the run's precision
  GemmShape gemm;          ///< per step for RNNs
  double host_s = 0;       ///< CPU time to issue this record (before any corrector)
};

/// One forward tensor's memory facts for the liveness walk.
struct Plan {
  std::vector<KernelDraft> kernels;
  std::vector<int> group_nodes;  ///< node indices of fused groups
  double host_pre_s = 0;         ///< CPU time before the first kernel (TensorRT enqueue, view ops)
  double host_post_s = 0;        ///< CPU time after the last kernel (sync)
  double activation_scale = 1;   ///< bytes at run precision / bytes at the graph's float dtype
  std::vector<std::string> notes;
};

/// Build the kernel plan for a runtime and mode. Throws InputError on an unsupported combination.
void build_plan(const Graph& g, const GraphCost& cost, const GpuSpec& gpu, const PredictOptions& opts,
                Plan& plan);

/// Analytical terms of one draft on a GPU.
struct KernelTerms {
  double compute_s = 0;
  double memory_s = 0;
  double launch_s = 0;
  double waves = 0;
  double wave_efficiency = 1;
  double time_s = 0;
  double utilisation = 0;  ///< achieved share of the bounding resource (for power)
  Bound bound = Bound::compute;
  int reorder_kernels = 0;  ///< cuDNN's NCHW<->NHWC reorder kernels costed in time_s (KernelDraft::layout_reorder_bytes)
};

/// Precomputed per-GPU rates for one precision.
struct GpuRates {
  double matrix_flops = 0;       ///< tensor-core or FP32 peak used by GEMM/conv
  double matrix_tf32_flops = 0;  ///< TF32 peak (conv_tf32 kernels)
  double vector_flops = 0;       ///< non-tensor peak at this precision
  double simt_fp32_flops = 0;
  bool tensor = false;
  bool tensor_tf32 = false;
  double dram_bps = 0;
  double l2_bytes = 0;
  double sms = 1;
  double launch_floor_s = 0;
  double core_clock_hz = 0;      ///< SM clock the math rates assume (headroom and sustained clock included); 0 unknown
  /// DRAM-bound work's speed under a power limit below the TDP, over its speed at the rated clock: the limit's
  /// own clock drop (clock_scale / rated_clock_scale), 1 without a limit. Zeus's ResNet-50 training steps under
  /// limits slow as if the whole GPU time followed the clock, memory-bound kernels included (docs/model.md,
  /// "Power limits"); a card's rated (TDP) clock leaves DRAM-bound kernels at full speed.
  double limit_memory_share = 1;
  double clock_scale = 1;        ///< sustained / rated clock of a power-limited card (math rates include it; perfpred/hw/sustained_clock.hpp)
  double simt_issue_gain = 1;  ///< 1 + k_int_pipe_simt_gain on GV100/GV10B/GA100 (own INT32 pipe) and GP100 SMs
  /// Turing's FP32 SIMT convolutions (own INT32 pipe): 1 + k_int_pipe_simt_gain as far as power allows (gpu_rates).
  double simt_conv_issue_gain = 1;
  /// sm_80+: tensor-core conv gradients as fast as the forward, and cp.async multistage main loops (TensorRT's
  /// INT8 convolutions at k_conv_tensor_int8_trt_async_eff).
  bool sm80_tensor_cores = false;
  /// Share of the tensor peak cuDNN's tensor-core convolutions reach at matrix_flops / matrix_tf32_flops:
  /// k_conv_tensor_eff scaled by the tensor rate per SM and clock (model_constants.hpp), set by gpu_rates().
  double conv_tensor_eff = 0.5, conv_tensor_tf32_eff = 0.5;
  bool half_precision = false;  ///< fp16/bf16 run: a conv may take a non-tensor FP16-storage kernel instead
  bool int8 = false;            ///< int8 run: tensor-core GEMMs at k_gemm_tensor_int8_eff
  /// cuBLAS INT8 GEMMs called directly (runtime cudnn: cublasGemmEx, plain layouts) on Turing run dp4a, not
  /// the tensor cores (those need cublasLt's COL32 layouts): on the SIMT path at 4x the FP32 rate.
  bool int8_gemm_dp4a = false;
  Runtime runtime = Runtime::pytorch;  ///< whose kernels run (cuDNN's dp4a convolutions: k_conv_dp4a_share)
  /// Plain global loads are cached in L1 (sm_70 and later). Maxwell and Pascal (sm_5x/6x) keep in L1 only
  /// loads the compiler proves read-only, so a kernel that re-reads its input per filter tap reads L2.
  bool l1_caches_global = true;
  /// Threads and blocks one SM holds at once: how many blocks of a per-channel, per-tap or per-plane walk run at
  /// once (resident_block_slots).
  double threads_per_sm = 2048;
  double blocks_per_sm = 32;
  /// Which tiles cuBLAS's strided-batched FP32 SIMT GEMM runs on this architecture (model_constants.hpp,
  /// k_batched_tiles_sgemm_*): one kernel on Maxwell/Pascal and on Ampere/Ada, a choice elsewhere.
  enum class BatchedSgemm { choice, pascal, ampere } batched_sgemm = BatchedSgemm::choice;
  /// Share of DRAM bandwidth cuBLAS's FP32 SIMT GEMMs write their result at (k_volta_sgemm_store_eff on
  /// sm_70/72/75); 0: at the operands' k_mem_eff_gemm.
  double sgemm_store_eff = 0;
  /// cuBLAS runs an nn.Linear forward's FP32-math product (TN; FP32 or FP16 storage) with the small tiles of
  /// k_tiles_sgemm_pascal_tn: Maxwell/Pascal under PyTorch's cuBLAS.
  bool sgemm_tn_small_tiles = false;
  /// FP16 convolutions under PyTorch on a GPU without tensor cores whose FP16 arithmetic is slower than its FP32
  /// (Maxwell GM20x, consumer Pascal sm_61): cuDNN's pseudo-half kernels (FP16 storage, FP32 math), whose strided
  /// data gradients and 1x1 filter gradients run slower than the FP32-math time (k_pseudo_half_*_slowdown).
  bool pseudo_half_convs = false;
};
/// `rt`: TensorRT builds FP16 engines from FP16-accumulate kernels where those are faster (GeForce cards).
/// `clock_scale` > 0: the sustained clock over boost the math runs at (a workload's own under a power limit);
/// 0: sustained_clock_scale(gpu), the clock of FP32 work flat out.
GpuRates gpu_rates(const GpuSpec& gpu, Precision p, Runtime rt = Runtime::pytorch, double clock_scale = 0);
KernelTerms time_kernel(const KernelDraft& k, const GpuRates& r);
/// One host<->device copy of `bytes` over the host link (host_link_gbps; 12 GB/s where a spec has none), with
/// its fixed call and DMA setup cost: the input and output copies of `predict` and a profile's MemcpyH2D /
/// MemcpyD2H rows. `pageable_host_scale` > 0: the copy is from pageable memory, which the CPU also stages through a
/// driver buffer at k_pageable_stage_gbps / pageable_host_scale (the machine's host factor); 0: pinned memory, the
/// link's rate.
double host_copy_time_s(double bytes, const GpuSpec& gpu, double pageable_host_scale = 0);
/// How many times the reference machine's CPU time every host cost takes here: k_embedded_host_factor on an
/// embedded board's CPU, times PredictOptions::host_factor.
double host_cpu_factor(const GpuSpec& gpu, const PredictOptions& opts);
/// GpuRates::l1_caches_global: sm_70 and later (and GPUs whose compute capability is unknown).
bool l1_caches_global_loads(const GpuSpec& gpu);
/// cuBLAS runs an nn.Linear forward's FP32-math product (TN) with k_tiles_sgemm_pascal_tn: Maxwell/Pascal (sm_5x/6x)
/// under PyTorch's cuBLAS (GpuRates::sgemm_tn_small_tiles).
bool sgemm_tn_small_tiles(const GpuSpec& gpu, Runtime rt);
/// Share of the catalogued DRAM bandwidth left to data on this board: k_gddr_ecc_dram_share for GDDR memory with
/// ECC on (GpuSpec::dram_ecc: inline ECC), 1 otherwise (no ECC, or HBM, which stores its check bits beside the data).
double dram_ecc_share(const GpuSpec& gpu);
/// cuDNN's NCHW BatchNorm backward as a per-channel reduction (KernelDraft::channel_*) on an input of `numel`
/// elements and `channels` channels; nothing when either is unknown.
void set_bn_backward_channels(KernelDraft& d, double numel, double channels);
/// PyTorch's own depthwise filter gradient (conv_depthwise2d_grad_weight_kernel) as a per-block reduction: one block
/// per filter tap (`filters` x `taps` blocks) of min(32 x batch, 256) threads, each walking the batch's `outputs`
/// gradient elements (batch x output pixels) once; nothing when a count is unknown.
void set_depthwise_grad_weight_blocks(KernelDraft& d, double filters, double taps, double batch, double outputs);
/// Blocks of `threads` threads the GPU holds at once: SMs x min(blocks per SM, threads per SM / threads), at least
/// one per SM.
double resident_block_slots(const GpuRates& r, double threads);
/// Whether this run's eval-mode BatchNorm is cuDNN's inference kernel: a bare cuDNN call, or PyTorch where ATen's
/// _select_batch_norm_backend takes cuDNN, which needs FP32 weights (FP32/TF32 runs; a model.half() or BF16 model
/// runs ATen's own elementwise kernel).
inline bool cudnn_eval_batch_norm(const PredictOptions& opts) {
  return opts.runtime == Runtime::cudnn ||
         (opts.runtime == Runtime::pytorch && (opts.precision == Precision::fp32 || opts.precision == Precision::tf32));
}
/// Marks `d` as cuDNN's NCHW BatchNorm inference kernel over `numel` elements of `channels` channels in
/// `images` images: one block per (image, channel) plane (KernelDraft::plane_blocks).
void set_bn_inference_planes(KernelDraft& d, double numel, double images, double channels);
/// A convolution's shape as the kernel model needs it (0 where unknown).
struct ConvShape {
  double groups = 1, cin = 0, cout = 0, kh = 1, kw = 1, sh = 1, sw = 1, dil = 1;
  double outputs = 0, out_h = 0, out_w = 0;  ///< output elements (batch included), output map
  double inputs = 0;                          ///< input elements (batch included); 0 where unknown
};
/// The forward implicit-GEMM view of a convolution (groups x output pixels x output channels per group x input
/// channels per group x taps), the view its gradients are timed on too; none where the shape is incomplete.
std::optional<GemmShape> conv_forward_gemm(const ConvShape& s, double batch);
/// The facts of a conv draft from its shape, one definition for network plans and kernel rows: depthwise,
/// the taps PyTorch's own FP32 depthwise kernel loads (depthwise_tap_bytes), Winograd and its tile fill.
void set_conv_facts(KernelDraft& d, const ConvShape& s, const PredictOptions& opts);
/// KernelDraft::depthwise_tap_bytes of a depthwise conv with `outputs` output elements, a kh x kw filter and
/// width stride sw, elements of `element_bytes`: per warp and tap, 32 input loads spread over sw x 32 x
/// element_bytes bytes (4 x sw sectors at FP32, 2 x sw at FP16; one more for the misaligned start) and one
/// weight sector shared by the warp.
double depthwise_tap_bytes(double outputs, double kh, double kw, double sw, double element_bytes = 4);
/// KernelDraft::winograd_tile_fill of an out_h x out_w output (1 if either is unknown).
double winograd_tile_fill(double out_h, double out_w);
/// Share of k_winograd_gain a Winograd draft keeps for the channels c its GEMM reduces (input channels forward,
/// output channels for the data gradient, the fewer for the filter gradient): the main-loop efficiency of a
/// c-long reduction over that of the direct kernel's 9c-long one (k_k_loop_overhead); 1 where the draft has
/// no GEMM view or another phase.
double winograd_channel_fill(const KernelDraft& k);
/// Copy the analytical terms into a kernel record (corrected time starts equal to the analytical one).
void apply_terms(const KernelTerms& t, KernelEstimate& k);

}  // namespace perfpred::detail
