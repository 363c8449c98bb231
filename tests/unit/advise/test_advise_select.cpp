#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "advise_test_util.hpp"
#include "perfpred/advise/select.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::advise;

class Select : public ::testing::Test {
 protected:
  std::shared_ptr<const AnalyzedModel> model = test::analysed_text(test::cnn_text(64, 64), 8);
  PredictOptions opts = [] {
    PredictOptions o;
    o.batch = 8;
    return o;
  }();
  std::vector<GpuSpec> devices = {GpuCatalog::instance().resolve("t4"), GpuCatalog::instance().resolve("a100-sxm4-40gb"),
                                  GpuCatalog::instance().resolve("jetson-nano"), GpuCatalog::instance().resolve("rtx-3090")};
};

TEST_F(Select, RanksByLatencyAscending) {
  auto r = select_devices(*model, devices, opts, {}, Objective::latency);
  ASSERT_EQ(r.ranked.size(), devices.size());
  EXPECT_TRUE(r.rejected.empty());
  for (size_t i = 1; i < r.ranked.size(); ++i) {
    EXPECT_LE(r.ranked[i - 1].prediction.latency_ms, r.ranked[i].prediction.latency_ms);
    EXPECT_EQ(r.ranked[i].rank, static_cast<int>(i + 1));
  }
}

TEST_F(Select, ThroughputPerWattRanksDescending) {
  auto r = select_devices(*model, devices, opts, {}, Objective::throughput_per_watt);
  for (size_t i = 1; i < r.ranked.size(); ++i) EXPECT_GE(r.ranked[i - 1].samples_per_joule, r.ranked[i].samples_per_joule);
  for (const auto& c : r.ranked) EXPECT_NEAR(c.samples_per_joule, 8 / (c.prediction.energy_mj * 1e-3), 1e-6 * c.samples_per_joule);
}

TEST_F(Select, RejectedDevicesNameTheConstraint) {
  auto all = select_devices(*model, devices, opts, {}, Objective::latency);
  // A latency limit between the fastest and the slowest device.
  SelectConstraints c;
  c.max_latency_ms = (all.ranked.front().prediction.latency_ms + all.ranked.back().prediction.latency_ms) / 2;
  auto r = select_devices(*model, devices, opts, c, Objective::latency);
  ASSERT_FALSE(r.ranked.empty());
  ASSERT_FALSE(r.rejected.empty());
  for (const auto& x : r.ranked) EXPECT_LE(x.prediction.latency_ms, *c.max_latency_ms);
  for (const auto& x : r.rejected) {
    ASSERT_EQ(x.violations.size(), 1u);
    EXPECT_NE(x.violations[0].find("--max-latency-ms"), std::string::npos) << x.violations[0];
    EXPECT_EQ(x.rank, 0);
  }
  // Power: a cap below every device's power rejects all, each naming --max-power-w.
  SelectConstraints p;
  p.max_power_w = 0.5;
  auto none = select_devices(*model, devices, opts, p, Objective::latency);
  EXPECT_TRUE(none.ranked.empty());
  for (const auto& x : none.rejected) EXPECT_NE(x.violations.back().find("--max-power-w"), std::string::npos);
  // Headroom: 0.999 of memory free is more than any device has with a CUDA context.
  SelectConstraints h;
  h.min_memory_headroom = 0.999;
  auto tight = select_devices(*model, devices, opts, h, Objective::latency);
  for (const auto& x : tight.rejected) EXPECT_NE(x.violations[0].find("headroom"), std::string::npos);
  EXPECT_EQ(tight.rejected.size(), devices.size());
}

TEST_F(Select, CostNeedsAPriceForEveryDevice) {
  PriceTable prices = {{"t4", 0.35}, {"a100-sxm4-40gb", 3.0}, {"rtx-3090", 0.5}};
  try {
    select_devices(*model, devices, opts, {}, Objective::cost, &prices);
    FAIL() << "jetson-nano has no price";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("jetson-nano"), std::string::npos) << e.what();
  }
  EXPECT_THROW(select_devices(*model, devices, opts, {}, Objective::cost, nullptr), InputError);
  prices["jetson-nano"] = 0.01;
  auto r = select_devices(*model, devices, opts, {}, Objective::cost, &prices);
  for (size_t i = 1; i < r.ranked.size(); ++i)
    EXPECT_LE(*r.ranked[i - 1].cost_usd_per_million_samples, *r.ranked[i].cost_usd_per_million_samples);
  // At full load (pipelined: copies overlap the work), what an hour of the device serves. The discrete GPUs
  // copy their input, so there the pipelined throughput differs from batch / latency.
  bool copies = false;
  for (const auto& c : r.ranked) {
    EXPECT_NEAR(*c.cost_usd_per_million_samples,
                *c.price_usd_per_hour / 3600 / c.prediction.pipelined_throughput_samples_per_s * 1e6, 1e-9)
        << c.gpu.id;
    copies |= c.prediction.pipelined_throughput_samples_per_s > c.prediction.throughput_samples_per_s * 1.001;
  }
  EXPECT_TRUE(copies);
}

TEST_F(Select, BadConstraintsAndPriceFiles) {
  SelectConstraints c;
  c.max_latency_ms = 0;
  EXPECT_THROW(select_devices(*model, devices, opts, c, Objective::latency), InputError);
  c = {};
  c.max_power_w = -1;
  EXPECT_THROW(select_devices(*model, devices, opts, c, Objective::latency), InputError);
  c = {};
  c.min_memory_headroom = 1.5;
  EXPECT_THROW(select_devices(*model, devices, opts, c, Objective::latency), InputError);
  EXPECT_THROW(select_devices(*model, {}, opts, {}, Objective::latency), InputError);
  EXPECT_THROW(objective_from_string("speed"), InputError);
  EXPECT_EQ(objective_from_string("throughput_per_watt"), Objective::throughput_per_watt);

  using nlohmann::json;
  EXPECT_EQ(parse_prices(json{{"schema_version", 1}, {"prices_usd_per_hour", {{"t4", 0.35}}}}, "p").at("t4"), 0.35);
  EXPECT_THROW(parse_prices(json{{"prices_usd_per_hour", {{"t4", 0.35}}}}, "p"), InputError);
  EXPECT_THROW(parse_prices(json{{"schema_version", 2}, {"prices_usd_per_hour", {{"t4", 0.35}}}}, "p"), InputError);
  EXPECT_THROW(parse_prices(json{{"schema_version", 1}, {"prices_usd_per_hour", {{"t4", -1}}}}, "p"), InputError);
  EXPECT_THROW(parse_prices(json{{"schema_version", 1}, {"prices_usd_per_hour", {{"t4", "cheap"}}}}, "p"), InputError);
  EXPECT_THROW(parse_prices(json{{"schema_version", 1}, {"prices", {{"t4", 1}}}}, "p"), InputError);
  EXPECT_THROW(load_prices("/nonexistent/prices.json"), InputError);
}
