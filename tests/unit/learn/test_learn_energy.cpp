// The energy correction (perfpred/learn/energy.hpp): it transfers to a GPU whose specs lie outside the
// training GPUs' (it learns from what a power limit leaves of the clock, not from which GPU it is), shrinks
// far outside the training range, keeps the analytical energy for an unseen precision, and is 0 rounds
// (no correction) where leave-one-GPU-out finds none that transfers.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "perfpred/hw/sustained_clock.hpp"
#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/model.hpp"
#include "perfpred/learn/train.hpp"
#include "synthetic_gpu.hpp"

using namespace perfpred;
using namespace perfpred::learn;

namespace {

// A Turing-like board sized for its FP32 rate (sustained clock 1 at its TDP), `sms` SMs.
GpuSpec board(int sms, double limit_share) {
  GpuSpec g = test_support::synthetic_gpu(sms);
  g.memory_gb = sms * 0.4;
  g.tdp_w = g.fp32_tflops * 250 / 13.45;
  g.idle_power_w = 0.09 * g.tdp_w;
  if (limit_share < 1) {
    g.parent_id = g.id;
    g.id += "@" + std::to_string(static_cast<int>(limit_share * 100)) + "%";
    g.power_limit_w = limit_share * g.tdp_w;
  }
  return g;
}

// The analytical prediction of a training step on `g`: kernel time from the GPU's rate at its sustained
// clock, the board at its limit, an optimizer step bound by memory bandwidth (its absolute time identifies
// the GPU, as in the Zeus rows).
Prediction analytical(const GpuSpec& g, int batch) {
  Prediction p;
  const double clock = sustained_clock_scale(g);
  p.kernels_ms = 0.5 * batch / (g.fp32_tflops * clock);
  p.optimizer_ms = 3000.0 / g.mem_bandwidth_gbps;
  p.latency_ms = p.kernels_ms / 0.99;
  p.avg_power_w = std::min(g.power_limit_w > 0 ? g.power_limit_w : g.tdp_w, g.tdp_w);
  p.energy_mj = p.avg_power_w * p.latency_ms;
  p.peak_memory_bytes = 1e9 * batch;
  return p;
}

// Truth: the deeper the limit, the more the analytical clock law understates the slowdown.
double true_factor(const GpuSpec& g) { return std::pow(sustained_clock_scale(g), -2.0); }

std::vector<NetworkSample> samples(const std::vector<int>& sms, const std::vector<double>& shares,
                                   double (*truth)(const GpuSpec&)) {
  std::vector<NetworkSample> out;
  for (int s : sms)
    for (double share : shares)
      for (int batch : {8, 16, 32, 64, 128, 256}) {
        NetworkSample n;
        n.gpu = board(s, share);
        n.opts.mode = Mode::training;
        n.opts.batch = batch;
        n.prediction = analytical(n.gpu, batch);
        n.measured = n.prediction.energy_mj * truth(n.gpu);
        out.push_back(n);
      }
  return out;
}

TrainOptions options() {
  TrainOptions o;
  o.nthread = 1;  // tests run in parallel: no OpenMP team spinning on a busy machine
  o.rounds = 200;
  return o;
}

Bundle train(const std::vector<NetworkSample>& ns) {
  Bundle b;
  b.name = "energy";
  b.target = Target::energy;
  train_network_model(ns, Target::energy, options(), b);
  return b;
}

double learned_factor(const LearnedModel& m, const GpuSpec& g, int batch, Precision prec = Precision::fp32) {
  PredictOptions o;
  o.mode = Mode::training;
  o.batch = batch;
  o.precision = prec;
  Prediction p = analytical(g, batch);
  const double before = p.energy_mj;
  apply_network_target(m, p, g, o);
  return p.energy_mj / before;
}

// Limits from half the TDP up: below that the clock a limit leaves falls steeply toward its floor
// (k_clock_independent_power_share), faster than a grid of this size samples it.
const std::vector<double> k_shares = [] {
  std::vector<double> v;
  for (int i = 0; i <= 20; ++i) v.push_back(0.5 + 0.025 * i);
  return v;
}();

}  // namespace

TEST(LearnEnergy, TransfersToAGpuOutsideTheTrainingSpecs) {
  // Trained on 40-, 60- and 80-SM boards; the held-out board has 120 SMs, more bandwidth, TDP and memory
  // than any of them (every absolute feature beyond the range), its limits within the trained clocks.
  const LearnedModel m(train(samples({40, 60, 80}, k_shares, true_factor)));
  double worst = 0, analytical_worst = 0;
  for (double share : {0.5125, 0.5625, 0.6125, 0.7125, 0.8125, 0.9125})
    for (int batch : {16, 64, 256}) {
      const GpuSpec g = board(120, share);
      worst = std::max(worst, std::abs(learned_factor(m, g, batch) / true_factor(g) - 1));
      analytical_worst = std::max(analytical_worst, std::abs(1 / true_factor(g) - 1));
    }
  EXPECT_LT(worst, 0.08);             // the correction of that clock, whatever the GPU
  EXPECT_GT(analytical_worst, 0.35);  // and it matters: the analytical energy is off by more
}

TEST(LearnEnergy, ShrinksOutsideTheTrainingRangeAndKeepsUnseenCodes) {
  const LearnedModel m(train(samples({40, 60, 80}, k_shares, true_factor)));
  const GpuSpec inside = board(60, 0.5);
  EXPECT_GT(learned_factor(m, inside, 64), 1.2);
  // A limit far below any trained one (idle power over the limit, and the clock it leaves, over a decade
  // beyond the range): the analytical energy.
  EXPECT_DOUBLE_EQ(learned_factor(m, board(60, 1e-4), 64), 1.0);
  // Half a decade below the lowest trained limit: shrunk part of the way, between no correction and the
  // nearest trained one.
  const double half = learned_factor(m, board(60, 0.5 * std::pow(10.0, -0.5)), 64);
  EXPECT_GT(half, 1.0);
  EXPECT_LT(half, learned_factor(m, board(60, 0.5), 64));
  // A precision no training row had keeps the analytical energy.
  EXPECT_DOUBLE_EQ(learned_factor(m, inside, 64, Precision::fp16), 1.0);
}

TEST(LearnEnergy, NoRoundsWhereNoCorrectionTransfers) {
  // Each GPU has its own factor, unrelated to any feature: leave-one-GPU-out keeps the analytical energy.
  auto per_gpu = [](const GpuSpec& g) { return g.sm_count == 40 ? 1.5 : g.sm_count == 60 ? 0.7 : 1.2; };
  static double (*truth)(const GpuSpec&) = +per_gpu;
  const Bundle b = train(samples({40, 60, 80}, k_shares, truth));
  EXPECT_EQ(b.params["early_stopping"]["energy"]["rounds"].get<int>(), 0);
  const LearnedModel m(b);
  EXPECT_DOUBLE_EQ(learned_factor(m, board(60, 0.7), 64), 1.0);
}

TEST(LearnEnergy, BundleRoundTripKeepsTheCorrection) {
  const Bundle b = train(samples({40, 60, 80}, k_shares, true_factor));
  EXPECT_EQ(b.network_target, "energy_ratio");
  const Bundle back = bundle_from_json(to_json(b), "round trip");
  EXPECT_EQ(back.network_target, b.network_target);
  EXPECT_EQ(back.network_ranges, b.network_ranges);
  EXPECT_EQ(back.network_codes, b.network_codes);
  const LearnedModel m1(b), m2(back);
  EXPECT_DOUBLE_EQ(learned_factor(m1, board(120, 0.55), 32), learned_factor(m2, board(120, 0.55), 32));
}
