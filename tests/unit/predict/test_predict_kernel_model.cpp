// The kernel time model: sustained clocks of power-limited cards, and GEMM shapes as cuBLAS runs them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>  // catalog.hpp holds std::vector<json> and forward-declares json

#include "perfpred/hw/catalog.hpp"
#include "perfpred/hw/sustained_clock.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred {
namespace {

const GpuCatalog& catalog() {
  static GpuCatalog cat(std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus");
  return cat;
}
GpuSpec gpu(const std::string& id) { return catalog().resolve(id); }

KernelEstimate big_gemm(const GpuSpec& g) {
  KernelEstimate k;
  k.family = OpFamily::gemm;
  k.gemm = GemmShape{1, 4096, 4096, 4096};
  k.flops = 2.0 * 4096 * 4096 * 4096;
  k.bytes = 4.0 * 3 * 4096 * 4096;
  estimate_kernel(k, g, PredictOptions{});
  return k;
}

KernelEstimate big_copy(const GpuSpec& g) {
  KernelEstimate k;
  k.family = OpFamily::elementwise;
  k.flops = 1e8;
  k.bytes = 8e8;
  estimate_kernel(k, g, PredictOptions{});
  return k;
}

TEST(SustainedClock, PowerLimitedCardsRunMathBelowBoost) {
  // The T4 (70 W for 8.1 TFLOPS) and the L4 (72 W for 30.3) get far fewer watts per TFLOP than their
  // chips' full-power cards: compute-bound work runs at about 3/4 of the boost clock.
  for (const char* id : {"t4", "l4"}) {
    const GpuSpec limited = gpu(id);
    GpuSpec unlimited = limited;
    unlimited.tdp_w *= 4;
    const double ratio = big_gemm(unlimited).time_s / big_gemm(limited).time_s;
    EXPECT_GT(ratio, 0.70) << id;
    EXPECT_LT(ratio, 0.82) << id;
    // DRAM bandwidth does not follow the core clock: a streaming kernel is unchanged.
    EXPECT_NEAR(big_copy(unlimited).time_s / big_copy(limited).time_s, 1.0, 1e-3) << id;
  }
  // Full-power cards, the compute chips (A100 PCIe at 250 W) and Jetson boards (clocks set by their power
  // mode) run at their rated clocks.
  for (const char* id : {"rtx-2080ti", "rtx-4090", "a100-pcie-40gb", "h100-pcie-80gb", "jetson-agx-orin-64gb"}) {
    const GpuSpec g = gpu(id);
    GpuSpec more = g;
    more.tdp_w *= 4;
    EXPECT_DOUBLE_EQ(big_gemm(more).time_s, big_gemm(g).time_s) << id;
  }
}

TEST(SustainedClock, ALimitBelowTheTdpSlowsDramBoundKernelsByItsClockDrop) {
  // Zeus, ResNet-50 training under nvidia-smi -pl: a V100 PCIe at 100 W took 1.9x as long as at 250 W, an A40
  // at 100 W 2.9x; timing only the math at the lower clock gave 1.4x and 1.8x. The steps slow as if every
  // kernel followed the limit's clock drop, the DRAM-bound ones (BatchNorm, ReLU, the optimizer) included.
  for (const char* id : {"v100-pcie-32gb", "a40"}) {
    const GpuSpec full = gpu(id);
    GpuSpec capped = full;
    capped.power_limit_w = full.tdp_w * 0.5;
    const double drop = sustained_clock_scale(capped) / sustained_clock_scale(full);
    ASSERT_GT(big_gemm(capped).time_s, 1.05 * big_gemm(full).time_s) << id;  // the limit slows the math
    EXPECT_NEAR(big_copy(capped).time_s / big_copy(full).time_s, 1 / drop, 1e-3 / drop) << id;
  }
  // The rated clock of a card whose TDP holds it below boost (T4) leaves streaming kernels at full speed
  // (PowerLimitedCardsRunMathBelowBoost); a limit below that TDP slows them by its own clock drop only.
  const GpuSpec t4 = gpu("t4");
  GpuSpec t4_capped = t4;
  t4_capped.power_limit_w = 50;
  const double drop = sustained_clock_scale(t4_capped) / sustained_clock_scale(t4);
  ASSERT_LT(drop, 0.99);
  EXPECT_NEAR(big_copy(t4_capped).time_s / big_copy(t4).time_s, 1 / drop, 1e-3 / drop);
}

TEST(SustainedClock, LessPowerIsNeverFasterAndPredictSaysWhy) {
  GpuSpec g = gpu("l4");
  double prev = 0;
  for (double tdp : {300.0, 150.0, 72.0, 40.0}) {
    g.tdp_w = tdp;
    g.idle_power_w = std::min(g.idle_power_w, tdp / 2);
    const double t = big_gemm(g).time_s;
    EXPECT_GE(t, prev) << tdp;
    prev = t;
  }
  // predict() names the limit in its notes.
  GraphCost cost;
  Graph graph;
  Tensor x;
  x.name = "x";
  x.dtype = DType::f32;
  x.shape = {64, 1024};
  x.has_shape = true;
  x.is_graph_input = true;
  const int xi = graph.add_tensor(x);
  graph.inputs.push_back(xi);
  Tensor w = x;
  w.name = "w";
  w.shape = {1024, 1024};
  w.is_graph_input = false;
  w.is_initializer = true;
  const int wi = graph.add_tensor(w);
  Tensor y = x;
  y.name = "y";
  y.is_graph_input = false;
  y.is_graph_output = true;
  const int yi = graph.add_tensor(y);
  graph.outputs.push_back(yi);
  Node n;
  n.name = "mm";
  n.op = "MatMul";
  n.inputs = {xi, wi};
  n.outputs = {yi};
  graph.nodes.push_back(n);
  NodeCost nc;
  nc.family = OpFamily::gemm;
  nc.gemm = GemmShape{1, 64, 1024, 1024};
  nc.flops = 2.0 * 64 * 1024 * 1024;
  nc.bytes_read = 4 * (64 * 1024 + 1024 * 1024);
  nc.bytes_written = 4 * 64 * 1024;
  cost.nodes.push_back(nc);
  const Prediction p = predict(graph, cost, gpu("t4"), PredictOptions{});
  EXPECT_TRUE(std::any_of(p.notes.begin(), p.notes.end(),
                          [](const std::string& s) { return s.find("power-limited (70 W)") != std::string::npos; }));
  const Prediction q = predict(graph, cost, gpu("rtx-2080ti"), PredictOptions{});
  EXPECT_FALSE(std::any_of(q.notes.begin(), q.notes.end(),
                           [](const std::string& s) { return s.find("power-limited") != std::string::npos; }));
}

// A profile's host<->device copy rows cross the host link (as predict's input and output copies do), not DRAM.
TEST(HostCopies, MemcpyRowsArePricedByTheHostLink) {
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  for (const char* op : {"MemcpyH2D", "MemcpyD2H"}) {
    KernelEstimate k;
    k.family = OpFamily::data_movement;
    k.op = op;
    k.bytes = 268435456;
    estimate_kernel(k, h200, PredictOptions{});
    EXPECT_NEAR(k.time_s, 10e-6 + 268435456 / (h200.host_link_gbps * 1e9), 1e-9) << op;
    KernelEstimate device = k;
    device.op = "DeviceCopy";
    estimate_kernel(device, h200, PredictOptions{});
    EXPECT_GT(k.time_s, 20 * device.time_s) << op;  // PCIe, not HBM
  }
}

// GDDR with ECC on streams 9% slower than without (inline check words); HBM's ECC and GEMMs' math do not pay it.
TEST(DramEcc, InlineEccOnGddrTakesItsShareOfTheBandwidth) {
  for (const char* id : {"t4", "a40", "p4"}) {
    const GpuSpec on = gpu(id);
    ASSERT_TRUE(on.dram_ecc) << id;
    GpuSpec off = on;
    off.dram_ecc = false;
    EXPECT_NEAR(big_copy(on).time_s / big_copy(off).time_s, 1 / 0.91, 1e-3) << id;  // k_gddr_ecc_dram_share
    EXPECT_NEAR(big_gemm(on).time_s / big_gemm(off).time_s, 1, 0.01) << id;  // compute-bound
  }
  GpuSpec hbm = gpu("v100-pcie-32gb");
  ASSERT_TRUE(hbm.dram_ecc);
  GpuSpec hbm_off = hbm;
  hbm_off.dram_ecc = false;
  EXPECT_DOUBLE_EQ(big_copy(hbm).time_s, big_copy(hbm_off).time_s);
  GpuSpec desktop = gpu("rtx-2080ti");  // GeForce: no ECC, the whole bandwidth
  ASSERT_FALSE(desktop.dram_ecc);
  GpuSpec desktop_ecc = desktop;
  desktop_ecc.dram_ecc = true;
  EXPECT_GT(big_copy(desktop_ecc).time_s, 1.05 * big_copy(desktop).time_s);
}

TEST(SgemmStores, VoltaSgemmWritesItsResultAtItsOwnShareOfTheBandwidth) {
  // A batched FP32 product with a reduction of 8 (NeuSight's small-K bmm rows): the result is most of the traffic.
  auto small_k = [](const GpuSpec& g, Precision p) {
    KernelEstimate k;
    k.family = OpFamily::gemm;
    k.op = "MatMul";
    k.gemm = GemmShape{32, 512, 1024, 8};
    const double e = p == Precision::fp32 ? 4 : 2;
    k.flops = 2.0 * 32 * 512 * 1024 * 8;
    k.bytes = e * 32 * (512.0 * 8 + 8.0 * 1024 + 512.0 * 1024);
    PredictOptions o;
    o.precision = p;
    estimate_kernel(k, g, o);
    return k;
  };
  const double c = 4.0 * 32 * 512 * 1024;
  for (const char* id : {"v100-pcie-32gb", "t4", "a100-pcie-40gb"}) {
    const GpuSpec g = gpu(id);
    const KernelEstimate k = small_k(g, Precision::fp32);
    const double bw = g.mem_bandwidth_gbps * 1e9 * (std::string(id) == "t4" ? 0.91 : 1.0);  // the T4's ECC share
    const bool volta = g.compute_capability == "7.0" || g.compute_capability == "7.5";
    const double want = volta ? (k.bytes - c) / (bw * 0.80) + c / (bw * 0.55) : k.bytes / (bw * 0.80);
    EXPECT_NEAR(k.memory_s / want, 1.0, 1e-6) << id;
    EXPECT_EQ(k.bound, Bound::memory) << id;
  }
  // Half precision runs other kernels (and tensor cores): its operands' share for everything.
  const GpuSpec v100 = gpu("v100-pcie-32gb");
  const KernelEstimate h = small_k(v100, Precision::fp16);
  EXPECT_NEAR(h.memory_s, h.bytes / (v100.mem_bandwidth_gbps * 1e9 * 0.80), 1e-12);
}

TEST(LayoutReorders, KernelRowsPayThemOnlyWhereTheRuntimeHoldsNchwTensors) {
  // A measured FP16 convolution row: PyTorch hands cuDNN NCHW tensors (three reorder kernels on the tensor
  // path); a bare cuDNN call takes its caller's layout (DeepBench's FP16 harness gives NHWC): none.
  const GpuSpec g = gpu("v100-sxm2-16gb");
  auto conv_row = [&](Runtime rt, bool channels_last = false) {
    KernelEstimate k;
    k.family = OpFamily::conv;
    k.op = "Conv";
    k.gemm = GemmShape{1, 64 * 28 * 28, 256, 256 * 9};
    k.flops = 2.0 * 64 * 28 * 28 * 256 * 256 * 9;
    k.bytes = 2.0 * (2 * 64.0 * 256 * 28 * 28 + 256.0 * 256 * 9);
    k.attrs = {{"batch", 64},  {"in_channels", 256}, {"out_channels", 256}, {"kernel_h", 3}, {"kernel_w", 3},
               {"in_h", 28},   {"in_w", 28},         {"out_h", 28},         {"out_w", 28},   {"groups", 1}};
    PredictOptions o;
    o.precision = Precision::fp16;
    o.runtime = rt;
    o.channels_last = channels_last;
    estimate_kernel(k, g, o);
    return k;
  };
  const KernelEstimate eager = conv_row(Runtime::pytorch), bare = conv_row(Runtime::cudnn);
  EXPECT_EQ(eager.reorder_kernels, 3);
  EXPECT_EQ(bare.reorder_kernels, 0);
  // A row measured on torch.channels_last tensors pays none, as a network plan with --channels-last does.
  const KernelEstimate nhwc = conv_row(Runtime::pytorch, true);
  EXPECT_EQ(nhwc.reorder_kernels, 0);
  EXPECT_DOUBLE_EQ(nhwc.time_s, bare.time_s);
  const double reorder_s = 2.0 * (2 * 64.0 * 256 * 28 * 28 + 256.0 * 256 * 9) * 2 / (g.mem_bandwidth_gbps * 1e9 * 0.8);
  EXPECT_NEAR(eager.time_s - bare.time_s, reorder_s + 3 * 0.8e-6, 1e-9);
}

/// A BatchNormalization kernel row of `batch` x `channels` x hw x hw: `flops` and `bytes` per element.
KernelEstimate bn_row(const char* phase, double batch, double channels, double hw, double flops, double bytes) {
  KernelEstimate k;
  k.family = OpFamily::norm;
  k.op = "BatchNormalization";
  k.phase = phase;
  const double n = batch * channels * hw * hw;
  k.flops = flops * n;
  k.bytes = bytes * n;
  k.attrs = {{"batch", batch}, {"channels", channels}, {"in_h", hw}, {"in_w", hw}};
  return k;
}

/// The time of row `k` on `g` under a runtime and precision, on NCHW tensors or channels_last ones.
double timed_row(KernelEstimate k, const GpuSpec& g, Runtime rt, Precision p, bool channels_last = false) {
  PredictOptions o;
  o.precision = p;
  o.runtime = rt;
  o.channels_last = channels_last;
  estimate_kernel(k, g, o);
  return k.time_s;
}

TEST(BatchNormInference, OneBlockPerPlaneWhateverTheBytes) {
  // cuDNN's NCHW BatchNorm inference kernel runs one block per (image, channel) plane (perfpred's H200 harness:
  // grid C x N, 64 threads at 7x7 and 14x14, 512 at 56x56), latency-bound: 32x512x7x7 took 11.7 us in FP32 and in
  // FP16, where DRAM would take about 3 us; 32x256x14x14 7.8-7.9 us; 32x64x56x56 21.0 / 17.6 us.
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  auto timed = [](double batch, double channels, double hw, const GpuSpec& g, Runtime rt, Precision p,
                  bool channels_last = false) {
    // read x, write y
    return timed_row(bn_row("forward", batch, channels, hw, 2, 2 * (p == Precision::fp16 ? 2 : 4)), g, rt, p,
                     channels_last);
  };
  const double gap = 0.8e-6;  // after each kernel
  const double small32 = timed(32, 512, 7, h200, Runtime::cudnn, Precision::fp32);
  EXPECT_DOUBLE_EQ(small32, timed(32, 512, 7, h200, Runtime::cudnn, Precision::fp16));
  EXPECT_NEAR(small32 - gap, 11.7e-6, 1.2e-6);
  EXPECT_NEAR(timed(32, 256, 14, h200, Runtime::cudnn, Precision::fp32) - gap, 7.85e-6, 0.8e-6);
  EXPECT_NEAR(timed(32, 64, 56, h200, Runtime::cudnn, Precision::fp32) - gap, 19.3e-6, 2e-6);
  // 16,384 blocks of 64 threads: 4 waves of 132 x 32 on the H200, 7 of 80 x 32 on a V100 (the same per-block
  // latency), 16 of 68 x 16 on an RTX 2080 Ti (Turing keeps 16 blocks and 1,024 threads per SM).
  const double per_wave = 2.75e-6 + 0.38e-6, offset = -1.1e-6;
  EXPECT_NEAR(small32 - gap, offset + 4 * per_wave, 1e-9);
  EXPECT_NEAR(timed(32, 512, 7, gpu("v100-sxm2-16gb"), Runtime::cudnn, Precision::fp32) - gap, offset + 7 * per_wave, 1e-9);
  EXPECT_NEAR(timed(32, 512, 7, gpu("rtx-2080ti"), Runtime::cudnn, Precision::fp32) - gap, offset + 16 * per_wave,
              1e-9);
  // PyTorch takes cuDNN's kernel only where the weights are FP32: FP32 runs do, a model.half() model runs ATen's
  // elementwise kernel (DRAM-bound), and channels_last tensors cuDNN's NHWC kernels.
  EXPECT_DOUBLE_EQ(timed(32, 512, 7, h200, Runtime::pytorch, Precision::fp32), small32);
  EXPECT_LT(timed(32, 512, 7, h200, Runtime::pytorch, Precision::fp16), 0.5 * small32);
  EXPECT_LT(timed(32, 512, 7, h200, Runtime::pytorch, Precision::fp32, true), 0.5 * small32);
  EXPECT_LT(timed(32, 512, 7, h200, Runtime::tensorrt, Precision::fp32), 0.5 * small32);
  // Large planes stay bound by DRAM where the plane walk is the shorter: 32x64x112x112 on a GTX 1080 Ti.
  const GpuSpec pascal = gpu("gtx-1080ti");
  EXPECT_DOUBLE_EQ(timed(32, 64, 112, pascal, Runtime::cudnn, Precision::fp32),
                   timed(32, 64, 112, pascal, Runtime::cudnn, Precision::fp32, true));
}

TEST(BatchNormBackward, OneBlockPerChannelStreamsAtItsOwnRate) {
  // cuDNN's NCHW BatchNorm backward runs one 512-thread block per channel (perfpred's H200 harness: grid 64x1x1,
  // 0.170 ms FP32 at 32x64x56x56 with the statistics recomputed, three passes). With the forward's saved
  // statistics it makes two passes, at k_bn_channel_block_elems_per_s each: far above the DRAM-bound time.
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  const auto timed = timed_row;
  const auto row = bn_row("backward", 32, 64, 56, 8, 5 * 4);  // 5 FP32 passes
  const double per_channel = 32.0 * 56 * 56, gap = 0.8e-6;  // and the gap after each kernel
  const double nchw = timed(row, h200, Runtime::cudnn, Precision::fp32, false);
  EXPECT_NEAR(nchw, per_channel * 2 / 1.77e9 + gap, 1e-9);
  EXPECT_NEAR(timed(row, h200, Runtime::pytorch, Precision::fp16, false), per_channel * 2 / 2.53e9 + gap, 1e-9);
  // The harness's three-pass time is 0.170 ms; two passes of it are what the model gives (DRAM alone: 0.04).
  EXPECT_NEAR(nchw, 0.170e-3 * 2 / 3, 0.002e-3);
  // channels_last tensors take cuDNN's NHWC kernels, which spread a channel over many blocks: DRAM-bound.
  const double nhwc = timed(row, h200, Runtime::pytorch, Precision::fp32, true);
  EXPECT_LT(nhwc, 0.5 * nchw);
  // TensorRT has no BatchNorm gradient kernel of cuDNN's: the bound is cuDNN's and PyTorch's only.
  EXPECT_DOUBLE_EQ(timed(row, h200, Runtime::tensorrt, Precision::fp32, false), nhwc);
  // A GTX 1080 Ti's 484 GB/s are slower than 64 blocks at their rate: DRAM-bound as before.
  const GpuSpec pascal = gpu("gtx-1080ti");
  EXPECT_DOUBLE_EQ(timed(row, pascal, Runtime::cudnn, Precision::fp32, false),
                   timed(row, pascal, Runtime::cudnn, Precision::fp32, true));
  // More channels than the GPU holds blocks at once: a second round (an H200 copy with room for one
  // 512-thread block per SM: 132 at once, 200 channels).
  GpuSpec one_block = h200;
  one_block.max_threads_per_sm = 512;
  const auto wide = bn_row("backward", 32, 200, 28, 8, 5 * 4);
  EXPECT_NEAR(timed(wide, one_block, Runtime::cudnn, Precision::fp32, false), 2 * (32.0 * 28 * 28) * 2 / 1.77e9 + gap,
              1e-9);
  // The per-channel bound is the backward's only: the same row as a forward (cuDNN's inference kernel, whose plane
  // walk, 4 waves of 2,048 blocks here, is shorter than this row's five DRAM passes) keeps its DRAM-bound time.
  KernelEstimate fwd = row;
  fwd.phase = "forward";
  EXPECT_DOUBLE_EQ(timed(fwd, h200, Runtime::cudnn, Precision::fp32, false),
                   timed(fwd, h200, Runtime::cudnn, Precision::fp32, true));
}

TEST(DesktopHeadroom, OneClockFactorForEveryMathPath) {
  // A GeForce card runs above its rated boost clock: one factor, the same on the FP32 and the tensor
  // path. Compared with a copy of the card marked as a datacenter part (no headroom, same power).
  const GpuSpec desk = gpu("rtx-2080ti");
  ASSERT_EQ(desk.segment, "desktop");
  GpuSpec plain = desk;
  plain.segment = "datacenter";
  auto gemm_time = [](const GpuSpec& g, Precision p) {
    KernelEstimate k = big_gemm(g);
    PredictOptions o;
    o.precision = p;
    estimate_kernel(k, g, o);
    return k.time_s;
  };
  const double fp32 = gemm_time(plain, Precision::fp32) / gemm_time(desk, Precision::fp32);
  const double fp16 = gemm_time(plain, Precision::fp16) / gemm_time(desk, Precision::fp16);
  EXPECT_GT(fp32, 1.05);
  EXPECT_LT(fp32, 1.2);  // applied twice this was 1.25
  EXPECT_NEAR(fp32, fp16, 0.02);
}

TEST(IntPipe, VoltaClassComputeSmsRunSimtGemmsFaster) {
  // Same card, two compute capabilities: the Volta-class SM issues address arithmetic beside the FMAs.
  // (Maxwell's CC 5.2 stands for an SM without the gain: no full-power reference of its own moves the clock.)
  GpuSpec maxwell = gpu("v100-sxm2-16gb");
  maxwell.compute_capability = "5.2";
  const GpuSpec volta = gpu("v100-sxm2-16gb");
  EXPECT_NEAR(big_gemm(maxwell).time_s / big_gemm(volta).time_s, 1.2, 0.02);
  // GP100 (CC 6.0) has no INT32 pipe but GV100's 64 FP32 lanes per SM over the same registers: the same gain,
  // which GP102/GP104's 128-lane SMs (CC 6.1) do not get.
  GpuSpec gp100 = maxwell;
  gp100.compute_capability = "6.0";
  EXPECT_NEAR(big_gemm(maxwell).time_s / big_gemm(gp100).time_s, 1.2, 0.02);
  // Not on GA10x, whose extra FP32 lanes share their issue with INT32 (GA100's do not), nor on Turing's GEMMs
  // (the T4's were already predicted too fast; its convolutions below).
  const GpuSpec ga10x = gpu("rtx-3090");
  GpuSpec as_ga100 = ga10x;
  as_ga100.compute_capability = "8.0";
  EXPECT_NEAR(big_gemm(ga10x).time_s / big_gemm(as_ga100).time_s, 1.2, 0.02);
  const GpuSpec turing = gpu("rtx-2080ti");
  GpuSpec as_maxwell = turing;
  as_maxwell.compute_capability = "5.2";
  // (Turing's volta_sgemm kernels store their result at a lower share of the bandwidth: a compute-bound GEMM's
  // memory term moves it by under 0.1%.)
  EXPECT_NEAR(big_gemm(turing).time_s / big_gemm(as_maxwell).time_s, 1.0, 1e-3);
  // Turing's FP32 convolutions take it (an implicit GEMM's address arithmetic issues on the INT32 pipe) where the
  // card has the power to spare: an RTX 2080 Ti given a TDP no clock reaches runs them 1.2x faster than its
  // Maxwell copy (its GEMMs alike). At a TDP cap the extra FMAs per clock cost power, and the clock falls as the
  // cube root of the power share: the T4 keeps gain^(2/3), so against the same T4 with power to spare its conv
  // slows by 1.2^(1/3) more than its GEMM does.
  auto conv_s = [](const GpuSpec& g, Precision p) {
    KernelEstimate k;
    k.family = OpFamily::conv;
    k.op = "Conv";
    k.phase = "forward";
    k.gemm = GemmShape{1, 64 * 28 * 28, 512, 512};  // 1x1, 512 -> 512 at 28x28, batch 64: compute-bound
    k.flops = 2.0 * 64 * 28 * 28 * 512 * 512;
    k.bytes = 4.0 * (2 * 64 * 28 * 28 * 512 + 512 * 512);
    k.attrs = {{"batch", 64}, {"in_channels", 512}, {"out_channels", 512}, {"kernel_h", 1}, {"kernel_w", 1},
               {"stride_h", 1}, {"stride_w", 1}, {"in_h", 28}, {"in_w", 28}, {"out_h", 28}, {"out_w", 28}};
    PredictOptions o;
    o.precision = p;
    o.runtime = Runtime::cudnn;
    estimate_kernel(k, g, o);
    return k.time_s;
  };
  GpuSpec spare = turing, spare_maxwell = as_maxwell;
  spare.tdp_w = spare_maxwell.tdp_w = 10000;
  EXPECT_NEAR(conv_s(spare_maxwell, Precision::fp32) / conv_s(spare, Precision::fp32), 1.2, 0.02);
  EXPECT_NEAR(big_gemm(spare_maxwell).time_s / big_gemm(spare).time_s, 1.0, 1e-3);
  const GpuSpec t4 = gpu("t4");
  GpuSpec t4_spare = t4;
  t4_spare.tdp_w = 10000;
  const double conv_slowdown = conv_s(t4, Precision::fp32) / conv_s(t4_spare, Precision::fp32);
  const double gemm_slowdown = big_gemm(t4).time_s / big_gemm(t4_spare).time_s;
  EXPECT_GT(gemm_slowdown, 1.1);  // the T4's 70 W cap holds its clock down
  EXPECT_NEAR(conv_slowdown / gemm_slowdown, std::pow(1.2, 1.0 / k_power_clock_exponent), 0.01);
  // Nor on GH100, whose SM doubled its FP32 lanes (128) over GA100's register file: perfpred's H200 harness
  // timed cuBLAS SGEMMs of 8192 x 4096 x 4096 at 50-52 TFLOP/s (CUPTI), 0.77 of the 67 TFLOP/s peak.
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  GpuSpec as_maxwell_h = h200;
  as_maxwell_h.compute_capability = "5.2";
  EXPECT_DOUBLE_EQ(big_gemm(h200).time_s, big_gemm(as_maxwell_h).time_s);
}

TEST(TensorRtFp16, GeForceFp16AccumulateKernelsRunAtTwiceTheFrameworkRate) {
  // TensorRT's FP16 engines pick FP16-accumulate kernels; GeForce tensor cores run those at twice the
  // FP32-accumulate rate that cuDNN/cuBLAS use under PyTorch. Datacenter parts run both at one rate.
  auto gemm_time = [](const GpuSpec& g, Runtime rt) {
    KernelEstimate k = big_gemm(g);
    PredictOptions o;
    o.precision = Precision::fp16;
    o.runtime = rt;
    estimate_kernel(k, g, o);
    return k.time_s;
  };
  const GpuSpec rtx = gpu("rtx-3090");
  EXPECT_GT(rtx.tensor_fp16_fp16acc_tflops, 1.9 * rtx.tensor_fp16_tflops);
  EXPECT_NEAR(gemm_time(rtx, Runtime::pytorch) / gemm_time(rtx, Runtime::tensorrt), 2.0, 0.15);
  const GpuSpec a100 = gpu("a100-sxm4-80gb");
  EXPECT_EQ(a100.tensor_fp16_fp16acc_tflops, 0);
  EXPECT_DOUBLE_EQ(gemm_time(a100, Runtime::pytorch), gemm_time(a100, Runtime::tensorrt));
}

/// A FP32 MatMul of `batch` products [m x k] x [k x n] (batch 1: one GEMM, as Linear/Gemm run).
KernelEstimate matmul(const GpuSpec& g, int64_t batch, int64_t m, int64_t n, int64_t k) {
  KernelEstimate e;
  e.family = OpFamily::gemm;
  e.gemm = GemmShape{batch, m, n, k};
  e.flops = 2.0 * batch * m * n * k;
  e.bytes = 4.0 * batch * (m * k + k * n + m * n);
  estimate_kernel(e, g, PredictOptions{});
  return e;
}

TEST(BatchedGemm, ShortSidesFillTheWholeTileOfCublasBatchedKernels) {
  // cuBLAS's strided-batched SIMT kernels keep >= 64 outputs along both tile sides (NeuSight bmm: the
  // P100 ran maxwell_sgemm_128x64 whatever N was): 8 columns cost what 64 do. A single GEMM of the same
  // work (the rows folded into M) keeps its 32-wide tiles.
  const GpuSpec p100 = gpu("p100-pcie-16gb");
  const double narrow = matmul(p100, 256, 512, 8, 512).compute_s, wide = matmul(p100, 256, 512, 64, 512).compute_s;
  EXPECT_NEAR(narrow / wide, 1.0, 0.02);
  EXPECT_LT(matmul(p100, 1, 512 * 256, 8, 512).compute_s, 0.75 * narrow);
}

TEST(BatchedGemm, NoSplitKForBatchedProducts) {
  // Two 64 x 64 products with a 65536-long reduction: one block each, no split-K (under 0.5% of NeuSight's
  // bmm rows had a split-K reduce kernel); the same product alone splits its reduction over the SMs.
  const GpuSpec v100 = gpu("v100-pcie-32gb");
  const KernelEstimate batched = matmul(v100, 2, 64, 64, 65536), single = matmul(v100, 1, 64, 64, 65536);
  EXPECT_GT(batched.compute_s, 4 * single.compute_s);
  EXPECT_DOUBLE_EQ(batched.waves, 1);
}

TEST(BatchedGemm, ABatchedBlockPaysAboutHalfTheFixedCostOfASingleGemmsBlock) {
  // Per block, time ~ (K + fixed cost in reduction steps): 18 for cuBLAS's strided-batched products, 32 for a
  // single GEMM (NeuSight's bmm rows were 20-30% too slow at K under 128 with 32; its linear rows and
  // DeepBench's are best near 32). 112 products of 64 x 128 fill the P100 once at any K, so only the
  // reduction moves the time.
  const GpuSpec p100 = gpu("p100-pcie-16gb");
  const double short_k = matmul(p100, 112, 64, 128, 64).compute_s, long_k = matmul(p100, 112, 64, 128, 128).compute_s;
  EXPECT_NEAR(short_k / long_k, (64.0 + 18) / (128.0 + 18), 1e-9);
  // The single GEMM keeps 32: a 64 x 128 product is one tile of 64 x 64 (or two) whatever K is, and
  // below k_split_k_min_k x 2 no split-K is tried.
  const double single_short = matmul(p100, 1, 64, 128, 64).compute_s, single_long = matmul(p100, 1, 64, 128, 128).compute_s;
  EXPECT_NEAR(single_short / single_long, (64.0 + 32) / (128.0 + 32), 1e-9);
}

TEST(BatchedGemm, CublasRunsOneSgemmTileOnPascalAndAmpere) {
  // Maxwell/Pascal: maxwell_sgemm_128x64_nn on 99% of NeuSight's P100 and P4 bmm rows, 128 along cuBLAS's
  // column-major rows = PyTorch's N. 112 products of 64 x 128 fill the P100's 56 SMs x 2 blocks once; turned
  // round (128 x 64) each takes two tiles, so two waves.
  const GpuSpec p100 = gpu("p100-pcie-16gb");
  const KernelEstimate fits = matmul(p100, 112, 64, 128, 1024), turned = matmul(p100, 112, 128, 64, 1024);
  EXPECT_DOUBLE_EQ(fits.waves, 1);
  EXPECT_DOUBLE_EQ(fits.wave_efficiency, 1);
  EXPECT_DOUBLE_EQ(turned.waves, 2);
  EXPECT_NEAR(turned.compute_s / fits.compute_s, 2.0, 1e-9);
  // FP16 products on the same card run other cuBLAS kernels: the choice among the batched tiles stays, and
  // the orientation costs nothing.
  auto half = [&](int64_t m, int64_t n) {
    KernelEstimate e = matmul(p100, 112, m, n, 1024);
    PredictOptions o;
    o.precision = Precision::fp16;
    estimate_kernel(e, p100, o);
    return e.compute_s;
  };
  EXPECT_NEAR(half(128, 64) / half(64, 128), 1.0, 1e-9);
  // Ampere: ampere_sgemm_128x128_nn, one block per SM, on 99.5% of the A100 rows. Two 256 x 256 products
  // (8 tiles) leave 100 of its 108 SMs idle and take as long as 27 of them (108 tiles, one full wave): the
  // model no longer spreads a small batch over smaller tiles that cuBLAS does not run.
  const GpuSpec a100 = gpu("a100-pcie-40gb");
  const KernelEstimate few = matmul(a100, 2, 256, 256, 4096), full = matmul(a100, 27, 256, 256, 4096);
  EXPECT_DOUBLE_EQ(few.compute_s, full.compute_s);
  EXPECT_NEAR(few.wave_efficiency, 8.0 / 108, 1e-12);
  // Volta keeps the choice among the batched tiles (four kernels ran there): the small batch is faster.
  const GpuSpec v100 = gpu("v100-pcie-32gb");
  EXPECT_LT(matmul(v100, 2, 256, 256, 4096).compute_s, 0.9 * matmul(v100, 20, 256, 256, 4096).compute_s);
}

TEST(LinearOnPascal, CublasRunsATnSgemmOnSmallTilesUnderPyTorch) {
  // NeuSight's Linear rows (PyTorch 2.1, x W^T: cuBLAS TN) ran maxwell_sgemm_32x128_tn / 64x64_tn / 128x32_tn on
  // the P100 and P4, never the large tiles of its NN products: k_sgemm_pascal_tn_eff of their efficiency.
  auto product = [](const std::string& id, bool tn, Runtime rt, const std::string& phase) {
    const GpuSpec g = gpu(id);
    KernelEstimate e = matmul(g, 1, 8192, 8192, 4096);
    e.phase = phase;
    if (tn) e.attrs = {{"trans_a", 1}, {"trans_b", 0}};
    PredictOptions o;
    o.runtime = rt;
    estimate_kernel(e, g, o);
    return e.compute_s;
  };
  const double p4 = product("p4", true, Runtime::pytorch, "forward") / product("p4", false, Runtime::pytorch, "forward");
  EXPECT_NEAR(p4, 1 / 0.79, 0.03);  // compute-bound, hundreds of waves: the tile's efficiency decides
  // Not a bare cuBLAS call of DeepBench's era (runtime cudnn), nor Volta and later, nor a gradient's product.
  EXPECT_DOUBLE_EQ(product("p4", true, Runtime::cudnn, "forward"), product("p4", false, Runtime::cudnn, "forward"));
  EXPECT_DOUBLE_EQ(product("v100-pcie-32gb", true, Runtime::pytorch, "forward"),
                   product("v100-pcie-32gb", false, Runtime::pytorch, "forward"));
  EXPECT_DOUBLE_EQ(product("p4", true, Runtime::pytorch, "backward_data"),
                   product("p4", false, Runtime::pytorch, "backward_data"));
}

TEST(TensorGemm, LargeHalfGemmsRunAtEightyPercentOfTensorPeakAndInt8Lower) {
  // DeepBench's large FP16 GEMMs on the V100 and T4 run at about 80% of tensor peak; INT8 products in
  // cuBLAS's plain layouts stay at the lower prior. Share of peak = FLOPs / (compute time x peak).
  auto share = [](const GpuSpec& g, Precision p) {
    KernelEstimate k = big_gemm(g);
    PredictOptions o;
    o.precision = p;
    estimate_kernel(k, g, o);
    return k.flops / (k.compute_s * g.peak_flops(p));
  };
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  EXPECT_GT(share(v100, Precision::fp16), 0.72);  // 4096^3: wave and K-loop losses below 0.80
  EXPECT_LT(share(v100, Precision::fp16), 0.80);
  const GpuSpec a100 = gpu("a100-sxm4-80gb");  // same tiles and waves at both precisions
  EXPECT_NEAR(share(a100, Precision::fp16) / share(a100, Precision::int8), 0.80 / 0.65, 0.01);
}

/// c -> c channels, 3x3 stride 1 at hw x hw, batch n (Winograd-eligible); default: a ResNet stage-1 layer.
/// A dense k x k convolution row, `cin` -> `cout` channels, `stride`, `out` x `out` outputs, batch `n`;
/// `sized` adds the batch and input size (which the NCHW reorders are costed from); `phase` and `rt` as a row says.
KernelEstimate conv_row(const GpuSpec& g, Precision p, double cin, double cout, double k, double stride, double out,
                        double n, bool allow_tf32, bool sized, const char* phase = "forward",
                        Runtime rt = Runtime::pytorch) {
  const double in = out * stride;
  KernelEstimate e;
  e.family = OpFamily::conv;
  e.phase = phase;
  e.gemm = GemmShape{1, static_cast<int64_t>(n * out * out), static_cast<int64_t>(cout), static_cast<int64_t>(cin * k * k)};
  e.flops = 2.0 * n * out * out * cout * cin * k * k;
  e.bytes = element_bytes(p) * (n * cin * in * in + n * cout * out * out + cout * cin * k * k);
  e.attrs = {{"groups", 1}, {"in_channels", cin}, {"out_channels", cout}, {"kernel_h", k}, {"kernel_w", k},
             {"stride_h", stride}, {"stride_w", stride}, {"out_h", out}, {"out_w", out}};
  if (sized) e.attrs.insert(e.attrs.end(), {{"batch", n}, {"in_h", in}, {"in_w", in}});
  PredictOptions o;
  o.precision = p;
  o.allow_tf32 = allow_tf32;
  o.runtime = rt;
  estimate_kernel(e, g, o);
  return e;
}

KernelEstimate conv3x3(const GpuSpec& g, Precision p, double c = 64, double hw = 56, double n = 32,
                       bool allow_tf32 = true) {
  return conv_row(g, p, c, c, 3, 1, hw, n, allow_tf32, false);
}

TEST(Tf32OrSimt, AllowTf32FalseKeepsFp32ConvolutionsOnFp32Math) {
  // torch.backends.cudnn.allow_tf32 = False (NeuSight's kernel rows ran so): an A100's FP32 convolution is
  // the one of an A100 without TF32 tensor cores; --precision tf32 asks for TF32 and keeps it.
  const GpuSpec a100 = gpu("a100-sxm4-80gb");
  GpuSpec no_tf32 = a100;
  no_tf32.tensor_tf32_tflops = 0;
  const double off = conv3x3(a100, Precision::fp32, 256, 28, 32, false).time_s;
  EXPECT_DOUBLE_EQ(off, conv3x3(no_tf32, Precision::fp32, 256, 28, 32).time_s);
  EXPECT_LT(conv3x3(a100, Precision::fp32, 256, 28, 32).time_s, 0.6 * off);
  EXPECT_DOUBLE_EQ(conv3x3(a100, Precision::tf32, 256, 28, 32, false).time_s,
                   conv3x3(a100, Precision::tf32, 256, 28, 32).time_s);
}

TEST(WinogradTiles, FewOutputChannelsStillRunWinograd) {
  // cuDNN runs its fused Winograd kernel for 3x3 stride-1 convolutions with few output channels too: of
  // NeuSight's rows with >= 32 input and < 32 output channels on 16-64 px maps, 90% ran
  // generateWinogradTilesKernel, at half the direct conv's analytical time (medians 0.48-0.70 on all five
  // GPUs). The input channels still gate it: with < 32 the direct cost matched (medians 0.86-1.29).
  const GpuSpec g = gpu("v100-pcie-32gb");
  const auto row = [&](double cin, double cout) {
    KernelEstimate k;
    k.family = OpFamily::conv;
    k.gemm = GemmShape{1, 32 * 56 * 56, static_cast<int64_t>(cout), static_cast<int64_t>(cin * 9)};
    k.flops = 2.0 * 32 * 56 * 56 * cout * cin * 9;
    k.bytes = 4.0 * (32 * 56 * 56 * (cin + cout) + cin * cout * 9);
    k.attrs = {{"groups", 1}, {"in_channels", cin}, {"out_channels", cout}, {"kernel_h", 3}, {"kernel_w", 3},
               {"stride_h", 1}, {"stride_w", 1}, {"out_h", 56}, {"out_w", 56}, {"batch", 32}};
    estimate_kernel(k, g, PredictOptions{});
    return k.time_s / k.flops;
  };
  // 32 input channels take Winograd's gain, 31 do not, whatever the outputs (was 1.0: no Winograd below 32
  // output channels). Its batched GEMM reduces over the 32 channels alone, so it keeps 0.56 of
  // k_winograd_gain there (winograd_channel_fill; NeuSight's rows with 32-47 input channels ran 1.5x the
  // model's time with the whole gain).
  for (double cout : {8.0, 16.0, 64.0}) {
    EXPECT_LT(row(32, cout) / row(31, cout), 0.87) << cout;
    EXPECT_GT(row(32, cout) / row(31, cout), 0.75) << cout;
  }
  // 256 input channels keep 0.91 of it: the time per FLOP falls with the channels Winograd's GEMM reduces.
  EXPECT_LT(row(256, 64) / row(32, 64), 0.7);
}

/// A batch x hw x hw, cin -> cout, kernel x kernel convolution (stride 1) at INT8 unless `p` says otherwise.
KernelEstimate int8_conv(const GpuSpec& g, Runtime rt, int batch, int hw, int cin, int cout, int kernel,
                         const char* phase = "forward", Precision p = Precision::int8) {
  KernelEstimate k;
  k.family = OpFamily::conv;
  const double m = 1.0 * batch * hw * hw, kk = 1.0 * cin * kernel * kernel;
  k.gemm = GemmShape{1, static_cast<int64_t>(m), cout, static_cast<int64_t>(kk)};
  k.flops = 2.0 * m * cout * kk;
  k.bytes = 1.0 * (m * cin + m * cout + cout * kk);
  k.phase = phase;
  k.attrs = {{"groups", 1}, {"in_channels", cin}, {"out_channels", cout}, {"kernel_h", kernel}, {"kernel_w", kernel},
             {"stride_h", 1}, {"stride_w", 1}, {"out_h", hw}, {"out_w", hw}, {"batch", batch}};
  PredictOptions o;
  o.precision = p;
  o.runtime = rt;
  estimate_kernel(k, g, o);
  return k;
}

TEST(Int8Convolutions, CudnnDp4aConvolutionsReachHalfTheSimtEfficiency) {
  // DeepBench's INT8 convolutions on Pascal (cuDNN, dp4a) took 2.6x the model's time where cuBLAS's dp4a GEMMs
  // on the same cards matched it: cuDNN's INT8 convs get half the SIMT conv efficiency. TensorRT's do not
  // pay it, nor do tensor-core INT8 convolutions (T4).
  const auto conv = [](const char* id, Runtime rt) { return int8_conv(gpu(id), rt, 32, 28, 256, 256, 3).time_s; };
  EXPECT_NEAR(conv("gtx-1080ti", Runtime::cudnn) / conv("gtx-1080ti", Runtime::tensorrt), 2.0, 0.15);
  EXPECT_DOUBLE_EQ(conv("t4", Runtime::cudnn), conv("t4", Runtime::tensorrt));
}

TEST(Int8Convolutions, ForwardConvolutionsKeepTheirWholeReductionInOneBlock) {
  // INT8 convolutions have only implicit-GEMM forward kernels: no Winograd, FFT or split-K variant in cuDNN or
  // TensorRT. A batch-1 7x7 layer with a 4608-long reduction (ResNet-50's last 3x3 convs) has 32 output tiles,
  // so the 108 SMs of an A100 barely beat the 14 of its 1g slice (DeepBench's INT8 convolutions: 45.8-55.4% ->
  // 35.7-43.5% mean APE per GPU without the split). With split-K (the same shape in FP16) the whole GPU runs it
  // several times faster.
  const GpuSpec whole = gpu("a100-sxm4-40gb"), slice = gpu("a100-sxm4-40gb:1g.5gb");
  const auto t = [](const GpuSpec& g, Precision p, const char* ph = "forward") {
    return int8_conv(g, Runtime::cudnn, 1, 7, 512, 512, 3, ph, p).time_s;
  };
  const double int8_gain = t(slice, Precision::int8) / t(whole, Precision::int8);
  const double fp16_gain = t(slice, Precision::fp16) / t(whole, Precision::fp16);
  EXPECT_LT(int8_gain, 2.0);
  EXPECT_GT(fp16_gain, 2.5 * int8_gain);
  // Gradients (a training-only path, never INT8 in practice) keep split-K: the rule is the forward kernels'.
  EXPECT_LT(t(whole, Precision::int8, "backward_data"), t(whole, Precision::int8));
}

TEST(LayerNorm, PyTorchsKernelReadsItsInputTwice) {
  // A measured LayerNorm row carries its ideal traffic (read x, write y); PyTorch's
  // vectorized_layer_norm_kernel reads x again to normalise after its Welford statistics, so a memory-bound
  // row (32768 x 4096 FP32, 1 GB) takes 3/2 the two-pass time. Other runtimes and the backward keep theirs.
  const auto ln = [](Runtime rt, const char* phase = "forward") {
    KernelEstimate k;
    k.family = OpFamily::norm;
    k.op = "LayerNormalization";
    k.phase = phase;
    k.flops = 8.0 * 32768 * 4096;
    k.bytes = 2.0 * 4 * 32768 * 4096;
    PredictOptions o;
    o.runtime = rt;
    estimate_kernel(k, gpu("v100-sxm2-16gb"), o);
    return k.time_s;
  };
  EXPECT_NEAR(ln(Runtime::pytorch) / ln(Runtime::tensorrt), 1.5, 0.01);
  EXPECT_DOUBLE_EQ(ln(Runtime::pytorch, "backward"), ln(Runtime::tensorrt, "backward"));
}

TEST(ForwardConvolutions, CudnnSimtKernelsKeepTheWholeReductionWithFewTiles) {
  // NeuSight's FP32 forward convolutions (PyTorch 2.1, cuDNN 8.9, cudnn.benchmark on) with under a wave of
  // output tiles ran 2.4-6x slower than the model with split-K: cuDNN's SIMT forward kernels (Winograd, implicit
  // GEMM) keep the reduction in one block per tile. A batch-1 7x7 layer with a 4608-long reduction on a V100
  // (FP32 math, no TF32 there): TensorRT's tactics keep splitting it (trtutils' RTX 3090 YOLOv8 rows), cuDNN
  // does not. A layer of many waves is the same under both.
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  const auto t = [&](Runtime rt, int batch, int hw, const char* phase = "forward") {
    return int8_conv(v100, rt, batch, hw, 512, 512, 3, phase, Precision::fp32).time_s;
  };
  EXPECT_GT(t(Runtime::cudnn, 1, 7) / t(Runtime::tensorrt, 1, 7), 3.0);  // 164 against 32 us
  EXPECT_NEAR(t(Runtime::cudnn, 64, 56) / t(Runtime::tensorrt, 64, 56), 1.0, 0.02);
  // Gradients keep split-K (DeepBench's backward rows): the rule is the forward kernels'.
  EXPECT_LT(t(Runtime::cudnn, 1, 7, "backward_data"), t(Runtime::cudnn, 1, 7));
  // Fewer tiles than block slots: a block that shares its SM with fewer others issues faster
  // (k_lone_block_exponent), so a layer of a quarter wave is faster at half the batch; without that both would
  // take one wave of the same blocks, in the same time.
  const double quarter = t(Runtime::cudnn, 4, 14), eighth = t(Runtime::cudnn, 2, 14);
  EXPECT_LT(eighth, 0.85 * quarter);
  EXPECT_GT(eighth, 0.5 * quarter);  // and not in proportion: the blocks still walk the whole reduction
}

TEST(Int8Convolutions, TensorRtMultistageKernelsOnAmpereReachMoreOfTheTensorPeak) {
  // TensorRT's INT8 tactics on sm_80+ are multistage cp.async kernels: k_conv_tensor_int8_trt_async_eff (0.7) of
  // the INT8 tensor peak where cuDNN's and the sm_7x kernels get k_conv_tensor_eff (0.5). A large, compute-bound
  // layer (batch 32, 28x28, 256 -> 256, 3x3) shows the ratio; FP16 engines and the Xavier and T4 boards keep 0.5.
  const auto ratio = [](const char* id, Precision p) {
    const GpuSpec g = gpu(id);
    return int8_conv(g, Runtime::tensorrt, 32, 28, 256, 256, 3, "forward", p).time_s /
           int8_conv(g, Runtime::cudnn, 32, 28, 256, 256, 3, "forward", p).time_s;
  };
  for (const char* id : {"a100-sxm4-40gb", "jetson-agx-orin-64gb", "h100-sxm5-80gb"})
    EXPECT_NEAR(ratio(id, Precision::int8), 0.5 / 0.7, 0.02) << id;
  for (const char* id : {"t4", "jetson-agx-xavier", "jetson-xavier-nx"})
    EXPECT_DOUBLE_EQ(ratio(id, Precision::int8), 1.0) << id;
  // FP16 engines keep k_conv_tensor_eff: TensorRT's FP16 time is the cuDNN one scaled back by the tensor-rate
  // law alone (ConvTensorEfficiency below), as on an A100, whose SMs do as much FP16 math per clock.
  EXPECT_NEAR(ratio("jetson-agx-orin-64gb", Precision::fp16), ratio("a100-sxm4-40gb", Precision::fp16), 0.02);
}

TEST(ConvTensorEfficiency, CudnnConvolutionsReachLessOfThePeakWhereAnSmDoesMoreMathPerClock) {
  // cuDNN's tensor-core convolutions reach their base share at 1024 FLOP per SM and clock and (1024 / rate)^e
  // of it elsewhere: k_conv_tensor_eff (0.5, e = 0.3) in TF32, k_conv_tensor_half_eff (0.7, e = 0.41) in
  // FP16/BF16, whose NCHW reorders are kernels of their own (none here: a bare cuDNN call on NHWC tensors, as
  // DeepBench's); at about 4000 (H100/H200 FP16) the FP16 share is the 0.6 x 0.25^0.3 it was before Session 32.
  // TensorRT's kernels keep 0.5. A large compute-bound layer (batch 32, 28x28, 256 -> 256, 3x3) under cuDNN over
  // the same layer under TensorRT shows the factor.
  const auto ratio = [](const char* id, Precision p) {
    const GpuSpec g = gpu(id);
    return int8_conv(g, Runtime::cudnn, 32, 28, 256, 256, 3, "forward", p).time_s /
           int8_conv(g, Runtime::tensorrt, 32, 28, 256, 256, 3, "forward", p).time_s;
  };
  const double half = 0.5 / 0.7;
  EXPECT_NEAR(ratio("v100-sxm2-16gb", Precision::fp16), half, 0.01);           // 125 TFLOP/s, 80 SMs, 1.53 GHz: 1021
  EXPECT_NEAR(ratio("a100-sxm4-40gb", Precision::fp16), half * 1.329, 0.01);   // 312, 108 SMs, 1.41 GHz: 2049
  EXPECT_NEAR(ratio("a100-sxm4-40gb", Precision::fp32), 1.0, 0.01);            // TF32 156: 1024
  const double h100 = ratio("h100-sxm5-80gb", Precision::fp16);                // about 4000
  EXPECT_GT(h100, 1.21);  // 0.5 / (0.6 x 0.25^0.3) = 1.26: the share the H200 rows put there, kept
  EXPECT_LT(h100, 1.29);
  EXPECT_NEAR(ratio("h200-sxm-141gb", Precision::fp32), 1.20, 0.01);           // TF32 495, 132 SMs, 1.98 GHz: 1894
  // INT8 keeps its own efficiencies (cuDNN 0.5, TensorRT's multistage kernels 0.7 on sm_80+).
  EXPECT_NEAR(ratio("a100-sxm4-40gb", Precision::int8), 0.7 / 0.5, 0.03);
}

TEST(DepthwiseRows, KernelRowsChargeTheL2TapsOfPascalAsNetworksDo) {
  // A depthwise kernel row (PyTorch, FP32) gets the L2 tap term on sm_6x as a network's depthwise conv does
  // (tests/unit/predict/test_predict_plan.cpp, EagerPlan.PascalServesPyTorchDepthwiseTapsFromL2): 64 x 192
  // x 56 x 56 outputs, a 7x7 filter, stride 1.
  const auto row = [](const char* id) {
    KernelEstimate k;
    k.family = OpFamily::conv;
    k.gemm = GemmShape{192, 64 * 56 * 56, 1, 49};
    k.flops = 2.0 * 64 * 192 * 56 * 56 * 49;
    k.bytes = 4.0 * 2 * 64 * 192 * 56 * 56;
    k.attrs = {{"groups", 192}, {"in_channels", 192}, {"out_channels", 192}, {"kernel_h", 7}, {"kernel_w", 7},
               {"stride_h", 1}, {"stride_w", 1}, {"out_h", 56}, {"out_w", 56}, {"batch", 64}};
    estimate_kernel(k, gpu(id), PredictOptions{});
    return k.time_s;
  };
  EXPECT_GT(row("titan-xp") / row("rtx-2080ti"), 3.0);
  EXPECT_GT(row("titan-xp"), 8e-3);
}

TEST(WinogradTiles, PartialOutputTilesCostTheirWholeTile) {
  // Winograd F(4x4, 3x3) computes whole 4x4 output tiles: a 14x14 map computes 16x16 (fill 0.77), a 5x5
  // map 8x8 (fill 0.39), where the direct kernel is faster and cuDNN runs it. NeuSight's 3x3 convolutions
  // (P4, P100, T4, V100) ran 2-4x the analytical time on maps with fill under 0.5 and within 5-15% at fill 1.
  const GpuSpec g = gpu("gtx-1080ti");
  const auto per_flop = [&](double hw, double n) {
    const KernelEstimate k = conv3x3(g, Precision::fp32, 256, hw, n);
    return k.time_s / k.flops;
  };
  const double full = per_flop(28, 8);                      // 6,272 output pixels per channel
  EXPECT_NEAR(per_flop(14, 32) / full, 256.0 / 196.0, 0.08);  // same pixels, Winograd on 0.77 of its tiles
  EXPECT_GT(per_flop(5, 251) / full, 1.6);                  // direct kernel: the whole 1.8x Winograd gain lost
}

TEST(RecurrentKernels, WeightGradientRowsAreOneGemmNotSeqLenSteps) {
  // A DeepBench-style RNN row: the per-step GEMM [batch x 4h x (h + in)] and seq_len. Forward and data
  // gradients are seq_len dependent steps; the weight gradient is one GEMM over batch x seq_len.
  auto row = [](const char* phase) {
    KernelEstimate k;
    k.family = OpFamily::rnn;
    k.phase = phase;
    k.gemm = GemmShape{1, 16, 2048, 1024};
    k.flops = 2.0 * 16 * 2048 * 1024 * 100;
    k.bytes = 4.0 * (2048 * 1024 + 100 * 16 * (1024 + 2048));
    k.attrs = {{"seq_len", 100}};
    estimate_kernel(k, gpu("v100-sxm2-16gb"), PredictOptions{});
    return k;
  };
  const KernelEstimate fwd = row("forward"), dw = row("backward_weight");
  ASSERT_TRUE(dw.gemm.has_value());
  EXPECT_LT(dw.time_s, 0.3 * fwd.time_s);
}

KernelEstimate rnn_row(const char* phase, int64_t batch, int64_t hidden, int seq, const GpuSpec& g,
                       Precision p = Precision::fp32) {
  // A DeepBench RNN row (CUDNN_SKIP_INPUT): the per-step recurrent GEMM [batch x 4h x h] and seq_len.
  KernelEstimate k;
  k.family = OpFamily::rnn;
  k.phase = phase;
  k.gemm = GemmShape{1, batch, 4 * hidden, hidden};
  k.flops = 2.0 * batch * 4 * hidden * hidden * seq;
  k.bytes = element_bytes(p) * (4.0 * hidden * hidden + 2.0 * seq * batch * hidden);
  k.attrs = {{"seq_len", static_cast<double>(seq)}};
  PredictOptions o;
  o.precision = p;
  estimate_kernel(k, g, o);
  return k;
}

TEST(RecurrentKernels, EveryStepLaunchesItsGemmAndGateKernel) {
  // 1500 steps of a tiny GEMM: each step is a recurrent GEMM and a gate pointwise kernel, 3000 launches in
  // all, each with its floor and its gap on the GPU timeline (the row had counted one launch in all).
  const KernelEstimate k = rnn_row("forward", 1, 64, 1500, gpu("gtx-1080ti"));
  EXPECT_NEAR(k.launch_s, 3000 * 2.5e-6, 1e-9);
  EXPECT_GE(k.time_s, k.compute_s + 3000 * 0.8e-6);
}

TEST(RecurrentKernels, EveryStepWaitsForItsReductionLoop) {
  // A vanilla RNN step at batch 16, hidden 2560 on a V100 is 210 MFLOP and 26 MB of weights: its
  // tiles and bytes say about 70 us, DeepBench measures 90 us. The dependent step walks its K = 2560
  // reduction serially: at least K x k_rnn_step_cycles_per_k (70) cycles at <= 1.6 GHz, 112 us.
  KernelEstimate k;
  k.family = OpFamily::rnn;
  k.phase = "forward";
  k.gemm = GemmShape{1, 16, 2560, 2560};
  k.flops = 2.0 * 16 * 2560 * 2560 * 50;
  k.bytes = 4.0 * (2560.0 * 2560 + 2.0 * 50 * 16 * 2560);
  k.attrs = {{"seq_len", 50}};
  estimate_kernel(k, gpu("v100-sxm2-16gb"), PredictOptions{});
  EXPECT_GE(k.time_s, 50 * 2560 * 70 / 1.6e9);
  // The weight gradient is one parallel GEMM, not 50 dependent steps: no such floor.
  KernelEstimate w = k;
  w.phase = "backward_weight";
  estimate_kernel(w, gpu("v100-sxm2-16gb"), PredictOptions{});
  EXPECT_LT(w.time_s, 50 * 2560 * 70 / 1.6e9);
}

TEST(RecurrentKernels, DataGradientStepIsTheTransposedGemm) {
  // dh_{t-1} = dgates_t R: the data-gradient step has N = hidden and K = 4 x hidden, not the forward's
  // N = 4 x hidden, K = hidden. Same FLOPs, different tiling: its time is that of a forward row whose view is
  // the transpose, not the forward row's own.
  const GpuSpec g = gpu("p100-pcie-16gb");
  const KernelEstimate dd = rnn_row("backward_data", 64, 512, 25, g);
  KernelEstimate t;
  t.family = OpFamily::rnn;
  t.phase = "forward";
  t.gemm = GemmShape{1, 64, 512, 4 * 512};
  t.flops = dd.flops;
  t.bytes = dd.bytes;
  t.attrs = {{"seq_len", 25}};
  estimate_kernel(t, g, PredictOptions{});
  const KernelEstimate fwd = rnn_row("forward", 64, 512, 25, g);
  EXPECT_DOUBLE_EQ(dd.time_s, t.time_s);
  EXPECT_NE(dd.time_s, fwd.time_s);
}

TEST(RecurrentKernels, HalfPrecisionStepsWithoutTensorCoresComputeInFp32) {
  // The P100 has 2x packed FP16, but cuDNN's recurrent kernels keep FP16 storage and FP32 math (DeepBench's
  // P100 "pseudo FP16" RNN rows): the steps' math time is the FP32 one. Convolutions keep packed FP16.
  const GpuSpec g = gpu("p100-pcie-16gb");
  const KernelEstimate h = rnn_row("forward", 128, 2048, 25, g, Precision::fp16);
  const KernelEstimate f = rnn_row("forward", 128, 2048, 25, g, Precision::fp32);
  EXPECT_NEAR(h.compute_s, f.compute_s, 1e-3 * f.compute_s);
  // The V100's tensor cores still apply.
  const KernelEstimate v16 = rnn_row("forward", 128, 2048, 25, gpu("v100-sxm2-16gb"), Precision::fp16);
  const KernelEstimate v32 = rnn_row("forward", 128, 2048, 25, gpu("v100-sxm2-16gb"), Precision::fp32);
  EXPECT_LT(v16.compute_s, 0.5 * v32.compute_s);
}

/// Compute time of a 4096-cubed GEMM at a precision on a runtime.
double gemm4096_compute_s(const GpuSpec& g, Precision p, Runtime rt) {
  KernelEstimate k = matmul(g, 1, 4096, 4096, 4096);
  PredictOptions o;
  o.precision = p;
  o.runtime = rt;
  estimate_kernel(k, g, o);
  return k.compute_s;
}

TEST(HalfGemm, WithoutTensorCoresComputesInFp32OutsideTensorRt) {
  // PyTorch's half GEMMs call cublasGemmEx with FP32 compute; on the P100 (2x packed FP16, no tensor cores)
  // DeepBench's "pseudo FP16" GEMMs took the FP32 rows' time (median ratio 1.00 over 160 shapes). TensorRT's
  // true-FP16 kernels keep the packed rate; the V100's tensor cores still apply.
  const GpuSpec p100 = gpu("p100-pcie-16gb");
  const double fp32 = gemm4096_compute_s(p100, Precision::fp32, Runtime::pytorch);
  for (Runtime rt : {Runtime::pytorch, Runtime::onnxruntime, Runtime::cudnn})
    EXPECT_NEAR(gemm4096_compute_s(p100, Precision::fp16, rt) / fp32, 1.0, 1e-9) << to_string(rt);
  EXPECT_NEAR(gemm4096_compute_s(p100, Precision::fp16, Runtime::tensorrt) / fp32, 0.5, 0.01);
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  EXPECT_LT(gemm4096_compute_s(v100, Precision::fp16, Runtime::pytorch),
            0.3 * gemm4096_compute_s(v100, Precision::fp32, Runtime::pytorch));
}

/// Math time of a 256 -> 512 channel convolution row at batch 12 and 28 x 28 outputs, in one phase.
double conv_phase_compute_s(const GpuSpec& g, Precision p, double k, double stride, const char* phase,
                            Runtime rt = Runtime::pytorch) {
  return conv_row(g, p, 256, 512, k, stride, 28, 12, true, true, phase, rt).compute_s;
}

TEST(PseudoHalfConvolutions, StridedDataAndPointwiseFilterGradientsRunSlowerOnConsumerPascal) {
  // PyTorch's FP16 convolutions on a GTX 1080 Ti (no tensor cores, FP16 math at 1/64 of FP32) run cuDNN's
  // pseudo-half kernels: the model times them at the FP32 rate, the data gradient of a strided filter at
  // k_pseudo_half_strided_dgrad_slowdown and the filter gradient of a 1x1 filter at
  // k_pseudo_half_pointwise_wgrad_slowdown times that. The same card with FP16 as fast as FP32 is the reference.
  const GpuSpec pascal = gpu("gtx-1080ti");
  ASSERT_LT(pascal.fp16_tflops, pascal.fp32_tflops);
  GpuSpec even = pascal;
  even.fp16_tflops = pascal.fp32_tflops;
  const auto ratio = [&](double k, double stride, const char* phase) {
    return conv_phase_compute_s(pascal, Precision::fp16, k, stride, phase) /
           conv_phase_compute_s(even, Precision::fp16, k, stride, phase);
  };
  EXPECT_NEAR(ratio(1, 2, "backward_data"), 4.0, 1e-9);
  EXPECT_NEAR(ratio(3, 2, "backward_data"), 4.0, 1e-9);
  EXPECT_NEAR(ratio(1, 1, "backward_weight"), 2.0, 1e-9);
  EXPECT_NEAR(ratio(1, 2, "backward_weight"), 2.0, 1e-9);
  // The forward, stride-1 data gradients and the filter gradients of larger filters keep their time.
  EXPECT_NEAR(ratio(1, 1, "forward"), 1.0, 1e-9);
  EXPECT_NEAR(ratio(1, 2, "forward"), 1.0, 1e-9);
  EXPECT_NEAR(ratio(1, 1, "backward_data"), 1.0, 1e-9);
  EXPECT_NEAR(ratio(3, 2, "backward_weight"), 1.0, 1e-9);
  // FP32 is not the pseudo-half path; TensorRT builds its own FP16 kernels; the P100 computes FP16 at twice
  // its FP32 rate and the V100 on tensor cores.
  EXPECT_DOUBLE_EQ(conv_phase_compute_s(pascal, Precision::fp32, 1, 2, "backward_data"),
                   conv_phase_compute_s(even, Precision::fp32, 1, 2, "backward_data"));
  EXPECT_DOUBLE_EQ(conv_phase_compute_s(pascal, Precision::fp16, 1, 2, "backward_data", Runtime::tensorrt),
                   conv_phase_compute_s(even, Precision::fp16, 1, 2, "backward_data", Runtime::tensorrt));
  for (const char* id : {"p100-pcie-16gb", "v100-sxm2-16gb"}) {
    const GpuSpec g = gpu(id);
    EXPECT_LT(conv_phase_compute_s(g, Precision::fp16, 1, 2, "backward_data"),
              conv_phase_compute_s(g, Precision::fp32, 1, 2, "backward_data"))
        << id;
  }
}

TEST(Int8Gemm, BareCublasOnTuringRunsDp4aNotTheTensorCores) {
  // DeepBench's T4 INT8 GEMMs (cublasGemmEx, plain layouts) peaked at 24.2 TOPS, under dp4a's 32.6 (4x the FP32
  // rate) and a fifth of the INT8 tensor peak: the SIMT path at 4x the FP32 rate, the same tiles and efficiency.
  // TensorRT on the T4 and bare cuBLAS on the A100 keep the tensor cores.
  const GpuSpec t4 = gpu("t4");
  const double fp32 = gemm4096_compute_s(t4, Precision::fp32, Runtime::cudnn);
  EXPECT_NEAR(gemm4096_compute_s(t4, Precision::int8, Runtime::cudnn) / fp32, 0.25, 1e-9);
  EXPECT_LT(gemm4096_compute_s(t4, Precision::int8, Runtime::tensorrt), 0.12 * fp32);
  const GpuSpec a100 = gpu("a100-sxm4-80gb");
  EXPECT_LT(gemm4096_compute_s(a100, Precision::int8, Runtime::cudnn),
            0.1 * gemm4096_compute_s(a100, Precision::fp32, Runtime::cudnn));
}

TEST(Tf32OrSimt, ConvolutionsTakeTheFasterOfTf32AndFp32Kernels) {
  // GeForce Ampere: TF32 tensor cores run at the FP32 SIMT rate (35.6 TFLOPS on the RTX 3090), and a 3x3
  // layer's Winograd FP32 kernel beats the TF32 implicit GEMM: the time is the one without TF32 at all.
  const GpuSpec rtx = gpu("rtx-3090");
  GpuSpec rtx_no_tf32 = rtx;
  rtx_no_tf32.tensor_tf32_tflops = 0;
  ASSERT_GT(rtx.tensor_tf32_tflops, 0);
  for (Precision p : {Precision::fp32, Precision::tf32})
    EXPECT_DOUBLE_EQ(conv3x3(rtx, p).time_s, conv3x3(rtx_no_tf32, Precision::fp32).time_s) << to_string(p);
  // A100: TF32 has 8x the FP32 rate and wins.
  const GpuSpec a100 = gpu("a100-sxm4-80gb");
  GpuSpec a100_no_tf32 = a100;
  a100_no_tf32.tensor_tf32_tflops = 0;
  EXPECT_LT(conv3x3(a100, Precision::fp32).time_s, 0.6 * conv3x3(a100_no_tf32, Precision::fp32).time_s);
}

TEST(Tf32OrSimt, HalfPrecisionConvolutionsTakeTheFasterOfTensorAndFp32Kernels) {
  // FP16 storage with FP32 math (cuDNN's pseudo-half kernels) at the FP32 rate, Winograd for 3x3: on the
  // RTX 3090 (71 TFLOPS FP16 tensor with FP32 accumulation, 35.6 FP32) they beat the tensor-core GEMM on a
  // layer reducing enough channels to keep most of Winograd's gain (512; at 64 the tensor path wins, and at 256
  // since its share at 512 FLOP per SM and clock reached the cap, Session 32).
  const GpuSpec rtx = gpu("rtx-3090");
  GpuSpec rtx_no_tensor = rtx;
  rtx_no_tensor.tensor_fp16_tflops = 0;
  EXPECT_DOUBLE_EQ(conv3x3(rtx, Precision::fp16, 512, 28).time_s, conv3x3(rtx_no_tensor, Precision::fp16, 512, 28).time_s);
  EXPECT_LT(conv3x3(rtx, Precision::fp16, 64).time_s, conv3x3(rtx_no_tensor, Precision::fp16, 64).time_s);
  // The A100's 312 TFLOPS tensor path wins a compute-bound layer (512 channels at 14x14, batch 256) over the
  // FP32-math kernel it is compared with (an A100 without FP16 tensor cores or packed half math).
  const GpuSpec a100 = gpu("a100-sxm4-80gb");
  GpuSpec a100_no_tensor = a100;
  a100_no_tensor.tensor_fp16_tflops = 0;
  a100_no_tensor.fp16_tflops = 0;
  EXPECT_LT(conv3x3(a100, Precision::fp16, 512, 14, 256).time_s,
            0.5 * conv3x3(a100_no_tensor, Precision::fp16, 512, 14, 256).time_s);
}

/// A 7x7 stride-2 stem convolution of a `c`-channel 224x224 batch of 64 into 64 channels.
KernelEstimate stem(const GpuSpec& g, Precision p, double c, bool allow_tf32 = true) {
  return conv_row(g, p, c, 64, 7, 2, 112, 64, allow_tf32, true);
}

TEST(UnalignedChannels, RgbStemsRunCudnnsFp32MathKernelsWhereTensorCoresNeedWholeVectors) {
  // cuDNN's tensor-core convolutions load input channels 16 bytes at a time: 8 halves, 4 TF32 floats. A 3-channel
  // stem is off both, so it runs the FP32-math kernels (DeepBench's FP16 stems on the V100 and T4 took longer than
  // their FP32 rows); 8 channels take the tensor cores.
  const GpuSpec a100 = gpu("a100-sxm4-80gb");
  GpuSpec no_tensor = a100;
  no_tensor.tensor_fp16_tflops = 0;
  no_tensor.fp16_tflops = 0;
  EXPECT_DOUBLE_EQ(stem(a100, Precision::fp16, 3).time_s, stem(no_tensor, Precision::fp16, 3).time_s);
  EXPECT_LT(stem(a100, Precision::fp16, 8).time_s, 0.5 * stem(no_tensor, Precision::fp16, 8).time_s);
  EXPECT_DOUBLE_EQ(stem(a100, Precision::fp32, 3).time_s, stem(a100, Precision::fp32, 3, false).time_s);
  EXPECT_LT(stem(a100, Precision::fp32, 4).time_s, 0.6 * stem(a100, Precision::fp32, 4, false).time_s);
  // A GPU without tensor cores keeps its packed half rate (the P100's FP16 stem against its FP32 one).
  const GpuSpec p100 = gpu("p100-pcie-16gb");
  EXPECT_LT(stem(p100, Precision::fp16, 3).time_s, 0.8 * stem(p100, Precision::fp32, 3).time_s);
}


// A convolution's gradient row is timed on the forward's implicit-GEMM view whatever view the row carries:
// perfpred's profiler once wrote the data gradient of ResNet's 7x7 stem as a 3-column product
// (64 x 224 x 224 input pixels by 3 input channels) and its filter gradient as a 64 x 147 GEMM with a
// 802,816-long reduction, which priced them at 35.8 ms and 4.4 ms on the H200 where cuDNN 9 took 1.1 ms and
// 0.36 ms (data/measured/h200-harness, CUPTI).
TEST(KernelRows, ConvGradientsAreTimedOnTheForwardView) {
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  const auto stem = [&](const char* phase, GemmShape view) {
    KernelEstimate k;
    k.family = OpFamily::conv;
    k.op = "Conv";
    k.phase = phase;
    k.gemm = view;
    k.flops = 2.0 * 64 * 64 * 112 * 112 * 3 * 49;
    k.bytes = 2.0 * (64.0 * 3 * 224 * 224 + 64 * 3 * 49 + 64.0 * 64 * 112 * 112);
    k.attrs = {{"batch", 64},   {"in_channels", 3}, {"out_channels", 64}, {"in_h", 224},    {"in_w", 224},
               {"kernel_h", 7}, {"kernel_w", 7},    {"stride_h", 2},      {"stride_w", 2},  {"pad_h", 3},
               {"pad_w", 3},    {"out_h", 112},     {"out_w", 112},       {"dilation_h", 1}, {"groups", 1}};
    PredictOptions o;
    o.precision = Precision::fp16;
    o.runtime = Runtime::cudnn;
    o.mode = Mode::training;
    estimate_kernel(k, h200, o);
    return k;
  };
  const GemmShape forward{1, 64 * 112 * 112, 64, 3 * 49};
  for (const char* phase : {"backward_data", "backward_weight"}) {
    const KernelEstimate as_forward = stem(phase, forward);
    const KernelEstimate transposed = stem(phase, std::string(phase) == "backward_data"
                                                      ? GemmShape{1, 64 * 224 * 224, 3, 64 * 49}
                                                      : GemmShape{1, 64, 3 * 49, 64 * 112 * 112});
    EXPECT_DOUBLE_EQ(transposed.time_s, as_forward.time_s) << phase;
    ASSERT_TRUE(transposed.gemm.has_value());
    EXPECT_EQ(transposed.gemm->m, forward.m) << phase;
    EXPECT_EQ(transposed.gemm->n, forward.n) << phase;
    EXPECT_EQ(transposed.gemm->k, forward.k) << phase;
    // Within a few times cuDNN 9's measured 1.1 ms / 0.36 ms, not 30x it.
    EXPECT_LT(as_forward.time_s, 3e-3) << phase;
  }
}

}  // namespace
}  // namespace perfpred
