// The efficiency target: roofline, dimensionless features, label corrections, bounded predictions,
// monotone constraints, range shrinkage and leave-one-GPU-out early stopping.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/efficiency.hpp"
#include "perfpred/learn/features.hpp"
#include "perfpred/learn/model.hpp"
#include "perfpred/learn/train.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::learn;

namespace {

GpuSpec gpu(const std::string& id, int sms, double tflops, double bw_gbps) {
  GpuSpec g;
  g.id = id;
  g.sm_count = sms;
  g.boost_clock_mhz = 1500;
  g.fp32_tflops = tflops;
  g.mem_bandwidth_gbps = bw_gbps;
  g.l2_cache_mb = 6;
  g.compute_capability = "8.0";
  return g;
}

KernelEstimate gemm_kernel(int64_t m, int64_t n, int64_t k, double waves, double wave_eff) {
  KernelEstimate e;
  e.family = OpFamily::gemm;
  e.op = "MatMul";
  e.gemm = GemmShape{1, m, n, k};
  e.flops = 2.0 * m * n * k;
  e.bytes = 4.0 * (m * k + k * n + m * n);
  e.waves = waves;
  e.wave_efficiency = wave_eff;
  e.launch_s = 2.5e-6;
  e.time_s = 1e-3;
  return e;
}

KernelEstimate relu_kernel(double elements) {
  KernelEstimate e;
  e.family = OpFamily::elementwise;
  e.op = "Relu";
  e.flops = elements;
  e.bytes = 8 * elements;
  e.launch_s = 2.5e-6;
  e.time_s = 1e-4;
  return e;
}

size_t index_of(const std::string& n) {
  const auto& names = efficiency_feature_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == n) return i;
  ADD_FAILURE() << "no feature " << n;
  return 0;
}

std::vector<float> features(const KernelEstimate& k, const GpuSpec& g) {
  std::vector<float> v(efficiency_feature_names().size());
  efficiency_features(k, g, PredictOptions{}, kernel_roofline(k, g, PredictOptions{}), v.data());
  return v;
}

// Synthetic efficiency data on several GPUs: GEMM efficiency rises with the waves and falls with a tail.
std::vector<KernelSample> gemm_samples(const std::vector<GpuSpec>& gpus, size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> lw(-1.0, 2.0), tail(0.0, 0.5);
  std::vector<KernelSample> out;
  for (size_t i = 0; i < n; ++i) {
    KernelSample s;
    s.gpu = gpus[i % gpus.size()];
    const double waves = std::pow(10.0, lw(rng)), we = 1.0 - tail(rng);
    s.kernel = gemm_kernel(1024, 1024, 512, waves, we);
    const Roofline r = kernel_roofline(s.kernel, s.gpu, s.opts);
    const double eff = 0.3 + 0.5 * std::min(1.0, std::log10(waves) / 2 + 0.5);
    s.measured_s = r.time_s / eff;
    s.source = "synthetic";
    out.push_back(std::move(s));
  }
  return out;
}

// An efficiency bundle of `samples` (30 rounds, one thread).
Bundle train_bundle(const std::vector<KernelSample>& samples, double blend = k_default_kernel_blend) {
  TrainOptions o;
  o.kernel_target = KernelTarget::efficiency;
  o.rounds = 30;
  o.nthread = 1;
  o.kernel_blend = blend;
  Bundle b;
  b.name = "codes";
  train_efficiency_models(samples, o, b);
  return b;
}

}  // namespace

TEST(LearnEfficiency, RooflineIsTheFasterOfThePathAndDram) {
  const GpuSpec g = gpu("a", 100, 20, 1000);
  const auto k = gemm_kernel(4096, 4096, 4096, 10, 0.8);
  const Roofline r = kernel_roofline(k, g, PredictOptions{});
  EXPECT_TRUE(r.matrix);
  EXPECT_FALSE(r.tensor);
  EXPECT_NEAR(r.compute_s, k.flops / (20e12 * 0.8), 1e-12);  // the last wave's idle share is charged
  EXPECT_NEAR(r.memory_s, k.bytes / 1e12, 1e-15);
  EXPECT_DOUBLE_EQ(r.time_s, std::max(r.compute_s, r.memory_s));

  const auto e = relu_kernel(1e8);
  const Roofline re = kernel_roofline(e, g, PredictOptions{});
  EXPECT_FALSE(re.matrix);
  EXPECT_NEAR(re.time_s, e.bytes / 1e12, 1e-12);  // memory-bound
}

TEST(LearnEfficiency, Tf32ConvolutionsFollowTheSourceFlag) {
  GpuSpec g = gpu("ampere", 108, 19.5, 1555);
  g.tensor_cores = 432;
  g.tensor_tf32_tflops = 156;
  KernelEstimate c = gemm_kernel(50176, 256, 2304, 20, 1);
  c.family = OpFamily::conv;
  c.op = "Conv";
  c.attrs = {{"kernel_h", 1}, {"kernel_w", 1}, {"groups", 1}};
  const Roofline tf32 = kernel_roofline(c, g, PredictOptions{}, true);
  const Roofline simt = kernel_roofline(c, g, PredictOptions{}, source_settings("neusight").tf32_conv);
  EXPECT_TRUE(tf32.tensor);
  EXPECT_DOUBLE_EQ(tf32.peak_flops, 156e12);
  EXPECT_FALSE(simt.tensor);  // NeuSight ran with cudnn.allow_tf32 = False
  EXPECT_DOUBLE_EQ(simt.peak_flops, 19.5e12);
  EXPECT_TRUE(source_settings("neusight").timer_floor);
  EXPECT_FALSE(source_settings("deepbench").timer_floor);
  EXPECT_TRUE(source_settings("deepbench").tf32_conv);
  // perfpred's own harness runs its fp32 convolutions with CUDNN_FMA_MATH: the SIMT roofline, as NeuSight's.
  EXPECT_FALSE(source_settings("perfpred-profile").tf32_conv);
  EXPECT_DOUBLE_EQ(kernel_roofline(c, g, PredictOptions{}, source_settings("perfpred-profile").tf32_conv).peak_flops, 19.5e12);
}

TEST(LearnEfficiency, FeaturesCarryNoGpuIdentity) {
  for (const auto& n : efficiency_feature_names()) EXPECT_NE(n.rfind("gpu_", 0), 0u) << n;
  // A GPU with twice the math rate and twice the bandwidth (same ridge point, SMs and L2) changes only
  // the feature that compares the kernel's roofline time with the launch floor.
  const auto k = gemm_kernel(2048, 1024, 512, 3, 0.75);
  const auto a = features(k, gpu("a", 80, 14, 900));
  const auto b = features(k, gpu("b", 80, 28, 1800));
  const size_t over_launch = index_of("log_roofline_over_launch");
  for (size_t i = 0; i < a.size(); ++i) {
    if (i == over_launch) {
      EXPECT_NEAR(a[i] - b[i], std::log10(2.0), 1e-5);
    } else if (std::isnan(a[i])) {
      EXPECT_TRUE(std::isnan(b[i])) << efficiency_feature_names()[i];
    } else {
      EXPECT_FLOAT_EQ(a[i], b[i]) << efficiency_feature_names()[i];
    }
  }
  const auto c = features(k, gpu("c", 80, 14, 450));  // half the bandwidth: ridge point doubles
  EXPECT_NEAR(a[index_of("log_ai_over_ridge")] - c[index_of("log_ai_over_ridge")], std::log10(2.0), 1e-5);
}

TEST(LearnEfficiency, TimerFloorRoundTrip) {
  EXPECT_NEAR(with_timer_floor(30e-6, 40e-6), 50e-6, 1e-12);
  EXPECT_NEAR(body_behind_floor(130e-6, 50e-6), 120e-6, 1e-12);
  EXPECT_EQ(body_behind_floor(79e-6, 40e-6), 0.0);  // under twice the floor: not identifiable
  EXPECT_NEAR(body_behind_floor(80e-6, 40e-6), std::sqrt(3.0) * 40e-6, 1e-12);
  EXPECT_DOUBLE_EQ(body_behind_floor(44e-6, 0), 44e-6);
  EXPECT_DOUBLE_EQ(with_timer_floor(44e-6, 0), 44e-6);
}

TEST(LearnEfficiency, TimerFloorsComeFromTinyKernelsOnly) {
  std::vector<KernelSample> v;
  const GpuSpec g = gpu("g", 80, 14, 900);
  for (int i = 0; i < 100; ++i) {
    KernelSample s;
    s.gpu = g;
    s.source = "neusight";
    s.kernel = relu_kernel(1000 + i);  // roofline ~ 10 ns: the measurement is the floor
    s.measured_s = 30e-6 + i * 1e-8;
    v.push_back(s);
    KernelSample big = s;
    big.kernel = relu_kernel(1e8);  // roofline 0.9 ms: not a floor probe
    big.measured_s = 1e-3;
    v.push_back(big);
    KernelSample other = s;
    other.source = "deepbench";  // no floor in its labels
    v.push_back(other);
  }
  const auto f = timer_floors_per_gpu(v);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(f.at("neusight").at("g").at("Relu"), 30e-6, 0.05e-6);
  EXPECT_NEAR(f.at("neusight").at("g").at("*"), 30e-6, 0.05e-6);
  EXPECT_EQ(floor_op("Conv+Relu"), "Conv");
  EXPECT_EQ(floor_op("Conv.bwd_data"), "Conv");
}

// `x + 2.0` wraps the number into a tensor on the host: NeuSight's tensor-scalar ops sit 4-8 us above the same op on
// two tensors on every machine, so they keep a floor of their own, and a bundle prices each with its own.
TEST(LearnEfficiency, AnOpWithAScalarOperandHasAFloorOfItsOwn) {
  KernelEstimate two = relu_kernel(1000);
  two.op = "Add";
  KernelEstimate scalar = two;
  scalar.attrs = {{"elements", 1000}, {"scalar_operand", 1}};
  EXPECT_EQ(floor_key(two), "Add");
  EXPECT_EQ(floor_key(scalar), "Add:scalar");
  KernelEstimate fused = scalar;
  fused.op = "Add.bwd";
  EXPECT_EQ(floor_key(fused), "Add:scalar");
  scalar.attrs[1].second = 0;
  EXPECT_EQ(floor_key(scalar), "Add");
  scalar.attrs[1].second = 1;

  // Two machines dispatch at the software's own floor, two add 10 and 20 us of a slower host.
  std::vector<KernelSample> v;
  for (const char* id : {"a", "b", "c", "d"}) {
    const double host = id[0] == 'c' ? 10e-6 : id[0] == 'd' ? 20e-6 : 0.0;
    for (int i = 0; i < 40; ++i) {
      KernelSample s;
      s.gpu = gpu(id, 80, 14, 900);
      s.source = "neusight";
      s.kernel = two;
      s.measured_s = 26e-6 + host;
      v.push_back(s);
      s.kernel = scalar;
      s.measured_s = 31e-6 + host;
      v.push_back(s);
    }
  }
  const auto f = timer_floors_per_gpu(v).at("neusight");
  EXPECT_NEAR(f.at("a").at("Add"), 26e-6, 1e-9);
  EXPECT_NEAR(f.at("c").at("Add:scalar"), 41e-6, 1e-9);

  // An unseen GPU's floor: the quantile of the training GPUs' that best predicts each of them from the others,
  // here the fastest (the median, 31 / 36 us, would sit between the slow hosts).
  std::vector<KernelSample> train = v;
  for (auto& s : gemm_samples({gpu("a", 80, 14, 900), gpu("b", 80, 14, 900)}, 50, 1)) train.push_back(s);
  const Bundle b = train_bundle(train);
  EXPECT_EQ(b.params["unseen_timer_floor"]["neusight"]["quantile"].get<double>(), 0.0);
  const LearnedModel m(b);
  KernelSample probe = v[1];
  EXPECT_NEAR(m.timer_floor_s(probe), 31e-6, 1e-9);
  probe.kernel = two;
  EXPECT_NEAR(m.timer_floor_s(probe), 26e-6, 1e-9);
}

// An op with no tiny rows (NeuSight's convolutions) takes the time of its fastest calls as its floor where those
// are mostly floor; where even its fastest calls are mostly kernel it has none, and "*" stays the tiny rows'.
TEST(LearnEfficiency, AnOpWithoutTinyRowsTakesItsFastestCallsAsItsFloorWhereTheyAreMostlyFloor) {
  std::vector<KernelSample> v;
  const GpuSpec g = gpu("g", 80, 14, 900);
  for (int i = 0; i < 2000; ++i) {
    KernelSample tiny;
    tiny.gpu = g;
    tiny.source = "neusight";
    tiny.kernel = relu_kernel(1000 + i);
    tiny.measured_s = 30e-6;
    if (i < 100) v.push_back(tiny);
    KernelSample conv = tiny;
    conv.kernel = relu_kernel(1e6);  // roofline ~9 us
    conv.kernel.op = "Conv";
    conv.measured_s = 200e-6 + i * 1e-6;  // 200 us and up: mostly floor
    v.push_back(conv);
    KernelSample gemm = tiny;
    gemm.kernel = relu_kernel(1e8);  // roofline ~0.9 ms
    gemm.kernel.op = "MatMul";
    gemm.measured_s = 1e-3 + i * 1e-6;  // mostly kernel
    v.push_back(gemm);
  }
  const auto f = timer_floors_per_gpu(v).at("neusight").at("g");
  EXPECT_NEAR(f.at("Conv"), 239e-6, 1e-6);  // the 40th fastest of 2,000 calls
  EXPECT_EQ(f.count("MatMul"), 0u);
  EXPECT_NEAR(f.at("*"), 30e-6, 0.05e-6);
}

TEST(LearnEfficiency, PredictionsNeverBeatTheRooflineAndShrinkOutsideTheTrainingRange) {
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900), gpu("c", 108, 19.5, 1555)};
  auto train = gemm_samples(gpus, 900, 1);
  // Labels faster than the roofline are clamped to efficiency 1 in training.
  for (size_t i = 0; i < train.size(); i += 7) train[i].measured_s *= 0.2;
  TrainOptions o;
  o.kernel_target = KernelTarget::efficiency;
  o.rounds = 60;
  o.nthread = 1;
  Bundle b;
  b.name = "eff";
  train_efficiency_models(train, o, b);
  EXPECT_EQ(b.kernel_target, k_efficiency_target);
  ASSERT_TRUE(b.kernel_models.count("gemm"));
  EXPECT_GT(b.params["label_corrections"]["rows_faster_than_roofline_clamped_to_1"].get<int>(), 0);
  const LearnedModel m(b);
  const GpuSpec unseen = gpu("unseen", 132, 51, 3350);
  for (double waves : {0.2, 1.0, 7.0, 40.0}) {
    KernelEstimate k = gemm_kernel(1024, 1024, 512, waves, 0.9);
    k.time_s = 1e-9;  // an analytical time faster than the hardware: the learned one is still bounded
    const Roofline r = kernel_roofline(k, unseen, PredictOptions{});
    const double t = k.time_s * std::exp(m.kernel_log_ratios({k}, unseen, PredictOptions{})[0]);
    EXPECT_GE(t, std::max(r.time_s, k.launch_s) * (1 - 1e-9)) << waves;
  }
  // Far outside the training range (1e6 waves, three decades of work per SM above): the analytical time.
  KernelEstimate far = gemm_kernel(1 << 20, 1 << 20, 4096, 1e6, 1);
  far.time_s = 1.3 * kernel_roofline(far, unseen, PredictOptions{}).time_s;
  EXPECT_NEAR(m.kernel_log_ratios({far}, unseen, PredictOptions{})[0], 0.0, 1e-9);
}

TEST(LearnEfficiency, RangeWeightFallsLinearlyOverOneDecade) {
  const FeatureRanges ranges = {{"log_waves", {0.0, 1.0}}, {"log_ws_over_l2", {-2.0, 2.0}}};
  std::vector<float> v(efficiency_feature_names().size(), std::nanf(""));
  EXPECT_DOUBLE_EQ(range_weight(ranges, v.data()), 1.0);  // missing values are not out of range
  v[index_of("log_waves")] = 0.5f;
  v[index_of("log_ws_over_l2")] = 2.0f;
  EXPECT_DOUBLE_EQ(range_weight(ranges, v.data()), 1.0);
  v[index_of("log_waves")] = 1.5f;
  EXPECT_NEAR(range_weight(ranges, v.data()), 0.5, 1e-6);
  v[index_of("log_ws_over_l2")] = -2.75f;  // the worst feature decides
  EXPECT_NEAR(range_weight(ranges, v.data()), 0.25, 1e-6);
  v[index_of("log_waves")] = 4.0f;
  EXPECT_DOUBLE_EQ(range_weight(ranges, v.data()), 0.0);
  // Weight 0: the analytical time (unless it beats the roofline); weight 1: roofline / efficiency.
  const auto k = gemm_kernel(1024, 1024, 512, 3, 1);
  const Roofline r = kernel_roofline(k, gpu("a", 80, 14, 900), PredictOptions{});
  EXPECT_DOUBLE_EQ(efficiency_time_s(k, r, std::log(0.5), 0.0), k.time_s);
  EXPECT_NEAR(efficiency_time_s(k, r, std::log(0.5), 1.0), r.time_s / 0.5, 1e-15);
  EXPECT_NEAR(efficiency_time_s(k, r, std::log(0.5), 0.5), std::sqrt(k.time_s * r.time_s / 0.5), 1e-12);
  EXPECT_NEAR(efficiency_time_s(k, r, 3.0, 1.0), r.time_s, 1e-15);  // efficiency above 1 is clamped
}

TEST(LearnEfficiency, UnseenPrecisionOrTensorPathKeepsTheAnalyticalTime) {
  // Trained on FP32 SIMT kernels only: an FP16 tensor-core kernel is outside what the boosters know.
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900)};
  TrainOptions o;
  o.kernel_target = KernelTarget::efficiency;
  o.rounds = 30;
  o.nthread = 1;
  Bundle b;
  b.name = "fp32";
  train_efficiency_models(gemm_samples(gpus, 300, 6), o, b);
  const LearnedModel m(b);
  GpuSpec tc = gpus[1];
  tc.tensor_cores = 640;
  tc.tensor_fp16_tflops = 112;
  KernelEstimate k = gemm_kernel(1024, 1024, 512, 3, 1);
  PredictOptions fp16;
  fp16.precision = Precision::fp16;
  k.time_s = 2 * kernel_roofline(k, tc, fp16).time_s;
  EXPECT_NEAR(m.kernel_log_ratios({k}, tc, fp16)[0], 0.0, 1e-9);
  k.time_s = 2 * kernel_roofline(k, tc, PredictOptions{}).time_s;
  EXPECT_GT(std::abs(m.kernel_log_ratios({k}, tc, PredictOptions{})[0]), 1e-3);  // FP32: learned
}

TEST(LearnEfficiency, SizeFeaturesSaturate) {
  // Past 100 waves or 100x the launch floor a kernel is simply large: the slowest training GPU, the
  // only one with such values, must not decide the efficiency of every large kernel elsewhere.
  const GpuSpec g = gpu("a", 80, 14, 900);
  const auto big = features(gemm_kernel(1 << 16, 1 << 16, 1 << 14, 5000, 1), g);
  EXPECT_FLOAT_EQ(big[index_of("log_waves")], 2.0f);
  EXPECT_FLOAT_EQ(big[index_of("log_roofline_over_launch")], 2.0f);
  EXPECT_FLOAT_EQ(big[index_of("log_work_per_sm")], 9.0f);
}

TEST(LearnEfficiency, EfficiencyNeverFallsAsWavesGrow) {
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900)};
  auto train = gemm_samples(gpus, 800, 2);
  // Anti-physical noise: some many-wave rows made slower than few-wave ones.
  for (size_t i = 0; i < train.size(); i += 3)
    if (train[i].kernel.waves > 30) train[i].measured_s *= 4;
  TrainOptions o;
  o.kernel_target = KernelTarget::efficiency;
  o.rounds = 60;
  o.nthread = 1;
  Bundle b;
  b.name = "mono";
  train_efficiency_models(train, o, b);
  const LearnedModel m(b);
  double last_eff = 0;
  for (double lw = -0.9; lw <= 1.9; lw += 0.1) {
    const KernelEstimate k = gemm_kernel(1024, 1024, 512, std::pow(10.0, lw), 0.8);
    const Roofline r = kernel_roofline(k, gpus[0], PredictOptions{});
    const double t = k.time_s * std::exp(m.kernel_log_ratios({k}, gpus[0], PredictOptions{})[0]);
    const double eff = r.time_s / t;
    EXPECT_GE(eff, last_eff * (1 - 1e-6)) << "waves 10^" << lw;
    last_eff = eff;
  }
}

TEST(LearnEfficiency, RoundsAreChosenLeavingOneGpuOut) {
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900), gpu("c", 108, 19.5, 1555)};
  TrainOptions o;
  o.kernel_target = KernelTarget::efficiency;
  o.rounds = 80;
  o.early_stopping_every = 20;
  o.nthread = 1;
  Bundle b;
  b.name = "logo";
  train_efficiency_models(gemm_samples(gpus, 600, 3), o, b);
  const auto& es = b.params["early_stopping"]["gemm"];
  EXPECT_EQ(es["folds"].size(), 3u);
  const int rounds = es["rounds"].get<int>();
  EXPECT_EQ(rounds % 20, 0);
  EXPECT_GE(rounds, 20);
  EXPECT_LE(rounds, 80);
  EXPECT_LE(es["logo_rmse_log_efficiency"].get<double>(), es["rmse_at_max_rounds"].get<double>());

  Bundle one;  // one GPU: nothing to leave out, the given rounds are used
  one.name = "one";
  train_efficiency_models(gemm_samples({gpus[0]}, 200, 4), o, one);
  EXPECT_EQ(one.params["early_stopping"]["gemm"]["rounds"].get<int>(), 80);
  EXPECT_TRUE(one.params["early_stopping"]["gemm"]["folds"].empty());
}

TEST(LearnEfficiency, BundleKeepsTargetRangesAndFloors) {
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900)};
  auto train = gemm_samples(gpus, 300, 5);
  for (int i = 0; i < 40; ++i) {  // a floored source
    KernelSample s;
    s.gpu = gpus[i % 2];
    s.source = "neusight";
    s.kernel = relu_kernel(1000 + i);
    s.measured_s = 25e-6;
    train.push_back(s);
  }
  TrainOptions o;
  o.kernel_target = KernelTarget::efficiency;
  o.rounds = 20;
  o.nthread = 1;
  Bundle b;
  b.name = "rt";
  train_efficiency_models(train, o, b);
  EXPECT_NEAR(b.timer_floors.at("neusight").at("Relu"), 25e-6, 1e-12);
  EXPECT_EQ(b.params["label_corrections"]["rows_at_timer_floor_dropped"].get<int>(), 40);
  const auto path = std::filesystem::temp_directory_path() / "perfpred_test_eff_bundle.json";
  save_bundle(b, path);
  const Bundle c = load_bundle(path);
  EXPECT_EQ(c.kernel_target, k_efficiency_target);
  EXPECT_EQ(c.kernel_ranges.at("gemm").at("log_waves"), b.kernel_ranges.at("gemm").at("log_waves"));
  EXPECT_DOUBLE_EQ(c.timer_floors.at("neusight").at("Relu"), 25e-6);

  // Evaluation on a floored source's rows adds the floor back; predict does not.
  const LearnedModel m(c);
  KernelSample s = train.front();  // a GEMM; its op has no floor of its own, so the median op floor ("*")
  s.source = "neusight";
  const double eval_t = s.kernel.time_s * std::exp(m.sample_log_ratios({s})[0]);
  const double predict_t = s.kernel.time_s * std::exp(m.kernel_log_ratios({s.kernel}, s.gpu, s.opts)[0]);
  EXPECT_NEAR(eval_t, with_timer_floor(predict_t, 25e-6), 1e-12);

  auto j = to_json(b);
  j["kernel_target"] = "speed";
  EXPECT_THROW(bundle_from_json(j, "x.json"), InputError);
  j = to_json(b);
  j["timer_floors"]["neusight"]["Relu"] = "fast";
  EXPECT_THROW(bundle_from_json(j, "x.json"), InputError);
  j = to_json(b);
  j["kernel_features"] = kernel_feature_names();  // an efficiency bundle with the ratio features
  EXPECT_THROW(bundle_from_json(j, "x.json"), InputError);
  std::filesystem::remove(path);
}

TEST(LearnEfficiency, RooflineMathRunsAtTheSustainedClock) {
  // A power-limited Turing card (T4: 70 W for 8.1 TFLOPS): math at (8.64 / 18.59)^(1/3) = 0.775 of boost,
  // the analytical model's sustained_clock_scale(); DRAM bandwidth unchanged.
  GpuSpec limited = gpu("t4-like", 40, 8.1, 320);
  limited.compute_capability = "7.5";
  limited.segment = "datacenter";
  limited.tdp_w = 70;
  GpuSpec full = limited;
  full.tdp_w = 280;
  const auto k = gemm_kernel(4096, 4096, 4096, 10, 1);
  const Roofline rl = kernel_roofline(k, limited, PredictOptions{});
  const Roofline rf = kernel_roofline(k, full, PredictOptions{});
  EXPECT_NEAR(rl.clock_scale, std::cbrt((70 / 8.1) / (250 / 13.45)), 1e-12);
  EXPECT_DOUBLE_EQ(rf.clock_scale, 1.0);
  EXPECT_NEAR(rl.peak_flops, rf.peak_flops * rl.clock_scale, 1e3);
  EXPECT_NEAR(rl.compute_s * rl.clock_scale, rf.compute_s, 1e-12);
  EXPECT_DOUBLE_EQ(rl.memory_s, rf.memory_s);
  const auto e = relu_kernel(1e8);  // memory-bound: the same on both
  EXPECT_DOUBLE_EQ(kernel_roofline(e, limited, PredictOptions{}).time_s, kernel_roofline(e, full, PredictOptions{}).time_s);
}

namespace {
// GEMM samples of gemm_samples() with each one's precision or runtime set by `set(i, sample)`.
template <class Set>
std::vector<KernelSample> samples_with(const std::vector<GpuSpec>& gpus, size_t n, unsigned seed, Set set) {
  auto v = gemm_samples(gpus, n, seed);
  for (size_t i = 0; i < v.size(); ++i) {
    set(i, v[i]);
    v[i].measured_s = kernel_roofline(v[i].kernel, v[i].gpu, v[i].opts).time_s /
                      (0.3 + 0.5 * std::min(1.0, std::log10(v[i].kernel.waves) / 2 + 0.5));
  }
  return v;
}

}  // namespace

TEST(LearnEfficiency, KernelBlendWeighsTheBoosterAgainstTheAnalyticalTime) {
  // time = learned^w x analytical^(1-w) in log space: the bundle's weight per booster (default
  // k_default_kernel_blend, --kernel-blend in training), 1 for a bundle written before the field.
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900)};
  const auto train = gemm_samples(gpus, 300, 7);
  const Bundle b = train_bundle(train);
  EXPECT_DOUBLE_EQ(b.kernel_blend.at("gemm"), k_default_kernel_blend);
  const Bundle full = train_bundle(train, 1.0);
  EXPECT_DOUBLE_EQ(full.kernel_blend.at("gemm"), 1.0);
  KernelEstimate k = gemm_kernel(1024, 1024, 512, 3.0, 0.9);
  k.time_s = 2 * kernel_roofline(k, gpus[1], PredictOptions{}).time_s;
  const double r1 = LearnedModel(full).kernel_log_ratios({k}, gpus[1], PredictOptions{})[0];
  ASSERT_GT(std::abs(r1), 1e-3);
  EXPECT_NEAR(LearnedModel(b).kernel_log_ratios({k}, gpus[1], PredictOptions{})[0], k_default_kernel_blend * r1, 1e-9);
  Bundle none = full;
  none.kernel_blend["gemm"] = 0;
  EXPECT_NEAR(LearnedModel(none).kernel_log_ratios({k}, gpus[1], PredictOptions{})[0], 0.0, 1e-12);
  Bundle old = full;
  old.kernel_blend.clear();  // a bundle from before the field
  EXPECT_NEAR(LearnedModel(old).kernel_log_ratios({k}, gpus[1], PredictOptions{})[0], r1, 1e-12);
  // The weight survives the bundle file; a weight outside [0, 1] or not a number is refused.
  auto j = to_json(b);
  EXPECT_DOUBLE_EQ(bundle_from_json(j, "x.json").kernel_blend.at("gemm"), k_default_kernel_blend);
  j["kernel_blend"]["gemm"] = 1.5;
  EXPECT_THROW(bundle_from_json(j, "x.json"), InputError);
  j["kernel_blend"]["gemm"] = "half";
  EXPECT_THROW(bundle_from_json(j, "x.json"), InputError);
  j["kernel_blend"] = 0.3;
  EXPECT_THROW(bundle_from_json(j, "x.json"), InputError);
}

TEST(LearnEfficiency, ACodeBetweenSeenCodesKeepsTheAnalyticalTime) {
  // Trained on FP32 and INT8 kernels only (precision codes 0 and 4): FP16 (2) lies inside their range but
  // no training row had it, so its kernels keep the analytical time.
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900)};
  const Bundle b = train_bundle(samples_with(gpus, 400, 8, [](size_t i, KernelSample& s) {
    s.opts.precision = i % 2 ? Precision::int8 : Precision::fp32;
  }));
  EXPECT_EQ(b.kernel_codes.at("gemm").at("precision_code"), (std::vector<double>{0, 4}));
  const LearnedModel m(b);
  KernelEstimate k = gemm_kernel(1024, 1024, 512, 3, 1);
  PredictOptions fp16, fp32;
  fp16.precision = Precision::fp16;
  k.time_s = 2 * kernel_roofline(k, gpus[1], fp16).time_s;
  EXPECT_NEAR(m.kernel_log_ratios({k}, gpus[1], fp16)[0], 0.0, 1e-9);
  k.time_s = 2 * kernel_roofline(k, gpus[1], fp32).time_s;
  EXPECT_GT(std::abs(m.kernel_log_ratios({k}, gpus[1], fp32)[0]), 1e-3);  // a seen code: learned

  // The seen codes survive a save and load; a bundle without them (feature_version 3) has ranges only.
  const auto path = std::filesystem::temp_directory_path() / "perfpred_test_eff_codes.json";
  save_bundle(b, path);
  const Bundle c = load_bundle(path);
  EXPECT_EQ(c.kernel_codes, b.kernel_codes);
  std::filesystem::remove(path);
  std::vector<float> v(efficiency_feature_names().size(), std::nanf(""));
  v[index_of("precision_code")] = 2;
  const FeatureRanges range = {{"precision_code", {0, 4}}};
  EXPECT_DOUBLE_EQ(range_weight(range, v.data()), 1.0);
  EXPECT_DOUBLE_EQ(range_weight(range, v.data(), {{"precision_code", {0, 4}}}), 0.0);
}

TEST(LearnEfficiency, PyTorchAndCudnnKernelsShareTheLibraryTensorRtDoesNot) {
  // A PyTorch convolution or GEMM runs the cuDNN/cuBLAS kernel a bare cuDNN call runs: boosters trained on
  // cuDNN rows (DeepBench) predict it. TensorRT's own tactics are something no training row had.
  EXPECT_EQ(runtime_library_code(Runtime::pytorch), runtime_library_code(Runtime::cudnn));
  EXPECT_EQ(runtime_library_code(Runtime::onnxruntime), runtime_library_code(Runtime::cudnn));
  EXPECT_NE(runtime_library_code(Runtime::tensorrt), runtime_library_code(Runtime::cudnn));
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900)};
  const Bundle b = train_bundle(samples_with(gpus, 300, 9, [](size_t, KernelSample& s) {
    s.opts.runtime = Runtime::cudnn;
  }));
  const LearnedModel m(b);
  KernelEstimate k = gemm_kernel(1024, 1024, 512, 3, 1);
  k.time_s = 2 * kernel_roofline(k, gpus[1], PredictOptions{}).time_s;
  PredictOptions cudnn, trt;
  cudnn.runtime = Runtime::cudnn;
  trt.runtime = Runtime::tensorrt;
  const double torch = m.kernel_log_ratios({k}, gpus[1], PredictOptions{})[0];
  EXPECT_GT(std::abs(torch), 1e-3);
  EXPECT_DOUBLE_EQ(torch, m.kernel_log_ratios({k}, gpus[1], cudnn)[0]);
  EXPECT_NEAR(m.kernel_log_ratios({k}, gpus[1], trt)[0], 0.0, 1e-9);

  // A feature_version 3 bundle predicts as it was trained: its runtime_code was the raw runtime enum
  // (cuDNN 3), so a PyTorch kernel (0) stays outside what it saw.
  Bundle legacy = b;
  legacy.feature_version = 3;
  legacy.kernel_codes.clear();
  for (auto& [fam, r] : legacy.kernel_ranges) r["runtime_code"] = {3, 3};
  const auto path = std::filesystem::temp_directory_path() / "perfpred_test_eff_v3.json";
  save_bundle(legacy, path);
  const LearnedModel lm(load_bundle(path));
  std::filesystem::remove(path);
  EXPECT_NEAR(lm.kernel_log_ratios({k}, gpus[1], PredictOptions{})[0], 0.0, 1e-9);
}

TEST(LearnEfficiency, NeuSightConvolutionsDoNotTrain) {
  // NeuSight's random-shape convolutions run at about half the efficiency of network-shaped ones on the same
  // GPUs: they train no booster (neither the conv booster nor the fallback) and are counted.
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900)};
  auto train = gemm_samples(gpus, 200, 10);
  const size_t n_conv = 60;
  for (size_t i = 0; i < n_conv; ++i) {
    KernelSample s;
    s.gpu = gpus[i % 2];
    s.source = "neusight";
    s.kernel = gemm_kernel(50176, 256, 2304, 20, 1);
    s.kernel.family = OpFamily::conv;
    s.kernel.op = "Conv";
    s.kernel.attrs = {{"kernel_h", 3}, {"kernel_w", 3}, {"groups", 1}, {"in_channels", 256}};
    s.measured_s = 3 * kernel_roofline(s.kernel, s.gpu, s.opts, false).time_s;
    train.push_back(s);
  }
  EXPECT_FALSE(source_settings("neusight").trains_conv);
  EXPECT_TRUE(source_settings("deepbench").trains_conv);
  const Bundle b = train_bundle(train);
  EXPECT_FALSE(b.kernel_models.count("conv"));
  EXPECT_EQ(b.params["label_corrections"]["rows_excluded_by_source"].get<size_t>(), n_conv);
  EXPECT_EQ(b.kernel_models.at("gemm").train_rows, 200u);
  // The same rows from a source whose convolutions do train make a conv booster.
  for (auto& s : train) if (s.kernel.family == OpFamily::conv) s.source = "deepbench";
  EXPECT_TRUE(train_bundle(train).kernel_models.count("conv"));
}

namespace {
KernelEstimate norm_kernel(const std::string& op, double elements) {
  KernelEstimate e;
  e.family = OpFamily::norm;
  e.op = op;
  e.flops = 8 * elements;
  e.bytes = 8 * elements;
  e.launch_s = 2.5e-6;
  e.time_s = 1e-4;
  return e;
}
}  // namespace

TEST(LearnEfficiency, AnOpItsFamilysBoosterNeverSawKeepsTheAnalyticalTime) {
  // The norm booster learned from LayerNorm rows only (NeuSight has no BatchNorm): a BatchNorm kernel, whose
  // features are otherwise inside what the booster saw, keeps the analytical time, and so does an op of a
  // family served by the fallback booster that no training row had.
  const std::vector<GpuSpec> gpus = {gpu("a", 40, 8, 320), gpu("b", 80, 14, 900)};
  std::vector<KernelSample> train;
  for (size_t i = 0; i < 300; ++i) {
    KernelSample s;
    s.gpu = gpus[i % 2];
    s.kernel = norm_kernel("LayerNormalization", 1e5 * (1 + static_cast<double>(i % 50)));
    s.measured_s = kernel_roofline(s.kernel, s.gpu, s.opts).time_s / (0.3 + 0.01 * static_cast<double>(i % 50));
    s.source = "synthetic";
    train.push_back(s);
  }
  for (auto& s : gemm_samples(gpus, 200, 3)) train.push_back(s);  // a second family: a fallback booster trains
  const Bundle b = train_bundle(train);
  ASSERT_TRUE(b.kernel_models.count("norm"));
  ASSERT_TRUE(b.kernel_models.count(k_fallback_family));
  EXPECT_EQ(b.kernel_codes.at("norm").at("op_code"),
            (std::vector<double>{static_cast<double>(op_code("LayerNormalization"))}));
  const LearnedModel m(b);
  std::vector<KernelEstimate> ks = {norm_kernel("LayerNormalization", 2e6), norm_kernel("BatchNormalization", 2e6),
                                    relu_kernel(2e6)};
  for (auto& k : ks) k.time_s = 5 * kernel_roofline(k, gpus[1], PredictOptions{}).time_s;  // learned: 1.2-3.3x
  std::vector<double> w;
  const auto r = m.kernel_log_ratios(ks, gpus[1], PredictOptions{}, &w);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_GT(std::abs(r[0]), 1e-3);  // the op it trained on: learned, at the bundle's blend weight
  EXPECT_DOUBLE_EQ(w[0], k_default_kernel_blend);
  EXPECT_NEAR(r[1], 0.0, 1e-9);     // BatchNorm: analytical
  EXPECT_DOUBLE_EQ(w[1], 0.0);
  EXPECT_NEAR(r[2], 0.0, 1e-9);     // Relu, through the fallback: analytical
  EXPECT_DOUBLE_EQ(w[2], 0.0);

  // A bundle that recorded no op codes (trained before the op check) corrects BatchNorm as before.
  Bundle old = b;
  for (auto& [fam, c] : old.kernel_codes) c.erase("op_code");
  const LearnedModel mo(old);
  const auto ro = mo.kernel_log_ratios(ks, gpus[1], PredictOptions{});
  EXPECT_GT(std::abs(ro[1]), 1e-3);
  EXPECT_GT(std::abs(ro[2]), 1e-3);
}
