// Training on a synthetic data set generated from a known function recovers it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/metrics.hpp"
#include "perfpred/learn/model.hpp"
#include "perfpred/learn/features.hpp"
#include "perfpred/learn/train.hpp"
#include "perfpred/util/error.hpp"
#include "synthetic_gpu.hpp"

using namespace perfpred;
using namespace perfpred::learn;

namespace {

using test_support::synthetic_gpu;

// The "true" correction the model must learn: depends on the GEMM shape, the family and the GPU.
double true_log_ratio(const KernelEstimate& k, const GpuSpec& g) {
  double r = -0.25 * static_cast<double>(g.sm_count) / 80.0;
  if (k.family == OpFamily::gemm) r += 0.35 * std::log10(static_cast<double>(k.gemm->m)) - 0.5;
  if (k.family == OpFamily::elementwise) r += 0.4;
  return r;
}

std::vector<KernelSample> make_samples(const std::vector<int>& sms, size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dim(16, 4096);
  std::vector<KernelSample> out;
  for (size_t i = 0; i < n; ++i) {
    KernelSample s;
    s.gpu = synthetic_gpu(sms[i % sms.size()]);
    auto& k = s.kernel;
    if (i % 2 == 0) {
      k.family = OpFamily::gemm;
      k.op = "MatMul";
      k.gemm = GemmShape{1, dim(rng), dim(rng), dim(rng)};
      k.flops = 2.0 * k.gemm->m * k.gemm->n * k.gemm->k;
      k.bytes = 4.0 * (k.gemm->m * k.gemm->k + k.gemm->k * k.gemm->n + k.gemm->m * k.gemm->n);
    } else {
      k.family = OpFamily::elementwise;
      k.op = "Relu";
      k.flops = dim(rng) * 256.0;
      k.bytes = 8 * k.flops;
    }
    k.compute_s = k.flops / (s.gpu.fp32_tflops * 1e12);
    k.memory_s = k.bytes / (s.gpu.mem_bandwidth_gbps * 1e9);
    k.launch_s = 4e-6;
    k.time_s = std::max(k.compute_s, k.memory_s) + k.launch_s;
    s.measured_s = k.time_s * std::exp(true_log_ratio(k, s.gpu));
    out.push_back(std::move(s));
  }
  return out;
}

double held_out_mean_ape(const LearnedModel& m, const std::vector<KernelSample>& test) {
  std::vector<double> pred, meas;
  for (const auto& s : test) {
    const double r = m.kernel_log_ratios({s.kernel}, s.gpu, s.opts)[0];
    pred.push_back(s.kernel.time_s * std::exp(r));
    meas.push_back(s.measured_s);
  }
  return summarize(pred, meas).mean_ape;
}

}  // namespace

TEST(LearnTrain, RecoversKnownFunction) {
  const auto train = make_samples({40, 60, 100}, 3000, 1);
  const auto test_seen = make_samples({40, 60, 100}, 400, 2);
  const auto test_unseen = make_samples({80}, 400, 3);  // between seen GPUs

  TrainOptions o;
  o.nthread = 1;  // tests run in parallel: no OpenMP team spinning on a busy machine
  o.rounds = 150;
  o.max_depth = 6;
  o.eta = 0.15;
  Bundle b;
  b.name = "synthetic";
  train_kernel_models(train, o, b);
  ASSERT_TRUE(b.kernel_models.count("gemm"));
  ASSERT_TRUE(b.kernel_models.count("elementwise"));
  ASSERT_TRUE(b.kernel_models.count(k_fallback_family));

  LearnedModel m(b);
  // Without correction the error is large: the true factors range over exp(-0.3..+0.9).
  double analytical = 0;
  for (const auto& s : test_seen) analytical += ape(s.kernel.time_s, s.measured_s);
  analytical /= static_cast<double>(test_seen.size());
  EXPECT_GT(analytical, 20.0);
  EXPECT_LT(held_out_mean_ape(m, test_seen), 3.0);
  EXPECT_LT(held_out_mean_ape(m, test_unseen), 8.0);
}

TEST(LearnTrain, DeterministicAndBatchEqualsSingle) {
  const auto train = make_samples({40, 100}, 600, 4);
  TrainOptions o;
  o.nthread = 1;  // tests run in parallel: no OpenMP team spinning on a busy machine
  o.rounds = 30;

  Bundle a, b;
  a.name = b.name = "det";
  train_kernel_models(train, o, a);
  train_kernel_models(train, o, b);
  EXPECT_EQ(a.kernel_models.at("gemm").ubj, b.kernel_models.at("gemm").ubj);

  LearnedModel m(a);
  BundleCorrector c(std::make_shared<LearnedModel>(std::move(a)));
  std::vector<KernelEstimate> ks;
  for (size_t i = 0; i < 10; ++i) ks.push_back(train[i].kernel);
  std::vector<double> batch;
  c.factors(ks, train[0].gpu, PredictOptions{}, batch);
  ASSERT_EQ(batch.size(), ks.size());
  for (size_t i = 0; i < ks.size(); ++i) EXPECT_NEAR(batch[i], c.factor(ks[i], train[0].gpu, PredictOptions{}), 1e-9);
  // A view kernel (no booster family) is left alone.
  KernelEstimate view;
  view.family = OpFamily::view;
  view.time_s = 1e-6;
  EXPECT_EQ(c.factor(view, train[0].gpu, PredictOptions{}), 1.0);
  EXPECT_EQ(c.label(), "det");
}

TEST(LearnTrain, DroppedFeaturesAreNeverSplitOn) {
  // The truth depends on the GPU; with every gpu_* feature dropped the booster cannot see which GPU a row
  // came from, so two GPUs with identical kernel features get identical corrections.
  auto train = make_samples({40, 40, 100, 100}, 800, 6);  // both families on both GPUs
  // Kernel terms computed on one reference GPU, so only the gpu_* features tell the two GPUs apart.
  const GpuSpec ref = synthetic_gpu(70);
  for (auto& s : train) {
    auto& k = s.kernel;
    k.compute_s = k.flops / (ref.fp32_tflops * 1e12);
    k.memory_s = k.bytes / (ref.mem_bandwidth_gbps * 1e9);
    k.time_s = std::max(k.compute_s, k.memory_s) + k.launch_s;
    s.measured_s = k.time_s * std::exp(true_log_ratio(k, s.gpu));
  }
  TrainOptions o;
  o.nthread = 1;
  o.rounds = 30;
  o.drop_features = {"gpu_*", "opt_log_batch"};
  Bundle b;
  b.name = "drop";
  train_kernel_models(train, o, b);
  LearnedModel m(b);
  KernelEstimate k = train[0].kernel;
  const double r40 = m.kernel_log_ratios({k}, synthetic_gpu(40), PredictOptions{})[0];
  const double r100 = m.kernel_log_ratios({k}, synthetic_gpu(100), PredictOptions{})[0];
  EXPECT_EQ(r40, r100);
  // Without dropping, the GPU matters (the truth differs by 0.19 in log between the two).
  Bundle full;
  o.drop_features.clear();
  train_kernel_models(train, o, full);
  LearnedModel mf(full);
  EXPECT_NE(mf.kernel_log_ratios({k}, synthetic_gpu(40), PredictOptions{})[0],
            mf.kernel_log_ratios({k}, synthetic_gpu(100), PredictOptions{})[0]);

  const auto& names = kernel_feature_names();
  const auto cols = dropped_columns(names, {"gpu_*", "log_flops"});
  EXPECT_EQ(cols.size(), gpu_feature_names().size() + 1);
  for (size_t c : cols) EXPECT_TRUE(names[c] == "log_flops" || names[c].rfind("gpu_", 0) == 0);
  EXPECT_NO_THROW(check_drop_features({"gpu_*", "log_host_s", "log_energy_mj"}));
  EXPECT_THROW(check_drop_features({"gpu_sm_cnt"}), InputError);
  EXPECT_THROW(check_drop_features({"zzz*"}), InputError);
}

TEST(LearnTrain, SmallFamilyUsesFallback) {
  auto train = make_samples({40, 100}, 400, 5);
  // Five pool kernels only: below min_family_rows, so they use the fallback booster.
  for (int i = 0; i < 5; ++i) {
    KernelSample s = train[static_cast<size_t>(i) * 2 + 1];
    s.kernel.family = OpFamily::pool;
    s.kernel.op = "MaxPool";
    train.push_back(s);
  }
  TrainOptions o;
  o.nthread = 1;  // tests run in parallel: no OpenMP team spinning on a busy machine
  o.rounds = 20;
  Bundle b;
  b.name = "fb";
  train_kernel_models(train, o, b);
  EXPECT_FALSE(b.kernel_models.count("pool"));
  LearnedModel m(b);
  EXPECT_NE(m.kernel_log_ratios({train.back().kernel}, train.back().gpu, PredictOptions{})[0], 0.0);
}

TEST(LearnTrain, HostOverheadModel) {
  std::vector<HostSample> hs;
  for (int i = 0; i < 400; ++i) {
    HostSample h;
    h.gpu = synthetic_gpu(i % 2 ? 28 : 68);
    h.opts.batch = 1 << (i % 6);
    h.analytical_host_s = 1e-3 * (1 + i % 17);
    // Truth: older/smaller GPU (host of its era) is 1.8x slower per op.
    h.measured_host_s = h.analytical_host_s * (h.gpu.sm_count == 28 ? 1.8 : 0.9);
    hs.push_back(h);
  }
  TrainOptions o;
  o.nthread = 1;  // tests run in parallel: no OpenMP team spinning on a busy machine
  o.rounds = 60;
  Bundle b;
  b.name = "host";
  train_host_models(hs, o, b);
  ASSERT_TRUE(b.host_models.count("pytorch"));
  LearnedModel m(b);
  EXPECT_TRUE(m.has_host_model(Runtime::pytorch));
  EXPECT_FALSE(m.has_host_model(Runtime::tensorrt));
  PredictOptions po;
  EXPECT_NEAR(m.host_overhead_s(2e-3, synthetic_gpu(28), po) / 2e-3, 1.8, 0.05);
  EXPECT_NEAR(m.host_overhead_s(2e-3, synthetic_gpu(68), po) / 2e-3, 0.9, 0.05);
  po.runtime = Runtime::tensorrt;  // no booster: unchanged
  EXPECT_EQ(m.host_overhead_s(2e-3, synthetic_gpu(68), po), 2e-3);
}

TEST(LearnTrain, HostSampleSubtractsOtherTerms) {
  Prediction p;
  p.latency_ms = 10;
  p.host_overhead_ms = 4;  // kernels + copies = 6 ms
  const auto h = host_sample(p, 0.012, GpuSpec{}, PredictOptions{});
  EXPECT_NEAR(h.measured_host_s, 0.006, 1e-12);
  EXPECT_NEAR(h.analytical_host_s, 0.004, 1e-12);
  const auto floored = host_sample(p, 0.005, GpuSpec{}, PredictOptions{});  // measured below other terms
  EXPECT_NEAR(floored.measured_host_s, 0.0001, 1e-12);
}

TEST(LearnTrain, NetworkTargetModel) {
  // The memory target learns log(measured / analytical) on network_feature_names() (energy: test_learn_energy).
  std::vector<NetworkSample> ns;
  for (int i = 0; i < 300; ++i) {
    NetworkSample s;
    s.gpu = synthetic_gpu(i % 2 ? 40 : 80);
    s.prediction.latency_ms = 1 + i % 23;
    s.prediction.peak_memory_bytes = 1e8 * (1 + i % 13);
    s.measured = s.prediction.peak_memory_bytes * (s.prediction.latency_ms > 10 ? 1.3 : 0.8);
    ns.push_back(s);
  }
  TrainOptions o;
  o.nthread = 1;  // tests run in parallel: no OpenMP team spinning on a busy machine
  o.rounds = 80;
  Bundle b;
  b.name = "memory";
  b.target = Target::memory;
  train_network_model(ns, Target::memory, o, b);
  EXPECT_EQ(b.network_target, "log_ratio");
  LearnedModel m(b);
  Prediction p;
  p.latency_ms = 15;
  p.peak_memory_bytes = 4e8;
  apply_network_target(m, p, synthetic_gpu(40), PredictOptions{});
  EXPECT_NEAR(p.peak_memory_bytes, 5.2e8, 1.6e7);
  EXPECT_EQ(p.model_bundle, "memory");
  EXPECT_FALSE(p.gpu_seen_in_training);
}
