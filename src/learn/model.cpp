#include "perfpred/learn/model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "perfpred/learn/efficiency.hpp"
#include "perfpred/learn/energy.hpp"
#include "perfpred/util/error.hpp"
#include "xgb.hpp"

namespace perfpred::learn {

struct LearnedModel::Impl {
  Bundle bundle;
  std::string label;  ///< the bundle's file when loaded from one, else its name: what errors name
  mutable std::mutex mutex;
  mutable std::map<std::string, std::unique_ptr<xgb::Booster>> kernel;  // loaded lazily
  mutable std::map<std::string, std::unique_ptr<xgb::Booster>> host;
  mutable std::unique_ptr<xgb::Booster> network;

  const xgb::Booster* get(std::map<std::string, std::unique_ptr<xgb::Booster>>& cache,
                          const std::map<std::string, BoosterBlob>& blobs, const std::string& key,
                          const std::string& what) const {
    auto it = cache.find(key);
    if (it != cache.end()) return it->second.get();
    auto bit = blobs.find(key);
    if (bit == blobs.end()) return nullptr;
    auto b = std::make_unique<xgb::Booster>(xgb::Booster::load(bit->second.bytes(), label + ": " + what + "." + key));
    return cache.emplace(key, std::move(b)).first->second.get();
  }
};

LearnedModel::LearnedModel(Bundle bundle) : m_impl(std::make_unique<Impl>()) {
  m_impl->bundle = std::move(bundle);
  m_impl->label = m_impl->bundle.name;
}
LearnedModel::~LearnedModel() = default;

std::shared_ptr<LearnedModel> LearnedModel::load(const std::filesystem::path& path, Boosters when) {
  auto m = std::make_shared<LearnedModel>(load_bundle(path));
  if (when == Boosters::now) decode_boosters(m->bundle());
  m->m_impl->label = path.string();
  return m;
}

const Bundle& LearnedModel::bundle() const { return m_impl->bundle; }

namespace {
// One kernel as the boosters see it.
struct KernelView {
  const KernelEstimate* k;
  const GpuSpec* gpu;
  const PredictOptions* opts;
  const std::string* source;  ///< data source (evaluation), or nullptr (predict)
};

// The booster's prediction for every row of `x`, each distinct row predicted once: a network repeats
// the same kernel (ResNet-50's bottleneck blocks), and the booster call is most of a learned predict.
std::vector<float> predict_unique(const xgb::Booster& booster, const xgb::DenseMatrix& x) {
  const auto nf = static_cast<size_t>(x.cols);
  std::unordered_map<std::string_view, size_t> seen;
  seen.reserve(static_cast<size_t>(x.rows));
  std::vector<size_t> slot(static_cast<size_t>(x.rows));
  xgb::DenseMatrix u;
  u.cols = x.cols;
  for (size_t r = 0; r < slot.size(); ++r) {
    const std::string_view row(reinterpret_cast<const char*>(x.values.data() + r * nf), nf * sizeof(float));
    auto [it, fresh] = seen.emplace(row, static_cast<size_t>(u.rows));
    if (fresh) {
      u.values.insert(u.values.end(), x.values.begin() + static_cast<std::ptrdiff_t>(r * nf),
                      x.values.begin() + static_cast<std::ptrdiff_t>((r + 1) * nf));
      ++u.rows;
    }
    slot[r] = it->second;
  }
  const auto yu = booster.predict(u);
  std::vector<float> y(slot.size());
  for (size_t r = 0; r < slot.size(); ++r) y[r] = yu[slot[r]];
  return y;
}
}  // namespace

namespace {
// The bundle's timer floor for an op of a source whose labels carry one (0 otherwise).
double bundle_floor(const Bundle& b, const std::string& source, const std::string& key) {
  auto fit = b.timer_floors.find(source);
  if (fit == b.timer_floors.end() || !source_settings(source).timer_floor) return 0;
  auto oit = fit->second.find(key);
  if (oit == fit->second.end()) oit = fit->second.find("*");
  return oit == fit->second.end() ? 0.0 : oit->second;
}
}  // namespace

// Predicted log(learned / analytical) per kernel (0 where no booster applies), one XGBoost call per family;
// `weights` (when given) gets each kernel's weight of the learned time (0: the analytical time).
template <class View>
std::vector<double> kernel_ratios(const LearnedModel::Impl& m, size_t n, const View& view, std::vector<double>* weights) {
  std::vector<double> out(n, 0.0);
  if (weights) weights->assign(n, 0.0);
  const Bundle& b = m.bundle;
  if (b.target != Target::latency) return out;
  const bool eff = b.kernel_target == k_efficiency_target;
  const size_t nf = eff ? efficiency_feature_names().size() : kernel_feature_names().size();
  // Bundles before feature_version 4 saw the raw runtime enum in runtime_code.
  const auto& names = efficiency_feature_names();
  const size_t runtime_col =
      static_cast<size_t>(std::find(names.begin(), names.end(), "runtime_code") - names.begin());
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) {
    const KernelView v = view(i);
    std::string fam = booster_family(v.k->family);
    if (fam.empty() || v.k->time_s <= 0) continue;  // no kernel (views) or nothing to scale
    if (!b.kernel_models.count(fam)) fam = k_fallback_family;
    if (!b.kernel_models.count(fam)) continue;
    groups[fam].push_back(i);
  }
  std::lock_guard lock(m.mutex);
  for (const auto& [fam, idx] : groups) {
    const xgb::Booster* booster = m.get(m.kernel, b.kernel_models, fam, "kernel_models");
    xgb::DenseMatrix x;
    x.rows = static_cast<int64_t>(idx.size());
    x.cols = static_cast<int64_t>(nf);
    x.values.resize(idx.size() * nf);
    std::vector<Roofline> roofs(eff ? idx.size() : 0);
    for (size_t r = 0; r < idx.size(); ++r) {
      const KernelView v = view(idx[r]);
      float* row = x.values.data() + r * nf;
      if (!eff) {
        kernel_features(*v.k, *v.gpu, *v.opts, row);
        continue;
      }
      const bool tf32 = v.source ? source_settings(*v.source).tf32_conv : true;
      roofs[r] = kernel_roofline(*v.k, *v.gpu, *v.opts, tf32);
      efficiency_features(*v.k, *v.gpu, *v.opts, roofs[r], row);
      if (b.feature_version < 4) row[runtime_col] = static_cast<float>(static_cast<int>(v.opts->runtime));
    }
    const auto y = predict_unique(*booster, x);
    if (!eff) {
      for (size_t r = 0; r < idx.size(); ++r) {
        out[idx[r]] = y[r];
        if (weights) (*weights)[idx[r]] = 1;
      }
      continue;
    }
    auto rit = b.kernel_ranges.find(fam);
    auto cit = b.kernel_codes.find(fam);
    const FeatureRanges no_ranges;
    const FeatureCodes no_codes;
    const auto ranges = range_columns(rit == b.kernel_ranges.end() ? no_ranges : rit->second,
                                      cit == b.kernel_codes.end() ? no_codes : cit->second);
    // The booster's weight against the analytical time (Bundle::kernel_blend, set in training; 1 in bundles
    // before it), times the shrinkage outside the training range.
    const auto bit = b.kernel_blend.find(fam);
    const double blend = bit == b.kernel_blend.end() ? 1.0 : bit->second;
    for (size_t r = 0; r < idx.size(); ++r) {
      const KernelView v = view(idx[r]);
      const double w = blend * range_weight(ranges, x.values.data() + r * nf);
      if (weights) (*weights)[idx[r]] = w;
      double t = efficiency_time_s(*v.k, roofs[r], y[r], w);
      double analytical = v.k->time_s;
      if (v.source) t = with_timer_floor(t, bundle_floor(b, *v.source, floor_key(*v.k)));  // the timer sees the floor too
      out[idx[r]] = std::log(t / analytical);
    }
  }
  return out;
}

std::vector<double> LearnedModel::kernel_log_ratios(const std::vector<KernelEstimate>& ks, const GpuSpec& gpu,
                                                    const PredictOptions& opts, std::vector<double>* weights) const {
  return kernel_ratios(*m_impl, ks.size(), [&](size_t i) { return KernelView{&ks[i], &gpu, &opts, nullptr}; },
                       weights);
}

std::vector<double> LearnedModel::sample_log_ratios(const std::vector<KernelSample>& samples,
                                                    std::vector<double>* weights) const {
  return kernel_ratios(
      *m_impl, samples.size(),
      [&](size_t i) {
        const auto& s = samples[i];
        return KernelView{&s.kernel, &s.gpu, &s.opts, &s.source};
      },
      weights);
}

double LearnedModel::timer_floor_s(const KernelSample& s) const {
  const Bundle& b = m_impl->bundle;
  return b.kernel_target == k_efficiency_target ? bundle_floor(b, s.source, floor_key(s.kernel)) : 0.0;
}

bool LearnedModel::has_host_model(Runtime r) const { return m_impl->bundle.host_models.count(to_string(r)) != 0; }

double LearnedModel::host_overhead_s(double analytical_s, const GpuSpec& gpu, const PredictOptions& opts) const {
  if (m_impl->bundle.target != Target::latency || analytical_s <= 0) return analytical_s;
  std::lock_guard lock(m_impl->mutex);
  const xgb::Booster* b = m_impl->get(m_impl->host, m_impl->bundle.host_models, to_string(opts.runtime), "host_models");
  if (!b) return analytical_s;
  xgb::DenseMatrix x;
  x.rows = 1;
  x.cols = static_cast<int64_t>(host_feature_names().size());
  x.values.resize(static_cast<size_t>(x.cols));
  host_features(analytical_s, gpu, opts, x.values.data());
  return analytical_s * std::exp(static_cast<double>(b->predict(x)[0]));
}

double LearnedModel::network_factor(const Prediction& p, const GpuSpec& gpu, const PredictOptions& opts) const {
  if (!m_impl->bundle.network_model) return 1.0;
  std::lock_guard lock(m_impl->mutex);
  if (!m_impl->network)
    m_impl->network = std::make_unique<xgb::Booster>(
        xgb::Booster::load(m_impl->bundle.network_model->bytes(), m_impl->label + ": network_model"));
  const Bundle& b = m_impl->bundle;
  const bool energy = b.network_target == k_energy_target;
  xgb::DenseMatrix x;
  x.rows = 1;
  x.cols = static_cast<int64_t>(energy ? energy_feature_names().size() : network_feature_names().size());
  x.values.resize(static_cast<size_t>(x.cols));
  if (!energy) {
    network_features(p, gpu, opts, x.values.data());
    return std::exp(static_cast<double>(m_impl->network->predict(x)[0]));
  }
  energy_features(p, gpu, opts, x.values.data());
  // Outside the training range the correction shrinks toward 1, as the kernel boosters' does.
  const double w = range_weight(energy_range_columns(b.network_ranges, b.network_codes), x.values.data());
  if (!(w > 0)) return 1.0;
  return std::exp(w * static_cast<double>(m_impl->network->predict(x)[0]));
}

bool LearnedModel::gpu_seen(const std::string& gpu_id) const {
  const auto& seen = m_impl->bundle.gpus_seen;
  if (std::find(seen.begin(), seen.end(), gpu_id) != seen.end()) return true;
  // A MIG slice or power mode of a seen device counts as seen.
  const auto cut = gpu_id.find_first_of(":@");
  if (cut == std::string::npos) return false;
  return std::find(seen.begin(), seen.end(), gpu_id.substr(0, cut)) != seen.end();
}

PartDecision BundleCorrector::decision(const std::string& part, const GpuSpec& gpu, const PredictOptions& opts) const {
  const Bundle& b = m_model->bundle();
  const bool has = b.target == Target::latency &&
                   (part == k_part_host ? m_model->has_host_model(opts.runtime) : !b.kernel_models.empty());
  if (!b.policy.empty()) return decide(b.policy, part, gpu, opts, has);
  PartDecision d;
  d.part = part;
  d.learned = has;
  d.evidence = has ? "bundle " + b.name + " without a policy: it predicts every part it has boosters for"
                   : decide(b.policy, part, gpu, opts, false).evidence;
  return d;
}

double BundleCorrector::factor(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts) const {
  if (!decision(k_part_kernels, gpu, opts).learned) return 1.0;
  return std::exp(m_model->kernel_log_ratios({k}, gpu, opts)[0]);
}

void BundleCorrector::factors(const std::vector<KernelEstimate>& ks, const GpuSpec& gpu, const PredictOptions& opts,
                              std::vector<double>& out) const {
  if (!decision(k_part_kernels, gpu, opts).learned) {
    out.assign(ks.size(), 1.0);
    return;
  }
  const auto r = m_model->kernel_log_ratios(ks, gpu, opts);
  out.resize(r.size());
  for (size_t i = 0; i < r.size(); ++i) out[i] = std::exp(r[i]);
}

double BundleCorrector::host_overhead_s(double analytical_s, const GpuSpec& gpu, const PredictOptions& opts) const {
  if (!decision(k_part_host, gpu, opts).learned) return analytical_s;
  return m_model->host_overhead_s(analytical_s, gpu, opts);
}

std::string BundleCorrector::label() const { return m_model->bundle().name; }

bool BundleCorrector::gpu_seen(const GpuSpec& gpu) const {
  return m_model->gpu_seen(gpu.id) || (!gpu.parent_id.empty() && m_model->gpu_seen(gpu.parent_id));
}

void apply_network_target(const LearnedModel& m, Prediction& p, const GpuSpec& gpu, const PredictOptions& opts) {
  const Target t = m.bundle().target;
  if (t == Target::energy && p.energy_mj > 0) {
    const double f = m.network_factor(p, gpu, opts);
    p.energy_mj *= f;
    p.avg_power_w *= f;
  } else if (t == Target::memory && p.peak_memory_bytes > 0) {
    const double f = m.network_factor(p, gpu, opts);
    p.peak_memory_bytes *= f;
    const double cap = gpu.memory_bytes();
    if (cap > 0) {
      p.fits = p.peak_memory_bytes <= cap;
      p.memory_shortfall_bytes = p.fits ? 0 : p.peak_memory_bytes - cap;
    }
  }
  p.model_bundle = m.bundle().name;
  p.gpu_seen_in_training = m.gpu_seen(gpu.id) || (!gpu.parent_id.empty() && m.gpu_seen(gpu.parent_id));
}

}  // namespace perfpred::learn
