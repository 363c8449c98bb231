// The kernel plan of a training step: what PyTorch eager runs besides forward and backward GEMMs.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>  // catalog.hpp holds std::vector<json> and forward-declares json

#include "net_builder.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/predict/predictor.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {
namespace {

const GpuCatalog& catalog() {
  static GpuCatalog cat(std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus");
  return cat;
}
GpuSpec gpu(const std::string& id) { return catalog().resolve(id); }

PredictOptions training(int64_t batch) {
  PredictOptions o;
  o.batch = batch;
  o.mode = Mode::training;
  o.optimizer = Optimizer::none;
  return o;
}

TEST(TrainingPlan, BatchNormComputesStatisticsAndItsBackwardReadsTwice) {
  test::NetBuilder b;
  int x = b.input("x", {16, 64, 28, 28});
  int y = b.relu(b.bn(b.conv(x, 64, 3)));
  b.output(y);
  PredictOptions inf;
  inf.batch = 16;
  double bn_inf = 0, bn_fwd = 0, bn_bwd = 0;
  for (const auto& k : plan_kernels(b.g, b.c, gpu("gtx-1080ti"), inf))
    if (k.op == "BatchNormalization") bn_inf = k.bytes;
  for (const auto& k : plan_kernels(b.g, b.c, gpu("gtx-1080ti"), training(16))) {
    if (k.op == "BatchNormalization") bn_fwd = k.bytes;
    if (k.op == "BatchNormalization.bwd") bn_bwd = k.bytes;
  }
  ASSERT_GT(bn_inf, 0);
  EXPECT_DOUBLE_EQ(bn_fwd, 1.5 * bn_inf);  // read x for the statistics, read x, write y
  EXPECT_DOUBLE_EQ(bn_bwd, 2.5 * bn_inf);  // read dy and x twice, write dx
}

/// A PyTorch 1.x training step (--param-updates loop): zero_grad() zeroes each .grad, the optimizer loops over tensors.
PredictOptions torch1_training(int64_t batch) {
  PredictOptions o = training(batch);
  o.foreach_updates = false;
  return o;
}

/// Trainable parameter tensors of a graph and their elements (BatchNorm's running statistics are buffers).
std::pair<int, double> parameters_of(const test::NetBuilder& net) {
  int params = 0;
  double elems = 0;
  for (const auto& n : net.g.nodes)
    for (size_t s = 1; s < n.inputs.size() && (n.op != "BatchNormalization" || s < 3); ++s)
      if (net.g.tensors[n.inputs[s]].is_initializer) {
        ++params;
        elems += static_cast<double>(*net.g.tensors[n.inputs[s]].numel());
      }
  return {params, elems};
}

/// Launches of a prediction's layer row (loss, gradients, optimizer: the step's rows without a graph node).
int layer_kernels(const Prediction& p, const std::string& name) {
  for (const auto& l : p.layers)
    if (l.name == name) return l.kernels;
  return 0;
}

double host_total(const std::vector<KernelEstimate>& ks) {
  double h = 0;
  for (const auto& k : ks) h += k.host_s;
  return h;
}

TEST(TrainingPlan, ParameterGradientsAreAccumulatedAndZeroed) {
  // PyTorch 1.x (--param-updates loop), as the ryujaehun training rows ran (PyTorch 1.4).
  auto net = test::resnet_like(8);
  const auto [params, param_elems] = parameters_of(net);
  int launches = 0;
  double bytes = 0;
  for (const auto& k : plan_kernels(net.g, net.c, gpu("rtx-2080ti"), torch1_training(8)))
    if (k.phase == "gradients") {
      EXPECT_EQ(k.name, "gradients");
      bytes += k.bytes;
      ++launches;
    }
  // One record per parameter tensor (AccumulateGrad's add, then zero_grad's memset): 4 passes of fp32.
  EXPECT_EQ(launches, params);
  EXPECT_DOUBLE_EQ(bytes, 4 * 4.0 * param_elems);
  PredictOptions o = torch1_training(8);
  o.detail = true;
  const Prediction p = predict(net.g, net.c, gpu("rtx-2080ti"), o);
  EXPECT_EQ(layer_kernels(p, "gradients"), 2 * params);
}

TEST(TrainingPlan, PyTorch2HandsEachGradientOverWithoutAKernel) {
  // PyTorch >= 2.0 (the default): zero_grad() sets .grad to None, so AccumulateGrad moves the new gradient in
  // without a kernel and nothing is zeroed. What is left per parameter is host time (the engine node and the
  // `p.grad = None`), 5 us against 1.x's 60 us engine node with its add kernel and 10 us zero_grad call.
  auto net = test::resnet_like(8);
  const int params = parameters_of(net).first;
  ASSERT_GT(params, 10);
  const auto foreach = plan_kernels(net.g, net.c, gpu("rtx-2080ti"), training(8));
  const auto loop = plan_kernels(net.g, net.c, gpu("rtx-2080ti"), torch1_training(8));
  int gradient_records = 0;
  for (const auto& k : foreach) gradient_records += k.phase == "gradients";
  EXPECT_EQ(gradient_records, 0);
  EXPECT_EQ(foreach.size() + params, loop.size());
  EXPECT_NEAR(host_total(loop) - host_total(foreach), params * (60e-6 + 10e-6 - 5e-6), 1e-9);
  // And the host-bound step is faster for it.
  PredictOptions one = training(1), one1 = torch1_training(1);
  auto small = test::resnet_like(1, 16, 2, 32);
  EXPECT_LT(predict(small.g, small.c, gpu("a100-sxm4-40gb"), one).latency_ms,
            0.8 * predict(small.g, small.c, gpu("a100-sxm4-40gb"), one1).latency_ms);
}

TEST(TrainingPlan, AutocastCastsEachMatrixWeightAndItsGradientEveryStep) {
  // FP16 training under torch.autocast (AMP, the default): every conv/GEMM weight and bias is cast to half once
  // per step (a kernel and an ATen call) and autograd's ToCopyBackward casts its gradient back (an engine node and
  // a kernel); BatchNorm's affine parameters are read as they are. A model.half() model (--mixed-precision half)
  // has no casts, no GradScaler, and half gradients and optimizer state.
  auto net = test::resnet_like(8);
  int matrix_weights = 0;
  double matrix_elems = 0;
  for (const auto& n : net.g.nodes)  // weights and biases: cached_cast casts every floating argument
    for (size_t s = 1; (n.op == "Conv" || n.op == "Gemm") && s < n.inputs.size(); ++s) {
      ++matrix_weights;
      matrix_elems += static_cast<double>(*net.g.tensors[n.inputs[s]].numel());
    }
  ASSERT_GT(matrix_weights, 5);
  PredictOptions amp = training(8), half = training(8);
  amp.precision = half.precision = Precision::fp16;
  amp.optimizer = half.optimizer = Optimizer::momentum;
  half.autocast = false;
  const Prediction pa = predict(net.g, net.c, gpu("a100-sxm4-40gb"), amp);
  const Prediction ph = predict(net.g, net.c, gpu("a100-sxm4-40gb"), half);
  EXPECT_EQ(layer_kernels(pa, "autocast"), 2 * matrix_weights);
  EXPECT_EQ(layer_kernels(ph, "autocast"), 0);
  double cast_bytes = 0, cast_host = 0, fwd = 0;
  for (const auto& k : pa.kernels)
    if (k.phase == "casts") {
      cast_bytes += k.bytes;
      cast_host += k.host_s;
      fwd += k.op == "WeightCast";
    }
  EXPECT_EQ(fwd, matrix_weights);
  EXPECT_DOUBLE_EQ(cast_bytes, 2 * (4.0 + 2.0) * matrix_elems);  // read fp32 and write fp16, and back
  EXPECT_NEAR(cast_host, matrix_weights * (6e-6 + 60e-6), 1e-9);
  EXPECT_GT(layer_kernels(pa, "optimizer"), layer_kernels(ph, "optimizer"));  // the GradScaler's kernels
  EXPECT_GT(pa.latency_ms, ph.latency_ms);
  double elems = 0;  // the memory model counts every float initializer (BatchNorm's running statistics too)
  for (const auto& t : net.g.tensors)
    if (t.is_initializer) elems += static_cast<double>(*t.numel());
  // fp32 weights + half copies + fp32 gradients and momentum (AMP) against all-half (model.half()).
  EXPECT_DOUBLE_EQ(pa.memory.weights_bytes - ph.memory.weights_bytes, (6.0 - 2.0) * elems);
  EXPECT_DOUBLE_EQ(pa.memory.optimizer_state_bytes - ph.memory.optimizer_state_bytes, (8.0 - 4.0) * elems);
}

TEST(TrainingPlan, AutocastKeepsLayerNormAndTheResidualStreamInFp32) {
  // Under torch.autocast a transformer's residual stream is fp32 from its fp32 position embedding on (half +
  // fp32 = fp32), layer_norm is on autocast's fp32 list, and each Linear casts its fp32 input to half (a kernel
  // inside the op; ToCopyBackward casts the gradient back). A model.half() model runs all of it in half.
  test::NetBuilder b;
  const int64_t tokens = 8 * 197 * 768;
  int x = b.input("x", {8, 197, 768});
  x = b.add(x, b.weight({1, 197, 768}));   // position embedding
  int ln = b.layer_norm(x);
  int h = b.matmul(ln, 3072);             // fp32 input: cast to half
  h = b.matmul(b.relu(h), 768);           // half input: no cast
  b.output(b.add(h, x));                  // half + fp32 residual
  b.finish();
  PredictOptions amp = training(8), half = training(8);
  amp.precision = half.precision = Precision::fp16;
  half.autocast = false;
  const auto ka = plan_kernels(b.g, b.c, gpu("h200-sxm-141gb"), amp);
  const auto kh = plan_kernels(b.g, b.c, gpu("h200-sxm-141gb"), half);
  const auto bytes = [](const std::vector<KernelEstimate>& ks, const std::string& op) {
    std::vector<double> out;
    for (const auto& k : ks)
      if (k.op == op) out.push_back(k.bytes);
    return out;
  };
  ASSERT_EQ(bytes(ka, "MatMul.cast").size(), 1u);
  EXPECT_DOUBLE_EQ(bytes(ka, "MatMul.cast")[0], (4.0 + 2.0) * tokens);  // read fp32, write half
  ASSERT_EQ(bytes(ka, "MatMul.cast.bwd").size(), 1u);                   // the LayerNorm output is tracked
  EXPECT_DOUBLE_EQ(bytes(ka, "MatMul.cast.bwd")[0], (4.0 + 2.0) * tokens);
  EXPECT_TRUE(bytes(kh, "MatMul.cast").empty());
  // The LayerNorm reads and writes fp32: twice its half traffic, forward and backward.
  EXPECT_DOUBLE_EQ(bytes(ka, "LayerNormalization")[0], 2 * bytes(kh, "LayerNormalization")[0]);
  EXPECT_DOUBLE_EQ(bytes(ka, "LayerNormalization.bwd")[0], 2 * bytes(kh, "LayerNormalization.bwd")[0]);
  // Position-embedding Add: all fp32; residual Add: half + fp32 -> fp32, 10 bytes an element where half has 6.
  const auto adds_a = bytes(ka, "Add"), adds_h = bytes(kh, "Add");
  ASSERT_EQ(adds_a.size(), 2u);
  EXPECT_DOUBLE_EQ(adds_a[0], 2 * adds_h[0]);
  EXPECT_DOUBLE_EQ(adds_a[1], adds_h[1] * 10.0 / 6.0);
  // The GEMMs read half copies and write half.
  EXPECT_EQ(bytes(ka, "MatMul"), bytes(kh, "MatMul"));
  EXPECT_EQ(bytes(ka, "Relu"), bytes(kh, "Relu"));
}

TEST(TrainingPlan, AutocastCastsOnlyTheBatchOfAConvNet) {
  // A CNN under autocast: the fp32 batch is cast for the first convolution (no gradient: the batch is not
  // tracked), and every activation after it is half (BatchNorm keeps its input's dtype, residual adds are half).
  auto net = test::resnet_like(8);
  PredictOptions amp = training(8);
  amp.precision = Precision::fp16;
  int fwd = 0, bwd = 0;
  double cast_bytes = 0;
  for (const auto& k : plan_kernels(net.g, net.c, gpu("a100-sxm4-40gb"), amp)) {
    if (k.op == "Conv.cast") ++fwd, cast_bytes += k.bytes;
    if (k.op == "Conv.cast.bwd") ++bwd;
  }
  EXPECT_EQ(fwd, 1);
  EXPECT_EQ(bwd, 0);
  EXPECT_DOUBLE_EQ(cast_bytes, (4.0 + 2.0) * 8 * 3 * 224 * 224);
}

TEST(TrainingPlan, TransposedWeightsAndEmbeddingTablesAreParameters) {
  // export_params=False writes nn.Linear's weight as Transpose(W) -> MatMul, and nn.Embedding's table is Gather's
  // data operand: both are trained, so each gets a gradient and an optimizer update.
  test::NetBuilder b;
  int ids = b.input("ids", {4, 64});
  b.g.tensors[ids].dtype = DType::i64;
  int x = b.embedding(ids, 1000, 256);
  b.output(b.transposed_linear(x, 512));
  b.finish();
  PredictOptions o = training(4);
  o.optimizer = Optimizer::momentum;
  double opt_bytes = 0;
  for (const auto& k : plan_kernels(b.g, b.c, gpu("a100-sxm4-40gb"), o))
    if (k.phase == "optimizer") opt_bytes += k.bytes;
  EXPECT_DOUBLE_EQ(opt_bytes, 8 * 4.0 * (1000 * 256 + 512 * 256));  // 8 fp32 passes per momentum update
}

TEST(TrainingPlan, ForeachOptimizerUpdatesAllTensorsInAFewKernelsPerPass) {
  // SGD with momentum, PyTorch 1.x: buf.mul_(m).add_(g), p.add_(buf): 3 kernels per tensor. PyTorch >= 2.0's
  // foreach implementation: _foreach_mul_, _foreach_add_, _foreach_add_, each packing up to 64 tensors of two
  // lists (and 320 blocks of 65,536 elements) into one multi_tensor_apply launch. Same 8 fp32 passes either way.
  auto net = test::resnet_like(8);
  const auto [params, elems] = parameters_of(net);
  PredictOptions fe = training(8), lp = torch1_training(8);
  fe.optimizer = lp.optimizer = Optimizer::momentum;
  fe.detail = lp.detail = true;
  const Prediction pf = predict(net.g, net.c, gpu("rtx-2080ti"), fe);
  const Prediction pl = predict(net.g, net.c, gpu("rtx-2080ti"), lp);
  EXPECT_EQ(layer_kernels(pl, "optimizer"), 3 * params);
  EXPECT_EQ(layer_kernels(pf, "optimizer"), 3 * ((params + 63) / 64));
  double bf = 0, bl = 0;
  for (const auto& k : pf.kernels) bf += k.phase == "optimizer" ? k.bytes : 0;
  for (const auto& k : pl.kernels) bl += k.phase == "optimizer" ? k.bytes : 0;
  EXPECT_DOUBLE_EQ(bf, 8 * 4.0 * elems);
  EXPECT_DOUBLE_EQ(bl, 8 * 4.0 * elems);
  // One 4096 x 8192 weight is 512 chunks of 65,536 elements: two launches per foreach op.
  test::NetBuilder big;
  big.output(big.gemm(big.input("x", {32, 8192}), 4096, false));
  const Prediction pb = predict(big.g, big.c, gpu("rtx-2080ti"), fe);
  EXPECT_EQ(layer_kernels(pb, "optimizer"), 3 * 2);
}

double per_flop(const std::vector<KernelEstimate>& ks, const std::string& op) {
  for (const auto& k : ks)
    if (k.op == op) return k.time_s / k.flops;
  ADD_FAILURE() << "no kernel " << op;
  return 0;
}

TEST(TrainingPlan, ConvGradientsAsCudnnRunsThem) {
  // 3x3 stride-1: Winograd for the data and the filter gradient too (WINOGRAD_NONFUSED), so a VGG layer's
  // gradients cost what its forward does per FLOP.
  test::NetBuilder w;
  int wx = w.input("x", {16, 128, 56, 56});
  w.output(w.conv(w.conv(wx, 128, 3), 128, 3));
  const auto vgg = plan_kernels(w.g, w.c, gpu("gtx-1080ti"), training(16));
  EXPECT_LT(per_flop(vgg, "Conv.bwd_weight") / per_flop(vgg, "Conv"), 1.3);  // without Winograd: 1.8x
  // 1x1: no Winograd; the gradients are slower than the forward (DeepBench: 1.15x data, 1.6x filter), on
  // sm_80+ tensor cores too.
  test::NetBuilder p;
  int px = p.input("x", {16, 256, 28, 28});
  p.output(p.conv(p.conv(px, 256, 1), 256, 1));
  const auto pascal = plan_kernels(p.g, p.c, gpu("gtx-1080ti"), training(16));
  EXPECT_GT(per_flop(pascal, "Conv.bwd_weight") / per_flop(pascal, "Conv"), 1.4);
  const double data_1x1 = per_flop(pascal, "Conv.bwd_data") / per_flop(pascal, "Conv");
  EXPECT_GT(data_1x1, 1.05);
  EXPECT_LT(data_1x1, 1.25);
  const auto ampere = plan_kernels(p.g, p.c, gpu("a100-sxm4-40gb"), training(16));
  EXPECT_NEAR(per_flop(ampere, "Conv.bwd_data") / per_flop(ampere, "Conv"), 1.15, 0.05);
  // Strided: the data gradient scatters into an input four times its output, zero-filling the skipped
  // pixels, about twice the stride-1 one per FLOP (DeepBench's ResNet downsampling layers: 2.1x the forward).
  test::NetBuilder q;
  int qx = q.input("x", {16, 256, 56, 56});
  q.output(q.conv(q.conv(qx, 256, 1), 512, 1, 2));
  const auto strided = plan_kernels(q.g, q.c, gpu("gtx-1080ti"), training(16));
  double stride_2 = 0;
  for (const auto& k : strided)
    if (k.op == "Conv.bwd_data" && k.name.find("Conv_1") != std::string::npos) stride_2 = k.time_s / k.flops;
  ASSERT_GT(stride_2, 0);
  EXPECT_GT(stride_2 / per_flop(pascal, "Conv.bwd_data"), 1.6);
}

TEST(TrainingPlan, ConvGradientsKeepTheForwardsGemmView) {
  // cuDNN tiles a conv's gradients along the output pixels, as its forward: ResNet-50's 7x7 stem (3 input
  // channels, 64 filters) has a 64 x 147 filter gradient, which as that GEMM (two tiles, a reduction over
  // 200k pixels) was timed at 4.4x DeepBench's V100 measurement (2.4 ms against 0.55 at batch 16). On the
  // forward's view it costs the filter-gradient slowdown over the forward per FLOP, as its kernel row does.
  test::NetBuilder b;
  int x = b.input("x", {16, 3, 224, 224});
  b.output(b.conv(b.conv(x, 64, 7, 2), 64, 1));
  const auto ks = plan_kernels(b.g, b.c, gpu("v100-sxm2-16gb"), training(16));
  double fwd = 0, dw = 0;
  for (const auto& k : ks) {
    if (k.name.find("Conv_0") == std::string::npos) continue;
    if (k.op == "Conv") fwd = k.time_s / k.flops;
    if (k.op == "Conv.bwd_weight") dw = k.time_s / k.flops;
  }
  ASSERT_GT(fwd, 0);
  ASSERT_GT(dw, 0);
  EXPECT_NEAR(dw / fwd, 1.6, 0.2);
}

TEST(EagerPlan, MaxPoolWritesInt64IndicesWhateverThePrecision) {
  // ATen's max_pool2d is max_pool2d_with_indices on the GPU: an int64 index per output, also in FP16
  // inference; TensorRT and AveragePool write none, and the backward reads the indices once.
  test::NetBuilder b;
  int x = b.input("x", {8, 64, 56, 56});
  int y = b.pool("MaxPool", x, 2, 2);
  int z = b.pool("AveragePool", y, 2, 2);
  b.output(z);
  const double in = 8.0 * 64 * 56 * 56, out = 8.0 * 64 * 28 * 28, out2 = 8.0 * 64 * 14 * 14;
  PredictOptions o;
  o.batch = 8;
  o.precision = Precision::fp16;
  std::map<std::string, double> bytes;
  for (const auto& k : plan_kernels(b.g, b.c, gpu("a100-sxm4-40gb"), o)) bytes[k.op] = k.bytes;
  EXPECT_DOUBLE_EQ(bytes.at("MaxPool"), (in + out) * 2 + out * 8);
  EXPECT_DOUBLE_EQ(bytes.at("AveragePool"), (out + out2) * 2);
  o.runtime = Runtime::tensorrt;
  for (const auto& k : plan_kernels(b.g, b.c, gpu("a100-sxm4-40gb"), o)) {
    if (k.op == "MaxPool") {
      EXPECT_DOUBLE_EQ(k.bytes, (in + out) * 2);
    }
  }
  PredictOptions t = training(8);
  std::map<std::string, double> step;
  for (const auto& k : plan_kernels(b.g, b.c, gpu("a100-sxm4-40gb"), t)) step[k.op] = k.bytes;
  EXPECT_DOUBLE_EQ(step.at("MaxPool"), (in + out) * 4 + out * 8);
  EXPECT_DOUBLE_EQ(step.at("MaxPool.bwd"), (in + out) * 4 * 2 + out * 8);
}

TEST(EagerPlan, PascalServesPyTorchDepthwiseTapsFromL2) {
  // PyTorch's own FP32 depthwise kernel loads its input once per filter tap. Volta and later SMs keep those
  // loads in L1; Maxwell/Pascal SMs do not, so each tap is an L2 read. HELP's OFA-MobileNetV3 rows at
  // batch 32-64: the Titan Xp ran them 1.6-1.9x slower than the RTX 2080 Ti, whose specs are within 10%.
  test::NetBuilder b;
  b.output(b.conv(b.input("x", {64, 192, 56, 56}), 192, 7, 1, false, 192));
  test::NetBuilder s2;
  s2.output(s2.conv(s2.input("x", {64, 192, 56, 56}), 192, 7, 2, false, 192));
  PredictOptions o;
  o.batch = 64;
  const auto conv_s = [&](const test::NetBuilder& n, const char* id, PredictOptions opts) {
    for (const auto& k : plan_kernels(n.g, n.c, gpu(id), opts))
      if (k.op == "Conv") return k.time_s;
    ADD_FAILURE() << "no Conv kernel";
    return 0.0;
  };
  const double pascal = conv_s(b, "titan-xp", o), turing = conv_s(b, "rtx-2080ti", o);
  EXPECT_GT(pascal / turing, 3.0);
  // The prediction says so where it applies.
  const auto l2_note = [&](const char* id, const PredictOptions& opts) {
    for (const auto& n : predict(b.g, b.c, gpu(id), opts).notes)
      if (n.find("from L2") != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(l2_note("titan-xp", o));
  EXPECT_FALSE(l2_note("rtx-2080ti", o));
  // 64 x 192 x 56 x 56 outputs x 49 taps x 6 bytes (4 input sectors + 1 misaligned + 1 weight per warp):
  // at 16 bytes per SM cycle on 30 SMs, about 11 ms at the Titan Xp's boost clock.
  EXPECT_GT(pascal, 8e-3);
  EXPECT_LT(pascal, 14e-3);
  // Stride 2 spreads a warp's loads over twice the sectors: a quarter of the outputs, 10/6 the bytes each.
  EXPECT_NEAR(conv_s(s2, "titan-xp", o) / pascal, 0.25 * 10 / 6, 0.05);
  // Two channels per group is cuDNN's grouped convolution (a GEMM per group), not PyTorch's depthwise kernel: no
  // L2 tap term, so the Titan Xp runs it as the RTX 2080 Ti does, within their FP32 rates (12.1 and 13.4 TFLOP/s)
  // and Turing's INT32-pipe gain on convolutions (up to 1.2).
  test::NetBuilder g2;
  g2.output(g2.conv(g2.input("x", {64, 192, 56, 56}), 96, 7, 1, false, 96));
  EXPECT_LT(conv_s(g2, "titan-xp", o) / conv_s(g2, "rtx-2080ti", o), 1.3 * 1.2);
  // Other runtimes take cuDNN's or TensorRT's kernels: no L2 tap term.
  PredictOptions trt = o;
  trt.runtime = Runtime::tensorrt;
  EXPECT_LT(conv_s(b, "titan-xp", trt), 0.4 * pascal);
  // FP16 takes cuDNN's depthwise kernel only from sm_70 (PyTorch's supportsDepthwiseConvolutionWithCuDNN): on
  // Pascal it runs PyTorch's kernel too, whose 2-byte loads span half the sectors: 2 + 1 + 1 per warp and tap
  // against 4 + 1 + 1 (the Titan Xp ran MobileNetV2 and MNASNet 1.5-1.75x slower in FP16 than in FP32).
  PredictOptions half = o;
  half.precision = Precision::fp16;
  EXPECT_NEAR(conv_s(b, "titan-xp", half) / pascal, 4.0 / 6.0, 0.05);
  EXPECT_TRUE(l2_note("titan-xp", half));
  EXPECT_LT(conv_s(b, "rtx-2080ti", half), 0.4 * pascal);
}

TEST(TrainingPlan, PyTorchsDepthwiseFilterGradientWalksOneBlockPerTap) {
  // ATen's conv_depthwise2d_grad_weight_kernel: grid C x kH x kW, min(32 x batch, 256) threads, each block walking
  // batch x output pixels at the BatchNorm gradient's FP32 rate per warp (1.77e9 elements/s over 16 warps).
  // MobileNetV2's first depthwise filter at batch 128 on an H200: 288 blocks of 256 threads, one wave (132 SMs x 8),
  // 1.6 M elements each, where DRAM alone would take some 0.1 ms.
  const auto filter_grad_s = [](const GpuSpec& g, int64_t batch, int64_t hw, PredictOptions o) {
    test::NetBuilder b;
    b.output(b.conv(b.input("x", {batch, 32, hw, hw}), 32, 3, 1, false, 32));
    o.batch = batch;
    for (const auto& k : plan_kernels(b.g, b.c, g, o))
      if (k.op == "Conv.bwd_weight") return k.time_s;
    ADD_FAILURE() << "no filter gradient";
    return 0.0;
  };
  const GpuSpec h200 = gpu("h200-sxm-141gb");
  const double gap = 0.8e-6, per_block = 128.0 * 112 * 112, rate = 1.77e9 * 256 / 512;
  const double fp32 = filter_grad_s(h200, 128, 112, training(128));
  EXPECT_NEAR(fp32, per_block / rate + gap, 1e-3 * fp32);
  // Batch 2: two warps a block, a quarter of the rate, 64-thread blocks all resident at once.
  EXPECT_NEAR(filter_grad_s(h200, 2, 112, training(2)), 2.0 * 112 * 112 / (1.77e9 * 64 / 512) + gap, 1e-3 * fp32);
  // More blocks than the GPU holds: a Titan Xp keeps 30 x 8 blocks of 256 threads, so 288 take two rounds.
  const double pascal = filter_grad_s(gpu("titan-xp"), 128, 112, training(128));
  EXPECT_GE(pascal, 2 * per_block / rate);
  // Half precision runs ATen's kernel before sm_70 (the Titan Xp) and may take cuDNN's from sm_70 on (ATen's
  // workload table, unmeasured): there, and on channels_last tensors (cuDNN's kernels always), the filter gradient
  // keeps its DRAM-bound time; so do other runtimes (ONNX Runtime's training is not modelled; a cuDNN call).
  PredictOptions half = training(128);
  half.precision = Precision::fp16;
  EXPECT_GE(filter_grad_s(gpu("titan-xp"), 128, 112, half), 2 * per_block / rate);
  EXPECT_LT(filter_grad_s(h200, 128, 112, half), 0.2 * fp32);
  PredictOptions nhwc = training(128);
  nhwc.channels_last = true;
  EXPECT_LT(filter_grad_s(h200, 128, 112, nhwc), 0.2 * fp32);
  PredictOptions bare = training(128);
  bare.runtime = Runtime::cudnn;
  EXPECT_LT(filter_grad_s(h200, 128, 112, bare), 0.2 * fp32);
  // A dense convolution's filter gradient is cuDNN's GEMM: no walk.
  test::NetBuilder dense;
  dense.output(dense.conv(dense.input("x", {128, 32, 112, 112}), 32, 3));
  double dense_s = 0;
  for (const auto& k : plan_kernels(dense.g, dense.c, h200, training(128)))
    if (k.op == "Conv.bwd_weight") dense_s = k.time_s;
  EXPECT_GT(dense_s, 0);
  EXPECT_LT(dense_s, 0.5 * fp32);
}

/// The Conv kernel of one c -> c convolution (kernel x kernel, stride 1) in `groups` groups at 56 x 56, batch 32.
KernelEstimate grouped_conv(const GpuSpec& g, int64_t c, int64_t kernel, int64_t groups, const PredictOptions& o) {
  test::NetBuilder b;
  b.output(b.conv(b.input("x", {32, c, 56, 56}), c, kernel, 1, false, groups));
  for (const auto& k : plan_kernels(b.g, b.c, g, o))
    if (k.op == "Conv") return k;
  ADD_FAILURE() << "no Conv kernel";
  return {};
}

TEST(GroupedConvolutions, FourChannelsPerGroupAreCudnnsGroupedGemmNotADepthwiseKernel) {
  // ATen runs its depthwise kernel only for one input channel per group; ResNeXt-50's first stage (128
  // channels in 32 groups of 4) is cuDNN's grouped convolution, a GEMM per group, bound by its math: four
  // times the depthwise conv's FLOPs on the same tensors take longer. (Costed as depthwise, it was
  // memory-bound and as fast as the depthwise conv; the predicted ResNeXt-to-WideResNet/ResNet time ratio was
  // 0.86 of the measured one on ryujaehun's setups, tools/pair_ratios.py.)
  PredictOptions o;
  o.batch = 32;
  const GpuSpec turing = gpu("rtx-2080ti");
  const KernelEstimate g4 = grouped_conv(turing, 128, 3, 32, o), dw = grouped_conv(turing, 128, 3, 128, o);
  EXPECT_EQ(g4.bound, Bound::compute);
  EXPECT_EQ(dw.bound, Bound::memory);
  EXPECT_GT(g4.time_s / dw.time_s, 1.5);
}

TEST(GroupedConvolutions, HalfPrecisionNchwGroupsRunWithoutTensorCoresBeforeSm80) {
  // cuDNN before sm_80 has no tensor-core kernel for a grouped convolution of NCHW tensors: PyTorch's FP16
  // ResNeXt layers run FP16 storage with FP32 math (pytorch/pytorch#10290 on the Titan V; NVIDIA/apex#196), as on
  // a GPU without tensor cores, and pay no NCHW<->NHWC reorders.
  PredictOptions half;
  half.batch = 32;
  half.precision = Precision::fp16;
  const GpuSpec volta = gpu("v100-sxm2-16gb");
  GpuSpec no_tensor = volta;
  no_tensor.tensor_fp16_tflops = no_tensor.tensor_fp16_fp16acc_tflops = no_tensor.tensor_bf16_tflops = 0;
  no_tensor.tensor_cores = 0;
  const auto conv_on = [](const GpuSpec& g, int64_t kernel, int64_t groups, const PredictOptions& o) {
    return grouped_conv(g, 256, kernel, groups, o);
  };
  const KernelEstimate grouped = conv_on(volta, 3, 32, half);
  EXPECT_DOUBLE_EQ(grouped.time_s, conv_on(no_tensor, 3, 32, half).time_s);
  EXPECT_EQ(grouped.reorder_kernels, 0);
  // Dense convolutions keep the tensor cores (with their reorders), and so do grouped ones given NHWC tensors
  // (torch.channels_last).
  EXPECT_GT(conv_on(volta, 3, 1, half).reorder_kernels, 0);
  PredictOptions nhwc = half;
  nhwc.channels_last = true;
  EXPECT_LT(conv_on(volta, 3, 32, nhwc).time_s, conv_on(no_tensor, 3, 32, nhwc).time_s);
  // From sm_80 cuDNN runs them on the tensor cores between its reorders (cuDNN 9.14 on perfpred's H200: 8 groups
  // of 16 channels at batch 32 ran nchwToNhwc, an sm90 tensor-core kernel and nhwcToNchw).
  EXPECT_GT(conv_on(gpu("h100-sxm5-80gb"), 3, 32, half).reorder_kernels, 0);
  EXPECT_GT(conv_on(gpu("a100-sxm4-80gb"), 3, 32, half).reorder_kernels, 0);
}

TEST(TrainingPlan, ResNetTrainingStepIsAboutThreeAndAHalfInferences) {
  // Measured (ryujaehun, batch 12, GTX 1080 Ti fp32): ResNet-18 3.5x, ResNet-50 3.4x, DenseNet-121 3.3x.
  auto net = test::resnet_like(12);
  PredictOptions inf;
  inf.batch = 12;
  const double a = predict(net.g, net.c, gpu("gtx-1080ti"), inf).kernels_ms;
  const double t = predict(net.g, net.c, gpu("gtx-1080ti"), training(12)).kernels_ms;
  EXPECT_GT(t / a, 3.1);
  EXPECT_LT(t / a, 4.2);
}

TEST(TrainingPlan, HostBoundTrainingStepPaysTheAutogradEnginePerNode) {
  // A small net at batch 1 on a big GPU is host-bound in eager PyTorch. Its backward pass costs the host
  // more than its forward: one autograd node per op plus AccumulateGrad and zero_grad per parameter,
  // with the cuDNN calls of each conv gradient (the ryujaehun ResNet-18 rows, PyTorch 1.4, train in 3.3-5x
  // their inference time where the host bounds them).
  auto net = test::resnet_like(1, 16, 2, 32);
  PredictOptions inf;
  inf.batch = 1;
  const Prediction a = predict(net.g, net.c, gpu("a100-sxm4-40gb"), inf);
  const Prediction t = predict(net.g, net.c, gpu("a100-sxm4-40gb"), torch1_training(1));
  EXPECT_GT(a.host_overhead_ms, a.kernels_ms);  // host-bound
  EXPECT_GT(t.latency_ms / a.latency_ms, 2.5);  // 14 us per backward kernel and no AccumulateGrad: 1.8
}

TEST(TrainingPlan, GradientAccumulationIsAnAddNotAnAutogradNode) {
  // DenseNet: every layer's features feed each later layer's Concat, so autograd sums L^2/2 gradients per
  // block. The engine's InputBuffer sums them with a plain at::add (one kernel, no graph node of its own):
  // its CPU cost is a kernel's inside an op, not an autograd node's (DenseNet-169/201 training had been
  // predicted 1.5-1.9x too slow on the Titan V machine, 1.5x on one RTX 2080 Ti machine, host-bound).
  test::NetBuilder b;
  const int x = b.input("x", {1, 32, 8, 8});
  const int t = b.relu(x);
  int s = b.relu(t);
  for (int i = 1; i < 8; ++i) s = b.add(s, b.relu(t));  // t has 8 consumers: 7 accumulations
  b.output(s);
  const int producer = 0;  // the Relu that makes t
  ASSERT_EQ(b.g.nodes[producer].outputs[0], t);
  std::vector<KernelEstimate> bwd;
  for (const auto& k : plan_kernels(b.g, b.c, gpu("a100-sxm4-40gb"), training(1)))
    if (k.node_index == producer && k.phase == "backward") bwd.push_back(k);
  ASSERT_EQ(bwd.size(), 2u);  // the accumulation of t's gradients, then the Relu's own gradient
  const KernelEstimate& acc = bwd[0];
  const KernelEstimate& node = bwd[1];
  EXPECT_GT(acc.bytes, node.bytes);   // 7 adds of the full tensor
  EXPECT_GT(node.host_s, 0);
  EXPECT_LT(acc.host_s, node.host_s);  // 7 adds cost less CPU than one autograd node
}

size_t kernel_count(const test::NetBuilder& b, Runtime rt) {
  PredictOptions o;
  o.batch = 8;
  o.runtime = rt;
  return plan_kernels(b.g, b.c, gpu("a100-sxm4-80gb"), o).size();
}

TEST(RuntimePlan, OnnxRuntimeFusesOnlyThePatternsItsOptimizersKnow) {
  // A pointwise chain: TensorRT's pointwise fusion makes one kernel; onnxruntime's CUDA EP runs each node.
  test::NetBuilder chain;
  int x = chain.input("x", {8, 1024});
  chain.output(chain.unary("Tanh", chain.unary("Sigmoid", chain.unary("Exp", x))));  // not GELU: no Pow
  EXPECT_EQ(kernel_count(chain, Runtime::tensorrt), 1u);
  EXPECT_EQ(kernel_count(chain, Runtime::onnxruntime), 3u);
  // A GEMM keeps its activation as a separate kernel in onnxruntime, not in TensorRT.
  test::NetBuilder mlp;
  int mx = mlp.input("x", {8, 512});
  mlp.output(mlp.relu(mlp.gemm(mx, 512)));
  EXPECT_EQ(kernel_count(mlp, Runtime::tensorrt), 1u);
  EXPECT_EQ(kernel_count(mlp, Runtime::onnxruntime), 2u);
  // A conv with BatchNorm and ReLU is one FusedConv in both.
  test::NetBuilder cnn;
  int cx = cnn.input("x", {8, 64, 28, 28});
  cnn.output(cnn.relu(cnn.bn(cnn.conv(cx, 64, 3))));
  EXPECT_EQ(kernel_count(cnn, Runtime::tensorrt), 1u);
  EXPECT_EQ(kernel_count(cnn, Runtime::onnxruntime), 1u);
}

/// A binary node of `a` and `b` named `op` (the builder's Add, renamed).
int binary(test::NetBuilder& b, const std::string& op, int x, int y) {
  const int out = b.add(x, y);
  b.g.nodes.back().op = op;
  return out;
}

size_t kernels_of(const test::NetBuilder& b, Runtime rt, std::string* first_op = nullptr) {
  PredictOptions o;
  o.batch = 8;
  o.runtime = rt;
  const auto ks = plan_kernels(b.g, b.c, gpu("a100-sxm4-80gb"), o);
  if (first_op && !ks.empty()) *first_op = ks.front().op;
  return ks.size();
}

TEST(ActivationPatterns, GeluAndSiluAsExportedAreOneKernelEverywhere) {
  // torch exports F.gelu as x / sqrt2 -> Erf -> + 1 -> x * . -> * 0.5, and SiLU as x * Sigmoid(x): eager
  // PyTorch runs one op, TensorRT and onnxruntime one kernel.
  test::NetBuilder gelu;
  int x = gelu.input("x", {8, 1024});
  int c = gelu.weight({1});
  int e = gelu.unary("Erf", binary(gelu, "Div", x, c));
  gelu.output(binary(gelu, "Mul", binary(gelu, "Mul", x, binary(gelu, "Add", e, c)), c));
  std::string op;
  for (Runtime rt : {Runtime::pytorch, Runtime::tensorrt, Runtime::onnxruntime}) {
    EXPECT_EQ(kernels_of(gelu, rt, &op), 1u) << to_string(rt);
    EXPECT_EQ(op, "Div+Erf+Add+Mul+Mul") << to_string(rt);
  }
  test::NetBuilder silu;
  int sx = silu.input("x", {8, 64, 32, 32});
  int y = silu.conv(sx, 64, 3);
  silu.output(binary(silu, "Mul", y, silu.unary("Sigmoid", y)));
  EXPECT_EQ(kernels_of(silu, Runtime::tensorrt, &op), 1u);  // fused into the conv
  EXPECT_EQ(op, "Conv+Sigmoid+Mul");
  EXPECT_EQ(kernels_of(silu, Runtime::onnxruntime), 2u);  // FusedConv takes no SiLU
  EXPECT_EQ(kernels_of(silu, Runtime::pytorch), 2u);
  // The fused kernel moves the conv's input, weights and one output, no intermediate.
  PredictOptions o;
  o.batch = 8;
  o.runtime = Runtime::tensorrt;
  const auto k = plan_kernels(silu.g, silu.c, gpu("a100-sxm4-80gb"), o).front();
  EXPECT_DOUBLE_EQ(k.bytes, static_cast<double>(silu.c.nodes[0].bytes_read + silu.c.nodes[0].bytes_written));
}

/// LayerNorm as torch.onnx writes it below opset 17, on x [8, 768]; `eps` decides whether the Add takes a constant.
test::NetBuilder decomposed_layer_norm(bool constant_eps = true) {
  test::NetBuilder b;
  const int x = b.input("x", {8, 768});
  const int c = b.weight({1});
  const int mean = b.unary("ReduceMean", x, OpFamily::reduce);
  const int d = binary(b, "Sub", x, mean);
  const int var = b.unary("ReduceMean", binary(b, "Pow", d, c), OpFamily::reduce);
  const int eps = constant_eps ? c : b.relu(x);
  const int n = binary(b, "Div", d, b.unary("Sqrt", binary(b, "Add", var, eps)));
  b.output(binary(b, "Add", binary(b, "Mul", n, b.weight({768})), b.weight({768})));
  b.finish();
  return b;
}

TEST(LayerNormPatterns, ALayerNormWrittenAsNodesIsOneNormKernel) {
  // PyTorch runs nn.LayerNorm as one op and kernel, TensorRT and onnxruntime fuse it: the nine nodes are one
  // norm kernel that reads x and writes y, with one op's dispatch (a ViT-B/16 has 25 of them; its eager
  // batch-1 prediction on the H200 was 3.3x the measurement with nine ops each).
  const test::NetBuilder ln = decomposed_layer_norm();
  for (Runtime rt : {Runtime::pytorch, Runtime::tensorrt, Runtime::onnxruntime}) {
    PredictOptions o;
    o.batch = 8;
    o.runtime = rt;
    const auto ks = plan_kernels(ln.g, ln.c, gpu("a100-sxm4-80gb"), o);
    ASSERT_EQ(ks.size(), 1u) << to_string(rt);
    EXPECT_EQ(ks[0].op, "ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add") << to_string(rt);
    EXPECT_EQ(ks[0].family, OpFamily::norm) << to_string(rt);
    // Read x, write y; PyTorch's kernel reads x twice (Welford statistics, then normalisation:
    // k_ln_forward_passes, NeuSight's LayerNorm rows 21.6% -> 14.3% mean APE).
    const double passes = rt == Runtime::pytorch ? 3.0 : 2.0;
    EXPECT_DOUBLE_EQ(ks[0].bytes, passes * 8 * 768 * 4) << to_string(rt);
  }
  // Eager: one op's host cost, as a Relu's.
  test::NetBuilder relu;
  relu.output(relu.relu(relu.input("x", {8, 768})));
  PredictOptions o;
  o.batch = 8;
  EXPECT_DOUBLE_EQ(plan_kernels(ln.g, ln.c, gpu("a100-sxm4-80gb"), o)[0].host_s,
                   plan_kernels(relu.g, relu.c, gpu("a100-sxm4-80gb"), o)[0].host_s);
  // Training: one backward norm kernel (reads dy and x, writes dx: twice the two-pass forward's traffic, not
  // twice the statistics pass as well).
  const auto t = plan_kernels(ln.g, ln.c, gpu("a100-sxm4-80gb"), training(8));
  int norm_bwd = 0;
  for (const auto& k : t) {
    if (k.family != OpFamily::norm || k.phase != "backward") continue;
    ++norm_bwd;
    EXPECT_DOUBLE_EQ(k.bytes, 4.0 * 8 * 768 * 4);
  }
  EXPECT_EQ(norm_bwd, 1);
  // An Add of a computed tensor is no epsilon: the nodes stay nodes.
  EXPECT_GT(kernels_of(decomposed_layer_norm(false), Runtime::pytorch), 2u);
}

TEST(TrainingPlan, RecurrentWeightGradientIsOneGemmOverAllSteps) {
  // BPTT runs the data gradients one dependent step at a time, but the recurrent weights' gradient is a
  // single GEMM with the steps in its reduction (cuDNN's RNNBackwardWeights): its time is not the forward
  // step's time multiplied by seq_len.
  test::NetBuilder b;
  const int x = b.input("x", {100, 16, 512});
  b.output(b.lstm(x, 512));
  PredictOptions o = training(16);
  const auto ks = plan_kernels(b.g, b.c, gpu("v100-sxm2-16gb"), o);
  const KernelEstimate* fwd_rec = nullptr;
  const KernelEstimate* dw = nullptr;
  const KernelEstimate* dd = nullptr;
  for (const auto& k : ks) {
    if (k.family != OpFamily::rnn) continue;
    if (k.phase == "forward" && k.gemm && k.gemm->m == 16) fwd_rec = &k;  // the recurrent steps
    if (k.phase == "backward_weight") dw = &k;
    if (k.phase == "backward_data") dd = &k;
  }
  ASSERT_NE(fwd_rec, nullptr);
  ASSERT_NE(dw, nullptr);
  ASSERT_NE(dd, nullptr);
  EXPECT_EQ(dw->gemm->k, 16 * 100);          // batch x steps in the reduction
  EXPECT_LT(dw->time_s, 0.5 * dd->time_s);   // one parallel GEMM against 100 dependent steps
  // Each data-gradient step is dh_{t-1} = dgates_t R, the transpose of the forward step's GEMM.
  EXPECT_EQ(dd->gemm->m, fwd_rec->gemm->m);
  EXPECT_EQ(dd->gemm->n, fwd_rec->gemm->k);
  EXPECT_EQ(dd->gemm->k, fwd_rec->gemm->n);
}

TEST(EagerPlan, ShapeArithmeticExportedIntoTheGraphCostsNothing) {
  // torch.onnx writes x.size() arithmetic (channel_shuffle, view(b, -1, h, w)) as Shape -> Gather ->
  // Unsqueeze -> Concat nodes whose values are known at import. Eager PyTorch runs them as Python
  // integers: no dispatch, no kernel. Only the Reshape of the data tensor is a (view) op.
  auto build = [](bool with_shape_ops) {
    test::NetBuilder b;
    const int x = b.input("x", {1, 16, 8, 8});
    int y = b.relu(x);
    if (with_shape_ops) {
      const int s = b.shape_value("Shape", y, {1, 16, 8, 8}, OpFamily::view);
      const int c = b.shape_value("Gather", s, {16}, OpFamily::data_movement);
      const int u = b.shape_value("Unsqueeze", c, {16}, OpFamily::view);
      b.shape_value("Div", u, {8}, OpFamily::elementwise);
    }
    b.output(b.relu(y));
    return b;
  };
  PredictOptions o;
  o.batch = 1;
  const auto plain = build(false), shaped = build(true);
  const Prediction a = predict(plain.g, plain.c, gpu("rtx-2080ti"), o);
  const Prediction b = predict(shaped.g, shaped.c, gpu("rtx-2080ti"), o);
  EXPECT_DOUBLE_EQ(b.host_overhead_ms, a.host_overhead_ms);
  EXPECT_DOUBLE_EQ(b.latency_ms, a.latency_ms);
  EXPECT_EQ(plan_kernels(shaped.g, shaped.c, gpu("rtx-2080ti"), o).size(),
            plan_kernels(plain.g, plain.c, gpu("rtx-2080ti"), o).size());
}

TEST(EagerPlan, InferenceUnderNoGradDispatchesEachForwardOpForLess) {
  // Served inference runs under torch.no_grad() / inference_mode(): no op records a backward node, and each
  // forward op's host cost is k_pytorch_no_grad_host_share of the grad-mode cost the constants were fitted at
  // (--grad-mode: a model called without no_grad). A training step's host costs do not depend on it.
  test::NetBuilder b;
  const int x = b.input("x", {1, 3, 32, 32});
  int y = b.relu(b.bn(b.conv(x, 16, 3)));
  y = b.add(y, b.relu(b.bn(b.conv(y, 16, 3))));
  b.output(b.relu(y));
  PredictOptions o;
  o.batch = 1;
  const auto no_grad = plan_kernels(b.g, b.c, gpu("rtx-2080ti"), o);
  o.grad_mode = true;
  const auto grad = plan_kernels(b.g, b.c, gpu("rtx-2080ti"), o);
  ASSERT_EQ(no_grad.size(), grad.size());
  double h0 = 0, h1 = 0;
  for (size_t i = 0; i < grad.size(); ++i) {
    EXPECT_NEAR(no_grad[i].host_s, 0.8 * grad[i].host_s, 1e-12) << grad[i].name;
    EXPECT_DOUBLE_EQ(no_grad[i].time_s, grad[i].time_s);  // the GPU's work is the same
    h0 += no_grad[i].host_s;
    h1 += grad[i].host_s;
  }
  EXPECT_GT(h1, 0);
  EXPECT_NEAR(h0, 0.8 * h1, 1e-12);  // the forward dispatch as a whole is 0.8x
  PredictOptions plain;
  plain.batch = 1;
  const Prediction p0 = predict(b.g, b.c, gpu("rtx-2080ti"), plain), p1 = predict(b.g, b.c, gpu("rtx-2080ti"), o);
  EXPECT_LT(p0.latency_ms, p1.latency_ms);  // host-bound at batch 1: the dispatch is the latency
  // Training always records: the flag is refused there, as on a runtime without autograd.
  o.mode = Mode::training;
  EXPECT_THROW(plan_kernels(b.g, b.c, gpu("rtx-2080ti"), o), InputError);
  o.mode = Mode::inference;
  o.runtime = Runtime::onnxruntime;
  EXPECT_THROW(plan_kernels(b.g, b.c, gpu("rtx-2080ti"), o), InputError);
}

TEST(EagerPlan, LinearOnAnNdInputIsOneCallItsBiasAddNoPythonOperator) {
  // torch.onnx writes nn.Linear on a [batch, tokens, features] input as MatMul(x, W) -> Add(b); eager
  // PyTorch runs the pair as one aten::linear call, so the bias Add costs the host an inner kernel's launch,
  // not a Python operator's dispatch. A residual Add of two activations stays an operator.
  test::NetBuilder b;
  const int x = b.input("x", {8, 197, 768});
  const int h = b.matmul(x, 768);
  const int y = b.add(h, b.weight({768}));  // the Linear's bias
  b.output(b.add(y, x));                    // the residual
  PredictOptions o;
  o.batch = 8;
  const auto ks = plan_kernels(b.g, b.c, gpu("a100-sxm4-80gb"), o);
  ASSERT_EQ(ks.size(), 3u);
  const KernelEstimate &mm = ks[0], &bias = ks[1], &residual = ks[2];
  EXPECT_EQ(mm.op, "MatMul");
  EXPECT_GT(residual.host_s, 3 * bias.host_s);  // 22 us of operator against 6 us of inner launch
  EXPECT_GT(mm.host_s, residual.host_s);
  // The same Add after a MatMul whose output also feeds another node is the user's own operator.
  test::NetBuilder t;
  const int x2 = t.input("x", {8, 197, 768});
  const int h2 = t.matmul(x2, 768);
  t.output(t.add(t.add(h2, t.weight({768})), h2));
  const auto ks2 = plan_kernels(t.g, t.c, gpu("a100-sxm4-80gb"), o);
  ASSERT_EQ(ks2.size(), 3u);
  EXPECT_DOUBLE_EQ(ks2[1].host_s, residual.host_s);
}

TEST(EagerPlan, ATransposeIsAViewAndTheReshapeAfterItCopies) {
  // Eager PyTorch's transpose/permute is a view: matmul takes the strides (q @ k.transpose(-2, -1)) and
  // binary arithmetic reads any layout, so no kernel runs for it; the copy comes where a reshape needs
  // contiguous memory (x.transpose(1, 2).reshape(...)), which torch.onnx writes as the Reshape after the
  // Transpose. Before, every exported Transpose was an op and a copy: a ViT-B/16 at batch 1 paid 73 of them.
  const auto ops = [](const std::vector<KernelEstimate>& ks) {
    std::vector<std::string> v;
    for (const auto& k : ks) v.push_back(k.op);
    return v;
  };
  PredictOptions o;
  o.batch = 8;
  const GpuSpec g = gpu("a100-sxm4-80gb");
  test::NetBuilder mm;  // k.transpose(-2, -1) feeding a matmul
  mm.output(mm.matmul(mm.unary("Transpose", mm.input("x", {8, 12, 197, 64}), OpFamily::data_movement), 64));
  EXPECT_EQ(ops(plan_kernels(mm.g, mm.c, g, o)), std::vector<std::string>{"MatMul"});
  test::NetBuilder rs;  // attention output transposed back and flattened: one copy, costed at the Flatten
  rs.output(rs.flatten(rs.unary("Transpose", rs.input("x", {8, 12, 197, 64}), OpFamily::data_movement)));
  const auto copy = plan_kernels(rs.g, rs.c, g, o);
  ASSERT_EQ(ops(copy), std::vector<std::string>{"Flatten"});
  EXPECT_DOUBLE_EQ(copy[0].bytes, 2.0 * 8 * 12 * 197 * 64 * 4);
  EXPECT_GT(copy[0].host_s, 0);
  test::NetBuilder sm;  // softmax needs contiguous input: the transpose copies, as before
  sm.output(sm.unary("Softmax", sm.unary("Transpose", sm.input("x", {8, 12, 197, 64}), OpFamily::data_movement),
                     OpFamily::softmax));
  EXPECT_EQ(ops(plan_kernels(sm.g, sm.c, g, o)), (std::vector<std::string>{"Transpose", "Softmax"}));
  // Runtimes that run the exported graph keep the Transpose kernel.
  PredictOptions ort = o;
  ort.runtime = Runtime::onnxruntime;
  EXPECT_EQ(ops(plan_kernels(mm.g, mm.c, g, ort)), (std::vector<std::string>{"Transpose", "MatMul"}));
}

TEST(EagerPlan, AttentionIsOneFusedScaledDotProductAttention) {
  // PyTorch >= 2.0 runs MatMul(Q, K^T) -> scale -> Softmax -> MatMul(., V) as one scaled_dot_product_attention
  // (flash / memory-efficient kernel): one op, one kernel, no [.., S, S] scores in DRAM or saved for backward.
  // --attention math (fused_attention = false) keeps the exported nodes: 4 ops and kernels, the scores written
  // and read by each.
  const auto build = [] {
    test::NetBuilder b;
    const int64_t n = 4, h = 16, s = 1024, d = 64;
    const int q = b.relu(b.input("q", {n, h, s, d})), k = b.relu(b.input("kt", {n, h, d, s}));
    const int v = b.relu(b.input("v", {n, h, s, d}));
    const int p = b.unary("Softmax", b.scale("Div", b.bmm(q, k)), OpFamily::softmax);
    b.output(b.bmm(p, v));
    return b;
  };
  const auto net = build();
  const GpuSpec g = gpu("h100-sxm5-80gb");
  PredictOptions o;
  o.batch = 4;
  o.precision = Precision::fp16;
  const auto attention = [](const std::vector<KernelEstimate>& ks) {
    std::vector<KernelEstimate> out;
    for (const auto& k : ks)
      if (k.op != "Relu") out.push_back(k);
    return out;
  };
  const auto fused = attention(plan_kernels(net.g, net.c, g, o));
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(fused[0].op, "MatMul+Div+Softmax+MatMul");
  const double tensor = 4.0 * 16 * 1024 * 64 * 2;  // Q, K, V, O at fp16
  EXPECT_NEAR(fused[0].bytes, 4 * tensor, 1);
  PredictOptions math = o;
  math.fused_attention = false;
  const auto plain = attention(plan_kernels(net.g, net.c, g, math));
  ASSERT_EQ(plain.size(), 4u);
  double plain_bytes = 0, plain_host = 0;
  for (const auto& k : plain) plain_bytes += k.bytes, plain_host += k.host_s;
  EXPECT_GT(plain_bytes, 20 * fused[0].bytes);  // the 4 x 16 x 1024^2 scores, written and read 3 times
  EXPECT_LT(fused[0].host_s, 0.5 * plain_host);
  const Prediction pf = predict(net.g, net.c, g, o), pm = predict(net.g, net.c, g, math);
  EXPECT_LT(pf.kernels_ms, 0.5 * pm.kernels_ms);
  // Training: the scores are neither stored for backward nor given a gradient; the backward is one node.
  PredictOptions tfused = training(4);
  tfused.precision = Precision::fp16;
  PredictOptions tmath = tfused;
  tmath.fused_attention = false;
  const Prediction tf = predict(net.g, net.c, g, tfused), tm = predict(net.g, net.c, g, tmath);
  const double scores = 4.0 * 16 * 1024 * 1024 * 2;
  EXPECT_GT(tm.peak_memory_bytes - tf.peak_memory_bytes, scores);
  EXPECT_LT(tf.latency_ms, tm.latency_ms);
  // Runtimes that run the exported graph (onnxruntime without its transformer optimizer) keep the nodes.
  PredictOptions ort = o;
  ort.runtime = Runtime::onnxruntime;
  EXPECT_EQ(attention(plan_kernels(net.g, net.c, g, ort)).size(), 4u);
  // A causal mask as masked_fill (Where(mask, -inf, scores)), as GPT-style code and SDPA's is_causal export it,
  // is part of the core too; the mask is read once.
  test::NetBuilder causal;
  const int cq = causal.relu(causal.input("q", {4, 16, 1024, 64})), ck = causal.relu(causal.input("kt", {4, 16, 64, 1024}));
  const int cv = causal.relu(causal.input("v", {4, 16, 1024, 64})), mask = causal.input("mask", {1, 1, 1024, 1024});
  const int cp = causal.unary("Softmax", causal.masked_fill(mask, causal.scale("Div", causal.bmm(cq, ck))),
                              OpFamily::softmax);
  causal.output(causal.bmm(cp, cv));
  const auto cf = attention(plan_kernels(causal.g, causal.c, g, o));
  ASSERT_EQ(cf.size(), 1u);
  EXPECT_EQ(cf[0].op, "MatMul+Div+Where+Softmax+MatMul");
  EXPECT_GT(cf[0].bytes, 4 * tensor);
  EXPECT_LT(cf[0].bytes, 4 * tensor + 1024.0 * 1024 * 4 + 16);
}

TEST(LinearOnPascal, PyTorchRunsAnNnLinearForwardAsATnProduct) {
  // F.linear is x W^T (cuBLAS TN: Gemm with transB, or MatMul by a weight); HF GPT-2's Conv1D, addmm(b, x, W),
  // exports as a Gemm without transB (NN). On Pascal the TN forward takes cuBLAS's small tiles; its gradients
  // (NN and NT) and every product on Volta and later do not.
  auto linear = test::big_gemm(4096, 4096, 4096);
  auto conv1d = test::big_gemm(4096, 4096, 4096);
  for (auto& n : conv1d.g.nodes)
    if (n.op == "Gemm") n.attrs.erase("transB");
  auto times = [](test::NetBuilder& net, const std::string& id, PredictOptions o) {
    std::map<std::string, double> t;
    for (const auto& k : plan_kernels(net.g, net.c, gpu(id), o))
      if (k.op.rfind("Gemm", 0) == 0) t[k.phase] += k.time_s;
    return t;
  };
  PredictOptions inf;
  inf.batch = 4096;
  const auto a = times(linear, "p4", inf), b = times(conv1d, "p4", inf);
  EXPECT_NEAR(a.at("forward") / b.at("forward"), 1 / 0.79, 0.03);
  EXPECT_DOUBLE_EQ(times(linear, "v100-pcie-32gb", inf).at("forward"), times(conv1d, "v100-pcie-32gb", inf).at("forward"));
  inf.runtime = Runtime::onnxruntime;  // its own GEMM calls, not PyTorch's layout
  EXPECT_DOUBLE_EQ(times(linear, "p4", inf).at("forward"), times(conv1d, "p4", inf).at("forward"));
  PredictOptions train = training(4096);
  const auto ta = times(linear, "p4", train), tb = times(conv1d, "p4", train);
  EXPECT_GT(ta.at("forward"), 1.2 * tb.at("forward"));
  EXPECT_DOUBLE_EQ(ta.at("backward_weight"), tb.at("backward_weight"));
  // predict says so where it applies
  auto noted = [](test::NetBuilder& net, const std::string& id) {
    bool found = false;
    for (const auto& n : predict(net.g, net.c, gpu(id), PredictOptions{}).notes) found |= n.find("TN product") != std::string::npos;
    return found;
  };
  EXPECT_TRUE(noted(linear, "p4"));
  EXPECT_FALSE(noted(conv1d, "p4"));
  EXPECT_FALSE(noted(linear, "v100-pcie-32gb"));
}

}  // namespace
}  // namespace perfpred
