// Fitting the efficiency boosters: label corrections per source, leave-one-GPU-out early stopping,
// monotone constraints, training ranges (docs/accuracy.md, "Learned model").
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "perfpred/learn/efficiency.hpp"
#include "perfpred/learn/train.hpp"
#include "perfpred/util/error.hpp"
#include "train_params.hpp"
#include "labelled_rows.hpp"
#include "xgb.hpp"

namespace perfpred::learn {
namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

xgb::TrainParams params_of(const TrainOptions& o, int rounds) {
  xgb::TrainParams p = detail::train_params(o);
  p.rounds = rounds;
  p.monotone = efficiency_monotone_constraints();
  return p;
}

// Rows: features, log-efficiency label, GPU.
using Rows = detail::LabelledRows;
using detail::subset;

// Timer-floor probes: rows whose roofline is at most this (far below any per-op floor), at least this many per op.
constexpr double k_floor_probe_roofline_s = 2e-6;
constexpr size_t k_floor_probe_min_rows = 20;
// An op without such rows whose fastest calls (k_floor_fastest_share of its rows) are still mostly floor (their
// median roofline under k_floor_fastest_roofline_share of their time) has a floor of its own above the other ops':
// their time (NeuSight's convolutions: PyTorch 2.1's cuDNN call, 150-320 us on its five machines where an
// elementwise op's floor is 25-60 us).
constexpr double k_floor_fastest_share = 0.02;
constexpr double k_floor_fastest_roofline_share = 0.25;

double clamp_log_eff(double v) { return std::clamp(v, std::log(k_min_efficiency), 0.0); }

// Rounds (a multiple of `every`, at most `max_rounds`) with the least mean over held-out GPUs of the
// per-GPU RMSE of log efficiency, each GPU left out in turn; the curve is recorded in `report`.
int logo_rounds(const Rows& rows, const TrainOptions& o, nlohmann::json& report) {
  std::set<std::string> gpus(rows.gpu.begin(), rows.gpu.end());
  const int every = std::max(1, o.early_stopping_every);
  const int steps = std::max(1, o.rounds / every);
  std::vector<double> score(static_cast<size_t>(steps), 0.0);
  for (const auto& g : gpus) {
    std::vector<size_t> tr, va;
    for (size_t i = 0; i < rows.gpu.size(); ++i) (rows.gpu[i] == g ? va : tr).push_back(i);
    const Rows t = subset(rows, tr), v = subset(rows, va);
    const auto b = xgb::Booster::train(t.x, t.y, params_of(o, steps * every));
    for (int s = 0; s < steps; ++s) {
      const auto p = b.predict(v.x, (s + 1) * every);
      double se = 0;
      for (size_t i = 0; i < p.size(); ++i) se += std::pow(clamp_log_eff(p[i]) - v.y[i], 2);
      score[static_cast<size_t>(s)] += std::sqrt(se / static_cast<double>(std::max<size_t>(1, p.size()))) /
                                       static_cast<double>(gpus.size());
    }
  }
  const auto best = std::min_element(score.begin(), score.end()) - score.begin();
  report = {{"folds", std::vector<std::string>(gpus.begin(), gpus.end())},
            {"rounds", (best + 1) * every},
            {"logo_rmse_log_efficiency", score[static_cast<size_t>(best)]},
            {"rmse_at_max_rounds", score.back()}};
  return static_cast<int>(best + 1) * every;
}

BoosterBlob fit_final(const Rows& rows, const TrainOptions& o, int rounds) {
  const auto b = xgb::Booster::train(rows.x, rows.y, params_of(o, rounds));
  const auto p = b.predict(rows.x);
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += std::abs(std::exp(rows.y[i] - clamp_log_eff(p[i])) - 1.0) * 100.0;
  BoosterBlob blob;
  blob.ubj = b.save_ubj();
  blob.train_rows = rows.y.size();
  blob.train_mean_ape = p.empty() ? 0 : sum / static_cast<double>(p.size());
  return blob;
}

FeatureRanges ranges_of(const Rows& rows) {
  FeatureRanges out;
  const auto& names = efficiency_feature_names();
  for (const auto& n : efficiency_range_features()) {
    const auto c = static_cast<size_t>(std::find(names.begin(), names.end(), n) - names.begin());
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int64_t r = 0; r < rows.x.rows; ++r) {
      const double v = rows.x.values[static_cast<size_t>(r * rows.x.cols) + c];
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (lo <= hi) out[n] = {lo, hi};
  }
  return out;
}

FeatureCodes codes_of(const Rows& rows) {
  FeatureCodes out;
  const auto& names = efficiency_feature_names();
  for (const auto& n : efficiency_code_features()) {
    const auto c = static_cast<size_t>(std::find(names.begin(), names.end(), n) - names.begin());
    std::set<double> seen;
    for (int64_t r = 0; r < rows.x.rows; ++r) {
      const double v = rows.x.values[static_cast<size_t>(r * rows.x.cols) + c];
      if (std::isfinite(v)) seen.insert(v);
    }
    if (!seen.empty()) out[n] = std::vector<double>(seen.begin(), seen.end());
  }
  return out;
}

}  // namespace

std::string floor_op(const std::string& op) { return op.substr(0, op.find_first_of("+.")); }

std::string floor_key(const KernelEstimate& k) {
  for (const auto& [name, v] : k.attrs)
    if (name == "scalar_operand" && v == 1) return floor_op(k.op) + ":scalar";
  return floor_op(k.op);
}

std::map<std::string, std::map<std::string, std::map<std::string, double>>> timer_floors_per_gpu(
    const std::vector<KernelSample>& samples) {
  // Only rows whose roofline is far below any floor say what the floor is; an op with too few of them
  // (NeuSight's convolutions are all large) takes the median floor of the GPU's other ops ("*").
  // Per source, GPU and op: the tiny rows' times, and every row's (time, roofline).
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<double>>>> times;
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<std::pair<double, double>>>>> calls;
  for (const auto& s : samples) {
    const SourceSettings set = source_settings(s.source);
    if (!set.timer_floor || !(s.measured_s > 0)) continue;
    const double roofline = kernel_roofline(s.kernel, s.gpu, s.opts, set.tf32_conv).time_s;
    const std::string op = floor_key(s.kernel);
    calls[s.source][s.gpu.id][op].emplace_back(s.measured_s, roofline);
    if (roofline <= k_floor_probe_roofline_s) times[s.source][s.gpu.id][op].push_back(s.measured_s);
  }
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> out;
  for (const auto& [src, gpus] : calls)
    for (const auto& [gpu, ops] : gpus) {
      std::vector<double> each;
      for (const auto& [op, rows] : ops) {
        if (const auto& tiny = times[src][gpu][op]; tiny.size() >= k_floor_probe_min_rows) {
          each.push_back(out[src][gpu][op] = quantile(tiny, 0.02));
          continue;
        }
        // No tiny rows: the op's fastest calls, where those are mostly floor.
        auto sorted = rows;
        std::sort(sorted.begin(), sorted.end());
        const size_t n = static_cast<size_t>(k_floor_fastest_share * static_cast<double>(sorted.size()));
        if (n < k_floor_probe_min_rows) continue;
        std::vector<double> share;
        for (size_t i = 0; i < n; ++i) share.push_back(sorted[i].second / sorted[i].first);
        if (quantile(share, 0.5) < k_floor_fastest_roofline_share) out[src][gpu][op] = sorted[n - 1].first;
      }
      if (!each.empty()) out[src][gpu]["*"] = quantile(each, 0.5);  // the tiny-row floors only
    }
  return out;
}

namespace {
// The floor of `op` on a GPU of a source (0 when the source has none there).
double gpu_floor(const std::map<std::string, std::map<std::string, std::map<std::string, double>>>& floors,
                 const std::string& source, const std::string& gpu, const std::string& op) {
  auto s = floors.find(source);
  if (s == floors.end()) return 0;
  auto g = s->second.find(gpu);
  if (g == s->second.end()) return 0;
  auto it = g->second.find(op);
  if (it == g->second.end()) it = g->second.find("*");
  return it == g->second.end() ? 0.0 : it->second;
}

// Quantiles of the training GPUs' floors that may stand for an unseen GPU's: a machine's floor is the software's
// own cost plus whatever its host adds (a slower CPU only ever adds), so the middle of a few machines can sit on
// a slow one.
constexpr double k_unseen_floor_quantiles[] = {0.0, 0.25, 0.5};

// The quantile (of k_unseen_floor_quantiles) of the other training GPUs' floors that best predicts each training
// GPU's own (each left out in turn; mean |log(predicted / own)| over its ops); the median with fewer than three
// GPUs. The error per quantile goes to `report`.
double unseen_floor_quantile(const std::map<std::string, std::map<std::string, double>>& gpus, nlohmann::json& report) {
  if (gpus.size() < 3) {
    report = {{"quantile", 0.5}, {"why", "fewer than three GPUs"}};
    return 0.5;
  }
  double best_q = 0.5, best = std::numeric_limits<double>::infinity();
  nlohmann::json errors = nlohmann::json::object();
  for (const double q : k_unseen_floor_quantiles) {
    double sum = 0;
    size_t n = 0;
    for (const auto& [gpu, ops] : gpus)
      for (const auto& [op, own] : ops) {
        std::vector<double> others;
        for (const auto& [g, o] : gpus)
          if (g != gpu)
            if (auto it = o.find(op); it != o.end()) others.push_back(it->second);
        if (others.empty() || !(own > 0)) continue;
        sum += std::abs(std::log(quantile(others, q) / own));
        ++n;
      }
    const double err = n ? sum / static_cast<double>(n) : std::numeric_limits<double>::infinity();
    errors[std::to_string(q).substr(0, 4)] = err;
    if (err < best - 1e-12) best = err, best_q = q;
  }
  report = {{"quantile", best_q}, {"mean_abs_log_error_leave_one_gpu_out", errors}};
  return best_q;
}
}  // namespace

void train_efficiency_models(const std::vector<KernelSample>& samples, const TrainOptions& opts, Bundle& out) {
  const auto floors = timer_floors_per_gpu(samples);
  // Bundle floors (an unseen GPU's): per op and "*", a quantile of the training GPUs' floors chosen by leaving
  // each training GPU out in turn.
  out.timer_floors.clear();
  nlohmann::json floor_report = nlohmann::json::object();
  for (const auto& [src, gpus] : floors) {
    const double q = unseen_floor_quantile(gpus, floor_report[src]);
    std::map<std::string, std::vector<double>> per_op;
    for (const auto& [gpu, ops] : gpus)
      for (const auto& [op, v] : ops) per_op[op].push_back(v);
    for (const auto& [op, v] : per_op) out.timer_floors[src][op] = quantile(v, q);
  }

  const auto& names = efficiency_feature_names();
  const size_t nf = names.size();
  std::map<std::string, std::vector<size_t>> by_family;
  Rows all;
  size_t at_floor = 0, above_roofline = 0, unusable = 0, source_excluded = 0;
  for (const auto& s : samples) {
    const std::string fam = booster_family(s.kernel.family);
    if (fam.empty() || !(s.measured_s > 0) || !std::isfinite(s.measured_s)) {
      ++unusable;
      continue;
    }
    const SourceSettings set = source_settings(s.source);
    if (!set.trains_conv && fam == booster_family(OpFamily::conv)) {
      ++source_excluded;  // a source whose convolution labels do not transfer to networks (efficiency.hpp)
      continue;
    }
    double body = s.measured_s;
    if (set.timer_floor) {
      body = body_behind_floor(s.measured_s, gpu_floor(floors, s.source, s.gpu.id, floor_key(s.kernel)));
      if (!(body > 0)) {
        ++at_floor;  // the measurement is the floor: it says nothing about the kernel
        continue;
      }
    }
    const Roofline r = kernel_roofline(s.kernel, s.gpu, s.opts, set.tf32_conv);
    const double eff = r.time_s / body;
    if (eff > 1) ++above_roofline;
    by_family[fam].push_back(all.y.size());
    all.y.push_back(static_cast<float>(clamp_log_eff(std::log(eff))));
    all.gpu.push_back(s.gpu.id);
    const size_t at = all.x.values.size();
    all.x.values.resize(at + nf);
    efficiency_features(s.kernel, s.gpu, s.opts, r, all.x.values.data() + at);
  }
  all.x.rows = static_cast<int64_t>(all.y.size());
  all.x.cols = static_cast<int64_t>(nf);
  if (all.y.empty())
    throw InputError("training: no usable kernel rows for the efficiency target (every row was at its timer floor, "
                     "had no positive time_ms or came from a source whose convolutions do not train)");
  // Dropped features: their columns become missing, so no tree splits on them.
  const auto dropped = dropped_columns(names, opts.drop_features);
  for (int64_t r = 0; r < all.x.rows; ++r)
    for (size_t c : dropped) all.x.values[static_cast<size_t>(r * all.x.cols) + c] = std::nanf("");

  out.kernel_models.clear();
  out.kernel_ranges.clear();
  out.kernel_codes.clear();
  out.kernel_blend.clear();
  out.kernel_target = k_efficiency_target;
  out.kernel_features = names;
  nlohmann::json stopping = nlohmann::json::object();
  std::vector<int> chosen;
  auto train_one = [&](const std::string& key, const Rows& rows, int fixed_rounds) {
    const std::set<std::string> gpus(rows.gpu.begin(), rows.gpu.end());
    int rounds = fixed_rounds > 0 ? fixed_rounds : opts.rounds;
    nlohmann::json rep = {{"folds", nlohmann::json::array()}, {"rounds", rounds}};
    if (fixed_rounds > 0) rep["from"] = "median of the family boosters' rounds";
    else if (gpus.size() >= 2) rounds = logo_rounds(rows, opts, rep);
    out.kernel_models[key] = fit_final(rows, opts, rounds);
    out.kernel_ranges[key] = ranges_of(rows);
    out.kernel_codes[key] = codes_of(rows);
    out.kernel_blend[key] = opts.kernel_blend;
    stopping[key] = rep;
    chosen.push_back(rounds);
    spdlog::info("training: efficiency {}: {} rows, {} rounds (leave-one-GPU-out over {} GPUs), in-sample mean APE "
                 "{:.2f}%", key, rows.y.size(), rounds, fixed_rounds > 0 ? 0 : gpus.size(),
                 out.kernel_models[key].train_mean_ape);
  };
  for (const auto& [fam, idx] : by_family) {
    if (idx.size() < opts.min_family_rows) continue;
    train_one(fam, subset(all, idx), 0);
  }
  // The fallback serves families without data of their own: it takes the families' median rounds rather
  // than a leave-one-GPU-out search over every row (which would double the training time).
  if (by_family.size() > 1 || out.kernel_models.empty()) {
    std::vector<int> c = chosen;
    std::sort(c.begin(), c.end());
    train_one(k_fallback_family, all, c.empty() ? 0 : c[c.size() / 2]);
  }
  out.params["kernel_target"] = k_efficiency_target;
  out.params["early_stopping"] = stopping;
  out.params["monotone_increasing"] = {"log_waves", "log_roofline_over_launch"};
  out.params["unseen_timer_floor"] = floor_report;
  out.params["label_corrections"] = {
      {"rows", all.y.size()},
      {"rows_at_timer_floor_dropped", at_floor},
      {"rows_faster_than_roofline_clamped_to_1", above_roofline},
      {"rows_unusable", unusable},
      {"rows_excluded_by_source", source_excluded},
      {"source_exclusions", "neusight convolutions do not train (random shapes at about half the efficiency of "
                            "network-shaped convolutions on the same GPUs); they are still evaluated"},
      {"timer_floor", "sources with a per-op floor (neusight): floor = 2nd percentile of the op's time per GPU over rows "
                      "whose roofline is under 2 us (an op without 20 such rows: its fastest 2% of calls where those "
                      "are mostly floor, else the GPU's median op floor); a tensor-scalar op (scalar_operand=1) is an "
                      "op of its own; body = sqrt(measured^2 - floor^2); rows under twice the floor dropped; an "
                      "unseen GPU's floor: the quantile of the training GPUs' floors in unseen_timer_floor"},
      {"tf32", "neusight ran with cudnn.allow_tf32 = False: its FP32 convolutions are costed on the SIMT roofline"}};
}

}  // namespace perfpred::learn
