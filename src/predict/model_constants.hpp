#pragma once
// Every tunable constant of the analytical model, in one place. Each says what it stands for and the
// data it was calibrated or checked on ("prior" = a published/known figure not fitted here).
// docs/model.md explains how they combine; docs/accuracy.md reports the model's error with them.
// tools/calibrate_analytical.py fits the ones marked "fitted" (it prints new values; they are copied here
// by hand so that a build never depends on a data set).

namespace perfpred::model {

// ---- Kernel efficiency: achievable share of the peak math rate ---------------------------------
/// Large FP32 SIMT GEMM (cuBLAS sgemm) share of FP32 peak. Prior: cuBLAS sgemm reaches 85-90% on
/// Pascal/Volta for large squares; fitted on ryujaehun torchvision (1080 Ti, 2080 Ti).
inline constexpr double k_gemm_simt_eff = 0.80;
/// Large tensor-core GEMM share of tensor peak (FP16/BF16/TF32). Fitted on DeepBench's FP16 GEMMs (cuBLAS
/// called directly, calibration GPUs): kernels over 1 ms ran at measured/analytical 0.79 (T4) and 0.78
/// (V100) with 0.65, 0.97 / 0.95 with 0.80; FP16 mean APE T4 21.6% -> 11.8%, V100 28.1% -> 18.7%.
/// Networks (held out): ryujaehun RTX 2080 Ti FP16 32.5% -> 32.4%, Lambda A100 TF32 2.8% -> 2.7%.
inline constexpr double k_gemm_tensor_eff = 0.80;
/// INT8 tensor-core GEMM share of INT8 tensor peak. cuBLAS runs INT8 products in the plain column-major
/// layouts (not cuBLASLt's COL32 / COL4_4R2_8C) through slower IMMA kernels: DeepBench's T4 INT8 GEMMs
/// take a median 2.5x the model's time even at 0.65 (3.0x at 0.80), so INT8 keeps the old prior.
inline constexpr double k_gemm_tensor_int8_eff = 0.65;
/// Convolution (implicit GEMM, im2col on the fly) share of FP32 peak. Fitted on ryujaehun torchvision
/// inference (1080 Ti, 2080 Ti).
inline constexpr double k_conv_simt_eff = 0.80;
/// cuDNN's INT8 convolutions without tensor cores (dp4a, INT8x4 layouts; DeepBench's Pascal rows) reach this
/// share of the SIMT conv efficiency on the dp4a rate: measured/analytical medians were 2.59 (GTX 1080 Ti)
/// and 2.62 (Titan X Pascal) over the rows with >= 4 input channels, where cuBLAS's dp4a GEMMs on the same
/// cards sit at 1.00-1.02. Fitted by mean APE on those two GPUs (all their conv rows, from 35.8/36.2%: 0.38
/// 32.8/33.5%, 0.5 32.1/32.7%, 0.65 33.0/33.3%; INT8 rows 59.1% -> 49.3% at 0.5); the held-out Titan Xp went
/// 36.4% -> 32.7% (all its conv rows).
/// TensorRT's INT8 kernels, written for dp4a, are not given it.
inline constexpr double k_conv_dp4a_share = 0.5;
/// FP32 SIMT convolution/GEMM on the Volta-class SMs of the compute chips and Xavier (GV100, GV10B, GA100:
/// CC 7.0/7.2/8.0) runs their address and loop arithmetic on an INT32 pipe of its own beside
/// the FMAs; Maxwell and Pascal issue it in FP32 slots, and GA10x/AD10x share half their FP32 lanes with
/// it. The efficiencies above are fitted on Pascal and Turing together; these SMs get (1 + gain) of
/// them. Turing has the pipe too; its GEMMs are left out (with the gain the T4's NeuSight GEMMs went 26.5% ->
/// 36.1%), its FP32 convolutions (an implicit GEMM spends more issue slots on address arithmetic than a GEMM)
/// take it as far as power allows: the extra FMAs per clock draw as much more power, and where the TDP caps the
/// clock it falls as the cube root of the share left (kernel_model.cpp; every catalogued Turing card sits at or
/// under the Turing reference's W per TFLOP, so each keeps gain^(2/3) = 1.13). Session 28 had left Turing out
/// because HELP's RTX 2080 Ti went the other way; once cuDNN's eval-mode BatchNorm was costed per plane
/// (k_bn_inf_block_s) the network rows agree (tools/eval_analytical.py --per-group 20): held-out latency 14.9% ->
/// 14.7%, training 17.8% -> 17.5%, calibration 10.7% -> 10.5%, energy 14.9% -> 14.6% (ryujaehun's RTX 2080 Ti
/// FP32 inference 30.9% -> 23.9%, training 17.6% -> 14.0%; no group worse by 0.05 points). Kernels: DeepBench's
/// T4 convolutions 29.5% -> 28.0%, NeuSight's 19.4% -> 20.2%. The gain is continuous in the power share, so a
/// clock or TDP sweep crosses no step. Fitted on kernel sets, checked on
/// networks: DeepBench V100 FP32 (cuDNN 7.6, >= 0.2 ms) measured/analytical median 0.84 conv, 0.88
/// GEMM at 0 -> 1.00 / 1.05 at 0.2, mean APE 42.0% -> 31.0% conv, 24.9% -> 15.4% GEMM; NeuSight V100
/// linear 19.1% -> 7.7%, A100 (TF32 off) 13.2% -> 12.2%. Networks (held out): Lambda V100 FP32 training
/// 45% -> 29%, Zeus V100 energy 18.7% -> 12.2%. Not GH100 (CC 9.0): 128 FP32 lanes per SM over GA100's
/// register file; perfpred's H200 harness SGEMMs (CUPTI kernel time, data/measured/h200-harness) run at 0.77
/// of peak, 18% slower than the gain gave (docs/model.md, "INT32 pipe"). GP100 (CC 6.0) gets it too, for another
/// reason: no INT32 pipe, but GV100's 64 FP32 lanes per SM over the same 64K registers (GP10x's 128 lanes share
/// them). NeuSight's P100 bmm rows (PyTorch 2.1, one kernel: maxwell_sgemm_128x64_nn) ran at a median 0.85 of the
/// model's time without it, 0.81-0.86 from 2 ms to 30 ms; DeepBench's P100 GEMMs (cuBLAS, FP32 and pseudo-FP16)
/// 0.81. With it: NeuSight's P100 bmm 17.2% -> 13.4% mean APE, conv 26.2% -> 24.5%, DeepBench's P100 GEMMs 35.2%
/// -> 19.3%, Zeus's P100 training energy (held out) 12.3% -> 8.5%. It waited for the Linear tiles
/// (k_tiles_sgemm_pascal_tn): alone it made NeuSight's P100 BERT-large 14% too fast.
inline constexpr double k_int_pipe_simt_gain = 0.20;
/// Convolution on tensor cores share of tensor peak (smaller tiles than a GEMM's): TF32 (cuDNN's TF32 kernels
/// read NCHW themselves), TensorRT's and INT8 kernels, and any tensor-core conv where the rate per SM is unknown.
/// Prior.
inline constexpr double k_conv_tensor_eff = 0.50;
/// The same share for cuDNN's FP16/BF16 tensor-core convolutions, whose NCHW<->NHWC reorders are costed as
/// kernels of their own (KernelDraft::layout_reorder_bytes, k_layout_reorder_kernels) instead of inside the
/// efficiency, at the reference rate (k_conv_tensor_ref_flops_per_sm_clock). Fitted on DeepBench's FP16
/// convolutions of the V100 and T4 (cuDNN 7.6 on NHWC tensors: no reorders; forward and both gradients; both GPUs
/// at the reference rate, so the rate law does not enter): mean APE of all their rows V100 / T4 31.4 / 29.8% at 0.6,
/// 30.0 / 28.6% at 0.7, 30.6 / 29.2% at 0.75, 31.6 / 30.3% at 0.8; over the rows of 2 GFLOP and more, whose time
/// the efficiency sets, 32.9 / 33.1% at 0.6 and 24.2 / 26.0% at 0.7 (median measured/analytical 0.85-0.87 ->
/// 0.97-1.00). Was 0.6, fitted on the H200's six GPU-bound FP16 network calibration rows at the H200's rate; the
/// rate law below keeps that (k_conv_tensor_half_rate_exponent). Held out: ryujaehun's Titan V FP16 inference
/// 18.1% -> 16.1% mean APE, RTX 2080 Ti 18.9% -> 17.1%, Lambda's A100 and V100 AMP training 1.09-1.20x, from
/// 1.12-1.25x (docs/accuracy.md, Session 32).
inline constexpr double k_conv_tensor_half_eff = 0.70;
/// Kernels cuDNN adds around an FP16/BF16 tensor-core convolution of NCHW tensors: nchwToNhwc on the input and
/// on the filter, nhwcToNchw on the result (cupti_kernels=4 per call in perfpred's H200 harness rows, cuDNN
/// 9.14; the same three on a V100 under cuDNN 8.2 in public nvprof output). Each pays the launch floor.
inline constexpr int k_layout_reorder_kernels = 3;
/// cuDNN's tensor-core convolutions (under PyTorch, onnxruntime or called directly; TF32 and FP16/BF16, not
/// INT8, not TensorRT's kernels) reach less of the tensor peak the more math an SM does per clock: their
/// operands pass through shared memory at a fixed 128 B per clock and SM whatever the tensor rate, so the
/// share falls as the rate per SM rises. k_conv_tensor_eff holds at k_conv_tensor_ref_flops_per_sm_clock
/// (1024: V100, T4, A10 FP16; A100 TF32) and scales by (ref / rate)^k_conv_tensor_rate_exponent, capped at
/// k_gemm_tensor_eff. Evidence (held-out PyTorch FP16/AMP rows, model bias at the shared 0.5, by the tensor
/// rate per SM and clock): 512 RTX 3090/4090 +19 to +21% (too slow), 1024 A10 -3%, V100 +5%, 2048 A100
/// -17 to -21%, 4096 H100 -28 to -30% (Lambda), H200 (data/measured/h200-pytorch, batch 128) -13 to -43%.
/// Fitted on the GPU-bound calibration rows of the H200 set (ResNet-50 and VGG-16 at batch 128 and replayed
/// as CUDA graphs at batch 1; tools/eval_analytical.py CALIBRATION_H200), mean APE over those 12 rows 22.7% at
/// 0, 20.6% at 0.2, 20.9% at 0.3, 21.0% at 0.4, 21.9% at 0.5, 24.9% at 0.7: a flat minimum, its middle taken.
/// Held out: Lambda's training rows (A10 ... H100, 30 rows) 16.6% -> 11.6% (8.1% at 0.5, 5.1% at 0.7: they
/// would take more), the H200's other eight networks' GPU-bound rows 23.0% -> 22.2%. Since Session 32 this
/// exponent is TF32's; FP16/BF16 take k_conv_tensor_half_rate_exponent from their own reference share.
inline constexpr double k_conv_tensor_ref_flops_per_sm_clock = 1024;
inline constexpr double k_conv_tensor_rate_exponent = 0.3;
/// The rate exponent of FP16/BF16 convolutions (k_conv_tensor_rate_exponent is TF32's): derived, not fitted, as
/// the exponent that keeps the share at 4096 FLOP per SM and clock (H100/H200 FP16) where the H200 calibration
/// rows put it (0.6 x 0.25^0.3 = 0.396) now that the reference share is DeepBench's 0.7: 0.7 x 0.25^0.41 = 0.396.
/// The A100 (2048) gets 0.53 (was 0.49), GeForce Turing/Ampere/Ada FP16 with FP32 accumulation (512) the cap.
/// perfpred's H200 harness FP16 convolutions (cuDNN's legacy API, cudnnFind) ran at a median 1.19x that share's
/// time over the rows of 2 GFLOP and more (1.04x over 10 GFLOP and more), and the H200 networks put it near 1.0;
/// the share at 4096 is kept where the networks put it.
inline constexpr double k_conv_tensor_half_rate_exponent = 0.41;
/// TensorRT's INT8 convolutions on sm_80+ tensor cores (A100, A30, H100, Orin, GeForce 30/40): its INT8 tactics
/// there are multistage cp.async kernels (NC32HW32 layouts, 3-6 stages) that keep the tensor cores fed where the
/// sm_7x ones stage operands through registers. Fitted on MLPerf's Jetson AGX Orin ResNet-50 INT8 rows (batch 1
/// and 8, replayed as CUDA graphs as their harness configs say; the calibration rows of that set,
/// tools/eval_analytical.py CALIBRATION_MLPERF), with INT8 forward convolutions kept off split-K
/// (kernel_model.cpp): their mean APE is 10.9% at 0.65, 10.1% at 0.7, 10.9% at 0.75, 11.5% at 0.8 (15.6% with
/// the shared 0.5, split-K and no graphs). Held out: Orin NX batch 1 14.0% -> 3.6%, batch 8 35.4% -> 8.0%.
/// The FP16 rows of the same boards (trtutils YOLOv8, already 5-12% too fast) keep k_conv_tensor_eff, as do the
/// Xavier boards (sm_72) and cuDNN's INT8 kernels.
inline constexpr double k_conv_tensor_int8_trt_async_eff = 0.7;
/// Effective FLOP reduction of Winograd for 3x3 stride-1 convolutions with >= k_winograd_min_channels
/// input channels on the SIMT path (any number of output channels: cuDNN ran its fused Winograd kernel on
/// 90% of NeuSight's rows with >= 32 in and < 32 out channels, at half the direct conv's time) (F(4x4,3x3) saves 4x multiplies in theory, about 1.5-2x in
/// cuDNN), for long reductions: Winograd's batched GEMM reduces over the channels alone (c), the direct
/// kernel over c x 9 taps, so a layer keeps winograd_channel_fill = (c / (c + k_k_loop_overhead)) / (9c / (9c +
/// k_k_loop_overhead)) of it (0.56 at 32 channels, 0.82 at 128, 0.94 at 512; c is the input channels forward,
/// the output channels for the data gradient, the fewer of the two for the filter gradient). Was a flat 1.8
/// (fitted on ryujaehun torchvision's VGG/ResNet 3x3 layers), which 2.15 keeps at 128 channels. Fitted on
/// NeuSight's FP32 convolutions (every GPU, so not held out for it): median measured/analytical by input
/// channels was 1.50 at 32, 1.39 at 48, 1.22 at 64, 1.02 at 128 and 0.92 at 256+ with the flat gain; their
/// mean APE 27.8% -> 24.6% (2.0 / 2.15 / 2.3: 25.7 / 24.6 / 24.7%). Checked on DeepBench's convolutions (cuDNN 7,
/// forward and gradients) 31.2% -> 30.6% and on the networks (eval_analytical: calibration 13.3% -> 12.9%,
/// held-out inference 19.6% -> 19.4%).
inline constexpr double k_winograd_gain = 2.15;
inline constexpr double k_winograd_min_channels = 32;
/// Per-block main-loop efficiency K/(K + k): short reductions (first conv, K = 27) waste the
/// prologue/epilogue. Prior (NeuSight-style tile model).
inline constexpr double k_k_loop_overhead = 32;
/// The same fixed cost per block of cuBLAS's strided-batched products (MatMul/bmm with batch dims), in
/// reduction steps: about half the single GEMM's. NeuSight's bmm rows (PyTorch 2.1, FP32 SIMT kernels) at
/// k_k_loop_overhead were 20-30% too slow wherever K was under 128 (the A100 1.5-1.7x at K under 32) and right
/// at K of 256 and more, while its linear rows and DeepBench's GEMMs and convolutions are best near 32 (linear
/// 22.2 / 21.9 / 22.2% at 32 / 48 / 64, DeepBench 28.1 / 28.5% at 32 / 16). Fitted on the bmm rows of the
/// calibration GPUs (P100, V100, T4: mean APE 20.1% at 32, 17.8 / 17.6 / 17.6 / 17.6% at 14 / 16 / 18 / 20);
/// held out, the P4 went 17.9 -> 13.9% and the A100 12.2 -> 6.4% (tools/eval_analytical.py networks
/// unchanged: transformers 6.9 -> 6.8%). Why a batched block pays less is not established (the single GEMM's
/// constant also absorbs its tile and split-K choice); tensor-core batched products take it unmeasured.
inline constexpr double k_batched_k_loop_overhead = 18;
/// Depthwise convolution (one input channel per group): share of the non-tensor peak (no data reuse). Prior.
inline constexpr double k_depthwise_compute_eff = 0.25;
/// L2 bytes per SM cycle that PyTorch's own FP32 depthwise kernel gets on Maxwell/Pascal, whose SMs do not
/// keep its per-tap input loads in L1 (GpuRates::l1_caches_global): the kernel re-reads each input element
/// kh x kw times from L2. Fitted on the calibration half of HELP's OFA-MobileNetV3 rows on the Titan Xp at
/// batch 64 (tools/eval_analytical.py, CALIBRATION_OFA), the one GPU-bound depthwise set on these SMs.
inline constexpr double k_l2_tap_bytes_per_sm_cycle = 16;
/// GeForce/Titan (segment "desktop") cards run above their rated boost clock under GPU Boost when
/// cool (GTX 1080 Ti: ~1.75-1.85 GHz measured vs 1.58 rated). Multiplies every math rate once (FP32,
/// vector, tensor, TF32); datacenter parts run near their rating. Prior from those clocks; the
/// calibration split is flat around it (latency mean APE 11.0% at 1.06-1.09, 11.1% at 1.12, 11.4% at
/// 1.18, scripts/eval_analytical.sh) and its held-out rows give 21.6% at 1.09-1.18.
inline constexpr double k_desktop_boost_headroom = 1.12;
// The sustained clock of power-limited cards (its reference table and exponent) lives in
// perfpred/hw/sustained_clock.hpp, shared with the learned roofline.
/// Convolution gradients that do not run Winograd (1x1, strided, grouped) are slower than the forward at
/// equal FLOPs: DeepBench's training convolutions (cuDNN 7, square 1x1 filters, 8 FP32 GPU groups from
/// Maxwell to Turing) put backward-data at a median 1.28x and backward-weight at 1.6x the forward's
/// measured/analytical ratio (tools/conv_phase_ratios.py, docs/accuracy.md). 3x3 stride-1 layers are left
/// at 1: DeepBench's Pascal 3x3 filter gradients are 1.8x slower, but cudnn.benchmark picks faster ones in
/// the networks (VGG trains in 3.0x its inference time on the GTX 1080 Ti, ryujaehun), and Volta/Turing
/// 3x3 gradients are within 1.0-1.35x in DeepBench too. They apply on every path, sm_80+ tensor cores
/// included: the gradients are timed on the forward's GEMM view (plan_matrix_backward), as DeepBench's rows
/// that fitted them were; with the transposed views they replaced, the sm_80+ exception had held Lambda's
/// A100/H100 ResNet-50 training where it is.
/// The data gradient is split by stride (tools/conv_phase_ratios.py, "by filter class", on the model with
/// 1.28 for both): a stride-1 1x1 filter's data gradient is the forward GEMM transposed, 0.90x that (1.15
/// overall); a strided filter's scatters into an input larger than its output, zero-filling the skipped
/// pixels, 1.66x that (2.1 overall), the median of 11 DeepBench GPU/precision groups each.
inline constexpr double k_conv_bwd_data_slowdown = 1.15;
inline constexpr double k_conv_bwd_data_strided_slowdown = 2.1;
inline constexpr double k_conv_bwd_weight_slowdown = 1.6;
/// PyTorch's FP16 training on Maxwell and consumer Pascal (GpuRates::pseudo_half_convs: no tensor cores, FP16
/// arithmetic below the FP32 rate) runs cuDNN's pseudo-half kernels, FP16 storage with FP32 math, and two of their
/// gradient kernels are slower than the FP32-math ones the model times: the data gradient of a strided filter and
/// the filter gradient of a 1x1 filter (on top of k_conv_bwd_data_strided_slowdown / k_conv_bwd_weight_slowdown).
/// ryujaehun's GTX 1080 Ti machine trains ResNet-50 in FP16 1.11x slower than in FP32, ResNet-101/152 1.34-1.38x,
/// while ResNet-18/34, VGG and DenseNet train faster in FP16 (0.87-0.95x), and its FP16 inference is faster
/// throughout (ResNet-50 0.81x): the bottleneck blocks' 1x1 filters, in the backward pass. DeepBench's P100
/// pseudo-half rows (cuDNN 6) agree in kind: strided data gradients took 5.6-11x their FP32 time, 1x1 filter
/// gradients 1.15x against 0.78x for 3x3 ones. Fitted on the GTX 1080 Ti's calibration networks (ResNet-18/50,
/// VGG-16, DenseNet-121, FP16 training; ResNet-18's three strided pairs and ResNet-50's 1x1 filters fix the two,
/// mean APE 13.6% -> 2.6%); held out, the machine's eleven other networks 16.2% -> 10.1% and the Titan Xp
/// machine's twenty 38.7% -> 32.8% (scripts/eval_analytical.sh).
inline constexpr double k_pseudo_half_strided_dgrad_slowdown = 4.0;
inline constexpr double k_pseudo_half_pointwise_wgrad_slowdown = 2.0;
/// Non-GEMM ops (elementwise math, norms, pools) share of the non-tensor peak. Prior.
inline constexpr double k_vector_compute_eff = 0.50;

// ---- Tiles of the GEMM view (wave quantisation) ----------------------------------------------
struct TileConfig {
  int m;
  int n;
  int blocks_per_sm;  ///< resident thread blocks per SM for this tile
  double efficiency;  ///< per-SM efficiency relative to the largest tile (operand reuse)
};
/// Candidate tiles; the model takes the fastest (like cuBLAS/cuDNN heuristics), with split-K.
/// Prior: CUTLASS default tiles and the occupancies their shared-memory use allows.
inline constexpr TileConfig k_tiles[] = {
    {128, 128, 1, 1.00}, {128, 64, 2, 0.93}, {64, 64, 3, 0.85}, {64, 32, 4, 0.72}, {32, 32, 6, 0.55}};
/// Tiles of a strided-batched GEMM (MatMul/bmm with batch > 1, cuBLAS gemmStridedBatched), tried without
/// split-K. cuBLAS's batched SIMT kernels keep 64 or more outputs along both sides of their tile even where
/// a side of the matrix is shorter, and split no reductions: NeuSight's bmm rows (PyTorch 2.1, FP32) ran
/// maxwell_sgemm_128x64 on 99% of the P100 and P4 rows, ampere_sgemm_128x128 on 99.5% of the A100 rows,
/// 64x64/32x128/128x32/128x64 on the V100 and T4, under 0.5% with a split-K reduction on any GPU. So a
/// batched product with a short side (N = 8) wastes most of its tile instead of taking a 32x32 tile with
/// 6 blocks per SM. Both orientations of 128x64, since the short side may be either. Checked on NeuSight
/// bmm (calibration P100, V100, T4; held out P4, A100): docs/model.md, "Batched GEMM tiles".
inline constexpr TileConfig k_batched_tiles[] = {
    {128, 128, 1, 1.00}, {128, 64, 2, 0.93}, {64, 128, 2, 0.93}, {64, 64, 3, 0.85}};
/// cuBLAS's strided-batched FP32 SIMT GEMM (PyTorch bmm/matmul with batch dims, TF32 off) on the architectures
/// where one kernel runs nearly every shape, so the model does not choose among k_batched_tiles (whose
/// smaller tiles it would take for a product of a few waves, spreading it over SMs that cuBLAS leaves idle).
/// Named after the kernels NeuSight's bmm rows ran (PyTorch 2.1): Maxwell/Pascal (sm_5x/6x)
/// maxwell_sgemm_128x64_nn on 99% of the P100 and P4 rows: 128 along cuBLAS's column-major rows, which are
/// the columns N of PyTorch's row-major product, so 64 (M) x 128 (N) here, at the SIMT GEMM efficiency (it is
/// the library's tuned kernel for these shapes, not a fallback tile). Ampere/Ada (sm_8x) ampere_sgemm_128x128_nn
/// on 99.5% of the A100 rows, one block per SM. Volta/Turing (sm_7x) ran four tiles (64x64, 32x128, 128x32,
/// 128x64) and Hopper is unmeasured: both keep k_batched_tiles. NeuSight's bmm rows (docs/model.md, "Batched
/// GEMM tiles"), mean APE: P100 (calibration) 24.3% -> 22.0%, held-out P4 21.0% -> 17.9%, A100 22.0% -> 12.2%
/// (its kernel names chose the tile; its times were seen).
inline constexpr TileConfig k_batched_tiles_sgemm_pascal[] = {{64, 128, 2, 1.00}};
inline constexpr TileConfig k_batched_tiles_sgemm_ampere[] = {{128, 128, 1, 1.00}};
/// cuBLAS's FP32-math GEMM of an nn.Linear forward (x W^T: op(A) = A^T in cuBLAS's column-major terms, "TN") on
/// Maxwell/Pascal (sm_5x/6x: FP32, or FP16 storage with FP32 math, as PyTorch calls cublasGemmEx without tensor
/// cores) under the cuBLAS PyTorch ships (11 and later): NeuSight's FP32 Linear rows (PyTorch 2.1)
/// ran maxwell_sgemm_32x128_tn, 64x64_tn and 128x32_tn (the last with a split-K reduction) on every P100 and P4
/// row, never the 128x128 and 128x64 tiles of k_tiles nor the 128x64 one its NN products (bmm) ran. These kernels
/// reach k_sgemm_pascal_tn_eff of the large tile's efficiency, at 64x64's occupancy (the same outputs per block):
/// fitted on the P4's Linear rows with M > 1000, N and K > 700 and under 5 ms (where the tile decides, not the
/// launch, a split reduction or the card's heat; median measured/analytical 1.18 -> 1.00), checked on the P100's
/// (1.00 -> 0.99, with the GP100 gain of k_int_pipe_simt_gain). Bare cuBLAS calls of the cuBLAS 8/9 era
/// (DeepBench, runtime cudnn) are not given them: their TN products ran 1.0x (P100) to 1.7x (Titan X Pascal) their
/// NN ones, with no rule across the cards. docs/model.md, "Linear on Pascal".
inline constexpr double k_sgemm_pascal_tn_eff = 0.79;
inline constexpr TileConfig k_tiles_sgemm_pascal_tn[] = {
    {64, 64, 3, k_sgemm_pascal_tn_eff}, {32, 128, 3, k_sgemm_pascal_tn_eff}, {128, 32, 3, k_sgemm_pascal_tn_eff}};
/// A forward convolution block that shares its SM with r blocks where the tile's occupancy allows b issues at
/// (b / r)^(1 - x) the rate of one of b: x = 1 would leave the SM's other slots idle, x = 0 give one block the
/// whole SM. Fitted on NeuSight's FP32 convolutions with under a wave of 128x64 tiles (PyTorch 2.1, cuDNN 8.9,
/// cudnn.benchmark on; every GPU, so not held out there): median measured/predicted 2.4-6x with split-K,
/// 0.35-0.5 with neither split-K nor this, 0.9-1.3 at 0.5 (docs/model.md, "Forward convolutions with few tiles").
inline constexpr double k_lone_block_exponent = 0.5;
/// Split-K factors tried when a GEMM has few output tiles and a long reduction (weight gradients).
inline constexpr int k_split_k[] = {1, 2, 4, 8, 16};
/// Minimum reduction length per split. Prior.
inline constexpr double k_split_k_min_k = 128;

// ---- Memory ------------------------------------------------------------------------------------
/// Achievable share of DRAM bandwidth for streaming kernels (elementwise, copies). Prior: STREAM-like
/// kernels reach 75-90% of peak on NVIDIA GPUs; fitted on HELP NAS-Bench-201 batch 256 (1080 Ti).
inline constexpr double k_mem_eff_stream = 0.80;
/// Share of the DRAM bandwidth GDDR memory with ECC on (GpuSpec::dram_ecc; on by default on the datacenter GDDR
/// boards: P4, T4, A10, A40, L4, L40S) leaves to the data: inline ECC keeps its check words in the data's DRAM
/// channels (HBM carries them beside the data; GeForce and Titan boards run without ECC). Evidence, the
/// DRAM-bound NeuSight elementwise rows (PyTorch 2.1, 256 us and longer): measured/analytical 1.06-1.11 on the P4
/// and T4 against 0.89-0.94 on the HBM V100 and A100, i.e. 73-75% of the P4's and T4's peak against 0.80. Fitted
/// on those two GPUs, each checked on the other (mean APE of all their NeuSight rows, P4 / T4: 16.8 / 16.8% at 1,
/// 15.4 / 15.6% at 0.94, 15.0 / 15.2% at 0.91, 15.0 / 15.0% at 0.88); held out: Zeus's A40 training energy
/// (GDDR6 with ECC) 16.0% -> 11.6% (docs/accuracy.md, Session 28).
inline constexpr double k_gddr_ecc_dram_share = 0.91;
/// Norms, softmax, reductions, pooling, data movement (strided or two-pass). Prior.
inline constexpr double k_mem_eff_irregular = 0.65;
/// Windowed pooling (MaxPool/AveragePool k>1): several reads per output, strided. Fitted on HELP
/// NAS-Bench-201 batch 256 (GTX 1080 Ti, RTX 2080 Ti; avg_pool_3x3-heavy cells are as slow as conv cells).
inline constexpr double k_mem_eff_pool = 0.25;
/// GEMM/conv operand traffic. Prior.
inline constexpr double k_mem_eff_gemm = 0.80;
/// cuBLAS's FP32 SIMT GEMMs on sm_70/72/75 (its volta_sgemm_* kernels, NeuSight's V100 and T4 rows) write their
/// result from registers at this share of DRAM bandwidth, against k_mem_eff_gemm for their operands: with a
/// reduction of 16 or less the result is most of the traffic, and those rows ran at 0.66-0.75 of the model's time
/// on both GPUs (C written at 0.41-0.51 of peak, where their elementwise kernels stream at about 0.85; the A100's
/// ampere_sgemm kernels at 0.75, Pascal's maxwell_sgemm at 0.50-0.67, each near its own streaming rate). Fitted on
/// each GPU alone and checked on the other (NeuSight bmm and Linear rows, `perfpred eval --model default`, mean
/// APE): the T4 picks 0.55 (20.5% -> 19.6%; 0.45 / 0.5 / 0.6: 20.3 / 19.7 / 19.8%), the V100 0.52-0.55 (14.8% ->
/// 14.3%); the same term on Pascal (0.5-0.7) or the A100 (0.7) is no better. Other kernels (cuDNN, tensor cores,
/// half precision, TensorRT) keep k_mem_eff_gemm.
inline constexpr double k_volta_sgemm_store_eff = 0.55;
/// Depthwise convolution bandwidth share (halo re-reads, poor coalescing). Prior; checked on the
/// Jetson Nano depthwise-separable sets.
inline constexpr double k_mem_eff_depthwise = 0.50;
/// Latency floor of one dependent RNN time step, in SM cycles per element of its GEMM's reduction (K =
/// hidden forward, gates x hidden for the data gradient): a k-slice of 8 waits about 550 cycles for its
/// L2/DRAM loads and a step's GEMM has too few blocks to hide it. Fitted on DeepBench's RNN rows of the
/// calibration GPUs (GTX 1080 Ti, P100, V100; cuDNN 6/7 standard algorithm): mean APE 35.3% at 0, 31.8% at
/// 40, 29.9% at 60, 29.7% at 65-70, 30.5% at 80; held out (M40, Titan X Maxwell/Pascal, Titan Xp) 29.6% ->
/// 26.6% at 70. Only RNN steps: every other kernel keeps its time.
inline constexpr double k_rnn_step_cycles_per_k = 70;
// ---- Combining compute and memory -----------------------------------------------------------
/// t = max(compute, memory) + alpha * min(compute, memory): partial overlap. Fitted on ryujaehun.
inline constexpr double k_roofline_alpha = 0.15;

// ---- Training-mode BatchNorm ------------------------------------------------------------------
/// DRAM passes over the activation of BatchNorm in training, in units of one tensor read or write
/// (inference: 2, read x and write y). Forward: the batch statistics read x once more (3). Backward:
/// reductions of dy and dy * x_hat read dy and x, then the input gradient reads them again and writes dx
/// (5). Prior (cuDNN and ATen's batch_norm_backward kernels).
inline constexpr double k_bn_train_forward_passes = 3.0;
inline constexpr double k_bn_train_backward_passes = 5.0;
/// cuDNN's BatchNorm backward on NCHW tensors (CUDNN_BATCHNORM_SPATIAL, which PyTorch uses in training unless the
/// tensors are channels_last) runs one 512-thread block per channel (bn_bw_1C11_kernel: grid C x 1 x 1) that
/// walks its channel's N x H x W elements once per pass. A block keeps only so many loads in flight, so a channel
/// streams at a rate of its own however wide the GPU's memory: with few channels and large maps the kernel is
/// bound by that rate, not by DRAM. Measured (data/measured/h200-harness, cuDNN 9.14, CUPTI kernel time; the
/// harness calls it without the forward's saved statistics, so it makes three passes): 32x64x56x56 (64 blocks on
/// 132 SMs, 100,352 elements per channel) 0.170 ms FP32 and 0.119 ms FP16, 6.6x and 9x the DRAM-bound time;
/// three passes over 100,352 elements in those times are the rates below (elements per second per block, FP32
/// and 16-bit storage). Taken as a per-block rate in seconds, not cycles: a block's loads wait on DRAM latency,
/// which is about the same in nanoseconds across HBM and GDDR generations. On GPUs of a few hundred GB/s the
/// DRAM bound stays the larger one; on an H100/H200 at batch 128 a 64-channel BatchNorm's gradient is bound by
/// this (ResNet-18's first BatchNorms).
inline constexpr double k_bn_channel_block_elems_per_s = 1.77e9;
inline constexpr double k_bn_channel_block_elems_per_s_half = 2.53e9;
/// Passes of that backward over its channel with the forward's saved mean and inverse deviation (PyTorch passes
/// them): the reductions of dy and dy * x_hat, then the input gradient.
inline constexpr double k_bn_backward_channel_passes = 2.0;
/// Threads of that per-channel block: an SM holds max_threads_per_sm / 512 of them at once.
inline constexpr double k_bn_channel_block_threads = 512;
/// PyTorch's own depthwise filter gradient (ATen's conv_depthwise2d_grad_weight_kernel, which PyTorch runs for FP32
/// depthwise convolutions on every GPU and for FP16/BF16 ones before sm_70) has the same shape: one block per
/// filter tap (grid C x kH x kW), a warp per image of the batch (min(32 x batch, 256) threads), each block walking
/// batch x output pixels of the input and the output gradient, then a block reduction. Its blocks stream at the
/// BatchNorm gradient's FP32 rate per warp (k_bn_channel_block_elems_per_s over 16 warps: each element is two
/// loads in both; ATen's loads are scalar, 16-bit ones no faster). Not measured: a lower bound from the source's
/// grid and block, in place of the DRAM-bound time, where the batch is large and the channels few (MobileNetV2's
/// 112x112 depthwise filters at batch 128: one wave of 288 blocks walking 1.6 M elements each).
inline constexpr double k_depthwise_grad_weight_max_threads = 256;
/// cuDNN's BatchNorm inference kernel on NCHW tensors (bn_fw_inf_1C11_kernel_NCHW: PyTorch's eval-mode BatchNorm
/// wherever its weights are FP32, i.e. FP32/TF32 runs, and a bare cuDNN call) launches one block per (image,
/// channel) plane (grid C x N), of 64 threads where the plane is small and 512 where it is large (CUPTI's grid and
/// block in data/measured/h200-harness: 64 at 7x7 and 14x14, 512 at 56x56), and each block's loads wait on DRAM:
/// a block costs k_bn_inf_block_s plus k_bn_inf_iter_s per pass of its threads over its plane, the GPU holds
/// min(max resident blocks, max_threads_per_sm / threads) of them per SM, and the kernel takes its waves of blocks
/// plus k_bn_inf_offset_s (negative: a lone wave runs about a microsecond under a wave among others). The time
/// follows the planes and passes, not the bytes: 32x512x7x7 took 11.7 us in FP32 and FP16 alike, where DRAM would
/// take 3. Fitted (relative least squares) on the harness's twelve BatchNorm
/// forward rows (cuDNN 9.14, H200, CUPTI kernel time; 1x and 32x 64x56x56, 256x14x14 and 512x7x7, FP32 and FP16):
/// 2.75 us per block, 0.38 us per pass and -1.1 us, each row within 8% but 32x64x56x56 FP16 (17%; 2,048 blocks of
/// 512 threads, seven passes, 4 waves of 528: 20.6 us against 21.0 FP32 and 17.6 FP16 measured); without the
/// offset the lone-wave batch-1 rows came out 1.3-1.5x. Taken in seconds, as the backward's rate: DRAM latency is
/// about the same in nanoseconds across GPUs.
inline constexpr double k_bn_inf_block_s = 2.75e-6;
inline constexpr double k_bn_inf_iter_s = 0.38e-6;
inline constexpr double k_bn_inf_offset_s = -1.1e-6;
/// That kernel's two block sizes (CUPTI's block dimension in the harness rows).
inline constexpr double k_bn_inf_narrow_threads = 64;
inline constexpr double k_bn_inf_wide_threads = 512;
/// Plane size (elements) from which that kernel takes its wide blocks: 196 took 64 threads and 3,136 took 512 in
/// the harness; between them (28x28, 32x32) the choice is not measured. Chosen on the H200 calibration rows
/// (docs/model.md, "Eval-mode BatchNorm").
inline constexpr double k_bn_inf_wide_block_min_elems = 1024;
/// DRAM passes of PyTorch's LayerNorm forward over its activation: vectorized_layer_norm_kernel reads each row
/// for its Welford statistics, reads it again to normalise, and writes y (3, where the ideal traffic counts 2),
/// as BatchNorm's training forward does. NeuSight's LayerNorm rows (PyTorch 2.1, forward, every GPU) ran
/// 1.2-1.8x the model's time with 2 above their floor; mean APE over the 7,000 rows at 2 / 2.5 / 3 / 3.5 passes:
/// 21.6 / 15.7 / 14.3 / 16.7% (A100 11.4 -> 8.4, P100 26.5 -> 14.9, P4 28.4 -> 16.5, T4 22.5 -> 16.7, V100 19.1 ->
/// 15.0 at 3). The count is the kernel's, not fitted (NeuSight's rows are every GPU, so not held out for it).
/// PyTorch only: TensorRT's and ONNX Runtime's LayerNorm kernels are unmeasured here.
inline constexpr double k_ln_forward_passes = 3.0;

// ---- Launch and host costs -----------------------------------------------------------------------
/// GPU-side floor of one kernel on a discrete GPU (launch latency + ramp), seconds. Prior: empty
/// kernels take 2-3 us back to back on discrete GPUs.
inline constexpr double k_launch_floor_s = 2.5e-6;
/// Same on embedded (Jetson) GPUs. Fitted on the Jetson Nano TensorRT set.
inline constexpr double k_launch_floor_embedded_s = 6e-6;
/// Gap between back-to-back kernels on the GPU timeline. Prior.
inline constexpr double k_kernel_gap_s = 0.8e-6;

/// PyTorch eager: CPU time to dispatch one op from Python (module call, ATen dispatch, launch).
/// Fitted on HELP NAS-Bench-201 batch 1 (GTX 1080 Ti and RTX 2080 Ti; Titan X/Xp held out).
inline constexpr double k_pytorch_op_host_s = 40e-6;
/// PyTorch eager: CPU time of a binary arithmetic op written as a Python operator (`a + b`, `x.mul(0.)`,
/// the adds of `sum()`): ATen dispatch and launch without an nn.Module call. Fitted on HELP
/// NAS-Bench-201 batch 1 (GTX 1080 Ti and RTX 2080 Ti, 80 rows, k_pytorch_op_host_s kept) once the
/// rebuilt cells ran every op NATS-Bench's InferCell runs; Titan X/Xp held out: 4.8% / 4.9% mean APE
/// at batch 1 (was -10 to -20% with those ops missing).
inline constexpr double k_pytorch_arith_host_s = 22e-6;
/// Extra CPU time of a convolution/GEMM op (cuDNN descriptors, heuristics). Fitted as above.
inline constexpr double k_pytorch_conv_extra_host_s = 18e-6;
/// CPU time of an op that launches no kernel (view, reshape, flatten, slice). Prior.
inline constexpr double k_pytorch_view_host_s = 8e-6;
/// CPU time of an extra kernel inside one op (conv bias add, a second kernel of an op). Prior.
inline constexpr double k_pytorch_inner_kernel_host_s = 6e-6;
/// PyTorch eager inference under torch.no_grad() / torch.inference_mode() (PredictOptions::grad_mode false):
/// the share of the forward per-op host costs above that is left when autograd records nothing. The costs above
/// were fitted on HELP's inference rows, taken as recorded with autograd on (HELP's timing script is not
/// published; its rows keep grad_mode = 1). Fitted on the machines that measured both modes with inference
/// under no_grad, where a machine's own host speed cancels: on their host-bound calibration rows (at least a
/// quarter of the predicted latency exposed host time), the median measured / predicted of inference over that
/// of training is 0.65 on perfpred's H200 (PyTorch 2.11, inference_mode; ResNet-50, VGG-16) and 1.00, 0.70 and
/// 0.84 on ryujaehun's three RTX 2080 Ti machines (no_grad), geometric mean 0.79; the held-out rows of the same
/// and two more machines gave 0.54-0.92, median 0.80, without this share and give 0.66-1.09, median 0.98, with it
/// (tools/eval_host_factor.py's mode table). Training's host costs (fitted on ryujaehun's training rows) are
/// unchanged.
inline constexpr double k_pytorch_no_grad_host_share = 0.8;
/// Autograd engine (C++ thread) CPU time per backward node (its gradient kernel, and each AccumulateGrad);
/// conv/GEMM gradients add k_pytorch_conv_extra_host_s per cuDNN/cuBLAS call, as their forwards do.
/// Summing the gradients of a tensor with several consumers is not a node (the engine's InputBuffer calls
/// at::add): k_pytorch_inner_kernel_host_s each. Fitted on the ryujaehun torchvision calibration rows
/// (resnet18/50, vgg16, densenet121 training on the GTX 1080 Ti and RTX 2080 Ti; only DenseNet-121 is
/// host-bound enough to respond; training calibration rows): 30 us 17.1%, 42 us 16.0%, 50 us 14.8%, 60 us 14.3%, 70 us 16.0% mean APE.
/// Host speed differs by machine: the Titan V machine wants less, the RTX 2080 Ti and Titan Xp ones more.
inline constexpr double k_pytorch_backward_host_s = 60e-6;
/// zero_grad(): the Python loop over parameters (p.grad.detach_(); p.grad.zero_()), CPU time per tensor.
/// Prior (a Python attribute walk and one ATen call, ~10 us).
inline constexpr double k_pytorch_zero_grad_host_s = 10e-6;
/// torch.optim (for-each-parameter Python loop in torch 1.x) CPU time per update kernel. Prior.
inline constexpr double k_pytorch_optimizer_host_s = 9e-6;
/// PyTorch >= 2.0 (PredictOptions::foreach_updates): CPU time of one parameter's gradient hand-over, the
/// autograd engine's AccumulateGrad node that moves a new gradient into a None .grad without a kernel, and
/// zero_grad()'s `p.grad = None`. Prior (an engine node without a kernel, a Python attribute store).
inline constexpr double k_pytorch_grad_handover_host_s = 5e-6;
/// PyTorch >= 2.0: torch.optim's Python walk over the parameters once per step (_init_group: p.grad, the state
/// lookup, list appends), CPU time per parameter tensor. Prior.
inline constexpr double k_pytorch_optimizer_tensor_host_s = 2e-6;
/// PyTorch >= 2.0: one torch._foreach_* op of the foreach optimizer (Python call, ATen dispatch), and its
/// CPU time per tensor in its lists (checks, multi_tensor_apply's kernel-argument packing). Priors.
inline constexpr double k_pytorch_foreach_op_host_s = 15e-6;
inline constexpr double k_pytorch_foreach_tensor_host_s = 0.5e-6;
/// onnxruntime CUDA EP: CPU time per node. Prior (ORT per-node overhead ~5-10 us).
inline constexpr double k_onnxruntime_node_host_s = 8e-6;
/// TensorRT: one enqueue/executeV2 call, seconds. Prior (tens of microseconds).
inline constexpr double k_tensorrt_enqueue_s = 25e-6;
/// TensorRT: CPU time per kernel launched inside an enqueue. Prior.
inline constexpr double k_tensorrt_kernel_host_s = 2e-6;
/// cuDNN/cuBLAS called directly from C++: CPU time per kernel (API + cudaLaunchKernel). Prior.
inline constexpr double k_cudnn_kernel_host_s = 4e-6;
/// One cudaGraphLaunch of a captured iteration (--cuda-graphs): it replaces every per-kernel host cost above.
/// Prior (a graph launch costs about as much as a few kernel launches on the host).
inline constexpr double k_cuda_graph_launch_s = 10e-6;
/// Stream synchronisation at the end of a timed iteration. Prior.
inline constexpr double k_sync_s = 10e-6;
/// Host cost multiplier on embedded boards (Jetson's Cortex-A57/A78AE vs a desktop x86 core).
/// Fitted on the Jetson Nano TensorRT set.
inline constexpr double k_embedded_host_factor = 3.0;
/// Fixed cost of one host<->device copy (cudaMemcpy call + DMA setup). Prior.
inline constexpr double k_copy_fixed_s = 10e-6;
/// A pageable copy's CPU staging rate (memcpy into the driver's pinned buffer), paid on top of the DMA at the
/// link's rate. Measured on perfpred's H200 machine (data/measured/h200-harness/microbench.csv, a Xeon at
/// 2.1 GHz under KVM): pageable H2D minus pinned H2D is 12.3 GB/s at 1 MiB and 14.5 GB/s at 16 MiB.
inline constexpr double k_pageable_stage_gbps = 13.0;

// ---- Energy ------------------------------------------------------------------------------------
/// Share of the dynamic range (fp32_power_demand_w - idle) drawn by any running kernel before utilisation
/// (clocks up, SMs awake). Rechecked with that range on the Zeus calibration GPUs (V100 PCIe, A40; ResNet-50
/// training at the highest limit): their mean energy APE is 13.2% at 0.2, 13.0% at 0.3, 13.5% at 0.4, 14.4%
/// at 0.5 (docs/model.md section 4).
inline constexpr double k_power_active_floor = 0.30;
/// Jetson: tdp_w is the module's power budget (CPU, memory, IO and GPU); the GPU rail draws about this
/// share of it at full load. Fitted on the Jetson Nano ICAS conv_layers_1_5 rows (GPU rail power).
inline constexpr double k_embedded_gpu_power_share = 0.5;
/// Share of (TDP - idle) drawn while the GPU waits on the host (boosted clocks, nothing to do).
/// Prior; checked on the Jetson Nano energy set.
inline constexpr double k_power_gap_fraction = 0.10;

// ---- Memory footprint --------------------------------------------------------------------------
/// CUDA context + cuDNN/cuBLAS kernel images + caching-allocator reserve for PyTorch on a discrete GPU,
/// bytes, as nvidia-smi counts them (CUDA 11.x loads the libraries' kernels eagerly; CUDA >= 11.7 lazy
/// loading needs less). Fitted on GPUMemNet A100 MLP rows (calibration half: even row numbers): tiny
/// MLPs measure 1.5-1.9 GB.
inline constexpr double k_context_pytorch_bytes = 1.5e9;
/// PyTorch on a model with convolutions: cuDNN's convolution libraries (cnn_infer/cnn_train kernel images)
/// load into the context on the first conv, which the MLP rows above never run. Fitted on GPUMemNet's A100
/// timm CNN rows of resnet18, resnet50, resnext50_32x4d and wide_resnet50_2 (calibration; 17.3% -> 6.3%
/// mean APE, flat between 0.6 and 0.8 GB); held out: resnet34/101/152, resnext101_32x8d and
/// wide_resnet101_2, 13.7% -> 4.7%.
inline constexpr double k_context_pytorch_cudnn_conv_bytes = 0.7e9;
inline constexpr double k_context_onnxruntime_bytes = 300e6;
inline constexpr double k_context_tensorrt_bytes = 150e6;
inline constexpr double k_context_cudnn_bytes = 250e6;
/// Jetson (unified memory, smaller kernel images). Prior.
inline constexpr double k_context_embedded_bytes = 120e6;
/// cuDNN convolution workspace heuristic: a share of the largest conv's input + output, capped. Prior.
inline constexpr double k_conv_workspace_share = 0.5;
inline constexpr double k_conv_workspace_cap_bytes = 256.0 * 1024 * 1024;
/// cuBLAS workspace when the graph has GEMMs. Prior (cuBLAS default 4-32 MiB).
inline constexpr double k_cublas_workspace_bytes = 8.0 * 1024 * 1024;
/// PyTorch caching allocator rounding/fragmentation on activations (training). Prior.
inline constexpr double k_allocator_slack = 1.10;

}  // namespace perfpred::model
