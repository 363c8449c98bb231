#include "perfpred/learn/train.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include <spdlog/spdlog.h>

#include "perfpred/learn/energy.hpp"
#include "perfpred/util/error.hpp"
#include "train_params.hpp"
#include "xgb.hpp"

namespace perfpred::learn {

xgb::TrainParams detail::train_params(const TrainOptions& o) {
  xgb::TrainParams p;
  p.rounds = o.rounds;
  p.max_depth = o.max_depth;
  p.eta = o.eta;
  p.subsample = o.subsample;
  p.colsample_bytree = o.colsample_bytree;
  p.min_child_weight = o.min_child_weight;
  p.nthread = o.nthread;
  p.seed = o.seed;
  return p;
}

namespace {

// Fit on (x, y) and report the in-sample mean APE of exp(prediction) against exp(label).
BoosterBlob fit(const xgb::DenseMatrix& x, const std::vector<float>& y, const TrainOptions& o) {
  // XGBoost rejects a non-finite label with a multi-line stack trace; the callers name the row first.
  for (float v : y)
    if (!std::isfinite(v)) throw InputError("training: a label log(measured / analytical) is not finite");
  auto booster = xgb::Booster::train(x, y, detail::train_params(o));
  const auto pred = booster.predict(x);
  double sum = 0;
  for (size_t i = 0; i < y.size(); ++i) sum += std::abs(std::exp(static_cast<double>(pred[i]) - y[i]) - 1.0) * 100.0;
  BoosterBlob blob;
  blob.ubj = booster.save_ubj();
  blob.train_rows = y.size();
  blob.train_mean_ape = y.empty() ? 0 : sum / static_cast<double>(y.size());
  return blob;
}

bool usable(double v) { return std::isfinite(v) && v > 0; }

std::string g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Set the dropped columns of a row-major matrix to missing.
void mask_columns(xgb::DenseMatrix& x, const std::vector<size_t>& cols) {
  for (int64_t r = 0; r < x.rows; ++r)
    for (size_t c : cols) x.values[static_cast<size_t>(r * x.cols) + c] = std::nanf("");
}

}  // namespace

nlohmann::json to_json(const TrainOptions& o) {
  return {{"rounds", o.rounds},
          {"max_depth", o.max_depth},
          {"eta", o.eta},
          {"subsample", o.subsample},
          {"colsample_bytree", o.colsample_bytree},
          {"min_child_weight", o.min_child_weight},
          {"nthread", o.nthread},
          {"seed", o.seed},
          {"min_family_rows", o.min_family_rows},
          {"drop_features", o.drop_features},
          {"min_host_sensitivity", o.min_host_sensitivity},
          {"kernel_blend", o.kernel_blend},
          {"objective", "reg:squarederror"},
          {"label", "log(measured / analytical)"}};
}

namespace {
bool matches(const std::string& name, const std::string& pattern) {
  if (!pattern.empty() && pattern.back() == '*') return name.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
  return name == pattern;
}
}  // namespace

std::vector<size_t> dropped_columns(const std::vector<std::string>& names, const std::vector<std::string>& drop) {
  std::vector<size_t> cols;
  for (size_t i = 0; i < names.size(); ++i)
    if (std::any_of(drop.begin(), drop.end(), [&](const std::string& d) { return matches(names[i], d); }))
      cols.push_back(i);
  return cols;
}

void check_drop_features(const std::vector<std::string>& drop) {
  for (const auto& d : drop) {
    bool any = false;
    for (const auto* names :
         {&kernel_feature_names(), &efficiency_feature_names(), &host_feature_names(), &network_feature_names(),
          &energy_feature_names()})
      any = any || std::any_of(names->begin(), names->end(), [&](const std::string& n) { return matches(n, d); });
    if (!any)
      throw InputError("train: --drop-feature '" + d +
                       "' matches no feature; see a bundle's kernel_features, host_features, network_features and energy_features, "
                       "or use a prefix ending in '*'");
  }
}

double kernel_label(const KernelSample& s) { return std::log(s.measured_s / s.kernel.time_s); }

void train_kernel_models(const std::vector<KernelSample>& samples, const TrainOptions& opts, Bundle& out) {
  const size_t nf = kernel_feature_names().size();
  const auto dropped = dropped_columns(kernel_feature_names(), opts.drop_features);
  std::map<std::string, std::vector<size_t>> by_family;
  std::vector<size_t> all;
  for (size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    if (!usable(s.measured_s) || !usable(s.kernel.time_s)) continue;
    const std::string fam = booster_family(s.kernel.family);
    if (fam.empty()) continue;
    by_family[fam].push_back(i);
    all.push_back(i);
  }
  if (all.empty()) throw InputError("training: no usable kernel rows (need ok rows with time_ms > 0 and an analytical estimate)");
  auto build = [&](const std::vector<size_t>& idx, xgb::DenseMatrix& x, std::vector<float>& y) {
    x.rows = static_cast<int64_t>(idx.size());
    x.cols = static_cast<int64_t>(nf);
    x.values.assign(idx.size() * nf, 0.0f);
    y.resize(idx.size());
    for (size_t r = 0; r < idx.size(); ++r) {
      const auto& s = samples[idx[r]];
      kernel_features(s.kernel, s.gpu, s.opts, x.values.data() + r * nf);
      y[r] = static_cast<float>(kernel_label(s));
    }
    mask_columns(x, dropped);
  };
  out.kernel_models.clear();
  for (const auto& [fam, idx] : by_family) {
    if (idx.size() < opts.min_family_rows) {
      spdlog::info("training: family {} has {} rows (< {}), served by the fallback booster", fam, idx.size(),
                   opts.min_family_rows);
      continue;
    }
    xgb::DenseMatrix x;
    std::vector<float> y;
    build(idx, x, y);
    out.kernel_models[fam] = fit(x, y, opts);
    spdlog::info("training: family {}: {} rows, in-sample mean APE {:.2f}%", fam, idx.size(),
                 out.kernel_models[fam].train_mean_ape);
  }
  if (by_family.size() > 1 || out.kernel_models.empty()) {
    xgb::DenseMatrix x;
    std::vector<float> y;
    build(all, x, y);
    out.kernel_models[k_fallback_family] = fit(x, y, opts);
  }
}

HostSample host_sample(const Prediction& p, double measured_latency_s, const GpuSpec& gpu, const PredictOptions& opts,
                       double floor_share) {
  HostSample h;
  h.analytical_host_s = p.host_overhead_ms / 1e3;
  const double other_s = (p.latency_ms - p.host_overhead_ms) / 1e3;
  h.measured_host_s = std::max(measured_latency_s - other_s, floor_share * measured_latency_s);
  h.gpu = gpu;
  h.opts = opts;
  return h;
}

void train_host_models(const std::vector<HostSample>& samples, const TrainOptions& opts, Bundle& out) {
  const size_t nf = host_feature_names().size();
  // Host dispatch cost does not depend on the batch: never split on it, so a corrected prediction stays
  // monotone in the batch (the GPU side is).
  auto host_drop = opts.drop_features;
  host_drop.push_back("opt_log_batch");
  const auto host_dropped = dropped_columns(host_feature_names(), host_drop);
  std::map<std::string, std::vector<size_t>> by_runtime;
  for (size_t i = 0; i < samples.size(); ++i)
    if (usable(samples[i].analytical_host_s) && usable(samples[i].measured_host_s))
      by_runtime[to_string(samples[i].opts.runtime)].push_back(i);
  out.host_models.clear();
  for (const auto& [rt, idx] : by_runtime) {
    if (idx.size() < opts.min_family_rows) {
      spdlog::warn("training: runtime {} has only {} network rows; no host-overhead booster", rt, idx.size());
      continue;
    }
    xgb::DenseMatrix x;
    x.rows = static_cast<int64_t>(idx.size());
    x.cols = static_cast<int64_t>(nf);
    x.values.assign(idx.size() * nf, 0.0f);
    std::vector<float> y(idx.size());
    for (size_t r = 0; r < idx.size(); ++r) {
      const auto& s = samples[idx[r]];
      host_features(s.analytical_host_s, s.gpu, s.opts, x.values.data() + r * nf);
      y[r] = static_cast<float>(std::log(s.measured_host_s / s.analytical_host_s));
    }
    mask_columns(x, host_dropped);
    out.host_models[rt] = fit(x, y, opts);
    spdlog::info("training: host overhead {}: {} rows", rt, idx.size());
  }
}

double analytical_value(const Prediction& p, Target t) {
  switch (t) {
    case Target::latency: return p.latency_ms;
    case Target::energy: return p.energy_mj;
    case Target::memory: return p.peak_memory_bytes;
  }
  return 0;
}

void train_network_model(const std::vector<NetworkSample>& samples, Target t, const TrainOptions& opts, Bundle& out) {
  if (t == Target::energy) {  // the GPU-agnostic correction (energy.hpp)
    train_energy_model(samples, opts, out);
    return;
  }
  const size_t nf = network_feature_names().size();
  std::vector<size_t> idx;
  for (size_t i = 0; i < samples.size(); ++i)
    if (usable(samples[i].measured) && usable(analytical_value(samples[i].prediction, t))) idx.push_back(i);
  if (idx.empty())
    throw InputError("training: no usable network rows for target " + to_string(t) +
                     " (need ok rows with a measured value and a positive analytical one)");
  xgb::DenseMatrix x;
  x.rows = static_cast<int64_t>(idx.size());
  x.cols = static_cast<int64_t>(nf);
  x.values.assign(idx.size() * nf, 0.0f);
  std::vector<float> y(idx.size());
  for (size_t r = 0; r < idx.size(); ++r) {
    const auto& s = samples[idx[r]];
    network_features(s.prediction, s.gpu, s.opts, x.values.data() + r * nf);
    const double analytical = analytical_value(s.prediction, t);
    y[r] = static_cast<float>(std::log(s.measured / analytical));
    if (!std::isfinite(y[r]))
      throw InputError("training: a measured " + to_string(t) + " of " + g3(s.measured) + " (" + g3(analytical) +
                       " predicted) on " + s.gpu.id +
                       " is too far from any prediction to learn from; check that row's unit");
  }
  mask_columns(x, dropped_columns(network_feature_names(), opts.drop_features));
  out.network_model = fit(x, y, opts);
}

}  // namespace perfpred::learn
