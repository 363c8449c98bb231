// Sanity of the analytical predictor: the physical orderings every prediction must respect.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>  // catalog.hpp holds std::vector<json> and forward-declares json

#include "net_builder.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/hw/sustained_clock.hpp"
#include "perfpred/predict/predictor.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {
namespace {

const GpuCatalog& catalog() {
  static GpuCatalog cat(std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus");
  return cat;
}
GpuSpec gpu(const std::string& id) { return catalog().resolve(id); }

Prediction run(const test::NetBuilder& b, const GpuSpec& g, PredictOptions o = {}) {
  return predict(b.g, b.c, g, o);
}

/// A copy of `s` with `f` times the SMs, bandwidth, memory and L2, and every peak rate scaled alike.
GpuSpec scaled(GpuSpec s, double f) {
  s.id += "-x" + std::to_string(f);
  s.sm_count = static_cast<int>(std::lround(s.sm_count * f));
  for (double* v : {&s.fp32_tflops, &s.fp16_tflops, &s.bf16_tflops, &s.tensor_fp16_tflops,
                    &s.tensor_fp16_fp16acc_tflops, &s.tensor_bf16_tflops,
                    &s.tensor_tf32_tflops, &s.tensor_int8_tops, &s.int8_tops, &s.mem_bandwidth_gbps,
                    &s.memory_gb, &s.l2_cache_mb, &s.host_link_gbps})
    *v *= f;
  return s;
}

TEST(PredictSanity, MoreOfEverythingIsNeverSlower) {
  for (const char* id : {"gtx-1080ti", "rtx-2080ti", "a100-sxm4-40gb", "jetson-nano"}) {
    const GpuSpec base = gpu(id);
    const GpuSpec big = scaled(base, 2.0);
    for (int64_t batch : {1, 8, 64}) {
      auto net = test::resnet_like(batch);
      for (Runtime rt : {Runtime::pytorch, Runtime::tensorrt}) {
        for (Precision p : {Precision::fp32, Precision::fp16}) {
          PredictOptions o;
          o.batch = batch;
          o.runtime = rt;
          o.precision = p;
          auto a = run(net, base, o), b = run(net, big, o);
          EXPECT_LE(b.latency_ms, a.latency_ms * (1 + 1e-9)) << id << " batch " << batch;
          EXPECT_LE(b.kernels_ms, a.kernels_ms * (1 + 1e-9)) << id << " batch " << batch;
        }
      }
    }
  }
  // A higher clock alone (every rate up, same SMs) is never slower either.
  GpuSpec base = gpu("rtx-2080ti"), fast = base;
  fast.boost_clock_mhz *= 1.3;
  for (double* v : {&fast.fp32_tflops, &fast.fp16_tflops, &fast.tensor_fp16_tflops, &fast.tensor_fp16_fp16acc_tflops,
                    &fast.int8_tops, &fast.tensor_int8_tops})
    *v *= 1.3;
  auto net = test::resnet_like(32);
  PredictOptions o;
  o.batch = 32;
  EXPECT_LT(run(net, fast, o).kernels_ms, run(net, base, o).kernels_ms);
}

TEST(PredictSanity, LargerBatchNeverFasterPerBatchNorLowerThroughput) {
  for (const char* id : {"gtx-1080ti", "a100-sxm4-40gb", "jetson-nano"}) {
    for (Runtime rt : {Runtime::pytorch, Runtime::tensorrt}) {
      for (Mode mode : {Mode::inference, Mode::training}) {
        if (rt == Runtime::tensorrt && mode == Mode::training) continue;
        double prev_latency = 0, prev_tput = 0;
        for (int64_t batch = 1; batch <= 256; batch *= 2) {
          auto net = test::resnet_like(batch, 64, 2, 112);
          PredictOptions o;
          o.batch = batch;
          o.runtime = rt;
          o.mode = mode;
          auto p = run(net, gpu(id), o);
          if (!p.fits) break;
          EXPECT_GE(p.latency_ms, prev_latency) << id << " " << to_string(rt) << " batch " << batch;
          EXPECT_GE(p.throughput_samples_per_s, prev_tput * (1 - 1e-9)) << id << " " << to_string(rt) << " batch " << batch;
          prev_latency = p.latency_ms;
          prev_tput = p.throughput_samples_per_s;
        }
      }
    }
  }
}

TEST(PredictSanity, ModelThatDoesNotFitSaysSoWithTheShortfall) {
  auto net = test::resnet_like(256, 64, 2, 224);
  PredictOptions o;
  o.batch = 256;
  o.mode = Mode::training;
  o.optimizer = Optimizer::adam;
  const GpuSpec nano = gpu("jetson-nano");
  auto p = run(net, nano, o);
  EXPECT_FALSE(p.fits);
  EXPECT_GT(p.memory_shortfall_bytes, 0);
  EXPECT_NEAR(p.memory_shortfall_bytes, p.peak_memory_bytes - nano.memory_bytes(), 1.0);
  EXPECT_GT(p.latency_ms, 0);  // still predicted
  // The same run fits on an 80 GB GPU.
  auto q = run(net, gpu("a100-sxm4-80gb"), o);
  EXPECT_TRUE(q.fits);
  EXPECT_EQ(q.memory_shortfall_bytes, 0);
}

TEST(PredictSanity, Fp16BeatsFp32OnTensorCoresForALargeGemm) {
  auto net = test::big_gemm(4096, 4096, 4096);
  for (const char* id : {"v100-sxm2-16gb", "rtx-2080ti", "a100-sxm4-40gb", "h100-sxm5-80gb"}) {
    PredictOptions o32, o16;
    o16.precision = Precision::fp16;
    auto a = run(net, gpu(id), o32), b = run(net, gpu(id), o16);
    EXPECT_LT(b.kernels_ms * 2, a.kernels_ms) << id;
  }
  // No tensor cores, crippled packed FP16 (Pascal consumer): no speed-up of the math, never slower.
  PredictOptions o32, o16;
  o16.precision = Precision::fp16;
  auto a = run(net, gpu("gtx-1080ti"), o32), b = run(net, gpu("gtx-1080ti"), o16);
  EXPECT_LE(b.kernels_ms, a.kernels_ms);
  EXPECT_GT(b.kernels_ms, 0.8 * a.kernels_ms);
  // Jetson Nano: packed FP16 at most 2x.
  auto c = run(net, gpu("jetson-nano"), o32), d = run(net, gpu("jetson-nano"), o16);
  EXPECT_LT(d.kernels_ms, c.kernels_ms);
  EXPECT_GE(d.kernels_ms * 2.0 * 1.001, c.kernels_ms);
}

TEST(PredictSanity, MigSliceIsSlowerThanItsWholeGpu) {
  auto net = test::resnet_like(64);
  PredictOptions o;
  o.batch = 64;
  auto whole = run(net, gpu("a100-sxm4-40gb"), o);
  auto slice = run(net, gpu("a100-sxm4-40gb:1g.5gb"), o);
  auto half = run(net, gpu("a100-sxm4-40gb:3g.20gb"), o);
  EXPECT_GT(slice.latency_ms, half.latency_ms);
  EXPECT_GT(half.latency_ms, whole.latency_ms);
}

TEST(PredictSanity, MigSlicePowerIsItsShareOfTheGpu) {
  // A slice draws its share of the board: a busy 1g slice draws less than the whole GPU running the same
  // work, and seven busy 1g slices together draw about what one whole GPU does, never far more.
  for (const char* parent : {"a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb", "a30"}) {
    const GpuSpec whole_gpu = gpu(parent);
    const GpuSpec one_g = catalog().mig_slices(parent).front();
    ASSERT_EQ(one_g.mig_profile.rfind("1g.", 0), 0u) << parent;
    const double instances = std::string(parent) == "a30" ? 4 : 7;
    for (int64_t batch : {1, 32}) {
      auto net = test::resnet_like(batch);
      PredictOptions o;
      o.batch = batch;
      auto whole = run(net, whole_gpu, o), slice = run(net, one_g, o);
      EXPECT_LT(slice.avg_power_w, whole.avg_power_w) << one_g.id << " batch " << batch;
      EXPECT_LE(slice.avg_power_w, one_g.tdp_w * (1 + 1e-9)) << one_g.id;
      EXPECT_LT(instances * slice.avg_power_w, 1.5 * whole_gpu.tdp_w) << one_g.id << " batch " << batch;
      if (batch == 32) {  // busy: the instances of a partitioned GPU add up to about a busy whole GPU
        EXPECT_GT(instances * slice.avg_power_w, 0.5 * whole.avg_power_w) << one_g.id;
        EXPECT_LT(instances * slice.avg_power_w, 1.5 * whole.avg_power_w) << one_g.id;
      }
    }
  }
}

TEST(PredictSanity, TrainingStepCostsMoreThanInference) {
  for (int64_t batch : {1, 32}) {
    auto net = test::resnet_like(batch);
    PredictOptions inf, tr;
    inf.batch = tr.batch = batch;
    tr.mode = Mode::training;
    auto a = run(net, gpu("rtx-2080ti"), inf), b = run(net, gpu("rtx-2080ti"), tr);
    EXPECT_GT(b.latency_ms, 1.5 * a.latency_ms);
    // Backward ~ 2x forward; cuDNN's eval-mode BatchNorm (one latency-bound block per plane) is not the training
    // forward's kernel, so on Turing's 16 resident blocks per SM the inference side is the heavier by that much.
    EXPECT_GT(b.kernels_ms, 2.0 * a.kernels_ms);
    EXPECT_GT(b.peak_memory_bytes, a.peak_memory_bytes);
    EXPECT_GT(b.optimizer_ms, 0);
    EXPECT_LT(b.optimizer_ms, b.kernels_ms);
  }
}

TEST(PredictMemory, CudnnConvolutionLibrariesLoadIntoTheContextOnlyForConvNets) {
  // nvidia-smi counts cuDNN's convolution kernel images once PyTorch runs a conv; an MLP never loads them.
  PredictOptions o;
  o.batch = 8;
  o.mode = Mode::training;
  const Prediction conv = run(test::resnet_like(8), gpu("a100-sxm4-40gb"), o);
  const Prediction mlp = run(test::big_gemm(8, 256, 256), gpu("a100-sxm4-40gb"), o);
  EXPECT_NEAR(conv.memory.context_bytes - mlp.memory.context_bytes, 0.7e9, 1e6);
  // Other runtimes keep their own context figures.
  o.runtime = Runtime::onnxruntime;
  EXPECT_DOUBLE_EQ(run(test::resnet_like(8), gpu("a100-sxm4-40gb"), o).memory.context_bytes,
                   run(test::big_gemm(8, 256, 256), gpu("a100-sxm4-40gb"), o).memory.context_bytes);
}

TEST(PredictMemory, PyTorchMaxPoolHoldsItsInt64Indices) {
  // max_pool2d_with_indices: inference drops the indices as the op returns (a transient at the peak here),
  // training keeps them for the backward. ONNX Runtime writes none.
  auto net = [](const std::string& pool) {
    test::NetBuilder b;
    int x = b.input("x", {8, 64, 56, 56});
    b.output(b.relu(b.pool(pool, x, 2, 2)));
    return b;
  };
  const double indices = 8.0 * 64 * 28 * 28 * 8;
  PredictOptions o;
  o.batch = 8;
  const auto act = [&](const std::string& pool) { return run(net(pool), gpu("a100-sxm4-40gb"), o).memory.activations_bytes; };
  EXPECT_DOUBLE_EQ(act("MaxPool") - act("AveragePool"), indices);
  o.mode = Mode::training;
  EXPECT_GE(act("MaxPool") - act("AveragePool"), indices);  // with the allocator slack, and MaxPool saves its output
  o.mode = Mode::inference;
  o.runtime = Runtime::onnxruntime;
  EXPECT_DOUBLE_EQ(act("MaxPool"), act("AveragePool"));
}

TEST(PredictSanity, OptimizerStateOrdersMemoryAndTime) {
  auto net = test::resnet_like(8);
  auto mk = [&](Optimizer opt) {
    PredictOptions o;
    o.batch = 8;
    o.mode = Mode::training;
    o.optimizer = opt;
    return run(net, gpu("a100-sxm4-40gb"), o);
  };
  auto none = mk(Optimizer::none), sgd = mk(Optimizer::sgd), mom = mk(Optimizer::momentum), adam = mk(Optimizer::adam);
  EXPECT_GT(adam.peak_memory_bytes, mom.peak_memory_bytes);
  EXPECT_GT(mom.peak_memory_bytes, sgd.peak_memory_bytes);
  // Plain SGD keeps no state beyond the gradients the backward pass produces anyway.
  EXPECT_GE(sgd.peak_memory_bytes, none.peak_memory_bytes);
  EXPECT_NEAR(adam.memory.optimizer_state_bytes, 3 * sgd.memory.optimizer_state_bytes, 1);
  EXPECT_EQ(none.optimizer_ms, 0);
  EXPECT_GT(adam.optimizer_ms, sgd.optimizer_ms);
  EXPECT_GT(sgd.latency_ms, none.latency_ms);
}

TEST(PredictSanity, JetsonHasNoCopies) {
  auto net = test::resnet_like(1);
  auto p = run(net, gpu("jetson-nano"));
  EXPECT_EQ(p.h2d_ms, 0);
  EXPECT_EQ(p.d2h_ms, 0);
  auto q = run(net, gpu("gtx-1080ti"));
  EXPECT_GT(q.h2d_ms, 0);
  EXPECT_GT(q.d2h_ms, 0);
}

TEST(PredictSanity, SmallNetAtBatchOneOnPytorchIsHostBound) {
  auto net = test::nb201_like(1);
  auto p = run(net, gpu("gtx-1080ti"));
  EXPECT_GT(p.host_overhead_ms, p.kernels_ms);
  // The measured range of NAS-Bench-201 cells on a GTX 1080 Ti at batch 1 (HELP): 3-17 ms.
  EXPECT_GT(p.latency_ms, 3.0);
  EXPECT_LT(p.latency_ms, 17.0);
  // TensorRT removes the per-op dispatch: far faster.
  PredictOptions trt;
  trt.runtime = Runtime::tensorrt;
  auto t = run(net, gpu("gtx-1080ti"), trt);
  EXPECT_LT(t.latency_ms * 3, p.latency_ms);
  // At a large batch the GPU work dominates.
  auto big = test::nb201_like(256);
  PredictOptions o;
  o.batch = 256;
  auto q = run(big, gpu("gtx-1080ti"), o);
  EXPECT_GT(q.kernels_ms, q.host_overhead_ms);
}

TEST(PredictRuntime, CudaGraphsReplayTheIterationWithoutPerKernelHostCost) {
  // A captured graph has no dispatch or launch per op: a host-bound eager net at batch 1 runs at its kernels'
  // pace, and every runtime and mode pays one graph launch (and the sync) instead of per-kernel host time.
  auto net = test::nb201_like(1);
  PredictOptions eager, graphs;
  graphs.cuda_graphs = true;
  const GpuSpec g = gpu("gtx-1080ti");
  const auto p = run(net, g, eager), q = run(net, g, graphs);
  EXPECT_GT(p.host_overhead_ms, p.kernels_ms);
  EXPECT_DOUBLE_EQ(q.kernels_ms, p.kernels_ms);
  EXPECT_LT(q.host_overhead_ms, 0.1);
  EXPECT_LT(q.latency_ms * 3, p.latency_ms);
  for (Runtime rt : {Runtime::pytorch, Runtime::tensorrt, Runtime::onnxruntime, Runtime::cudnn})
    for (Mode m : {Mode::inference, Mode::training}) {
      if (rt == Runtime::tensorrt && m == Mode::training) continue;
      PredictOptions a, b;
      a.runtime = b.runtime = rt;
      a.mode = b.mode = m;
      b.cuda_graphs = true;
      const auto x = run(net, gpu("jetson-agx-orin-64gb"), a), y = run(net, gpu("jetson-agx-orin-64gb"), b);
      EXPECT_LE(y.latency_ms, x.latency_ms) << to_string(rt) << " " << to_string(m);
      EXPECT_DOUBLE_EQ(y.kernels_ms, x.kernels_ms) << to_string(rt) << " " << to_string(m);
    }
}

TEST(PredictCopies, PageableCopiesAreStagedByTheHostAtItsSpeed) {
  // A pageable copy (x.to('cuda') of an ordinary tensor) is a CPU memcpy into a pinned staging buffer and then
  // the DMA: slower than the pinned copy by bytes / k_pageable_stage_gbps (13 GB/s), twice that on a host twice as
  // slow; the kernels do not move, and a board that shares DRAM with its CPU copies nothing either way.
  auto net = test::resnet_like(8);
  const GpuSpec t4 = gpu("t4");
  PredictOptions pinned, pageable, slow;
  pageable.pageable_copies = slow.pageable_copies = true;
  slow.host_factor = 2;
  const auto a = run(net, t4, pinned), b = run(net, t4, pageable), c = run(net, t4, slow);
  const double in_bytes = 8.0 * 3 * 224 * 224 * 4;
  ASSERT_GT(a.h2d_ms, 0);
  EXPECT_NEAR(b.h2d_ms - a.h2d_ms, in_bytes / 13e9 * 1e3, 1e-6);
  EXPECT_NEAR(c.h2d_ms - a.h2d_ms, 2 * (b.h2d_ms - a.h2d_ms), 1e-6);
  EXPECT_GT(b.d2h_ms, a.d2h_ms);
  EXPECT_NEAR(b.latency_ms - a.latency_ms, (b.h2d_ms - a.h2d_ms) + (b.d2h_ms - a.d2h_ms), 1e-6);
  EXPECT_DOUBLE_EQ(b.kernels_ms, a.kernels_ms);
  const GpuSpec orin = gpu("jetson-agx-orin-64gb");
  EXPECT_DOUBLE_EQ(run(net, orin, pageable).latency_ms, run(net, orin, pinned).latency_ms);
  EXPECT_EQ(run(net, orin, pageable).h2d_ms, 0);
}

TEST(PredictRuntime, ALaunchQueueOfOneCostsEachKernelItsLargerPartHostOrGpu) {
  // A net whose early layers are GPU-bound and whose late ones are host-bound: with no limit the host runs ahead
  // of the early kernels and the late ops' dispatch hides behind them; with a queue of one it issues each kernel
  // only once the previous has finished, so every kernel costs the larger of its host work and the kernel before
  // it, and none of the early lead carries over.
  auto net = test::resnet_like(4);
  const GpuSpec g = gpu("gtx-1080ti");
  PredictOptions base;
  base.include_copies = false;
  const auto p0 = run(net, g, base);
  double host = 0, gpu_sum = 0, larger = 0, previous = 0;
  for (const KernelEstimate& k : p0.kernels) {
    host += k.host_s;
    gpu_sum += k.corrected_time_s;
    larger += std::max(k.host_s, previous);  // each kernel is issued after its host work and the previous kernel
    if (k.corrected_time_s > 0) previous = k.corrected_time_s;
  }
  larger += previous;
  ASSERT_GT(gpu_sum, 0.5 * host) << "the net should mix GPU-bound and host-bound stretches";
  double last = p0.latency_ms;
  for (int q : {65536, 4, 2, 1}) {
    PredictOptions o = base;
    o.launch_queue = q;
    const auto pq = run(net, g, o);
    EXPECT_GE(pq.latency_ms, last - 1e-9) << "queue " << q << ": a shorter queue is never faster";
    EXPECT_DOUBLE_EQ(pq.kernels_ms, p0.kernels_ms) << "queue " << q << ": the kernels do not change";
    last = pq.latency_ms;
    if (q == 65536) {
      EXPECT_DOUBLE_EQ(pq.latency_ms, p0.latency_ms) << "a queue deeper than the net is no limit";
    }
    if (q == 1) {
      EXPECT_GT(pq.latency_ms, 1.05 * p0.latency_ms);
      EXPECT_NEAR(pq.latency_ms * 1e-3, larger, 0.02 * larger) << "sum over kernels of max(host, previous kernel)";
      EXPECT_LT(pq.latency_ms * 1e-3, host + gpu_sum) << "the host still prepares an op while a kernel runs";
    }
  }
  // A host-bound net (batch 1) is priced alike: the GPU never holds the host back.
  auto small = test::nb201_like(1);
  PredictOptions one = base;
  one.launch_queue = 1;
  EXPECT_NEAR(run(small, g, one).latency_ms, run(small, g, base).latency_ms, 0.03 * run(small, g, base).latency_ms);
}

TEST(PredictRuntime, TensorRtFusesAndPytorchDoesNot) {
  auto net = test::resnet_like(1);
  PredictOptions pt, trt, ort;
  trt.runtime = Runtime::tensorrt;
  ort.runtime = Runtime::onnxruntime;
  auto a = run(net, gpu("t4"), pt), b = run(net, gpu("t4"), trt), c = run(net, gpu("t4"), ort);
  EXPECT_LT(b.kernels.size() * 2, a.kernels.size());
  EXPECT_EQ(b.kernels.size(), c.kernels.size());
  bool fused = false;
  for (const auto& k : b.kernels) fused |= k.op == "Conv+BatchNormalization+Relu";
  EXPECT_TRUE(fused);
  for (const auto& k : a.kernels) EXPECT_EQ(k.op.find('+'), std::string::npos) << k.op;
  // No kernel for views anywhere.
  for (const auto& k : a.kernels) EXPECT_NE(k.op, "Flatten");
}

TEST(PredictRuntime, Tf32ForPytorchFp32ConvsOnAmpere) {
  auto net = test::resnet_like(64);
  PredictOptions o;
  o.batch = 64;
  auto p = run(net, gpu("a100-sxm4-40gb"), o);
  bool noted = false;
  for (const auto& n : p.notes) noted |= n.find("TF32") != std::string::npos;
  EXPECT_TRUE(noted);
  auto v = run(net, gpu("v100-sxm2-16gb"), o);
  for (const auto& n : v.notes) EXPECT_EQ(n.find("TF32"), std::string::npos);
}

TEST(PredictRuntime, HalfTensorCoreConvsPayCudnnReordersOfNchwTensors) {
  // cuDNN's FP16/BF16 tensor-core convolutions work on NHWC: from PyTorch's NCHW tensors each call reorders
  // the input and the filter and, after, the result (three kernels; perfpred's H200 harness, cuDNN 9.14).
  // --channels-last leaves them out; TF32/FP32 kernels read NCHW and pay nothing either way.
  test::NetBuilder b;
  b.output(b.conv(b.input("x", {128, 256, 28, 28}), 256, 3));
  const double in = 128.0 * 256 * 28 * 28, w = 256.0 * 256 * 9;
  const GpuSpec a100 = gpu("a100-sxm4-40gb");
  for (Precision prec : {Precision::fp16, Precision::bf16}) {
    PredictOptions nchw;
    nchw.batch = 128;
    nchw.precision = prec;
    nchw.include_copies = false;
    PredictOptions nhwc = nchw;
    nhwc.channels_last = true;
    const auto p = run(b, a100, nchw), q = run(b, a100, nhwc);
    ASSERT_EQ(p.layers.size(), 1u);
    EXPECT_EQ(p.layers[0].kernels, 4);
    EXPECT_EQ(q.layers[0].kernels, 1);
    // Input, output and filter each read and written once more, at DRAM speed (stream efficiency 0.8).
    const double reorder_ms = 2.0 * (2 * in + w) * 2 / (a100.mem_bandwidth_gbps * 1e9 * 0.8) * 1e3;
    EXPECT_NEAR(p.kernels_ms - q.kernels_ms, reorder_ms + 3 * 0.8e-3, 1e-6) << to_string(prec);
    bool noted = false;
    for (const auto& n : p.notes) noted |= n.find("reorders NCHW") != std::string::npos;
    EXPECT_TRUE(noted);
    for (const auto& n : q.notes) EXPECT_EQ(n.find("reorders NCHW"), std::string::npos);
  }
  PredictOptions tf32;
  tf32.batch = 128;
  PredictOptions tf32_nhwc = tf32;
  tf32_nhwc.channels_last = true;
  EXPECT_DOUBLE_EQ(run(b, a100, tf32).latency_ms, run(b, a100, tf32_nhwc).latency_ms);
  EXPECT_EQ(run(b, a100, tf32).layers[0].kernels, 1);
  // TensorRT and a bare cuDNN call choose their own layouts: the option is an input error there.
  for (Runtime rt : {Runtime::tensorrt, Runtime::cudnn}) {
    PredictOptions o;
    o.precision = Precision::fp16;
    o.runtime = rt;
    o.channels_last = true;
    EXPECT_THROW(run(b, a100, o), InputError);
    o.channels_last = false;
    EXPECT_EQ(run(b, a100, o).layers[0].kernels, 1) << to_string(rt);
  }
}

TEST(PredictTraining, NchwBatchNormGradientIsBoundByOneBlockPerChannel) {
  // ResNet's first BatchNorm at batch 128 (64 channels of 128 x 112 x 112): cuDNN's NCHW backward walks each
  // channel in one block, which on an H200 takes far longer than its DRAM traffic; on a GTX 1080 Ti the DRAM
  // traffic is the longer. channels_last (NHWC kernels) and inference leave the step as it was.
  test::NetBuilder b;
  b.output(b.relu(b.bn(b.conv(b.input("x", {128, 3, 224, 224}), 64, 7, 2))));
  PredictOptions train;
  train.batch = 128;
  train.mode = Mode::training;
  train.include_copies = false;
  PredictOptions nhwc = train;
  nhwc.channels_last = true;
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  const auto p = run(b, h200, train), q = run(b, h200, nhwc);
  auto bn_bwd_ms = [](const Prediction& r) {
    double ms = 0;
    for (const auto& k : r.kernels)
      if (k.op.rfind("BatchNormalization", 0) == 0 && k.phase == "backward") ms += k.time_s * 1e3;
    return ms;
  };
  const double per_channel = 128.0 * 112 * 112;
  EXPECT_NEAR(bn_bwd_ms(p), (per_channel * 2 / 1.77e9 + 0.8e-6) * 1e3, 1e-6);  // and the gap after the kernel
  EXPECT_LT(bn_bwd_ms(q), 0.5 * bn_bwd_ms(p));
  EXPECT_NEAR(p.kernels_ms - q.kernels_ms, bn_bwd_ms(p) - bn_bwd_ms(q), 1e-6);
  PredictOptions infer = train;
  infer.mode = Mode::inference;
  PredictOptions infer_nhwc = infer;
  infer_nhwc.channels_last = true;
  EXPECT_DOUBLE_EQ(run(b, h200, infer).kernels_ms, run(b, h200, infer_nhwc).kernels_ms);
  const GpuSpec pascal = gpu("gtx-1080ti");
  EXPECT_DOUBLE_EQ(bn_bwd_ms(run(b, pascal, train)), bn_bwd_ms(run(b, pascal, nhwc)));
}

TEST(PredictInference, NchwBatchNormOfSmallPlanesIsBoundByOneBlockPerPlane) {
  // A BatchNorm over 512 channels of 7x7 at batch 128 (ResNet's last stage): PyTorch's FP32 eval-mode BatchNorm is
  // cuDNN's inference kernel, one latency-bound block per (image, channel) plane, 16 waves of 4,224 on an H200,
  // far above its 26 MB of DRAM traffic. A model.half() model (ATen's own kernel), channels_last tensors and the
  // training forward (batch statistics, DRAM-bound as before) do not pay it.
  test::NetBuilder b;
  b.output(b.bn(b.input("x", {128, 512, 7, 7})));
  PredictOptions infer;
  infer.batch = 128;
  infer.include_copies = false;
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  auto bn_ms = [](const Prediction& r) {
    double ms = 0;
    for (const auto& k : r.kernels)
      if (k.op.rfind("BatchNormalization", 0) == 0 && k.phase == "forward") ms += k.time_s * 1e3;
    return ms;
  };
  const double fp32 = bn_ms(run(b, h200, infer));
  EXPECT_NEAR(fp32, (-1.1e-6 + 16 * (2.75e-6 + 0.38e-6) + 0.8e-6) * 1e3, 1e-6);
  PredictOptions nhwc = infer;
  nhwc.channels_last = true;
  EXPECT_LT(bn_ms(run(b, h200, nhwc)), 0.3 * fp32);
  PredictOptions half = infer;
  half.precision = Precision::fp16;
  EXPECT_LT(bn_ms(run(b, h200, half)), 0.3 * fp32);
  PredictOptions train = infer;
  train.mode = Mode::training;
  train.optimizer = Optimizer::none;
  EXPECT_LT(bn_ms(run(b, h200, train)), 0.3 * fp32);
}

TEST(PredictRuntime, TensorRtTrainingIsAnInputError) {
  auto net = test::resnet_like(1);
  PredictOptions o;
  o.runtime = Runtime::tensorrt;
  o.mode = Mode::training;
  EXPECT_THROW(run(net, gpu("t4"), o), InputError);
  PredictOptions bad;
  bad.batch = 0;
  EXPECT_THROW(run(net, gpu("t4"), bad), InputError);
}

TEST(PredictOutput, BreakdownAddsUpAndIsDeterministic) {
  auto net = test::resnet_like(16);
  PredictOptions o;
  o.batch = 16;
  o.mode = Mode::training;
  auto a = run(net, gpu("rtx-2080ti"), o), b = run(net, gpu("rtx-2080ti"), o);
  EXPECT_EQ(a.latency_ms, b.latency_ms);
  EXPECT_EQ(a.energy_mj, b.energy_mj);
  EXPECT_EQ(a.peak_memory_bytes, b.peak_memory_bytes);
  EXPECT_NEAR(a.kernels_ms + a.host_overhead_ms + a.h2d_ms + a.d2h_ms, a.latency_ms, 1e-9);
  double layer_ms = 0;
  for (const auto& l : a.layers) layer_ms += l.time_ms;
  EXPECT_NEAR(layer_ms, a.kernels_ms, 1e-9);
  EXPECT_NEAR(a.throughput_samples_per_s, 16 * 1e3 / a.latency_ms, 1e-9);
  const GpuSpec g = gpu("rtx-2080ti");
  EXPECT_GT(a.avg_power_w, g.idle_power_w);
  EXPECT_LE(a.avg_power_w, g.tdp_w);
  EXPECT_NEAR(a.energy_mj, a.avg_power_w * a.latency_ms, 1e-6 * a.energy_mj);
  EXPECT_EQ(a.model_bundle, "analytical");
  // The fast path gives the same totals without per-kernel records.
  PredictOptions lean = o;
  lean.detail = false;
  auto c = run(net, g, lean);
  EXPECT_TRUE(c.kernels.empty());
  EXPECT_TRUE(c.layers.empty());
  EXPECT_EQ(c.latency_ms, a.latency_ms);
  EXPECT_EQ(c.peak_memory_bytes, a.peak_memory_bytes);
}

TEST(PredictOutput, HostBoundRunsDrawLessPowerThanBusyOnes) {
  auto small = test::nb201_like(1), big = test::nb201_like(256);
  PredictOptions o1, o256;
  o256.batch = 256;
  auto a = run(small, gpu("gtx-1080ti"), o1), b = run(big, gpu("gtx-1080ti"), o256);
  EXPECT_LT(a.avg_power_w, b.avg_power_w);
}

TEST(PredictOutput, LaunchBoundKernelsDrawWhatTheGpuDrawsBetweenKernels) {
  // A chain of tiny kernels replayed as a CUDA graph keeps the GPU at its launch floors back to back: a few SMs
  // work for a fraction of each floor, so the board draws about what it draws waiting on the host (the H200's
  // batch-1 graph replays: 161 W measured for ResNet-50, 1.04 ms). Dispatched eagerly, the same chain is
  // host-bound and the GPU waits between kernels: the two powers agree within a few percent, and both sit far
  // below a busy run's.
  test::NetBuilder b;
  int x = b.input("x", {1, 64, 8, 8});
  for (int i = 0; i < 40; ++i) x = b.relu(x);
  b.output(x);
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  PredictOptions eager;
  eager.include_copies = false;
  PredictOptions graphs = eager;
  graphs.cuda_graphs = true;
  const auto e = run(b, h200, eager), r = run(b, h200, graphs);
  ASSERT_LT(r.latency_ms, 0.5 * e.latency_ms);  // the replay is GPU-bound, the eager run host-bound
  EXPECT_NEAR(r.avg_power_w / e.avg_power_w, 1.0, 0.05);
  test::NetBuilder busy;
  busy.output(busy.conv(busy.input("x", {128, 256, 56, 56}), 256, 3));
  PredictOptions o128 = eager;
  o128.batch = 128;
  EXPECT_LT(r.avg_power_w, 0.5 * run(busy, h200, o128).avg_power_w);
}

TEST(PredictOutput, ComputeChipDrawsWhatItsFp32WorkNeedsNotItsTdp) {
  // P100 PCIe: 250 W board, but FP32 work on GP100 draws what GP102 does per TFLOP (22.8 W x 9.3 TFLOPS =
  // 212 W flat out). Power and energy are those of the same card rated at 212 W; latency does not change.
  auto net = test::resnet_like(64);
  PredictOptions o;
  o.batch = 64;
  o.mode = Mode::training;
  const GpuSpec p100 = gpu("p100-pcie-16gb");
  GpuSpec rated = p100;
  rated.tdp_w = full_load_power_w(p100);
  ASSERT_NEAR(rated.tdp_w, 250.0 / 10.97 * 9.3, 1e-9);
  const auto a = run(net, p100, o), b = run(net, rated, o);
  EXPECT_EQ(a.latency_ms, b.latency_ms);
  EXPECT_NEAR(a.avg_power_w, b.avg_power_w, 1e-9 * b.avg_power_w);
  EXPECT_NEAR(a.energy_mj, b.energy_mj, 1e-9 * b.energy_mj);
  EXPECT_LT(a.avg_power_w, rated.tdp_w);
  // A card without a process sibling (GA100) keeps its TDP as the budget.
  const GpuSpec a100 = gpu("a100-pcie-40gb");
  EXPECT_EQ(full_load_power_w(a100), a100.tdp_w);
}

TEST(PredictOutput, PowerLimitedCardsRunBusyWorkAtTheirLimit) {
  // A T4's FP32 work would want 151 W at boost (Turing's 18.6 W per TFLOP x 8.1 TFLOPS); its 70 W limiter
  // holds it there, which is why its sustained clock is lowered. Busy training sits at the limit (not at
  // the 3/4 of the idle-to-TDP range the utilisation alone gives), and never above it.
  auto net = test::resnet_like(64);
  PredictOptions o;
  o.batch = 64;
  o.mode = Mode::training;
  const GpuSpec t4 = gpu("t4");
  ASSERT_GT(fp32_power_demand_w(t4), 2 * t4.tdp_w);
  const auto a = run(net, t4, o);
  ASSERT_GT(a.kernels_ms, 0.9 * a.latency_ms);  // GPU-bound
  EXPECT_GT(a.avg_power_w, 0.9 * t4.tdp_w);
  EXPECT_LE(a.avg_power_w, t4.tdp_w * (1 + 1e-9));
}

TEST(PredictOutput, APowerLimitCapsPowerAndSlowsMath) {
  // nvidia-smi -pl 150 on a V100 PCIe (v100-pcie-32gb@150w): busy training draws at most 150 W, where at its
  // 250 W TDP it draws more, and its math runs at the clock 150 W sustains, so the step is longer; energy per
  // step is lower (less power for less than proportionally more time). Without the limit (old behaviour) the
  // 150 W card was the 250 W one.
  auto net = test::resnet_like(64);
  PredictOptions o;
  o.batch = 64;
  o.mode = Mode::training;
  const GpuSpec v100 = gpu("v100-pcie-32gb");
  GpuSpec capped = v100;
  capped.power_limit_w = 150;
  const auto a = run(net, v100, o), b = run(net, capped, o);
  ASSERT_GT(a.kernels_ms, 0.9 * a.latency_ms);  // GPU-bound
  EXPECT_GT(a.avg_power_w, 160);
  EXPECT_LE(b.avg_power_w, 150 * (1 + 1e-9));
  EXPECT_GT(b.avg_power_w, 0.9 * 150);
  EXPECT_GT(b.latency_ms, 1.05 * a.latency_ms);
  // Never slower than the clock the limit leaves this workload's own draw.
  EXPECT_LT(b.latency_ms, a.latency_ms / clock_under_limit(150, a.avg_power_w) * (1 + 1e-9));
  EXPECT_LT(b.energy_mj, a.energy_mj);
}

TEST(PredictOutput, APowerLimitSlowsAWorkloadByWhatItDrawsNotByWhatFp32FlatOutWould) {
  // P100 PCIe: FP32 work flat out would draw 212 W, so a 200 W limit would slow it; a host-bound batch-1
  // network draws far less than 200 W and keeps its clock (the old law slowed it anyway).
  auto small = test::nb201_like(1);
  PredictOptions o;
  const GpuSpec p100 = gpu("p100-pcie-16gb");
  GpuSpec capped = p100;
  capped.power_limit_w = 200;
  ASSERT_LT(sustained_clock_scale(capped), 1.0);  // FP32 flat out: slowed
  const auto a = run(small, p100, o), b = run(small, capped, o);
  ASSERT_LT(a.avg_power_w, 200);
  EXPECT_EQ(b.latency_ms, a.latency_ms);
  EXPECT_EQ(b.kernels_ms, a.kernels_ms);
  // Busy training at a limit near its own draw's floor slows far more than the cube root of the power:
  // ResNet-50 on a V100 PCIe at 100 W took 1.9x as long as at 250 W (Zeus).
  auto net = test::resnet_like(64);
  PredictOptions t;
  t.batch = 64;
  t.mode = Mode::training;
  GpuSpec v100 = gpu("v100-pcie-32gb"), at_100 = v100;
  at_100.power_limit_w = 100;
  const auto full = run(net, v100, t), low = run(net, at_100, t);
  EXPECT_GT(low.latency_ms, 1.25 * full.latency_ms) << low.latency_ms / full.latency_ms;
  EXPECT_LE(low.avg_power_w, 100 * (1 + 1e-9));
}

class DoublingCorrector : public KernelCorrector {
 public:
  double factor(const KernelEstimate& k, const GpuSpec&, const PredictOptions&) const override {
    EXPECT_FALSE(k.name.empty());
    return 2.0;
  }
  double host_overhead_s(double analytical_s, const GpuSpec&, const PredictOptions&) const override {
    return analytical_s * 0.5;
  }
  std::string label() const override { return "test-bundle"; }
  bool gpu_seen(const GpuSpec& g) const override { return g.id == "t4"; }
};

TEST(PredictCorrector, FactorsAndHostCorrectionApply) {
  auto net = test::resnet_like(8);
  PredictOptions o;
  o.batch = 8;
  DoublingCorrector corr;
  auto a = predict(net.g, net.c, gpu("t4"), o);
  auto b = predict(net.g, net.c, gpu("t4"), o, &corr);
  EXPECT_NEAR(b.kernels_ms, 2 * a.kernels_ms, 1e-9 * a.kernels_ms);
  EXPECT_EQ(b.model_bundle, "test-bundle");
  EXPECT_TRUE(b.gpu_seen_in_training);
  for (const auto& k : b.kernels) EXPECT_NEAR(k.corrected_time_s, 2 * k.time_s, 1e-15);
  // Without per-kernel output the corrector still applies.
  o.detail = false;
  auto c = predict(net.g, net.c, gpu("t4"), o, &corr);
  EXPECT_NEAR(c.kernels_ms, b.kernels_ms, 1e-9 * b.kernels_ms);
}

TEST(PredictKernel, WaveQuantisationSteps) {
  // An 80-SM GPU with the 128x128 tile: a GEMM whose tiles spill into a second wave costs more per
  // FLOP than one that fills exactly one wave.
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  PredictOptions o;
  auto time_of = [&](int64_t m) {
    KernelEstimate k;
    k.family = OpFamily::gemm;
    k.gemm = GemmShape{1, m, 1024, 4096};
    k.flops = 2.0 * m * 1024 * 4096;
    k.bytes = 4.0 * (m * 4096 + 4096 * 1024 + m * 1024);
    estimate_kernel(k, v100, o);
    return k;
  };
  auto one = time_of(1280), more = time_of(1280 + 128);
  EXPECT_GT(more.waves, one.waves);
  EXPECT_LT(more.wave_efficiency, 1.0);
  EXPECT_GT(more.time_s / more.flops, one.time_s / one.flops);
  EXPECT_EQ(one.bound, Bound::compute);
  // A tiny kernel is launch bound.
  KernelEstimate tiny;
  tiny.family = OpFamily::elementwise;
  tiny.flops = 100;
  tiny.bytes = 800;
  estimate_kernel(tiny, v100, o);
  EXPECT_EQ(tiny.bound, Bound::launch);
  EXPECT_GE(tiny.time_s, 2e-6);
}

TEST(PredictKernel, PlanKernelsCarriesFeatures) {
  auto net = test::resnet_like(4);
  PredictOptions o;
  o.batch = 4;
  o.mode = Mode::training;
  auto ks = plan_kernels(net.g, net.c, gpu("a100-sxm4-40gb"), o);
  int data = 0, weight = 0, opt = 0;
  for (const auto& k : ks) {
    data += k.phase == "backward_data";
    weight += k.phase == "backward_weight";
    opt += k.phase == "optimizer";
    EXPECT_GT(k.time_s, 0);
    EXPECT_EQ(k.corrected_time_s, k.time_s);
    if (k.family == OpFamily::conv && k.phase == "forward") {
      EXPECT_FALSE(k.attrs.empty());
    }
  }
  EXPECT_GT(weight, data);  // the first conv's input needs no gradient
  EXPECT_GT(data, 0);
  EXPECT_GT(opt, 0);
}

}  // namespace
}  // namespace perfpred
