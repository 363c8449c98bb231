// fit_host_factor: the host factor at which a prediction matches one measured latency, and the
// monotonicity in the host factor it relies on.
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

}  // namespace
}  // namespace perfpred
