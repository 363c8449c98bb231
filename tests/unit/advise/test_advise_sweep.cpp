#include <gtest/gtest.h>

#include <cstdio>

#include "advise_test_util.hpp"
#include "perfpred/advise/sweep.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::advise;

TEST(SweepAxis, ParsesAndExpands) {
  auto a = parse_sweep_axis("sm_count=40:160:20");
  EXPECT_EQ(a.field, "sm_count");
  EXPECT_EQ(a.values(), (std::vector<double>{40, 60, 80, 100, 120, 140, 160}));
  auto b = parse_sweep_axis("mem_bandwidth_gbps=500:3000:500");
  EXPECT_EQ(b.values().size(), 6u);
  // STOP not on a step: stops below it.
  EXPECT_EQ(parse_sweep_axis("l2_cache_mb=1:10:4").values(), (std::vector<double>{1, 5, 9}));
  // Fractional steps land on STOP despite rounding.
  EXPECT_EQ(parse_sweep_axis("boost_clock_mhz=0.1:0.3:0.1").values().size(), 3u);
  EXPECT_EQ(parse_sweep_axis("tdp_w=300").values(), (std::vector<double>{300}));
}

TEST(SweepAxis, RejectsBadSpecs) {
  for (const char* bad : {"sm_count", "=1:2:1", "warp_size=1:2:1", "sm_count=40:160", "sm_count=40:160:0",
                          "sm_count=160:40:20", "sm_count=0:40:20", "sm_count=-20:40:20", "sm_count=40.5:80:10",
                          "memory_gb=a:b:c", "memory_gb=1:2:3:4"}) {
    EXPECT_THROW(parse_sweep_axis(bad), InputError) << bad;
  }
}

TEST(SweepGrid, CartesianSizeAndOrder) {
  std::vector<SweepAxis> axes = {parse_sweep_axis("sm_count=40:80:20"), parse_sweep_axis("mem_bandwidth_gbps=1000:2000:500")};
  EXPECT_EQ(sweep_grid_size(axes, 1000), 9u);
  EXPECT_THROW(sweep_grid_size(axes, 8), InputError);
  auto model = test::analysed_text(test::cnn_text(32, 32), 4);
  PredictOptions o;
  o.batch = 4;
  auto r = run_sweep(*model, GpuCatalog::instance().resolve("a100-sxm4-40gb"), axes, o);
  ASSERT_EQ(r.points.size(), 9u);
  EXPECT_EQ(r.fields, (std::vector<std::string>{"sm_count", "mem_bandwidth_gbps"}));
  // Row-major, last axis fastest.
  EXPECT_EQ(r.points[0].values, (std::vector<double>{40, 1000}));
  EXPECT_EQ(r.points[1].values, (std::vector<double>{40, 1500}));
  EXPECT_EQ(r.points[3].values, (std::vector<double>{60, 1000}));
  EXPECT_EQ(r.points[8].values, (std::vector<double>{80, 2000}));
  EXPECT_GT(r.points_per_second, 0);
  EXPECT_THROW(run_sweep(*model, GpuCatalog::instance().resolve("t4"),
                         {parse_sweep_axis("sm_count=40"), parse_sweep_axis("sm_count=80")}, o),
               InputError);
  EXPECT_THROW(run_sweep(*model, GpuCatalog::instance().resolve("t4"), {}, o), InputError);
}

TEST(SweepPoint, RescalesRatesConsistently) {
  GpuSpec base = GpuCatalog::instance().resolve("a100-sxm4-40gb");
  GpuSpec two = apply_sweep_point(base, {"sm_count"}, {base.sm_count * 2.0});
  EXPECT_EQ(two.sm_count, base.sm_count * 2);
  EXPECT_NEAR(two.fp32_tflops, base.fp32_tflops * 2, 1e-9);
  EXPECT_NEAR(two.tensor_fp16_tflops, base.tensor_fp16_tflops * 2, 1e-9);
  EXPECT_EQ(two.mem_bandwidth_gbps, base.mem_bandwidth_gbps);
  EXPECT_EQ(two.segment, "hypothetical");
  EXPECT_NE(two.id, base.id);
  GpuSpec fast = apply_sweep_point(base, {"boost_clock_mhz"}, {base.boost_clock_mhz * 1.5});
  EXPECT_NEAR(fast.fp32_tflops, base.fp32_tflops * 1.5, 1e-9);
  EXPECT_NEAR(fast.tensor_tf32_tflops, base.tensor_tf32_tflops * 1.5, 1e-9);
  // Both: the product.
  GpuSpec both = apply_sweep_point(base, {"sm_count", "boost_clock_mhz"}, {base.sm_count * 2.0, base.boost_clock_mhz * 1.5});
  EXPECT_NEAR(both.fp32_tflops, base.fp32_tflops * 3, 1e-9);
  // An explicit rate wins over the scaling.
  GpuSpec expl = apply_sweep_point(base, {"sm_count", "fp32_tflops"}, {base.sm_count * 2.0, 7.0});
  EXPECT_EQ(expl.fp32_tflops, 7.0);
  EXPECT_NEAR(expl.tensor_fp16_tflops, base.tensor_fp16_tflops * 2, 1e-9);
  // Lanes scale only the non-tensor path.
  GpuSpec lanes = apply_sweep_point(base, {"fp32_lanes_per_sm"}, {base.fp32_lanes_per_sm * 2.0});
  EXPECT_NEAR(lanes.fp32_tflops, base.fp32_tflops * 2, 1e-9);
  EXPECT_EQ(lanes.tensor_fp16_tflops, base.tensor_fp16_tflops);
}

TEST(SweepPoint, PowerPointsAreValidatedLikeSpecFiles) {
  GpuSpec base = GpuCatalog::instance().resolve("a100-sxm4-40gb");
  auto message = [&](const std::vector<std::string>& f, const std::vector<double>& v) -> std::string {
    try {
      apply_sweep_point(base, f, v);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  // Idle above TDP is not a GPU: the message names the field and the value.
  std::string e = message({"idle_power_w"}, {500});
  EXPECT_NE(e.find("'idle_power_w'"), std::string::npos) << e;
  EXPECT_NE(e.find("idle_power_w=500"), std::string::npos) << e;
  EXPECT_NE(e.find("a100-sxm4-40gb"), std::string::npos) << e;
  e = message({"tdp_w", "idle_power_w"}, {100, 150});
  EXPECT_NE(e.find("'idle_power_w'"), std::string::npos) << e;
  EXPECT_NE(e.find("tdp_w=100"), std::string::npos) << e;
  // A lower TDP alone keeps the base's idle share (as a spec file with "base" does).
  GpuSpec low = apply_sweep_point(base, {"tdp_w"}, {10});
  EXPECT_NEAR(low.idle_power_w, base.idle_power_w * 10 / base.tdp_w, 1e-9);
  GpuSpec both = apply_sweep_point(base, {"tdp_w", "idle_power_w"}, {100, 20});
  EXPECT_DOUBLE_EQ(both.idle_power_w, 20);

  // The sweep refuses the grid before predicting anything, and no point ever draws above its TDP.
  auto model = test::analysed_text(test::cnn_text(32, 32), 1);
  PredictOptions o;
  EXPECT_THROW(run_sweep(*model, base, {parse_sweep_axis("idle_power_w=100:500:100")}, o), InputError);
  for (const char* spec : {"tdp_w=10:400:30", "idle_power_w=5:400:50"}) {
    auto r = run_sweep(*model, base, {parse_sweep_axis(spec)}, o);
    for (const auto& p : r.points) {
      const double tdp = std::string(spec).rfind("tdp_w", 0) == 0 ? p.values[0] : base.tdp_w;
      EXPECT_LE(p.avg_power_w, tdp * (1 + 1e-9)) << spec << " at " << p.values[0];
      EXPECT_GT(p.avg_power_w, 0) << spec;
    }
  }
}

TEST(SweepMonotone, MoreBandwidthOrClockIsNeverSlower) {
  auto model = test::analysed_text(test::cnn_text(64, 64), 8);
  PredictOptions o;
  o.batch = 8;
  GpuSpec base = GpuCatalog::instance().resolve("t4");
  for (const char* spec : {"mem_bandwidth_gbps=100:3000:100", "boost_clock_mhz=300:3000:100", "sm_count=10:200:10"}) {
    auto r = run_sweep(*model, base, {parse_sweep_axis(spec)}, o);
    for (size_t i = 1; i < r.points.size(); ++i)
      EXPECT_LE(r.points[i].latency_ms, r.points[i - 1].latency_ms * (1 + 1e-9))
          << spec << " at " << r.points[i].values[0];
    EXPECT_LT(r.points.back().latency_ms, r.points.front().latency_ms) << spec;
  }
  // Memory capacity changes fit, not time.
  auto m = run_sweep(*model, base, {parse_sweep_axis("memory_gb=0.001:16:4")}, o);
  EXPECT_FALSE(m.points.front().fits);
  EXPECT_TRUE(m.points.back().fits);
}

TEST(SweepSpeed, ThousandsOfPointsPerSecond) {
  auto model = test::analysed_text(test::cnn_text(32, 32), 1);
  PredictOptions o;
  o.detail = false;
  auto r = run_sweep(*model, GpuCatalog::instance().resolve("a100-sxm4-40gb"),
                     {parse_sweep_axis("sm_count=20:200:20"), parse_sweep_axis("mem_bandwidth_gbps=200:4000:200")}, o);
  EXPECT_EQ(r.points.size(), 200u);
  // A loose floor (sanitizer builds are slow); the CLI reports the measured rate.
  EXPECT_GT(r.points_per_second, 200) << r.points_per_second;
  std::printf("sweep: %zu points, %.0f points/s\n", r.points.size(), r.points_per_second);
}

// Fuzz findings: a one-point grid whose value is past a double's step precision (1e17 + 1 == 1e17) was
// expanded by adding STEP until STOP and filled memory; an integer field of 1e308 did the same.
TEST(SweepAxis, HugeValuesAreCountedNotEnumerated) {
  auto a = parse_sweep_axis("memory_gb=1e17:1e17:1");
  EXPECT_EQ(a.count(), 1u);
  EXPECT_EQ(a.values(), (std::vector<double>{1e17}));
  EXPECT_EQ(parse_sweep_axis("sm_count=1:1000000:1").count(), 1000000u);
  EXPECT_EQ(parse_sweep_axis("boost_clock_mhz=0.1:0.3:0.1").count(), 3u);
  try {
    parse_sweep_axis("memory_gb=1e17:2e17:1");
    ADD_FAILURE() << "a step below the precision of START parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("precision"), std::string::npos) << e.what();
  }
  try {
    parse_sweep_axis("max_threads_per_sm=1e308:1e308:1");
    ADD_FAILURE() << "an integer field of 1e308 parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at most"), std::string::npos) << e.what();
  }
  // Sized without being made: a 10^12-point grid is refused at once.
  EXPECT_THROW(sweep_grid_size({parse_sweep_axis("memory_gb=1:1000000000000:1")}, 1000000), InputError);
}

// The sweep reuses its first point's memory estimate where the device segment and tensor-core paths
// match; every point must still equal a prediction of its own, including points where those change.
TEST(SweepGrid, PointsEqualTheirOwnPredictions) {
  auto model = test::analysed_text(test::cnn_text(32, 32), 4);
  PredictOptions o;
  o.batch = 4;
  o.detail = false;
  const GpuSpec t4 = GpuCatalog::instance().resolve("t4");  // no tf32 tensor path until one is given
  for (Mode mode : {Mode::inference, Mode::training}) {
    o.mode = mode;
    std::vector<SweepAxis> axes = {parse_sweep_axis("sm_count=20:100:40"), parse_sweep_axis("memory_gb=0.001:16:8"),
                                   parse_sweep_axis("tensor_tf32_tflops=1:9:8")};
    auto r = run_sweep(*model, t4, axes, o);
    ASSERT_EQ(r.points.size(), 3u * 2u * 2u);
    for (const auto& pt : r.points) {
      const GpuSpec g = apply_sweep_point(t4, r.fields, pt.values);
      const Prediction p = predict(model->graph, model->cost, g, o);
      EXPECT_EQ(pt.peak_memory_bytes, p.peak_memory_bytes);
      EXPECT_EQ(pt.fits, p.fits);
      EXPECT_EQ(pt.latency_ms, p.latency_ms);
      EXPECT_EQ(pt.energy_mj, p.energy_mj);
    }
  }
}

// Large grids run on several threads: the rows keep grid order and equal a one-thread run.
TEST(SweepGrid, ThreadedGridKeepsOrder) {
  auto model = test::analysed_text(test::cnn_text(16, 16), 1);
  PredictOptions o;
  o.detail = false;
  const GpuSpec base = GpuCatalog::instance().resolve("a100-sxm4-40gb");
  std::vector<SweepAxis> axes = {parse_sweep_axis("sm_count=1:5000:1")};
  size_t calls = 0;
  auto r = run_sweep(*model, base, axes, o, nullptr, 1000000, [&](size_t, size_t, double) { ++calls; });
  ASSERT_EQ(r.points.size(), 5000u);
  for (size_t i = 0; i < r.points.size(); i += 499) {
    EXPECT_EQ(r.points[i].values[0], static_cast<double>(i + 1));
    const Prediction p = predict(model->graph, model->cost, apply_sweep_point(base, r.fields, r.points[i].values), o);
    EXPECT_EQ(r.points[i].latency_ms, p.latency_ms);
  }
}
