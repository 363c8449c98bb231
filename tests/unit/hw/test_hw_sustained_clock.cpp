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

TEST(SustainedClock, PowerLimitSlowsFromTheDrawAtTheTdp) {
  // Compute chip (V100 PCIe: 250 W, 14 TFLOPS; boost clock at the TDP): the cube root of limit / 250 W.
  const GpuSpec v100 = card("7.0", 250, 14.0);
  EXPECT_NEAR(sustained_clock_scale(limited(v100, 150)), std::cbrt(150.0 / 250), 1e-12);
  EXPECT_NEAR(full_load_power_w(limited(v100, 150)), 150.0, 1e-12);
  EXPECT_DOUBLE_EQ(fp32_power_demand_w(limited(v100, 150)), fp32_power_demand_w(v100));  // the work wants as much
  // P100 PCIe: FP32 work draws 212 W of its 250 W, so a 225 W limit costs nothing and 150 W the cube root of 150/212.
  const GpuSpec p100 = card("6.0", 250, 9.3);
  const double p100_draw = 250 / 10.97 * 9.3;
  EXPECT_DOUBLE_EQ(sustained_clock_scale(limited(p100, 225)), 1.0);
  EXPECT_NEAR(full_load_power_w(limited(p100, 225)), p100_draw, 1e-9);
  EXPECT_NEAR(sustained_clock_scale(limited(p100, 150)), std::cbrt(150 / p100_draw), 1e-12);
  EXPECT_NEAR(full_load_power_w(limited(p100, 150)), 150.0, 1e-12);
  // Graphics chip already limited at its TDP (Quadro RTX 6000, 260 W for 303 W of FP32 demand): the same law
  // as the TDP rule, with the limit in place of the TDP.
  const GpuSpec quadro = card("7.5", 260, 16.3);
  EXPECT_NEAR(sustained_clock_scale(limited(quadro, 150)), std::cbrt(150 / (250 / 13.45 * 16.3)), 1e-12);
  EXPECT_NEAR(sustained_clock_scale(limited(quadro, 150)), sustained_clock_scale(card("7.5", 150, 16.3)), 1e-12);
  // A limit at the TDP, or none, changes nothing; embedded boards keep their power modes' clocks.
  EXPECT_DOUBLE_EQ(sustained_clock_scale(limited(quadro, 260)), sustained_clock_scale(quadro));
  EXPECT_DOUBLE_EQ(sustained_clock_scale(limited(card("7.5", 15, 5.0, "embedded"), 10)), 1.0);
}

}  // namespace
}  // namespace perfpred
