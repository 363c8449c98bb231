// The analytical time of one kernel: a tiled GEMM view with wave quantisation for convolutions and
// matrix products, a bandwidth model with L2 residency for everything, a launch floor, and the
// roofline terms blended with partial overlap. Constants: model_constants.hpp.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <span>

#include "model_constants.hpp"
#include "plan.hpp"
#include "perfpred/hw/sustained_clock.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {

std::string to_string(Bound b) {
  switch (b) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::launch: return "launch";
  }
  return "compute";
}

namespace detail {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::forward: return "forward";
    case Phase::backward_data: return "backward_data";
    case Phase::backward_weight: return "backward_weight";
    case Phase::backward: return "backward";
    case Phase::loss: return "loss";
    case Phase::optimizer: return "optimizer";
    case Phase::gradients: return "gradients";
    case Phase::casts: return "casts";
  }
  return "forward";
}

const char* phase_suffix(Phase p) {
  switch (p) {
    case Phase::backward_data: return ".bwd_data";
    case Phase::backward_weight: return ".bwd_weight";
    case Phase::backward: return ".bwd";
    default: return "";
  }
}

namespace {
double positive_or(double v, double fallback) { return (std::isfinite(v) && v > 0) ? v : fallback; }

/// Share of the tensor peak `tensor_flops` (the TF32 or FP16/BF16 rate of `r`) that cuDNN's tensor-core
/// convolutions reach: `base` (k_conv_tensor_eff for TF32, k_conv_tensor_half_eff for FP16/BF16) at
/// k_conv_tensor_ref_flops_per_sm_clock, scaled by the rate per SM and clock to the power `exponent`
/// (k_conv_tensor_rate_exponent, k_conv_tensor_half_rate_exponent; model_constants.hpp); `base` where that rate
/// is unknown.
double cudnn_conv_tensor_eff(double tensor_flops, const GpuRates& r, double base, double exponent) {
  if (!(r.core_clock_hz > 0) || !(r.sms > 0) || !(tensor_flops > 0)) return base;
  const double per_sm_clock = tensor_flops / (r.sms * r.core_clock_hz);
  const double eff = base * std::pow(model::k_conv_tensor_ref_flops_per_sm_clock / per_sm_clock, exponent);
  return std::min(eff, model::k_gemm_tensor_eff);
}

/// Thread blocks an SM keeps resident at most (CUDA's occupancy limit per compute capability): 16 on Turing and
/// GA10x (sm_75, sm_86, sm_87), 24 on Ada (sm_89), 32 elsewhere from Maxwell to Hopper.
double max_resident_blocks_per_sm(const GpuSpec& gpu) {
  const std::string& cc = gpu.compute_capability;
  if (cc == "7.5" || cc == "8.6" || cc == "8.7") return 16;
  if (cc == "8.9") return 24;
  return 32;
}

/// Speed-up of Turing's FP32 SIMT convolutions from their INT32 pipe: gain g more FMAs per clock draw g times the
/// power, and where that leaves less than the card's power share (rated_power_share) the clock falls as the
/// power-clock law of perfpred/hw/sustained_clock.hpp says: g x clock(share / g) / clock(share), clock(x) =
/// min(1, x^(1 / k_power_clock_exponent)). g with power to spare, g^(1 - 1/k) at a cap, continuous in between.
double turing_conv_issue_gain(const GpuSpec& gpu) {
  const double g = 1 + model::k_int_pipe_simt_gain, share = rated_power_share(gpu);
  if (!std::isfinite(share) || !(share > 0)) return g;
  const auto clock = [](double x) { return std::min(1.0, std::pow(x, 1.0 / k_power_clock_exponent)); };
  return g * clock(share / g) / clock(share);
}
}  // namespace

GpuRates gpu_rates(const GpuSpec& gpu, Precision p, Runtime rt, double clock_scale) {
  GpuRates r;
  double simt = gpu.fp32_tflops * 1e12;
  if (!(simt > 0)) simt = 2.0 * gpu.sm_count * gpu.fp32_lanes_per_sm * gpu.boost_clock_mhz * 1e6;
  if (!(simt > 0)) throw InputError("GPU '" + gpu.id + "': no FP32 rate (fp32_tflops or sm_count x fp32_lanes_per_sm x boost_clock_mhz)");
  r.simt_fp32_flops = simt;
  r.vector_flops = std::max(positive_or(gpu.vector_flops(p), 0), simt);
  if (gpu.uses_tensor_cores(Precision::tf32)) {
    r.tensor_tf32 = true;
    r.matrix_tf32_flops = positive_or(gpu.peak_flops(Precision::tf32), simt);
  }
  if (p != Precision::fp32 && gpu.uses_tensor_cores(p)) {
    r.tensor = true;
    r.matrix_flops = positive_or(gpu.peak_flops(p), simt);
    if (p == Precision::fp16 && rt == Runtime::tensorrt)
      r.matrix_flops = std::max(r.matrix_flops, gpu.tensor_fp16_fp16acc_tflops * 1e12);
  } else if (p == Precision::fp16 || p == Precision::bf16 || p == Precision::int8) {
    // No tensor path: packed FP16 (P100, Jetson: 2x) or dp4a INT8 where the device has it; Pascal
    // consumer FP16 runs at FP32 speed in cuDNN (FP32 math on FP16 storage), never slower.
    r.matrix_flops = std::max(positive_or(gpu.peak_flops(p), 0), simt);
  } else {
    r.matrix_flops = simt;
  }
  // The clock headroom of desktop cards, once for every math rate (it was applied twice to the FP32
  // and vector rates, which already held it through `simt`, and once to the tensor rates).
  if (gpu.segment == "desktop") {
    r.simt_fp32_flops *= model::k_desktop_boost_headroom;
    r.vector_flops *= model::k_desktop_boost_headroom;
    r.matrix_flops *= model::k_desktop_boost_headroom;
    r.matrix_tf32_flops *= model::k_desktop_boost_headroom;
  }
  // Math runs at the clock the power limit sustains. DRAM-bound kernels keep their speed at the rated (TDP)
  // clock, and follow the clock drop of a limit below the TDP (GpuRates::limit_memory_share).
  r.clock_scale = clock_scale > 0 ? clock_scale : sustained_clock_scale(gpu);
  if (const double rated = rated_clock_scale(gpu); rated > 0) r.limit_memory_share = std::min(1.0, r.clock_scale / rated);
  r.simt_fp32_flops *= r.clock_scale;
  r.vector_flops *= r.clock_scale;
  r.matrix_flops *= r.clock_scale;
  r.matrix_tf32_flops *= r.clock_scale;
  if (gpu.sm_count > 0 && gpu.fp32_lanes_per_sm > 0)
    r.core_clock_hz = r.simt_fp32_flops / (2.0 * gpu.sm_count * gpu.fp32_lanes_per_sm);
  r.half_precision = p == Precision::fp16 || p == Precision::bf16;
  // PyTorch hands cuDNN FP16 convolutions with an FP32 compute type; without tensor cores that is cuDNN's
  // pseudo-half path. Where FP16 arithmetic is no faster than FP32 (GM20x has none, sm_61 runs it at 1/64), the
  // networks show its gradient kernels' own costs (k_pseudo_half_*_slowdown); the P100 and the Jetson boards
  // compute FP16 at twice the FP32 rate and are left as they are.
  r.pseudo_half_convs = p == Precision::fp16 && rt == Runtime::pytorch && !gpu.uses_tensor_cores(p) &&
                        gpu.fp16_tflops < gpu.fp32_tflops;
  r.int8 = p == Precision::int8;
  r.runtime = rt;
  const double cc_number = std::strtod(gpu.compute_capability.c_str(), nullptr);  // 0 where unknown
  r.sm80_tensor_cores = cc_number >= 8.0;
  r.l1_caches_global = l1_caches_global_loads(gpu);
  if (cc_number >= 5.0 && cc_number < 7.0) r.batched_sgemm = GpuRates::BatchedSgemm::pascal;
  if (cc_number >= 8.0 && cc_number < 9.0) r.batched_sgemm = GpuRates::BatchedSgemm::ampere;
  r.sgemm_tn_small_tiles = sgemm_tn_small_tiles(gpu, rt);
  const std::string& cc = gpu.compute_capability;
  // cuBLAS's volta_sgemm kernels (sm_70/72/75) write C at their own share of DRAM bandwidth.
  if (cc == "7.0" || cc == "7.2" || cc == "7.5") r.sgemm_store_eff = model::k_volta_sgemm_store_eff;
  // GV100, GV10B, GA100 (an INT32 pipe of their own) and GP100 (64 FP32 lanes over GV100's registers).
  const bool simt_gain_sm = cc == "7.0" || cc == "7.2" || cc == "8.0" || cc == "6.0";
  // INT8 without tensor cores is dp4a, which runs on the INT32 lanes themselves: no gain there.
  if (simt_gain_sm && p != Precision::int8) r.simt_issue_gain = 1 + model::k_int_pipe_simt_gain;
  // Turing (TU10x) has the INT32 pipe too: its FP32 SIMT convolutions, whose implicit GEMM spends more issue
  // slots on address arithmetic than a GEMM, issue more FMAs per clock, as far as power allows.
  if (cc == "7.5" && p != Precision::int8) r.simt_conv_issue_gain = turing_conv_issue_gain(gpu);
  // DeepBench's T4 INT8 GEMMs (cuBLAS 10.1, cublasGemmEx with INT32 compute in plain layouts) peaked at 24.2 TOPS,
  // under the 32.6 of dp4a (4 INT8 multiply-adds per INT32 lane per clock) and a fifth of the INT8 tensor peak:
  // Turing's IMMA kernels take cublasLt's interleaved COL32 layouts only. Bare cuBLAS calls (runtime cudnn) there run
  // dp4a; TensorRT and Ampere and later keep the tensor cores (no such rows to say otherwise).
  r.int8_gemm_dp4a = p == Precision::int8 && rt == Runtime::cudnn && cc == "7.5" && r.tensor;
  r.dram_bps = gpu.mem_bandwidth_gbps * 1e9;
  if (!(r.dram_bps > 0)) throw InputError("GPU '" + gpu.id + "': mem_bandwidth_gbps must be positive");
  r.dram_bps *= dram_ecc_share(gpu);
  r.l2_bytes = std::max(0.0, gpu.l2_cache_mb) * 1024 * 1024;
  r.sms = std::max(1, gpu.sm_count);
  const double threads_per_sm = gpu.max_threads_per_sm > 0 ? gpu.max_threads_per_sm : 2048.0;
  r.threads_per_sm = threads_per_sm;
  r.blocks_per_sm = max_resident_blocks_per_sm(gpu);
  r.launch_floor_s = gpu.segment == "embedded" ? model::k_launch_floor_embedded_s : model::k_launch_floor_s;
  // After the rates, clock and SM count. FP16/BF16 convolutions pay cuDNN's layout reorders as kernels of their
  // own (time_kernel), so their share starts higher.
  r.conv_tensor_eff =
      r.half_precision
          ? cudnn_conv_tensor_eff(r.matrix_flops, r, model::k_conv_tensor_half_eff, model::k_conv_tensor_half_rate_exponent)
          : cudnn_conv_tensor_eff(r.matrix_flops, r, model::k_conv_tensor_eff, model::k_conv_tensor_rate_exponent);
  r.conv_tensor_tf32_eff =
      cudnn_conv_tensor_eff(r.matrix_tf32_flops, r, model::k_conv_tensor_eff, model::k_conv_tensor_rate_exponent);
  return r;
}

namespace {

struct TileResult {
  double time_s = std::numeric_limits<double>::infinity();
  double waves = 0;
  double wave_efficiency = 1;
};

using Tiles = std::span<const model::TileConfig>;

/// The tiles a GEMM view may run: a batched product (`strided_batched`) only the large tiles of
/// k_batched_tiles, or the one tile cuBLAS's batched FP32 SIMT kernel has on this architecture (`simt_cublas`:
/// FP32 math off the tensor cores, not TensorRT's tactics, not a fused attention kernel); an nn.Linear forward
/// on cuBLAS's FP32-math kernels of Maxwell/Pascal (`tn`: FP32 or FP16 storage, no tensor cores there) the small
/// tiles of k_tiles_sgemm_pascal_tn; any other GEMM k_tiles.
Tiles gemm_tiles(bool strided_batched, bool simt_cublas, bool tn, const GpuRates& r) {
  if (!strided_batched && tn && r.sgemm_tn_small_tiles) return Tiles(model::k_tiles_sgemm_pascal_tn);
  if (!strided_batched) return Tiles(model::k_tiles);
  if (simt_cublas && r.batched_sgemm == GpuRates::BatchedSgemm::pascal) return Tiles(model::k_batched_tiles_sgemm_pascal);
  if (simt_cublas && r.batched_sgemm == GpuRates::BatchedSgemm::ampere) return Tiles(model::k_batched_tiles_sgemm_ampere);
  return Tiles(model::k_batched_tiles);
}

/// How a kernel family runs a product with fewer output tiles than the GPU has block slots.
enum class FewTiles {
  split_k,  ///< splits the reduction over more blocks where that is faster (cuBLAS, cuDNN's gradient kernels)
  whole_k,  ///< one block per tile walks the whole reduction (INT8 forward convolutions)
  /// One block per tile walks the whole reduction, and a block that shares its SM with fewer blocks than the
  /// tile's occupancy allows issues faster (fewer warps compete for the SM; k_lone_block_exponent): cuDNN's
  /// SIMT forward convolutions, FP32 math or FP16 without tensor cores (NeuSight's PyTorch 2.1 rows,
  /// cudnn.benchmark on: docs/model.md, "Forward convolutions with few tiles").
  whole_k_shared_sm,
};

/// Fastest tile/split-K of a (batched) GEMM on `sms` SMs at `rate` FLOP/s with base efficiency `eff`, from
/// `tile_set` (gemm_tiles). `strided_batched`: a cuBLAS batched product, which never splits K.
/// `few_tiles`: how the kernel family runs a product with few output tiles (FewTiles). `clock_scale` < 1: a power-limited card, whose clock rises for a kernel that keeps only part
/// of its SMs busy: power goes with the busy SMs (on average blocks / (waves x slots) of them), so the
/// clock that share sustains applies, up to boost. This also keeps a wider chip under the same power
/// limit never slower on a kernel that cannot use the extra SMs.
TileResult best_tile(const GemmShape& s, Tiles tile_set, bool strided_batched, FewTiles few_tiles, double rate, double eff,
                     double sms, double dram_bps, double clock_scale) {
  TileResult best;
  const double m = std::max<int64_t>(1, s.m), n = std::max<int64_t>(1, s.n), k = std::max<int64_t>(1, s.k);
  const double b = std::max<int64_t>(1, s.batch);
  for (const auto& t : tile_set) {
    const double tiles = b * std::ceil(m / t.m) * std::ceil(n / t.n);
    const double slots = sms * t.blocks_per_sm;
    for (int split : model::k_split_k) {
      if (split > 1 && (strided_batched || few_tiles != FewTiles::split_k || k / split < model::k_split_k_min_k)) break;
      const double blocks = tiles * split;
      const double waves = std::ceil(blocks / slots);
      const double kb = std::ceil(k / split);
      const double k_eff =
          kb / (kb + (strided_batched ? model::k_batched_k_loop_overhead : model::k_k_loop_overhead));
      double block_rate = rate / slots * eff * t.efficiency * k_eff;
      if (few_tiles == FewTiles::whole_k_shared_sm && blocks < slots) {
        // Fewer blocks than slots: each SM holds ceil(blocks / sms) of them and shares its issue rate among
        // those, at the efficiency their warps reach (k_lone_block_exponent).
        const double resident = std::min<double>(t.blocks_per_sm, std::ceil(blocks / sms));
        block_rate *= std::pow(t.blocks_per_sm / resident, 1.0 - model::k_lone_block_exponent);
      }
      double time = waves * (2.0 * t.m * t.n * kb) / block_rate;
      const double busy = blocks / (waves * slots);
      time /= partial_load_clock_gain(busy, clock_scale);
      if (split > 1) time += (split + 1.0) * b * m * n * 4.0 / (dram_bps * model::k_mem_eff_stream);  // reduce partials
      if (time < best.time_s) {
        best.time_s = time;
        best.waves = waves;
        best.wave_efficiency = blocks / (waves * slots);
      }
    }
  }
  return best;
}

/// DRAM time. The L2 is not given a bandwidth of its own: a working set that fits in L2 is small enough
/// that the kernel sits at its launch floor on every catalogued GPU, and any per-kernel L2 speed-up
/// makes the time per sample grow with the batch (the working set leaves L2), which breaks the
/// "larger batch never lowers throughput" contract (docs/model.md, "L2").
double memory_time(double bytes, double dram_bps, double eff) {
  if (bytes <= 0) return 0;
  return bytes / (dram_bps * eff);
}

double memory_efficiency(const KernelDraft& k) {
  if (k.depthwise) return model::k_mem_eff_depthwise;
  switch (k.family) {
    case OpFamily::conv:
    case OpFamily::conv_transpose:
    case OpFamily::gemm:
    case OpFamily::rnn: return model::k_mem_eff_gemm;
    case OpFamily::elementwise: return model::k_mem_eff_stream;  // optimizer updates stream as well
    case OpFamily::pool: return k.windowed_pool ? model::k_mem_eff_pool : model::k_mem_eff_irregular;
    default: return model::k_mem_eff_irregular;
  }
}

}  // namespace

bool sgemm_tn_small_tiles(const GpuSpec& gpu, Runtime rt) {
  // PyTorch's cuBLAS (11+) on Maxwell/Pascal: an nn.Linear forward's SGEMM (TN) takes small tiles only.
  const double cc = std::strtod(gpu.compute_capability.c_str(), nullptr);
  return cc >= 5.0 && cc < 7.0 && rt == Runtime::pytorch;
}

bool l1_caches_global_loads(const GpuSpec& gpu) {
  const double cc = std::strtod(gpu.compute_capability.c_str(), nullptr);
  return !(cc > 0 && cc < 7.0);
}

double host_copy_time_s(double bytes, const GpuSpec& gpu, double pageable_host_scale) {
  const double link = gpu.host_link_gbps > 0 ? gpu.host_link_gbps * 1e9 : 12e9;
  const double staging =
      pageable_host_scale > 0 ? bytes * pageable_host_scale / (model::k_pageable_stage_gbps * 1e9) : 0.0;
  return model::k_copy_fixed_s + bytes / link + staging;
}

double dram_ecc_share(const GpuSpec& gpu) {
  const bool gddr = gpu.memory_type.rfind("GDDR", 0) == 0;
  return gddr && gpu.dram_ecc ? model::k_gddr_ecc_dram_share : 1.0;
}

void set_bn_backward_channels(KernelDraft& d, double numel, double channels) {
  if (!(numel > 0 && channels > 0)) return;
  d.channel_blocks = channels;
  d.channel_elems = numel / channels;
  d.channel_passes = model::k_bn_backward_channel_passes;
}

void set_depthwise_grad_weight_blocks(KernelDraft& d, double filters, double taps, double batch, double outputs) {
  if (!(filters > 0 && taps > 0 && batch > 0 && outputs > 0)) return;
  d.channel_blocks = filters * taps;
  d.channel_elems = outputs;
  d.channel_passes = 1;
  d.channel_block_threads = std::min(32.0 * batch, model::k_depthwise_grad_weight_max_threads);
}

double resident_block_slots(const GpuRates& r, double threads) {
  const double per_sm = std::floor(r.threads_per_sm / std::max(1.0, threads));
  return r.sms * std::max(1.0, std::min(r.blocks_per_sm, per_sm));
}

void set_bn_inference_planes(KernelDraft& d, double numel, double images, double channels) {
  if (!(numel > 0) || !(images > 0) || !(channels > 0)) return;
  d.plane_blocks = images * channels;
  d.plane_elems = numel / d.plane_blocks;
}

std::optional<GemmShape> conv_forward_gemm(const ConvShape& s, double batch) {
  const double taps = s.kh * s.kw, pixels = batch * s.out_h * s.out_w;
  if (!(s.groups >= 1 && s.cin >= s.groups && s.cout >= s.groups && taps >= 1 && pixels >= 1)) return std::nullopt;
  const double cin_g = s.cin / s.groups, cout_g = s.cout / s.groups;
  const double largest = 1e15;  // well inside int64 and any shape a row can hold
  if (cin_g * taps > largest || pixels > largest || s.groups > largest) return std::nullopt;
  return GemmShape{static_cast<int64_t>(s.groups), static_cast<int64_t>(pixels), static_cast<int64_t>(cout_g),
                   static_cast<int64_t>(cin_g * taps)};
}

void set_conv_facts(KernelDraft& d, const ConvShape& s, const PredictOptions& opts) {
  const Runtime rt = opts.runtime;
  const Precision p = opts.precision;
  const double cin_g = s.cin > 0 ? s.cin / s.groups : 0;
  // Depthwise: one input channel per group (ATen's ConvParams::is_depthwise), a memory-bound kernel. Two or more
  // channels per group are cuDNN's grouped convolution, a GEMM per group, ResNeXt's 4-channel groups included
  // (docs/model.md, "Grouped convolutions").
  d.depthwise = s.groups > 1 && cin_g == 1;
  // PyTorch's own kernel runs these in FP32; FP16/BF16 take cuDNN's depthwise path
  // only on sm_70 and later (CUDAHooks::supportsDepthwiseConvolutionWithCuDNN), so on the Maxwell/Pascal SMs
  // where the taps matter (GpuRates::l1_caches_global false) half precision runs PyTorch's kernel too, at
  // half the bytes per load. Volta and later keep the loads in L1 whichever kernel runs.
  const bool own_kernel_precision = p == Precision::fp32 || p == Precision::fp16 || p == Precision::bf16;
  if (d.depthwise && rt == Runtime::pytorch && own_kernel_precision)
    d.depthwise_tap_bytes = depthwise_tap_bytes(s.outputs, s.kh, s.kw, s.sw, static_cast<double>(element_bytes(p)));
  d.strided = s.sh > 1 || s.sw > 1;
  d.pointwise = s.groups == 1 && s.kh == 1 && s.kw == 1;
  d.winograd = s.groups == 1 && s.kh == 3 && s.kw == 3 && s.sh == 1 && s.sw == 1 && s.dil == 1 &&
               s.cin >= model::k_winograd_min_channels;
  if (d.winograd) d.winograd_tile_fill = winograd_tile_fill(s.out_h, s.out_w);
  // PyTorch and onnxruntime hand cuDNN NCHW tensors (ONNX's layout, PyTorch's default memory format); its
  // FP16/BF16 tensor-core kernels work on NHWC, so each call reorders the input and the filter before and the
  // result after (KernelDraft::layout_reorder_bytes). A bare cuDNN call takes the caller's layout (DeepBench
  // gives its FP16 and INT8 convolutions NHWC), and TensorRT picks its own formats; torch.channels_last tensors
  // are NHWC already.
  const bool nchw_runtime = (rt == Runtime::pytorch || rt == Runtime::onnxruntime) && !opts.channels_last;
  const bool half = p == Precision::fp16 || p == Precision::bf16;
  d.grouped_nchw_half = nchw_runtime && half && s.groups > 1 && !d.depthwise;
  // cuDNN's tensor-core convolutions load 16 bytes of input channels at a time: a dense convolution with a channel
  // count off that multiple (an RGB stem, a one-channel spectrogram) runs its FP32-math kernels, in half precision
  // too. DeepBench's FP16 convolutions with 1 or 3 input channels (cuDNN 7, NHWC) took 2.5-29x the model's
  // tensor-core time on the V100 and T4, and longer than the FP32 rows of the same shapes. TensorRT pads its inputs
  // to its own formats; INT8's dp4a and IMMA paths have rules of their own.
  const bool cudnn_kernels = rt == Runtime::pytorch || rt == Runtime::onnxruntime || rt == Runtime::cudnn;
  const double align = half ? 8 : (p == Precision::fp32 || p == Precision::tf32) ? 4 : 0;
  d.unaligned_channels = cudnn_kernels && align > 0 && s.groups == 1 && cin_g > 0 && std::fmod(cin_g, align) != 0;
  if (nchw_runtime && half && !d.depthwise && s.inputs > 0 && s.outputs > 0)
    d.layout_reorder_bytes =
        2.0 * (s.inputs + s.outputs + s.cout * cin_g * s.kh * s.kw) * static_cast<double>(element_bytes(p));
}

double depthwise_tap_bytes(double outputs, double kh, double kw, double sw, double element_bytes) {
  if (!(outputs > 0) || !(kh > 0) || !(kw > 0) || !(element_bytes > 0)) return 0;
  // Per warp (32 outputs) and tap: the input span (32 elements, sw apart: element_bytes x sw sectors of 32
  // bytes), one sector for its misaligned start, one weight sector; 32-byte sectors over 32 outputs make that
  // many bytes per output and tap.
  const double sectors_per_warp_tap = element_bytes * std::max(1.0, sw) + 1 + 1;
  return outputs * kh * kw * sectors_per_warp_tap;
}

double winograd_channel_fill(const KernelDraft& k) {
  // The GEMM view of a 3x3 conv: K = input channels x 9, N = output channels. The channels Winograd's GEMM
  // reduces: the input channels forward, the output channels for the data gradient, the fewer of the two for
  // the filter gradient.
  const double cin = k.gemm.k / 9.0, cout = static_cast<double>(k.gemm.n);
  double c = 0;
  if (k.phase == Phase::forward) c = cin;
  else if (k.phase == Phase::backward_data) c = cout;
  else if (k.phase == Phase::backward_weight) c = std::min(cin, cout);
  if (!(c > 0)) return 1.0;
  // Winograd's batched GEMM reduces over the c channels alone, the direct kernel over c x 9 taps: the main
  // loop efficiency K / (K + k_k_loop_overhead) of the first over the second's.
  const auto loop_eff = [](double k) { return k / (k + model::k_k_loop_overhead); };
  return loop_eff(c) / loop_eff(9 * c);
}

double winograd_tile_fill(double out_h, double out_w) {
  if (!(out_h > 0) || !(out_w > 0)) return 1;
  return out_h * out_w / (4 * std::ceil(out_h / 4) * 4 * std::ceil(out_w / 4));
}

namespace {

/// The math rate a matrix kernel runs at on its path (tensor cores, TF32, FP32 SIMT) and the share of it
/// it reaches: the family's efficiency, the SM's SIMT gain, Winograd, the conv gradients' slowdowns.
struct MatrixMath {
  double rate = 0;
  double eff = 0;
  bool tensor = false;
};

/// Whether the math of `k` may run on tensor cores on these rates. cuDNN before sm_80 has no tensor-core kernel
/// for a grouped convolution of NCHW tensors, so PyTorch's and onnxruntime's FP16/BF16 groups run FP16 storage
/// with FP32 math there (pytorch/pytorch#10290 on the Titan V; NVIDIA/apex#196 and ryujaehun's RTX 2080 Ti
/// machines: docs/model.md, "Grouped convolutions"). From sm_80 they take the tensor path with its reorders
/// (cuDNN 9.14 on perfpred's H200; cuDNN 8.1's transposes on GA102, pytorch/pytorch#54324). A dense convolution
/// whose input channels are off the tensor kernels' 16-byte loads (KernelDraft::unaligned_channels) takes the FP32-math
/// kernels where tensor cores exist; a GPU without them keeps its non-tensor half rate.
bool tensor_allowed(const KernelDraft& k, const GpuRates& r) {
  return k.tensor_ok && !(k.grouped_nchw_half && !r.sm80_tensor_cores) && !(k.unaligned_channels && r.tensor);
}

MatrixMath matrix_math(const KernelDraft& k, const GpuRates& r) {
  const bool conv = k.family == OpFamily::conv || k.family == OpFamily::conv_transpose;
  const bool simt_path = k.path == KernelDraft::MatrixPath::simt;
  const bool tf32 = !simt_path && k.conv_tf32 && r.tensor_tf32 && !k.unaligned_channels;
  // Bare cuBLAS INT8 GEMMs on Turing: dp4a on the SIMT path (GpuRates::int8_gemm_dp4a).
  const bool dp4a_gemm = k.family == OpFamily::gemm && r.int8_gemm_dp4a;
  const bool tensor = !simt_path && !dp4a_gemm && (tf32 || (r.tensor && tensor_allowed(k, r)));
  // RNN time steps in FP16/BF16 without tensor cores: cuDNN's recurrent kernels keep FP16 storage and
  // compute in FP32 (DeepBench's P100 "pseudo FP16"), so packed half math (P100, Jetson) does not apply.
  const bool fp32_math_steps = k.family == OpFamily::rnn && k.serial_steps > 1 && r.half_precision && !r.tensor;
  // Half GEMMs without tensor cores compute in FP32 outside TensorRT: PyTorch calls cublasGemmEx with FP32
  // compute for half (ONNX Runtime and perfpred's harness likewise), so the packed half rate of the P100 and
  // the Jetson boards does not apply. DeepBench's P100 "pseudo FP16" GEMMs (FP16 storage, FP32 math) took the
  // FP32 rows' time (median ratio 1.00, P10-P90 0.89-1.03, 160 shapes). Convolutions keep the packed rate:
  // cuDNN's pseudo-half kernels ran those shapes at a median 0.87 of the FP32 time (0.58 on large 3x3 and 5x5
  // filters), so neither rate is theirs.
  const bool fp32_math_gemm =
      k.family == OpFamily::gemm && r.half_precision && !r.tensor && r.runtime != Runtime::tensorrt;
  const bool precision_rate = tensor_allowed(k, r) && !fp32_math_steps && !fp32_math_gemm;
  const double rate = dp4a_gemm   ? 4 * r.simt_fp32_flops  // dp4a: 4 INT8 multiply-adds per INT32 lane
                      : simt_path ? r.simt_fp32_flops
                      : tf32      ? r.matrix_tf32_flops
                                  : (precision_rate ? r.matrix_flops : r.simt_fp32_flops);
  double eff = conv ? (tensor ? model::k_conv_tensor_eff : model::k_conv_simt_eff)
                    : (tensor ? (r.int8 ? model::k_gemm_tensor_int8_eff : model::k_gemm_tensor_eff)
                              : model::k_gemm_simt_eff);
  if (!tensor) eff *= r.simt_issue_gain;
  if (!tensor && conv) eff *= r.simt_conv_issue_gain;
  if (conv && tensor && !r.int8 && r.runtime != Runtime::tensorrt) eff = tf32 ? r.conv_tensor_tf32_eff : r.conv_tensor_eff;
  if (conv && tensor && r.int8 && r.runtime == Runtime::tensorrt && r.sm80_tensor_cores) eff = model::k_conv_tensor_int8_trt_async_eff;
  if (conv && !tensor && r.int8 && r.runtime == Runtime::cudnn) eff *= model::k_conv_dp4a_share;
  // Winograd pays for the partial 4x4 tiles at the output's edges; where that leaves it slower than the
  // direct (implicit GEMM) kernel, cuDNN runs the direct one (5-7 px feature maps).
  const double winograd_gain = model::k_winograd_gain * k.winograd_tile_fill * winograd_channel_fill(k);
  const bool winograd = k.winograd && (tensor || winograd_gain > 1);
  if (winograd && !tensor) eff *= winograd_gain;
  if (conv && !winograd) {
    if (k.phase == Phase::backward_data)
      eff /= k.strided ? model::k_conv_bwd_data_strided_slowdown : model::k_conv_bwd_data_slowdown;
    if (k.phase == Phase::backward_weight) eff /= model::k_conv_bwd_weight_slowdown;
  }
  if (k.family == OpFamily::conv && r.pseudo_half_convs) {
    if (k.phase == Phase::backward_data && k.strided) eff /= model::k_pseudo_half_strided_dgrad_slowdown;
    if (k.phase == Phase::backward_weight && k.pointwise) eff /= model::k_pseudo_half_pointwise_wgrad_slowdown;
  }
  return {rate, eff, tensor};
}

/// How the kernel family of `k` runs a product with few output tiles (FewTiles).
FewTiles few_tiles_of(const KernelDraft& k, const GpuRates& r, bool tensor) {
  // Forward convolutions keep their whole reduction in one block per output tile: INT8 has only
  // implicit-GEMM forward kernels (no Winograd, FFT or split-K variant in cuDNN or TensorRT), and cuDNN's
  // FP32 forward convolutions with under a wave of tiles ran 2-6x slower than a split reduction would
  // (NeuSight, PyTorch 2.1; DeepBench's FP32 forward rows under a wave agree). Tensor-core kernels and
  // TensorRT's tactics are left splitting: DeepBench's FP16 forward rows and trtutils' RTX 3090 YOLOv8 rows
  // at batch 1 (few tiles) are closer that way (the latter within 12%, and up to 70% too slow without).
  const bool conv = k.family == OpFamily::conv || k.family == OpFamily::conv_transpose;
  if (!(conv && k.phase == Phase::forward)) return FewTiles::split_k;
  if (r.int8) return FewTiles::whole_k;
  if (tensor || r.runtime == Runtime::tensorrt) return FewTiles::split_k;
  return FewTiles::whole_k_shared_sm;
}

/// A matrix kernel that runs cuBLAS's FP32 SGEMM kernels (NeuSight's bmm rows) where it is a GEMM: FP32 SIMT
/// math outside TensorRT and fused attention; FP16/INT8 on SIMT lanes run other kernels.
bool simt_sgemm(const KernelDraft& k, const GpuRates& r, bool tensor) {
  return !tensor && !r.half_precision && !r.int8 && !k.fused_attention && r.runtime != Runtime::tensorrt;
}

/// Compute time of a matrix kernel at `m`: on its GEMM view, the fastest tile and split (waves and wave
/// efficiency into `out`), times its serial steps, plus any extra FLOPs a fused group carries; without a
/// GEMM view, its FLOPs at the rate.
double matrix_compute_s(const KernelDraft& k, const GpuRates& r, const MatrixMath& m, double steps, KernelTerms& out) {
  if (!(k.gemm.m > 0 && k.gemm.n > 0 && k.gemm.k > 0)) return k.flops / (m.rate * m.eff);
  // A MatMul with batch dims is cuBLAS's strided-batched GEMM; RNN directions and conv groups are cuDNN's.
  const bool strided_batched = k.family == OpFamily::gemm && k.gemm.batch > 1;
  const bool simt_cublas = simt_sgemm(k, r, m.tensor);
  const bool tn = k.cublas_tn && !m.tensor && !r.int8 && !k.fused_attention;  // dp4a GEMMs run kernels of their own
  const TileResult t = best_tile(k.gemm, gemm_tiles(strided_batched, simt_cublas, tn, r), strided_batched,
                                 few_tiles_of(k, r, m.tensor), m.rate, m.eff, r.sms, r.dram_bps, r.clock_scale);
  double compute = t.time_s * steps;
  out.waves = t.waves;
  out.wave_efficiency = t.wave_efficiency;
  // A fused group or a conv counted with extra work (bias, activation) keeps its extra FLOPs.
  const double gemm_flops = 2.0 * std::max<int64_t>(1, k.gemm.batch) * k.gemm.m * k.gemm.n * k.gemm.k * steps;
  if (k.flops > gemm_flops * 1.05) compute += (k.flops - gemm_flops) / (r.vector_flops * model::k_vector_compute_eff);
  return compute;
}

/// The time per step a kernel's blocks take whatever its FLOPs and bytes, where they walk serially (0 where none
/// does): a recurrent step's reduction, a per-channel or per-filter-tap reduction block (KernelDraft::channel_*),
/// a per-plane BatchNorm block (KernelDraft::plane_*).
double latency_bound_step(const KernelDraft& k, const GpuRates& r, double steps) {
  double body_step = 0;
  if (steps > 1 && k.family == OpFamily::rnn && k.matrix && k.gemm.k > 0 && r.core_clock_hz > 0) {
    // A recurrent step cannot overlap the next one, and its GEMM is too small to fill the GPU: each block
    // walks the reduction serially, every k-slice waiting on its operand loads. The step takes at least
    // K x k_rnn_step_cycles_per_k SM cycles, whatever the FLOPs and bytes.
    body_step = std::max(body_step, static_cast<double>(k.gemm.k) * model::k_rnn_step_cycles_per_k / r.core_clock_hz);
  }
  if (k.channel_passes > 0 && k.channel_blocks > 0 && k.channel_elems > 0) {
    // One block per channel, each at its own streaming rate (KernelDraft::channel_blocks): blocks beyond what
    // the GPU holds at once wait for a second round.
    const bool bn = !(k.channel_block_threads > 0);
    const double rate =
        !bn ? model::k_bn_channel_block_elems_per_s * k.channel_block_threads / model::k_bn_channel_block_threads
        : r.half_precision ? model::k_bn_channel_block_elems_per_s_half : model::k_bn_channel_block_elems_per_s;
    const double slots = resident_block_slots(r, bn ? model::k_bn_channel_block_threads : k.channel_block_threads);
    const double rounds = std::ceil(k.channel_blocks / slots);
    body_step = std::max(body_step, rounds * k.channel_elems * k.channel_passes / rate / steps);
  }
  if (k.plane_blocks > 0 && k.plane_elems > 0) {
    // One block per (image, channel) plane, latency-bound (KernelDraft::plane_blocks): waves of the blocks the
    // GPU holds at once, each a fixed cost plus one per pass of its threads over the plane.
    const bool wide = k.plane_elems >= model::k_bn_inf_wide_block_min_elems;
    const double threads = wide ? model::k_bn_inf_wide_threads : model::k_bn_inf_narrow_threads;
    const double waves = std::ceil(k.plane_blocks / resident_block_slots(r, threads));
    const double passes = std::ceil(k.plane_elems / threads);
    const double t = model::k_bn_inf_offset_s + waves * (model::k_bn_inf_block_s + passes * model::k_bn_inf_iter_s);
    body_step = std::max(body_step, t / steps);
  }
  return body_step;
}

}  // namespace

KernelTerms time_kernel(const KernelDraft& k, const GpuRates& r) {
  KernelTerms out;
  const double steps = std::max(1, k.serial_steps);
  const double launches = std::max(1, k.launches);
  double rate = r.vector_flops;
  double compute = 0;
  bool tensor_path = false;
  const bool conv = k.family == OpFamily::conv || k.family == OpFamily::conv_transpose;
  const bool half_tensor_conv = conv && r.tensor && r.half_precision && tensor_allowed(k, r);
  if (k.path == KernelDraft::MatrixPath::best && k.matrix && !k.depthwise &&
      ((k.conv_tf32 && r.tensor_tf32 && !k.unaligned_channels) || half_tensor_conv)) {
    // TF32 or FP16/BF16 tensor cores allowed: cuDNN picks the faster of its tensor-core kernel and the FP32
    // SIMT one (FP16 storage, FP32 math for half precision), by cudnn.benchmark or its heuristics' ranking.
    // On GA100/GH100 the tensor path has 8-16x the FP32 rate and always wins; on GA10x/AD10x GeForce cards
    // TF32 runs at the FP32 rate and FP16 with FP32 accumulation at 2x, and Winograd wins the 3x3 layers.
    KernelDraft simt = k, tensor = k;
    simt.path = KernelDraft::MatrixPath::simt;
    tensor.path = KernelDraft::MatrixPath::tensor;
    const KernelTerms a = time_kernel(simt, r), b = time_kernel(tensor, r);
    return a.time_s < b.time_s ? a : b;
  }
  if (k.matrix && !k.depthwise) {
    const MatrixMath m = matrix_math(k, r);
    rate = m.rate;
    tensor_path = m.tensor;
    compute = matrix_compute_s(k, r, m, steps, out);
  } else if (k.depthwise) {
    compute = k.flops / (r.vector_flops * model::k_depthwise_compute_eff);
    if (!r.l1_caches_global && k.depthwise_tap_bytes > 0 && r.core_clock_hz > 0)
      compute = std::max(compute, k.depthwise_tap_bytes / (r.sms * r.core_clock_hz * model::k_l2_tap_bytes_per_sm_cycle));
  } else {
    compute = k.flops / (r.vector_flops * model::k_vector_compute_eff);
  }
  double memory = memory_time(k.bytes, r.dram_bps * r.limit_memory_share, memory_efficiency(k));
  if (k.family == OpFamily::gemm && r.sgemm_store_eff > 0 && k.matrix && simt_sgemm(k, r, tensor_path) &&
      k.gemm.m > 0 && k.gemm.n > 0) {
    // cuBLAS's FP32 SIMT GEMM: its result (FP32, batch x M x N) leaves at the kernel family's store share.
    const double c = std::min(k.bytes, 4.0 * std::max<int64_t>(1, k.gemm.batch) * k.gemm.m * k.gemm.n);
    memory = memory_time(k.bytes - c, r.dram_bps * r.limit_memory_share, memory_efficiency(k)) +
             memory_time(c, r.dram_bps * r.limit_memory_share, r.sgemm_store_eff);
  }

  const double hi = std::max(compute, memory), lo = std::min(compute, memory);
  const double body_step = std::max((hi + model::k_roofline_alpha * lo) / steps, latency_bound_step(k, r, steps));
  const double floor_step = r.launch_floor_s * launches / steps;
  const double gap_step = model::k_kernel_gap_s * launches / steps;
  out.compute_s = compute;
  out.memory_s = memory;
  out.launch_s = r.launch_floor_s * launches;
  out.time_s = steps * (std::max(body_step, floor_step) + gap_step);
  double moved_bytes = k.bytes;
  if (tensor_path && conv && k.layout_reorder_bytes > 0) {
    // cuDNN's FP16/BF16 tensor-core convolutions of NCHW tensors: nchwToNhwc on the input and the filter,
    // nhwcToNchw on the result, three memory-bound kernels beside the convolution (perfpred's H200 harness,
    // cuDNN 9.14: data/measured/h200-harness kernel names). TF32 and FP32 kernels read NCHW themselves.
    const double reorder =
        memory_time(k.layout_reorder_bytes, r.dram_bps * r.limit_memory_share, model::k_mem_eff_stream);
    out.time_s += std::max(reorder, model::k_layout_reorder_kernels * r.launch_floor_s) +
                  model::k_layout_reorder_kernels * model::k_kernel_gap_s;
    out.memory_s += reorder;
    out.reorder_kernels = model::k_layout_reorder_kernels;
    moved_bytes += k.layout_reorder_bytes;
  }
  if (floor_step >= body_step) out.bound = Bound::launch;
  else out.bound = compute >= memory ? Bound::compute : Bound::memory;
  if (out.time_s > 0) {
    const double u = std::max(k.flops / (out.time_s * rate), moved_bytes / (out.time_s * r.dram_bps));
    out.utilisation = std::clamp(u, 0.0, 1.0);
  }
  return out;
}

void apply_terms(const KernelTerms& t, KernelEstimate& k) {
  k.compute_s = t.compute_s;
  k.memory_s = t.memory_s;
  k.launch_s = t.launch_s;
  k.waves = t.waves;
  k.wave_efficiency = t.wave_efficiency;
  k.time_s = t.time_s;
  k.corrected_time_s = t.time_s;
  k.reorder_kernels = t.reorder_kernels;
  k.bound = t.bound;
}

}  // namespace detail

namespace {
double attr_or(const KernelEstimate& k, const char* name, double def) {
  for (const auto& [key, v] : k.attrs)
    if (key == name) return v;
  return def;
}
}  // namespace

void estimate_kernel(KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts) {
  using detail::Phase;
  // A host<->device copy (a profile's MemcpyH2D / MemcpyD2H rows) crosses the host link, not DRAM.
  if (k.op == "MemcpyH2D" || k.op == "MemcpyD2H") {
    detail::KernelTerms t;
    t.memory_s = t.time_s = detail::host_copy_time_s(k.bytes, gpu);
    t.bound = Bound::memory;
    detail::apply_terms(t, k);
    return;
  }
  detail::KernelDraft d;
  d.family = k.family;
  d.flops = k.flops;
  d.bytes = k.bytes;
  if (k.phase == "backward_data") d.phase = Phase::backward_data;
  else if (k.phase == "backward_weight") d.phase = Phase::backward_weight;
  else if (k.phase == "backward") d.phase = Phase::backward;
  else if (k.phase == "loss") d.phase = Phase::loss;
  else if (k.phase == "optimizer") d.phase = Phase::optimizer;
  else if (k.phase == "gradients") d.phase = Phase::gradients;
  else if (k.phase == "casts") d.phase = Phase::casts;
  const bool matrix_family = k.family == OpFamily::conv || k.family == OpFamily::conv_transpose ||
                             k.family == OpFamily::gemm || k.family == OpFamily::rnn;
  if (matrix_family && k.gemm) {
    d.matrix = true;
    d.gemm = *k.gemm;
    d.tensor_ok = true;
    d.cublas_tn = k.family == OpFamily::gemm && d.phase == Phase::forward && attr_or(k, "trans_a", 0) == 1 &&
                  attr_or(k, "trans_b", 0) == 0;
  }
  if (k.family == OpFamily::conv || k.family == OpFamily::conv_transpose) {
    detail::ConvShape s;
    s.groups = attr_or(k, "groups", 1);
    s.cin = attr_or(k, "in_channels", 0);
    s.cout = attr_or(k, "out_channels", 0);
    s.kh = attr_or(k, "kernel_h", 0);
    s.kw = attr_or(k, "kernel_w", s.kh);
    s.sh = attr_or(k, "stride_h", 1);
    s.sw = attr_or(k, "stride_w", s.sh);
    s.dil = std::max(attr_or(k, "dilation_h", 1), attr_or(k, "dilation_w", 1));
    s.out_h = attr_or(k, "out_h", 0);
    s.out_w = attr_or(k, "out_w", 0);
    s.outputs = attr_or(k, "batch", 0) * s.cout * s.out_h * s.out_w;
    s.inputs = attr_or(k, "batch", 0) * s.cin * attr_or(k, "in_h", 0) * attr_or(k, "in_w", 0);
    // A convolution's gradients are timed on the forward's implicit-GEMM view, as plan_matrix_backward plans
    // them, whatever view the row carries: perfpred's profiler wrote the transposed products (the data
    // gradient as input pixels x input channels x output channels x taps) before the format said which.
    if (k.family == OpFamily::conv && d.matrix) {
      if (const auto view = detail::conv_forward_gemm(s, attr_or(k, "batch", 0))) {
        d.gemm = *view;
        k.gemm = *view;
      }
    }
    detail::set_conv_facts(d, s, opts);
    d.conv_tf32 = (opts.precision == Precision::fp32 && opts.allow_tf32) || opts.precision == Precision::tf32;
  }
  if (k.family == OpFamily::rnn) {
    const int seq = static_cast<int>(std::max(1.0, attr_or(k, "seq_len", 1)));
    if (d.phase == Phase::backward_weight && d.matrix) {
      // The weight gradient needs no recurrence: every step's dgates are known after the data-gradient
      // pass, so cuDNN forms dW = sum_t dgates_t^T [x_t, h_t-1] as one GEMM with the steps in its reduction.
      d.gemm = GemmShape{d.gemm.batch, d.gemm.n, d.gemm.k, d.gemm.m * seq};
    } else {
      // seq_len dependent steps, each one recurrent GEMM and one gate pointwise kernel (cuDNN's standard
      // algorithm), as plan.cpp plans an ONNX RNN node.
      d.serial_steps = seq;
      d.launches = 2 * seq;
      // The data gradient's step GEMM is dh_{t-1} = dgates_t R: N = hidden, K = gates x hidden, the transpose
      // of the forward's view that a row carries.
      if (d.phase == Phase::backward_data && d.matrix) d.gemm = GemmShape{d.gemm.batch, d.gemm.m, d.gemm.k, d.gemm.n};
    }
  }
  // A BatchNorm gradient row of PyTorch or a bare cuDNN call on NCHW tensors: one block per channel.
  if (k.op == "BatchNormalization" && d.phase == Phase::backward && !opts.channels_last &&
      (opts.runtime == Runtime::pytorch || opts.runtime == Runtime::cudnn)) {
    const double channels = attr_or(k, "channels", 0);
    detail::set_bn_backward_channels(d, attr_or(k, "batch", 0) * channels * attr_or(k, "in_h", 0) * attr_or(k, "in_w", 1),
                                     channels);
  }
  // A BatchNorm forward row of a bare cuDNN call or PyTorch with FP32 weights (FP32/TF32) on NCHW tensors: cuDNN's
  // inference kernel, one block per (image, channel) plane (a kernel row's forward is the inference kernel: no
  // batch statistics).
  if (k.op == "BatchNormalization" && d.phase == Phase::forward && !opts.channels_last &&
      detail::cudnn_eval_batch_norm(opts)) {
    const double channels = attr_or(k, "channels", 0), batch = attr_or(k, "batch", 0);
    detail::set_bn_inference_planes(d, batch * channels * attr_or(k, "in_h", 0) * attr_or(k, "in_w", 1), batch,
                                    channels);
  }
  // A measured PyTorch LayerNorm row carries its ideal traffic; the kernel reads its input twice (plan.cpp).
  if (k.op == "LayerNormalization" && d.phase == Phase::forward && opts.runtime == Runtime::pytorch)
    d.bytes *= model::k_ln_forward_passes / 2.0;
  const auto rates = detail::gpu_rates(gpu, opts.precision, opts.runtime);
  detail::apply_terms(detail::time_kernel(d, rates), k);
}

}  // namespace perfpred
