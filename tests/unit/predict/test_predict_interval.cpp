// Latency ranges: the table tools/fit_intervals.py writes, its regimes, and the range of a prediction.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/util/error.hpp"
#include "../error_of.hpp"

using namespace perfpred;
using perfpred::test::error_of;

namespace {

nlohmann::json table_json() {
  return {{"schema_version", 1},
          {"nominal_coverage", 0.8},
          {"held_out_coverage", 0.81},
          {"tail_mass", 0.05},
          {"host_share_bins", {0.05, 0.4}},
          {"regimes",
           {{"eager", {{"rows", 900}, {"low", 0.7}, {"high", 1.6}}},
            {"eager/host-bound", {{"rows", 350}, {"low", 0.6}, {"high", 1.5}}},
            {"eager/host-bound/inference",
             {{"rows", 300}, {"low", 0.58}, {"high", 1.47}, {"tail_mass", 0.045}, {"left_out_rows", 290},
              {"left_out_coverage", 0.79}}},
            {"eager/gpu-bound/training", {{"rows", 110}, {"low", 0.8}, {"high", 1.6}}},
            {"graph", {{"rows", 140}, {"low", 0.8}, {"high", 1.5}}}}}};
}

Prediction predicted(double latency_ms, double host_ms) {
  Prediction p;
  p.latency_ms = latency_ms;
  p.host_overhead_ms = host_ms;
  return p;
}


}  // namespace

TEST(LatencyRange, HostBoundEagerInferenceTakesItsOwnRegime) {
  const IntervalTable t = interval_table_from_json(table_json(), "t.json");
  PredictOptions o;
  const auto r = latency_range(t, predicted(10, 6), o);  // 60% of the latency is exposed host time
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->regime, "eager/host-bound/inference");
  EXPECT_DOUBLE_EQ(r->low, 5.8);
  EXPECT_DOUBLE_EQ(r->high, 14.7);
  EXPECT_EQ(r->rows, 300);
  EXPECT_DOUBLE_EQ(r->nominal_coverage, 0.8);
  EXPECT_DOUBLE_EQ(r->held_out_coverage, 0.79);  // the regime's own left-out coverage
  o.mode = Mode::training;
  EXPECT_DOUBLE_EQ(latency_range(t, predicted(10, 6), o)->held_out_coverage, 0.81);  // a fallback: the table's
}

TEST(LatencyRange, AMissingRegimeFallsBackToTheHostShareBinThenTheEngine) {
  const IntervalTable t = interval_table_from_json(table_json(), "t.json");
  PredictOptions o;
  o.mode = Mode::training;
  // Host-bound training: no regime of its own, so the host-bound bin over both modes.
  EXPECT_EQ(latency_range(t, predicted(10, 5), o)->regime, "eager/host-bound");
  // 4% exposed host: GPU-bound training has a regime.
  EXPECT_EQ(latency_range(t, predicted(10, 0.4), o)->regime, "eager/gpu-bound/training");
  // 20%: mixed, with neither a mode regime nor a bin regime: the engine's.
  EXPECT_EQ(latency_range(t, predicted(10, 2), o)->regime, "eager");
}

TEST(LatencyRange, TensorRtAndCudaGraphsHaveNoHostPerOp) {
  const IntervalTable t = interval_table_from_json(table_json(), "t.json");
  PredictOptions o;
  o.runtime = Runtime::tensorrt;
  EXPECT_EQ(latency_range(t, predicted(4, 0.01), o)->regime, "graph");
  o.runtime = Runtime::pytorch;
  o.cuda_graphs = true;
  EXPECT_EQ(interval_regimes(t, predicted(4, 3), o).front(), "graph/host-bound/inference");
  EXPECT_EQ(latency_range(t, predicted(4, 3), o)->regime, "graph");
}

TEST(LatencyRange, NoRangeWithoutALatencyOrARegime) {
  IntervalTable t = interval_table_from_json(table_json(), "t.json");
  PredictOptions o;
  EXPECT_FALSE(latency_range(t, predicted(0, 0), o).has_value());
  t.regimes.erase("graph");
  o.runtime = Runtime::tensorrt;
  EXPECT_FALSE(latency_range(t, predicted(4, 0), o).has_value());
}

TEST(LatencyRange, AMalformedTableNamesTheFileAndTheField) {
  auto j = table_json();
  j["regimes"]["eager"]["low"] = 2.0;  // above high
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.regimes.eager: low 2"),
            std::string::npos);
  j = table_json();
  j["host_share_bins"] = {0.4, 0.05};
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.host_share_bins: the two edges"),
            std::string::npos);
  j = table_json();
  j.erase("tail_mass");
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json: missing field tail_mass"),
            std::string::npos);
  j = table_json();
  j["schema_version"] = 2;
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("tools/fit_intervals.py"), std::string::npos);
  j = table_json();
  j["regimes"] = nlohmann::json::object();
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.regimes: must be a non-empty"),
            std::string::npos);
  j = table_json();
  j["regimes"]["eager/host-bound/inference"].erase("left_out_rows");
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); })
                .find("t.json.regimes.eager/host-bound/inference: give left_out_coverage and left_out_rows together"),
            std::string::npos);
  j = table_json();
  j["regimes"]["eager/host-bound/inference"]["left_out_coverage"] = 1.5;
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find(".left_out_coverage: must be a share"),
            std::string::npos);
  j = table_json();
  j["regimes"]["eager"]["rows"] = 2.5;
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.regimes.eager.rows"),
            std::string::npos);
}

TEST(LatencyRange, AHostFactorTakesTheHostCalibratedRangesInTheHostBoundRegimes) {
  auto j = table_json();
  j["host_calibrated"] = {{"held_out_coverage", 0.84},
                          {"regimes",
                           {{"eager/host-bound", {{"rows", 190}, {"low", 0.62}, {"high", 2.3}}},
                            {"eager/host-bound/inference",
                             {{"rows", 164}, {"low", 0.7}, {"high", 1.3}, {"left_out_rows", 164},
                              {"left_out_coverage", 0.82}}}}}};
  const IntervalTable t = interval_table_from_json(j, "t.json");
  PredictOptions o;
  o.host_factor = 0.7;
  auto r = latency_range(t, predicted(10, 6), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->regime, "host-calibrated/eager/host-bound/inference");
  EXPECT_DOUBLE_EQ(r->low, 7);
  EXPECT_DOUBLE_EQ(r->high, 13);
  EXPECT_DOUBLE_EQ(r->held_out_coverage, 0.82);
  o.mode = Mode::training;  // no calibrated training regime: the calibrated bin, with the section's pooled coverage
  r = latency_range(t, predicted(10, 6), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->regime, "host-calibrated/eager/host-bound");
  EXPECT_DOUBLE_EQ(r->held_out_coverage, 0.84);
  // A GPU-bound prediction with a factor keeps the ranges fitted at F = 1; so does any prediction at F = 1.
  r = latency_range(t, predicted(10, 0.1), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->regime, "eager/gpu-bound/training");
  o.host_factor = 1;
  o.mode = Mode::inference;
  r = latency_range(t, predicted(10, 6), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->regime, "eager/host-bound/inference");
  // Malformed sections name the field.
  j["host_calibrated"]["held_out_coverage"] = 1.5;
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.host_calibrated.held_out_coverage"),
            std::string::npos);
  j["host_calibrated"] = {{"held_out_coverage", 0.84}, {"regimes", nlohmann::json::object()}};
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.host_calibrated.regimes: must be"),
            std::string::npos);
  j["host_calibrated"] = {{"held_out_coverage", 0.84},
                          {"regimes", {{"eager/host-bound", {{"rows", 10}, {"low", 3.0}, {"high", 2.0}}}}}};
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.host_calibrated.regimes.eager/host-bound: low 3"),
            std::string::npos);
}

TEST(LatencyRange, AGpuFactorTakesTheGpuCalibratedRangesInTheGpuBoundRegimes) {
  auto j = table_json();
  j["host_calibrated"] = {{"held_out_coverage", 0.84},
                          {"regimes", {{"eager/host-bound", {{"rows", 190}, {"low", 0.62}, {"high", 2.3}}}}}};
  j["gpu_calibrated"] = {{"held_out_coverage", 0.81},
                         {"regimes",
                          {{"eager/gpu-bound", {{"rows", 331}, {"low", 0.89}, {"high", 1.24}}},
                           {"eager/gpu-bound/inference",
                            {{"rows", 221}, {"low", 0.88}, {"high", 1.21}, {"left_out_rows", 221},
                             {"left_out_coverage", 0.8}}}}}};
  const IntervalTable t = interval_table_from_json(j, "t.json");
  PredictOptions o;
  o.gpu_factor = 1.3;
  auto r = latency_range(t, predicted(10, 0.1), o);  // 1% exposed host: GPU-bound
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->regime, "gpu-calibrated/eager/gpu-bound/inference");
  EXPECT_DOUBLE_EQ(r->low, 8.8);
  EXPECT_DOUBLE_EQ(r->high, 12.1);
  EXPECT_DOUBLE_EQ(r->held_out_coverage, 0.8);
  o.mode = Mode::training;  // the calibrated bin, with the section's pooled coverage
  r = latency_range(t, predicted(10, 0.1), o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->regime, "gpu-calibrated/eager/gpu-bound");
  EXPECT_DOUBLE_EQ(r->held_out_coverage, 0.81);
  // With both factors each regime takes its own section; a host-bound prediction with only a GPU factor, or a
  // GPU-bound one at G = 1, keeps the ranges fitted at G = 1.
  o.host_factor = 0.8;
  EXPECT_EQ(latency_range(t, predicted(10, 6), o)->regime, "host-calibrated/eager/host-bound");
  EXPECT_EQ(latency_range(t, predicted(10, 0.1), o)->regime, "gpu-calibrated/eager/gpu-bound");
  o.host_factor = 1;
  EXPECT_EQ(latency_range(t, predicted(10, 6), o)->regime, "eager/host-bound");
  o.gpu_factor = 1;
  EXPECT_EQ(latency_range(t, predicted(10, 0.1), o)->regime, "eager/gpu-bound/training");
  j["gpu_calibrated"]["held_out_coverage"] = -0.1;
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.gpu_calibrated.held_out_coverage"),
            std::string::npos);
  j["gpu_calibrated"] = 3;
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.gpu_calibrated: must be an object"),
            std::string::npos);
}

TEST(LatencyRange, EnergyAndPowerTakeTheirSectionsPooledOrByMode) {
  auto j = table_json();
  Prediction p = predicted(10, 0.1);
  p.energy_mj = 100;
  p.avg_power_w = 50;
  PredictOptions o;
  IntervalTable t = interval_table_from_json(j, "t.json");
  EXPECT_FALSE(energy_range(t, p, o).has_value());  // no section: no range
  EXPECT_FALSE(power_range(t, p, o).has_value());
  j["energy_mj"] = {{"machines", 5},
                    {"held_out_coverage", 0.81},
                    {"regimes",
                     {{"all", {{"rows", 296}, {"low", 0.79}, {"high", 1.47}, {"left_out_rows", 296},
                               {"left_out_coverage", 0.81}}},
                      {"training", {{"rows", 200}, {"low", 0.9}, {"high", 1.5}}}}}};
  j["power_w"] = {{"machines", 5}, {"held_out_coverage", 0.8},
                  {"regimes", {{"all", {{"rows", 296}, {"low", 0.88}, {"high", 1.37}}}}}};
  t = interval_table_from_json(j, "t.json");
  auto e = energy_range(t, p, o);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->regime, "all");
  EXPECT_DOUBLE_EQ(e->low, 79);
  EXPECT_DOUBLE_EQ(e->high, 147);
  EXPECT_EQ(e->machines, 5);
  EXPECT_DOUBLE_EQ(e->held_out_coverage, 0.81);
  auto w = power_range(t, p, o);
  ASSERT_TRUE(w.has_value());
  EXPECT_DOUBLE_EQ(w->low, 44);
  EXPECT_DOUBLE_EQ(w->held_out_coverage, 0.8);  // no left-out figure for the regime: the section's pooled one
  o.mode = Mode::training;
  e = energy_range(t, p, o);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->regime, "training");
  EXPECT_DOUBLE_EQ(e->high, 150);
  p.energy_mj = 0;
  EXPECT_FALSE(energy_range(t, p, o).has_value());
  // Malformed sections name the field.
  j["energy_mj"]["regimes"].erase("all");
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.energy_mj.regimes: must have"),
            std::string::npos);
  j["energy_mj"]["regimes"]["all"] = {{"rows", 296}, {"low", 0.79}, {"high", 1.47}};
  j["power_w"]["machines"] = 0;
  EXPECT_NE(error_of([&] { interval_table_from_json(j, "t.json"); }).find("t.json.power_w.machines"),
            std::string::npos);
}

TEST(LatencyRange, APowerRangeIsHeldAtTheBoardsPowerLimit) {
  auto j = table_json();
  j["power_w"] = {{"machines", 5}, {"held_out_coverage", 0.8},
                  {"regimes", {{"all", {{"rows", 296}, {"low", 0.88}, {"high", 1.37}}}}}};
  const IntervalTable t = interval_table_from_json(j, "t.json");
  Prediction p = predicted(10, 0.1);
  p.avg_power_w = 60;
  PredictOptions o;
  auto w = power_range(t, p, o, 70);  // 60 x 1.37 = 82.2 W on a 70 W board
  ASSERT_TRUE(w.has_value());
  EXPECT_DOUBLE_EQ(w->high, 70);
  EXPECT_DOUBLE_EQ(w->low, 60 * 0.88);
  EXPECT_DOUBLE_EQ(w->capped_at_w, 70);
  w = power_range(t, p, o, 300);  // far below the limit: as fitted
  ASSERT_TRUE(w.has_value());
  EXPECT_DOUBLE_EQ(w->high, 60 * 1.37);
  EXPECT_DOUBLE_EQ(w->capped_at_w, 0);
  w = power_range(t, p, o, 40);  // a prediction at or above the limit: both ends held there
  ASSERT_TRUE(w.has_value());
  EXPECT_DOUBLE_EQ(w->low, 40);
  EXPECT_DOUBLE_EQ(w->high, 40);

  // The cap is the board's limit: a set limit below the TDP, a Jetson mode's budget, none for a MIG slice.
  EXPECT_DOUBLE_EQ(power_range_cap_w(resolve_gpu("t4")), 70);
  EXPECT_DOUBLE_EQ(power_range_cap_w(resolve_gpu("v100-pcie-32gb@150w")), 150);
  EXPECT_DOUBLE_EQ(power_range_cap_w(resolve_gpu("jetson-orin-nano-8gb@7w")), 7);
  EXPECT_DOUBLE_EQ(power_range_cap_w(resolve_gpu("a100-sxm4-40gb:1g.5gb")), 0);
  GpuSpec spec = resolve_gpu("t4");
  spec.tdp_w = 0;
  EXPECT_DOUBLE_EQ(power_range_cap_w(spec), 0);
}

TEST(LatencyRange, TheShippedTableParsesAndCoversEveryEngine) {
  const std::string path = std::string(PERFPRED_SOURCE_ROOT) + "/models/" + k_interval_file;
  const IntervalTable t = load_interval_table(path);
  EXPECT_DOUBLE_EQ(t.nominal_coverage, 0.8);
  EXPECT_GE(t.held_out_coverage, t.nominal_coverage);
  EXPECT_TRUE(t.regimes.count("eager"));
  EXPECT_TRUE(t.regimes.count("graph"));
  for (const auto& [name, r] : t.regimes) {
    EXPECT_LT(r.low, 1) << name;  // every regime's range holds its own prediction
    EXPECT_GT(r.high, 1) << name;
  }
  // Energy and power: one pooled range each, holding its own prediction.
  ASSERT_TRUE(t.energy.has_value());
  ASSERT_TRUE(t.power.has_value());
  for (const auto* m : {&*t.energy, &*t.power}) {
    EXPECT_GE(m->machines, 3);
    ASSERT_TRUE(m->regimes.count("all"));
    EXPECT_LT(m->regimes.at("all").low, 1);
    EXPECT_GT(m->regimes.at("all").high, 1);
  }
  // The ranges of a timed host: host-bound regimes only, each holding its own prediction.
  EXPECT_TRUE(t.host_calibrated.count("eager/host-bound/inference"));
  for (const auto& [name, r] : t.host_calibrated) {
    EXPECT_EQ(name.rfind("eager/host-bound", 0), 0u) << name;
    EXPECT_LT(r.low, 1) << name;
    EXPECT_GT(r.high, 1) << name;
  }
}
