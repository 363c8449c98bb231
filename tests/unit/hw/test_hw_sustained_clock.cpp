// The sustained clock of power-limited cards from their board power and FP32 rate.
#include <gtest/gtest.h>

#include <cmath>

#include "perfpred/hw/sustained_clock.hpp"

namespace perfpred {
namespace {

GpuSpec card(const char* cc, double tdp_w, double fp32_tflops, const char* segment = "datacenter") {
  GpuSpec g;
  g.id = "x";
  g.compute_capability = cc;
  g.segment = segment;
  g.tdp_w = tdp_w;
  g.fp32_tflops = fp32_tflops;
  return g;
}

TEST(SustainedClock, ScalesWithTheCubeRootOfThePowerShare) {
  // T4: 70 W for 8.1 TFLOPS on Turing (reference 250 W / 13.45): (8.64 / 18.59)^(1/3) = 0.775.
  const double t4 = sustained_clock_scale(card("7.5", 70, 8.1));
  EXPECT_NEAR(t4, std::cbrt((70 / 8.1) / (250 / 13.45)), 1e-12);
  EXPECT_NEAR(t4, 0.775, 0.005);
  // Eight times less power per TFLOP halves the clock.
  EXPECT_NEAR(sustained_clock_scale(card("7.5", 250.0 / 8, 13.45)), 0.5, 1e-12);
}

TEST(SustainedClock, NeverAboveBoostAndOneWherePowerDoesNotLimit) {
  EXPECT_DOUBLE_EQ(sustained_clock_scale(card("7.5", 1000, 13.45)), 1.0);     // more power than the reference
  EXPECT_DOUBLE_EQ(sustained_clock_scale(card("8.0", 70, 19.5)), 1.0);        // compute chip: no reference
  EXPECT_DOUBLE_EQ(sustained_clock_scale(card("8.7", 15, 5.3, "embedded")), 1.0);  // power modes set the clock
  EXPECT_DOUBLE_EQ(sustained_clock_scale(card("7.5", 0, 8.1)), 1.0);          // no TDP in the spec
  EXPECT_DOUBLE_EQ(sustained_clock_scale(card("7.5", 70, 0)), 1.0);           // no FP32 rate
}

TEST(RatedPowerShare, UnclampedWattsPerTflopOverTheReference) {
  // The share whose cube root is the rated clock, kept above 1 where the card has power to spare: the T4's 0.465,
  // the Turing reference itself (RTX 2080 Ti: 250 W / 13.45) 1, four times its power 4; infinity where power does
  // not set the clock (compute chips without a reference, embedded boards, no TDP or FP32 rate).
  EXPECT_NEAR(rated_power_share(card("7.5", 70, 8.1)), (70 / 8.1) / (250 / 13.45), 1e-12);
  EXPECT_NEAR(std::cbrt(rated_power_share(card("7.5", 70, 8.1))), rated_clock_scale(card("7.5", 70, 8.1)), 1e-12);
  EXPECT_NEAR(rated_power_share(card("7.5", 250, 13.45)), 1.0, 1e-12);
  EXPECT_NEAR(rated_power_share(card("7.5", 1000, 13.45)), 4.0, 1e-12);
  EXPECT_TRUE(std::isinf(rated_power_share(card("8.0", 70, 19.5))));
  EXPECT_TRUE(std::isinf(rated_power_share(card("8.7", 15, 5.3, "embedded"))));
  EXPECT_TRUE(std::isinf(rated_power_share(card("7.5", 0, 8.1))));
}

TEST(FullLoadPower, ComputeChipsDrawTheirProcessSiblingsWattsPerTflop) {
  // GP100 (6.0) on GP102's 16 nm: 250 W / 10.97 TFLOPS; P100 PCIe 9.3 TFLOPS -> 212 W of its 250 W.
  EXPECT_NEAR(full_load_power_w(card("6.0", 250, 9.3)), 250 / 10.97 * 9.3, 1e-9);
  // GV100 (7.0) on TU102's 12 nm: V100 PCIe (14 TFLOPS, 250 W) needs 260 W, so its TDP caps it.
  EXPECT_DOUBLE_EQ(full_load_power_w(card("7.0", 250, 14.0)), 250.0);
  EXPECT_NEAR(full_load_power_w(card("7.0", 300, 15.7)), 250 / 13.45 * 15.7, 1e-9);  // V100 SXM2
  // A graphics card given more power than its FP32 work needs draws what it needs.
  EXPECT_NEAR(full_load_power_w(card("7.5", 1000, 13.45)), 250.0, 1e-9);
  // Chips without a reference or sibling, embedded boards and incomplete specs: the TDP.
  EXPECT_DOUBLE_EQ(full_load_power_w(card("8.0", 400, 19.5)), 400.0);
  EXPECT_DOUBLE_EQ(full_load_power_w(card("6.0", 10, 9.3, "embedded")), 10.0);
  EXPECT_DOUBLE_EQ(full_load_power_w(card("6.0", 250, 0)), 250.0);
  EXPECT_DOUBLE_EQ(full_load_power_w(card("6.0", 0, 9.3)), 0.0);
}

TEST(FullLoadPower, PowerLimitedCardsDemandMoreThanTheirTdp) {
  // Quadro RTX 6000: 16.3 TFLOPS at the 2080 Ti's 250 W / 13.45 -> 303 W wanted, 260 W allowed.
  EXPECT_NEAR(fp32_power_demand_w(card("7.5", 260, 16.3)), 250 / 13.45 * 16.3, 1e-9);
  EXPECT_DOUBLE_EQ(full_load_power_w(card("7.5", 260, 16.3)), 260.0);
  EXPECT_NEAR(fp32_power_demand_w(card("7.0", 250, 14.0)), 250 / 13.45 * 14.0, 1e-9);  // V100 PCIe via TU102
  EXPECT_NEAR(fp32_power_demand_w(card("6.0", 250, 9.3)), 250 / 10.97 * 9.3, 1e-9);    // below: headroom
  // No reference, embedded, incomplete: the TDP.
  EXPECT_DOUBLE_EQ(fp32_power_demand_w(card("8.0", 400, 19.5)), 400.0);
  EXPECT_DOUBLE_EQ(fp32_power_demand_w(card("7.5", 15, 5.0, "embedded")), 15.0);
  EXPECT_DOUBLE_EQ(fp32_power_demand_w(card("7.5", 0, 16.3)), 0.0);
}

TEST(SustainedClock, PartlyBusyKernelsClockUpToBoost) {
  EXPECT_DOUBLE_EQ(partial_load_clock_gain(0.5, 1.0), 1.0);    // not power-limited
  EXPECT_DOUBLE_EQ(partial_load_clock_gain(1.0, 0.77), 1.0);   // every SM busy: the sustained clock
  EXPECT_NEAR(partial_load_clock_gain(0.9, 0.77), std::cbrt(1 / 0.9), 1e-12);
  EXPECT_NEAR(partial_load_clock_gain(0.1, 0.77), 1 / 0.77, 1e-12);  // capped at boost
  double prev = 1;
  for (double busy : {0.95, 0.8, 0.5, 0.2, 0.05}) {
    const double g = partial_load_clock_gain(busy, 0.8);
    EXPECT_GE(g, prev) << busy;
    prev = g;
  }
}

GpuSpec limited(GpuSpec g, double watts) {
  g.power_limit_w = watts;
  return g;
}

/// The clock a limit sustains from a draw: only the power above the clock-independent floor
/// (k_clock_independent_power_share of the draw) follows the cube of the clock.
double limited_clock(double limit, double draw) {
  const double floor = k_clock_independent_power_share * draw;
  return std::cbrt((limit - floor) / (draw - floor));
}

TEST(SustainedClock, PowerLimitSlowsFromTheDrawAtTheTdp) {
  // Compute chip (V100 PCIe: 250 W, 14 TFLOPS; boost clock at the TDP).
  const GpuSpec v100 = card("7.0", 250, 14.0);
  EXPECT_NEAR(sustained_clock_scale(limited(v100, 150)), limited_clock(150, 250), 1e-12);
  EXPECT_NEAR(full_load_power_w(limited(v100, 150)), 150.0, 1e-12);
  EXPECT_DOUBLE_EQ(fp32_power_demand_w(limited(v100, 150)), fp32_power_demand_w(v100));  // the work wants as much
  // P100 PCIe: FP32 work draws 212 W of its 250 W, so a 225 W limit costs nothing; 150 W slows it from 212 W.
  const GpuSpec p100 = card("6.0", 250, 9.3);
  const double p100_draw = 250 / 10.97 * 9.3;
  EXPECT_DOUBLE_EQ(sustained_clock_scale(limited(p100, 225)), 1.0);
  EXPECT_NEAR(full_load_power_w(limited(p100, 225)), p100_draw, 1e-9);
  EXPECT_NEAR(sustained_clock_scale(limited(p100, 150)), limited_clock(150, p100_draw), 1e-12);
  EXPECT_NEAR(full_load_power_w(limited(p100, 150)), 150.0, 1e-12);
  // Graphics chip already limited at its TDP (Quadro RTX 6000, 260 W for 303 W of FP32 demand): its rated
  // clock, then the same law from the 260 W it draws there.
  const GpuSpec quadro = card("7.5", 260, 16.3);
  EXPECT_NEAR(sustained_clock_scale(limited(quadro, 150)), sustained_clock_scale(quadro) * limited_clock(150, 260),
              1e-12);
  // A limit at the TDP, or none, changes nothing; embedded boards keep their power modes' clocks.
  EXPECT_DOUBLE_EQ(sustained_clock_scale(limited(quadro, 260)), sustained_clock_scale(quadro));
  EXPECT_DOUBLE_EQ(sustained_clock_scale(limited(card("7.5", 15, 5.0, "embedded"), 10)), 1.0);
}

TEST(SustainedClock, ALimitNearTheClockIndependentFloorSlowsFarMoreThanTheCubeRoot) {
  // Zeus, ResNet-50 training: a V100 PCIe at 100 W of 250 W took 1.9x as long as at 250 W, an A40 at 100 W of
  // 300 W 2.9x; (100/250)^(1/3) = 0.74 would slow the math only 1.36x.
  const GpuSpec v100 = card("7.0", 250, 14.0);
  const double at_100 = sustained_clock_scale(limited(v100, 100));
  EXPECT_LT(at_100, 0.6);
  EXPECT_GT(at_100, 0.4);
  // Less power is never faster, down to the floor and below it, where the SMs sit at their lowest clocks.
  double prev = 1;
  for (double w : {240.0, 200.0, 150.0, 100.0, 80.0, 75.0, 60.0, 30.0}) {
    const double x = sustained_clock_scale(limited(v100, w));
    EXPECT_LE(x, prev) << w;
    EXPECT_GE(x, k_min_clock_scale) << w;
    prev = x;
  }
  EXPECT_DOUBLE_EQ(sustained_clock_scale(limited(v100, 30)), k_min_clock_scale);
  // The law itself: no limit below the draw, no slowdown; the floor and below it, the lowest clock.
  EXPECT_DOUBLE_EQ(clock_under_limit(200, 180), 1.0);
  EXPECT_NEAR(clock_under_limit(150, 200), limited_clock(150, 200), 1e-12);
  EXPECT_DOUBLE_EQ(clock_under_limit(k_clock_independent_power_share * 200, 200), k_min_clock_scale);
  EXPECT_DOUBLE_EQ(clock_under_limit(10, 0), 1.0);  // no draw known: nothing to scale from
}

}  // namespace
}  // namespace perfpred
