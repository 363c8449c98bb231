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

namespace {
/// A range table with one latency regime per engine (1.5x high) and a pooled power range (1.2x high).
IntervalTable select_ranges() {
  return interval_table_from_json(
      {{"schema_version", 1},
       {"nominal_coverage", 0.8},
       {"held_out_coverage", 0.8},
       {"tail_mass", 0.05},
       {"host_share_bins", {0.05, 0.4}},
       {"regimes", {{"eager", {{"rows", 900}, {"low", 0.7}, {"high", 1.5}}}}},
       {"power_w",
        {{"machines", 5}, {"held_out_coverage", 0.8}, {"regimes", {{"all", {{"rows", 296}, {"low", 0.9}, {"high", 1.2}}}}}}}},
      "ranges.json");
}
}  // namespace

TEST_F(Select, RangeLimitsCheckTheRangesHighEnds) {
  const IntervalTable ranges = select_ranges();
  auto all = select_devices(*model, devices, opts, {}, Objective::latency, nullptr, nullptr, &ranges);
  ASSERT_EQ(all.ranked.size(), devices.size());
  for (const auto& x : all.ranked) {  // every candidate carries its ranges
    ASSERT_TRUE(x.latency_range.has_value());
    EXPECT_DOUBLE_EQ(x.latency_range->high, 1.5 * x.prediction.latency_ms);
    ASSERT_TRUE(x.power_range.has_value());
    EXPECT_LE(x.power_range->high, x.gpu.tdp_w);  // held at the board's limit
    EXPECT_FALSE(x.energy_range.has_value());      // the table has no energy section
  }
  // A limit between the fastest device's latency and its range's high end rejects it on the range alone.
  const auto& fastest = all.ranked.front();
  SelectConstraints c;
  c.max_latency_range_high_ms = 1.2 * fastest.prediction.latency_ms;
  auto r = select_devices(*model, devices, opts, c, Objective::latency, nullptr, nullptr, &ranges);
  EXPECT_TRUE(r.ranked.empty());
  for (const auto& x : r.rejected) {
    ASSERT_EQ(x.violations.size(), 1u);
    EXPECT_NE(x.violations[0].find("latency range high"), std::string::npos) << x.violations[0];
    EXPECT_NE(x.violations[0].find("--max-latency-range-high-ms"), std::string::npos);
  }
  // The plain latency limit at the same figure keeps the fastest device.
  SelectConstraints plain;
  plain.max_latency_ms = *c.max_latency_range_high_ms;
  EXPECT_EQ(select_devices(*model, devices, opts, plain, Objective::latency).ranked.front().gpu.id, fastest.gpu.id);
  c.max_latency_range_high_ms = 1.6 * fastest.prediction.latency_ms;
  r = select_devices(*model, devices, opts, c, Objective::latency, nullptr, nullptr, &ranges);
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_EQ(r.ranked.front().gpu.id, fastest.gpu.id);
  // Power: the range's high end (held at the board's limit) against the limit, just below it and just above.
  SelectConstraints p;
  p.max_power_range_high_w = 0.99 * fastest.power_range->high;
  r = select_devices(*model, {fastest.gpu}, opts, p, Objective::latency, nullptr, nullptr, &ranges);
  ASSERT_EQ(r.rejected.size(), 1u);
  EXPECT_NE(r.rejected[0].violations[0].find("power range high"), std::string::npos) << r.rejected[0].violations[0];
  EXPECT_NE(r.rejected[0].violations[0].find("--max-power-range-high-w"), std::string::npos);
  p.max_power_range_high_w = 1.01 * fastest.power_range->high;
  EXPECT_EQ(select_devices(*model, {fastest.gpu}, opts, p, Objective::latency, nullptr, nullptr, &ranges).ranked.size(), 1u);
}

TEST_F(Select, RangeLimitsNeedTheTableAndTheAnalyticalModel) {
  const IntervalTable ranges = select_ranges();
  SelectConstraints c;
  c.max_latency_range_high_ms = 30;
  EXPECT_NE(test::error_of([&] { select_devices(*model, devices, opts, c, Objective::latency); }).find("no range table"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { validate_selection(devices, c, Objective::latency, nullptr, true, true); })
                .find("drop --bundle"),
            std::string::npos);
  c.max_latency_range_high_ms = -1;
  EXPECT_NE(test::error_of([&] { validate_selection(devices, c, Objective::latency, nullptr, false, true); })
                .find("--max-latency-range-high-ms -1.000: must be a positive number"),
            std::string::npos);
  // A table without a power section cannot check a power range limit: the error names the device and section.
  IntervalTable no_power = ranges;
  no_power.power.reset();
  SelectConstraints p;
  p.max_power_range_high_w = 100;
  EXPECT_NE(test::error_of([&] { select_devices(*model, devices, opts, p, Objective::latency, nullptr, nullptr, &no_power); })
                .find("no power range for the prediction on t4 (its power_w section)"),
            std::string::npos);
}
