// fit_host_factor / fit_gpu_factor: the host or GPU factor at which a prediction matches one measured latency,
// the monotonicity in either factor they rely on, and what the GPU factor scales.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>  // catalog.hpp holds std::vector<json> and forward-declares json

#include "net_builder.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/predict/host_fit.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred {
namespace {

const GpuCatalog& catalog() {
  static GpuCatalog cat(std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus");
  return cat;
}

TEST(HostFit, InvertsALinearLatency) {
  auto lat = [](double f) { return 0.2 + 0.5 * f; };
  for (double f : {0.1, 0.37, 1.0, 1.7, 4.2, 10.0}) {
    const HostFit r = fit_host_factor(lat, lat(f));
    ASSERT_EQ(r.status, HostFit::Status::fitted) << f;
    EXPECT_NEAR(r.factor, f, 1e-6 * f) << f;
    EXPECT_NEAR(r.latency_ms, lat(f), 1e-6) << f;
    EXPECT_LT(r.evaluations, 60);
  }
}

TEST(HostFit, FlatStartGivesTheSmallestMatchingFactor) {
  // Kernel-bound below F = 2 (the GPU is the bottleneck), host-bound above.
  auto lat = [](double f) { return std::max(1.0, 0.5 * f); };
  HostFit r = fit_host_factor(lat, 1.0);
  ASSERT_EQ(r.status, HostFit::Status::fitted);
  EXPECT_DOUBLE_EQ(r.factor, 0.1);  // 1 ms is matched everywhere up to 2: the floor
  r = fit_host_factor(lat, 3.0);
  ASSERT_EQ(r.status, HostFit::Status::fitted);
  EXPECT_NEAR(r.factor, 6.0, 1e-5);
}

TEST(HostFit, OutOfRangeMeasurementsSayWhich) {
  auto lat = [](double f) { return 0.2 + 0.5 * f; };
  HostFit r = fit_host_factor(lat, 0.1);
  EXPECT_EQ(r.status, HostFit::Status::below);
  EXPECT_DOUBLE_EQ(r.floor_ms, lat(0.1));
  r = fit_host_factor(lat, 100);
  EXPECT_EQ(r.status, HostFit::Status::above);
  EXPECT_DOUBLE_EQ(r.ceiling_ms, lat(10));
  // The ends themselves fit.
  EXPECT_EQ(fit_host_factor(lat, lat(0.1)).status, HostFit::Status::fitted);
  EXPECT_DOUBLE_EQ(fit_host_factor(lat, lat(10)).factor, 10);
  EXPECT_EQ(fit_host_factor([](double f) { return 5 - f * 0.1; }, 4.5).status, HostFit::Status::not_monotone);
}

/// The predictor's latency never falls as the host slows, in any runtime, mode or device class: what the
/// bisection needs. And a prediction at F is fitted back to F.
TEST(HostFit, PredictionIsMonotoneInTheHostFactorAndRoundTrips) {
  for (const char* id : {"a100-sxm4-40gb", "t4", "jetson-orin-nano-8gb"}) {
    const GpuSpec g = catalog().resolve(id);
    for (int64_t batch : {1, 32}) {
      const auto net = test::resnet_like(batch);
      for (Runtime rt : {Runtime::pytorch, Runtime::tensorrt, Runtime::onnxruntime, Runtime::cudnn})
        for (Mode mode : {Mode::inference, Mode::training}) {
          if (mode == Mode::training && rt == Runtime::tensorrt) continue;
          PredictOptions o;
          o.batch = batch;
          o.runtime = rt;
          o.mode = mode;
          auto lat = [&](double f) {
            PredictOptions p = o;
            p.host_factor = f;
            return predict(net.g, net.c, g, p).latency_ms;
          };
          double prev = 0;
          for (double f = 0.1; f <= 10.0001; f *= 1.25) {
            const double l = lat(f);
            EXPECT_GE(l, prev * (1 - 1e-12)) << id << " batch " << batch << " " << to_string(rt) << " " << to_string(mode) << " F " << f;
            prev = l;
          }
          if (batch == 1 && lat(1.7) > lat(1.6) * (1 + 1e-6)) {  // host-bound at 1.7: it can be fitted
            const HostFit r = fit_host_factor(lat, lat(1.7));
            ASSERT_EQ(r.status, HostFit::Status::fitted);
            EXPECT_NEAR(r.factor, 1.7, 1.7e-3) << id << " " << to_string(rt) << " " << to_string(mode);
          }
        }
    }
  }
}

/// --gpu-factor G: every kernel takes G times as long (the layer table and the kernel records too); host costs and
/// copies do not move, and the same work over a longer time draws less power per kernel.
TEST(GpuFactor, ScalesEveryKernelAndNothingElse) {
  const GpuSpec g = catalog().resolve("a100-sxm4-40gb");
  const auto net = test::resnet_like(64);
  PredictOptions o;
  o.batch = 64;
  const Prediction base = predict(net.g, net.c, g, o);
  o.gpu_factor = 1.5;
  const Prediction slow = predict(net.g, net.c, g, o);
  EXPECT_NEAR(slow.kernels_ms, 1.5 * base.kernels_ms, 1e-9 * base.kernels_ms);
  EXPECT_DOUBLE_EQ(slow.h2d_ms, base.h2d_ms);
  EXPECT_DOUBLE_EQ(slow.d2h_ms, base.d2h_ms);
  ASSERT_EQ(slow.kernels.size(), base.kernels.size());
  for (size_t i = 0; i < base.kernels.size(); ++i)
    EXPECT_NEAR(slow.kernels[i].corrected_time_s, 1.5 * base.kernels[i].corrected_time_s, 1e-15) << i;
  double layers = 0;
  for (const auto& l : slow.layers) layers += l.time_ms;
  EXPECT_NEAR(layers, slow.kernels_ms, 1e-6 * slow.kernels_ms);
  // GPU-bound at batch 64: the latency follows; the average power falls (same work, longer kernels).
  EXPECT_GT(slow.latency_ms, 1.4 * base.latency_ms);
  EXPECT_LT(slow.avg_power_w, base.avg_power_w);
  // Host-bound at batch 1 (PyTorch eager dispatch): the latency barely moves.
  PredictOptions b1;
  const Prediction one = predict(test::resnet_like(1).g, test::resnet_like(1).c, g, b1);
  b1.gpu_factor = 1.5;
  const auto net1 = test::resnet_like(1);
  EXPECT_LT(predict(net1.g, net1.c, g, b1).latency_ms, 1.1 * one.latency_ms);
}

/// The latency never falls as the GPU slows, and a prediction at G is fitted back to G where the GPU bounds it.
TEST(GpuFactor, PredictionIsMonotoneInTheGpuFactorAndRoundTrips) {
  int fitted = 0;
  for (const char* id : {"a100-sxm4-40gb", "t4", "jetson-orin-nano-8gb"}) {
    const GpuSpec g = catalog().resolve(id);
    const auto net = test::resnet_like(32);
    for (Mode mode : {Mode::inference, Mode::training}) {
      PredictOptions o;
      o.batch = 32;
      o.mode = mode;
      o.host_factor = 1.3;  // held
      auto lat = [&](double gf) {
        PredictOptions p = o;
        p.gpu_factor = gf;
        return predict(net.g, net.c, g, p).latency_ms;
      };
      double prev = 0;
      for (double gf = k_gpu_factor_min; gf <= k_gpu_factor_max * 1.0001; gf *= 1.25) {
        EXPECT_GE(lat(gf), prev * (1 - 1e-12)) << id << " " << to_string(mode) << " G " << gf;
        prev = lat(gf);
      }
      if (lat(1.4) > lat(1.3) * 1.01) {  // the GPU bounds it at 1.4
        const HostFit r = fit_gpu_factor(lat, lat(1.4));
        ASSERT_EQ(r.status, HostFit::Status::fitted) << id;
        EXPECT_NEAR(r.factor, 1.4, 1.4e-3) << id << " " << to_string(mode);
        ++fitted;
      }
    }
  }
  EXPECT_GE(fitted, 3);  // the GPU bounds batch 32 on most of these
  // Its range is the GPU factor's, not the host's.
  auto line = [](double gf) { return 1 + gf; };
  EXPECT_EQ(fit_gpu_factor(line, line(0.2)).status, HostFit::Status::below);
  EXPECT_EQ(fit_gpu_factor(line, line(5)).status, HostFit::Status::above);
  EXPECT_DOUBLE_EQ(fit_gpu_factor(line, line(4)).factor, 4);
}

}  // namespace
}  // namespace perfpred
