// The energy correction of whole-network bundles: GPU-agnostic features, training ranges, and the fit with
// leave-one-GPU-out rounds (perfpred/learn/energy.hpp).
#include "perfpred/learn/energy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <spdlog/spdlog.h>

#include "perfpred/hw/power_limit.hpp"
#include "perfpred/hw/sustained_clock.hpp"
#include "perfpred/util/error.hpp"
#include "train_params.hpp"
#include "labelled_rows.hpp"
#include "xgb.hpp"

namespace perfpred::learn {
namespace {

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();
float lg(double v) { return (v > 0 && std::isfinite(v)) ? static_cast<float>(std::log10(v)) : k_nan; }

// No power-limit share (limit over TDP): the sustained clock already says what a limit leaves of the chip
// (a P100 at half its TDP runs at 84% of its boost clock, a V100 at 74%), and with the share beside it the
// leave-one-GPU-out score of every training fold was worse (docs/accuracy.md, "Learned model").
const std::vector<std::string> k_names = {"log_clock_scale", "log_power_over_limit", "log_idle_over_limit",
                                          "log_busy_share", "opt_log_batch", "opt_precision", "opt_mode",
                                          "opt_runtime"};

size_t column(const std::string& name) {
  return static_cast<size_t>(std::find(k_names.begin(), k_names.end(), name) - k_names.begin());
}

}  // namespace

const std::vector<std::string>& energy_feature_names() { return k_names; }

void energy_features(const Prediction& p, const GpuSpec& gpu, const PredictOptions& opts, float* out) {
  const double limit = board_power_limit_w(gpu);
  out[0] = lg(sustained_clock_scale(gpu));
  out[1] = limit > 0 ? lg(p.avg_power_w / limit) : k_nan;
  out[2] = (limit > 0 && gpu.idle_power_w > 0) ? lg(gpu.idle_power_w / limit) : k_nan;
  out[3] = p.latency_ms > 0 ? lg(p.kernels_ms / p.latency_ms) : k_nan;
  out[4] = lg(static_cast<double>(opts.batch));
  out[5] = static_cast<float>(static_cast<int>(opts.precision));
  out[6] = static_cast<float>(static_cast<int>(opts.mode));
  out[7] = static_cast<float>(static_cast<int>(opts.runtime));
}

const std::vector<std::string>& energy_range_features() {
  static const std::vector<std::string> v = {"log_clock_scale", "log_power_over_limit", "log_idle_over_limit",
                                             "log_busy_share", "opt_log_batch"};
  return v;
}

const std::vector<std::string>& energy_code_features() {
  static const std::vector<std::string> v = {"opt_precision", "opt_mode", "opt_runtime"};
  return v;
}

std::string energy_monotone_constraints() {
  std::string s = "(";
  for (size_t i = 0; i < k_names.size(); ++i) {
    if (i) s += ",";
    s += k_names[i] == "log_clock_scale" ? "-1" : "0";
  }
  return s + ")";
}

std::vector<RangeColumn> energy_range_columns(const FeatureRanges& ranges, const FeatureCodes& codes) {
  std::vector<RangeColumn> out;
  for (const auto& [name, lohi] : ranges)
    if (column(name) < k_names.size()) out.push_back({column(name), lohi.first, lohi.second, {}});
  for (const auto& [name, seen] : codes)
    if (column(name) < k_names.size() && !seen.empty())
      out.push_back({column(name), seen.front(), seen.back(), seen});
  return out;
}

std::string physical_gpu(const GpuSpec& gpu) { return gpu.parent_id.empty() ? gpu.id : gpu.parent_id; }

namespace {

// Rows: features, log(measured / analytical energy), physical GPU.
using Rows = detail::LabelledRows;
using detail::subset;

void ranges_of(const Rows& rows, FeatureRanges& ranges, FeatureCodes& codes) {
  ranges.clear();
  codes.clear();
  auto values = [&](const std::string& name) {
    std::set<double> v;
    const size_t c = column(name);
    for (int64_t r = 0; r < rows.x.rows; ++r) {
      const double x = rows.x.values[static_cast<size_t>(r * rows.x.cols) + c];
      if (std::isfinite(x)) v.insert(x);
    }
    return v;
  };
  for (const auto& n : energy_range_features())
    if (const auto v = values(n); !v.empty()) ranges[n] = {*v.begin(), *v.rbegin()};
  for (const auto& n : energy_code_features())
    if (const auto v = values(n); !v.empty()) codes[n] = std::vector<double>(v.begin(), v.end());
}

xgb::TrainParams params_of(const TrainOptions& o, int rounds) {
  xgb::TrainParams p = detail::train_params(o);
  p.rounds = rounds;
  p.monotone = energy_monotone_constraints();
  // Every tree sees every feature: with five that vary, sampling 80% of the columns per tree left the
  // sustained clock out of about one tree in three, and the chosen rounds moved with the seed.
  p.colsample_bytree = 1.0;
  return p;
}

// Rounds among 0, every, 2 x every, ... up to opts.rounds with the least mean over held-out GPUs of the
// per-GPU RMSE of the shrunk log correction; 0 rounds is the analytical energy. The curve goes to `report`.
int logo_rounds(const Rows& rows, const TrainOptions& o, nlohmann::json& report) {
  const std::set<std::string> gpus(rows.gpu.begin(), rows.gpu.end());
  const int every = std::max(1, o.early_stopping_every);
  const int steps = std::max(1, o.rounds / every);
  std::vector<double> score(static_cast<size_t>(steps) + 1, 0.0);  // score[s]: s x every rounds
  for (const auto& g : gpus) {
    std::vector<size_t> tr, va;
    for (size_t i = 0; i < rows.gpu.size(); ++i) (rows.gpu[i] == g ? va : tr).push_back(i);
    const Rows t = subset(rows, tr), v = subset(rows, va);
    FeatureRanges ranges;
    FeatureCodes codes;
    ranges_of(t, ranges, codes);
    const auto cols = energy_range_columns(ranges, codes);
    std::vector<double> w(v.y.size());
    for (size_t i = 0; i < w.size(); ++i) w[i] = range_weight(cols, v.x.values.data() + i * static_cast<size_t>(v.x.cols));
    const auto b = xgb::Booster::train(t.x, t.y, params_of(o, steps * every));
    for (int s = 0; s <= steps; ++s) {
      std::vector<float> p = s == 0 ? std::vector<float>(v.y.size(), 0.0f) : b.predict(v.x, s * every);
      double se = 0;
      for (size_t i = 0; i < p.size(); ++i) se += std::pow(w[i] * p[i] - v.y[i], 2);
      score[static_cast<size_t>(s)] +=
          std::sqrt(se / static_cast<double>(std::max<size_t>(1, p.size()))) / static_cast<double>(gpus.size());
    }
  }
  const auto best = std::min_element(score.begin(), score.end()) - score.begin();
  report = {{"folds", std::vector<std::string>(gpus.begin(), gpus.end())},
            {"rounds", best * every},
            {"logo_rmse_log_ratio", score[static_cast<size_t>(best)]},
            {"rmse_without_correction", score.front()},
            {"rmse_at_max_rounds", score.back()}};
  return static_cast<int>(best) * every;
}

}  // namespace

void train_energy_model(const std::vector<NetworkSample>& samples, const TrainOptions& opts, Bundle& out) {
  const size_t nf = k_names.size();
  Rows all;
  all.x.cols = static_cast<int64_t>(nf);
  for (const auto& s : samples) {
    const double analytical = s.prediction.energy_mj;
    if (!(s.measured > 0) || !std::isfinite(s.measured) || !(analytical > 0)) continue;
    const double y = std::log(s.measured / analytical);
    if (!std::isfinite(y))
      throw InputError("training: a measured energy of " + std::to_string(s.measured) + " mJ on " + s.gpu.id +
                       " is too far from the analytical " + std::to_string(analytical) + " mJ; check that row's unit");
    const size_t at = all.x.values.size();
    all.x.values.resize(at + nf);
    energy_features(s.prediction, s.gpu, s.opts, all.x.values.data() + at);
    all.y.push_back(static_cast<float>(y));
    all.gpu.push_back(s.gpu_id.empty() ? physical_gpu(s.gpu) : s.gpu_id);
  }
  all.x.rows = static_cast<int64_t>(all.y.size());
  if (all.y.empty())
    throw InputError("training: no usable network rows for target energy (need ok rows with a measured energy_mj "
                     "and a positive analytical one)");
  for (size_t c : dropped_columns(k_names, opts.drop_features))
    for (int64_t r = 0; r < all.x.rows; ++r) all.x.values[static_cast<size_t>(r * all.x.cols) + c] = std::nanf("");

  const std::set<std::string> gpus(all.gpu.begin(), all.gpu.end());
  nlohmann::json rep = {{"folds", nlohmann::json::array()}, {"rounds", opts.rounds}};
  const int rounds = gpus.size() >= 2 ? logo_rounds(all, opts, rep) : opts.rounds;
  const auto booster = xgb::Booster::train(all.x, all.y, params_of(opts, rounds));
  const auto p = rounds > 0 ? booster.predict(all.x) : std::vector<float>(all.y.size(), 0.0f);
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += std::abs(std::exp(static_cast<double>(p[i]) - all.y[i]) - 1.0) * 100.0;
  BoosterBlob blob;
  blob.ubj = booster.save_ubj();
  blob.train_rows = all.y.size();
  blob.train_mean_ape = sum / static_cast<double>(all.y.size());
  out.network_model = blob;
  out.network_target = k_energy_target;
  ranges_of(all, out.network_ranges, out.network_codes);
  out.params["network_target"] = k_energy_target;
  out.params["early_stopping"] = {{"energy", rep}};
  out.params["monotone_decreasing"] = {"log_clock_scale"};
  spdlog::info("training: energy correction: {} rows on {} GPUs, {} rounds (leave-one-GPU-out), in-sample mean APE "
               "{:.2f}%", all.y.size(), gpus.size(), rounds, blob.train_mean_ape);
}

}  // namespace perfpred::learn
