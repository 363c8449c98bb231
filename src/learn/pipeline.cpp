#include "perfpred/learn/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/learn/data.hpp"
#include "perfpred/learn/efficiency.hpp"
#include "perfpred/learn/metrics.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::learn {
namespace {

/// A measured kernel row with its analytical estimate on `gpu` (training and evaluation build it alike).
/// Throws InputError naming `where` for a row that cannot be estimated.
KernelSample kernel_sample(const KernelRow& r, const GpuSpec& gpu, const std::string& where) {
  KernelSample s;
  s.gpu = gpu;
  s.opts = kernel_options(r, where);
  s.kernel = row_kernel(r, s.gpu, s.opts, where);
  s.measured_s = *kernel_label_ms(r) / 1e3;
  s.source = r.source;
  return s;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A kernel row is of a held-out family by its op family, the booster serving it, or the family of networks
// (application) its shape comes from (KernelRow::model_family).
bool family_held_out(const std::vector<std::string>& holdout, const KernelRow& r) {
  if (holdout.empty()) return false;
  if (contains(holdout, r.op_family) || (!r.model_family.empty() && contains(holdout, r.model_family))) return true;
  try {
    return contains(holdout, booster_family(op_family_from_string(r.op_family)));
  } catch (const InputError&) {
    return false;
  }
}

// Kernel factors of a latency bundle (computed once per graph and reused) and a fixed host-overhead
// scale: the search below finds the scale at which the prediction meets the measurement.
class ScaledHostCorrector : public KernelCorrector {
 public:
  explicit ScaledHostCorrector(const LearnedModel* kernels) : m_kernels(kernels) {}
  void reset() { m_cached.clear(); }
  double scale = 1.0;
  mutable double last_analytical_host_s = 0;

  double factor(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts) const override {
    return m_kernels ? std::exp(m_kernels->kernel_log_ratios({k}, gpu, opts)[0]) : 1.0;
  }
  void factors(const std::vector<KernelEstimate>& ks, const GpuSpec& gpu, const PredictOptions& opts,
               std::vector<double>& out) const override {
    if (m_cached.size() != ks.size()) {
      m_cached.assign(ks.size(), 1.0);
      if (m_kernels) {
        const auto r = m_kernels->kernel_log_ratios(ks, gpu, opts);
        for (size_t i = 0; i < r.size(); ++i) m_cached[i] = std::exp(r[i]);
      }
    }
    out = m_cached;
  }
  double host_overhead_s(double analytical_s, const GpuSpec&, const PredictOptions&) const override {
    last_analytical_host_s = analytical_s;
    return analytical_s * scale;
  }
  std::string label() const override { return "host-fit"; }
  bool gpu_seen(const GpuSpec&) const override { return false; }

 private:
  const LearnedModel* m_kernels;
  mutable std::vector<double> m_cached;
};

// The bundle's corrector, recording what share of a network's analytical kernel time got a learned
// correction (EvalRecord::learned_share). predict() calls factors() once per graph.
class ShareCorrector : public BundleCorrector {
 public:
  using BundleCorrector::BundleCorrector;
  mutable double kernel_s = 0, learned_s = 0;
  void reset() const { kernel_s = learned_s = 0; }
  double share() const { return kernel_s > 0 ? learned_s / kernel_s : 0.0; }
  void factors(const std::vector<KernelEstimate>& ks, const GpuSpec& gpu, const PredictOptions& opts,
               std::vector<double>& out) const override {
    std::vector<double> w(ks.size(), 0.0);
    out.assign(ks.size(), 1.0);
    if (decision(k_part_kernels, gpu, opts).learned) {
      const auto r = model().kernel_log_ratios(ks, gpu, opts, &w);
      for (size_t i = 0; i < r.size(); ++i) out[i] = std::exp(r[i]);
    }
    for (size_t i = 0; i < ks.size(); ++i) {
      if (!(ks[i].time_s > 0)) continue;
      kernel_s += ks[i].time_s;
      learned_s += w[i] * ks[i].time_s;
    }
  }
};

constexpr double k_min_host_scale = 1.0 / 30;
constexpr double k_max_host_scale = 30;

// Host scale s with predict(..., s).latency == measured, by bisection in log space (latency is
// non-decreasing in s); clamped to [1/30, 30]. Empty for a row that is not host-identifiable
// (TrainOptions::min_host_sensitivity) or whose fit hits a clamp.
std::optional<HostSample> fit_host_scale(const GraphCache::Entry& e, const GpuSpec& gpu, const PredictOptions& opts,
                                         double measured_ms, ScaledHostCorrector& c, double min_sensitivity) {
  c.reset();
  auto latency = [&](double s) {
    c.scale = s;
    return predict(e.graph, e.cost, gpu, opts, &c).latency_ms;
  };
  const double at_one = latency(1.0);
  if (!(at_one > 0) || latency(2.0) < at_one * (1 + min_sensitivity)) return std::nullopt;
  double lo = std::log(k_min_host_scale), hi = std::log(k_max_host_scale);
  const double at_lo = latency(std::exp(lo));
  const double host_s = c.last_analytical_host_s;
  if (!(host_s > 0)) return std::nullopt;
  double s;
  if (at_lo >= measured_ms || latency(std::exp(hi)) <= measured_ms) {
    return std::nullopt;  // outside what a host factor can explain
  } else {
    for (int i = 0; i < 16; ++i) {
      const double mid = 0.5 * (lo + hi);
      if (latency(std::exp(mid)) < measured_ms) lo = mid;
      else hi = mid;
    }
    s = std::exp(0.5 * (lo + hi));
  }
  HostSample h;
  h.analytical_host_s = host_s;
  h.measured_host_s = host_s * s;
  h.gpu = gpu;
  h.opts = opts;
  return h;
}

std::optional<double> measured_value(const NetworkRow& r, Target t) {
  std::optional<double> v;
  switch (t) {
    case Target::latency: v = r.latency_ms; break;
    case Target::energy: v = r.energy_mj; break;
    case Target::memory: v = r.peak_memory_bytes; break;
  }
  if (v && std::isfinite(*v) && *v > 0) return v;
  return std::nullopt;
}

}  // namespace

namespace {

// What the halves of train_bundle share: GPUs resolved once, the hash of every training row, the GPUs seen.
struct TrainState {
  GpuResolver gpus;
  Fnv1a64 hash;
  std::set<std::string> seen;
  size_t bad_rows = 0;
};

std::vector<DataFile> load_training_files(const TrainRequest& req, Bundle& b) {
  std::vector<DataFile> files;
  for (const auto& p : req.data) {
    files.push_back(load_data_file(p));
    const auto& f = files.back();
    if (!licence_allows_shipping(f.licence())) {
      if (!req.allow_unlicensed_eval)
        throw InputError(p.string() + ": licence '" + f.licence() +
                         "' may not train a bundle (only MIT, Apache-2.0 or perfpred-measured); pass "
                         "--allow-unlicensed-eval to train an evaluation-only bundle marked not for shipping");
      b.for_shipping = false;
      spdlog::warn("{}: licence '{}': the bundle is marked not for shipping", p.string(), f.licence());
    }
  }
  return files;
}

// A held-out GPU or family that no row has is a typo, and the bundle would train on everything.
void check_holdouts(const std::vector<DataFile>& files, const TrainRequest& req) {
  std::set<std::string> data_gpus, data_families;
  for (const auto& f : files) {
    for (const auto& r : f.kernels) {
      data_gpus.insert(r.gpu_id);
      data_families.insert(r.op_family);
      if (!r.model_family.empty()) data_families.insert(r.model_family);
      try {  // microbenchmark rows carry families no booster serves
        data_families.insert(booster_family(op_family_from_string(r.op_family)));
      } catch (const InputError&) {
      }
    }
    for (const auto& r : f.networks) {
      data_gpus.insert(r.gpu_id);
      data_families.insert(r.model_family);
    }
  }
  for (const auto& g : req.holdout_gpus)
    if (!data_gpus.count(g))
      throw InputError("--holdout-gpu " + g + ": no row of the given data is on this GPU (they are on: " +
                       join(std::vector<std::string>(data_gpus.begin(), data_gpus.end()), ", ") + ")");
  for (const auto& fam : req.holdout_families)
    if (!data_families.count(fam))
      throw InputError("--holdout-family " + fam + ": no row of the given data is of this family (op or model "
                       "families there: " + join(std::vector<std::string>(data_families.begin(), data_families.end()), ", ") + ")");
}

// --base: the kernel boosters (and their sources, GPUs and licence status) of another latency bundle.
void take_base(const TrainRequest& req, Bundle& b, TrainState& st) {
  const Bundle base = load_bundle(req.base);
  if (base.target != Target::latency || req.target != Target::latency)
    throw InputError(req.base.string() + ": --base takes a latency bundle and trains a latency bundle");
  if (base.kernel_models.empty()) throw InputError(req.base.string() + ": --base bundle has no kernel boosters");
  b.kernel_models = base.kernel_models;
  b.kernel_target = base.kernel_target;
  b.kernel_features = base.kernel_features;
  b.kernel_ranges = base.kernel_ranges;
  b.kernel_codes = base.kernel_codes;
  b.timer_floors = base.timer_floors;
  b.feature_version = base.feature_version;  // its kernel boosters read the features of their version
  b.sources = base.sources;
  b.train_rows = base.train_rows;
  if (!base.for_shipping) b.for_shipping = false;
  st.seen.insert(base.gpus_seen.begin(), base.gpus_seen.end());
  st.hash.update(base.rows_hash);
  b.params["base"] = req.base.string();
}

// Kernel rows (latency bundles without --base): the kernel boosters. Appends one source per file.
void train_kernel_part(const TrainRequest& req, const std::vector<DataFile>& files, bool use_kernels, Bundle& b,
                       TrainState& st) {
  std::vector<KernelSample> kernel_samples;
  for (const auto& f : files) {
    DataSource src{f.source_name(), f.path.string(), f.licence(), 0};
    for (const auto& r : f.kernels) {
      if (r.status != RowStatus::ok || !kernel_label_ms(r)) continue;
      if (contains(req.holdout_gpus, r.gpu_id) || family_held_out(req.holdout_families, r)) continue;
      if (!use_kernels) continue;
      const std::string where = f.path.string() + ": row " + r.id;
      try {
        KernelSample s = kernel_sample(r, st.gpus.get(r.gpu_id, f), where);
        if (!(s.kernel.time_s > 0)) continue;
        kernel_samples.push_back(std::move(s));
      } catch (const InputError& e) {
        if (st.bad_rows++ < 5) spdlog::warn("train: skipping {}", e.what());
        continue;
      }
      st.hash.update(row_text(r));
      st.seen.insert(r.gpu_id);
      ++src.rows;
    }
    b.sources.push_back(src);
  }
  if (!kernel_samples.empty()) {
    spdlog::info("train: {} kernel rows", kernel_samples.size());
    if (req.options.kernel_target == KernelTarget::efficiency) train_efficiency_models(kernel_samples, req.options, b);
    else train_kernel_models(kernel_samples, req.options, b);
  }
  b.train_rows += kernel_samples.size();
}

// Whole networks: host overhead (latency) or the energy / memory target. Counts rows into the sources from
// first_own_source on (one per file).
void train_network_part(const TrainRequest& req, std::vector<DataFile>& files, size_t first_own_source, Bundle& b,
                        TrainState& st) {
  auto kernel_model = b.kernel_models.empty() ? nullptr : std::make_unique<LearnedModel>(b);
  ScaledHostCorrector host_fit(kernel_model.get());
  GraphCache graphs;
  std::vector<HostSample> host_samples;
  std::vector<NetworkSample> net_samples;
  size_t no_model = 0;
  size_t not_host_bound = 0;
  for (size_t fi = 0; fi < files.size(); ++fi) {
    auto& f = files[fi];
    for (const auto& r : f.networks) {
      if (r.status != RowStatus::ok) continue;
      const auto measured = measured_value(r, req.target);
      if (!measured) continue;
      if (contains(req.holdout_gpus, r.gpu_id) || contains(req.holdout_families, r.model_family)) continue;
      if (!keep_row(r.id, req.network_fraction)) continue;
      const std::string where = f.path.string() + ": row " + r.id;
      try {
        const auto* e = graphs.get(r, f);
        if (!e) {
          ++no_model;
          continue;
        }
        const GpuSpec& gpu = st.gpus.get(r.gpu_id, f, r.power_limit_w);
        const PredictOptions opts = network_options(r, where);
        if (req.target == Target::latency) {
          auto h = fit_host_scale(*e, gpu, opts, *measured, host_fit, req.options.min_host_sensitivity);
          if (!h) {
            ++not_host_bound;
            continue;
          }
          host_samples.push_back(std::move(*h));
        } else {
          NetworkSample s;
          s.prediction = predict(e->graph, e->cost, gpu, opts, nullptr);
          s.gpu = gpu;
          s.opts = opts;
          s.measured = *measured;
          s.gpu_id = r.gpu_id;
          net_samples.push_back(std::move(s));
        }
      } catch (const InputError& e) {
        if (st.bad_rows++ < 5) spdlog::warn("train: skipping {}", e.what());
        continue;
      }
      st.hash.update(row_text(r));
      st.seen.insert(r.gpu_id);
      ++b.sources[first_own_source + fi].rows;
    }
  }
  if (no_model > 0) spdlog::warn("train: {} network rows skipped: their ONNX model was not exported", no_model);
  if (not_host_bound > 0)
    spdlog::info("train: {} network rows not used for host overhead: GPU-bound (doubling the host cost moves the "
                 "prediction by less than {:.0f}%) or beyond a host factor in [1/30, 30]",
                 not_host_bound, req.options.min_host_sensitivity * 100);
  b.params["host_rows_not_host_bound"] = not_host_bound;
  if (!host_samples.empty()) {
    spdlog::info("train: {} network rows for host overhead", host_samples.size());
    train_host_models(host_samples, req.options, b);
  }
  if (!net_samples.empty()) train_network_model(net_samples, req.target, req.options, b);
  b.train_rows += host_samples.size() + net_samples.size();
}

}  // namespace

Bundle train_bundle(const TrainRequest& req) {
  if (req.data.empty()) throw InputError("train: give at least one --data file");
  check_drop_features(req.options.drop_features);
  Bundle b;
  b.target = req.target;
  b.name = req.name;
  b.created_by = req.command;
  b.holdout_gpus = req.holdout_gpus;
  b.holdout_families = req.holdout_families;
  b.params = to_json(req.options);
  b.params["network_fraction"] = req.network_fraction;

  std::vector<DataFile> files = load_training_files(req, b);
  check_holdouts(files, req);
  TrainState st;
  if (!req.base.empty()) take_base(req, b, st);
  const size_t first_own_source = b.sources.size();
  train_kernel_part(req, files, req.target == Target::latency && req.base.empty(), b, st);
  train_network_part(req, files, first_own_source, b, st);
  if (st.bad_rows > 5) spdlog::warn("train: {} rows skipped in all", st.bad_rows);
  if (b.kernel_models.empty() && b.host_models.empty() && !b.network_model)
    throw InputError("train: no usable rows for target " + to_string(req.target) +
                     " in the given --data files (only ok rows with a measurement train; network rows need "
                     "their ONNX model; held-out GPUs and families are excluded)");
  b.rows_hash = "fnv1a64:" + st.hash.hex();
  b.gpus_seen.assign(st.seen.begin(), st.seen.end());
  return b;
}

namespace {

// Kernel rows of one data file, batched through the boosters.
void evaluate_kernels(const LearnedModel& model, const EvalRequest& req, const DataFile& f, GpuResolver& gpus,
                      EvalResult& res) {
  const Bundle& b = model.bundle();
  std::vector<KernelSample> ks;
  std::vector<EvalRecord> kr;
  for (const auto& r : f.kernels) {
    if (r.status != RowStatus::ok || !kernel_label_ms(r)) continue;
    if (!req.holdout_gpus.empty() && !contains(req.holdout_gpus, r.gpu_id)) continue;
    if (!req.holdout_families.empty() && !family_held_out(req.holdout_families, r)) continue;
    if (b.target != Target::latency) continue;
    const std::string where = f.path.string() + ": row " + r.id;
    try {
      KernelSample s = kernel_sample(r, gpus.get(r.gpu_id, f), where);
      if (!(s.kernel.time_s > 0)) continue;
      EvalRecord rec;
      rec.file = f.path.string();
      rec.id = r.id;
      rec.gpu_id = r.gpu_id;
      rec.op_family = r.op_family;
      rec.model_family = r.model_family;
      rec.kind = "kernel";
      rec.phase = r.phase;
      rec.precision = r.precision;
      rec.measured = s.measured_s * 1e3;
      // A timer with a per-op floor (NeuSight) sees it under either predictor: the analytical time gets the
      // floor the learned one gets (sample_log_ratios), or the comparison credits the boosters with it.
      rec.analytical = with_timer_floor(s.kernel.time_s, model.timer_floor_s(s)) * 1e3;
      ks.push_back(std::move(s));
      kr.push_back(std::move(rec));
    } catch (const InputError& e) {
      if (res.skipped_other++ < 5) spdlog::warn("eval: skipping {}", e.what());
    }
  }
  std::vector<double> weights;
  const auto ratios = model.sample_log_ratios(ks, &weights);
  for (size_t i = 0; i < kr.size(); ++i) {
    kr[i].learned = ks[i].kernel.time_s * 1e3 * std::exp(ratios[i]);
    kr[i].learned_share = weights[i];
    res.records.push_back(std::move(kr[i]));
  }
}

// Network rows of one data file, under the bundle's corrector.
void evaluate_networks(const LearnedModel& model, const EvalRequest& req, const DataFile& f, GpuResolver& gpus,
                       GraphCache& graphs, const ShareCorrector& corrector, EvalResult& res) {
  const Bundle& b = model.bundle();
  for (const auto& r : f.networks) {
    if (r.status != RowStatus::ok) continue;
    const auto measured = measured_value(r, b.target);
    if (!measured) continue;
    if (!req.holdout_gpus.empty() && !contains(req.holdout_gpus, r.gpu_id)) continue;
    if (!req.holdout_families.empty() && !contains(req.holdout_families, r.model_family)) continue;
    if (!keep_row(r.id, req.network_fraction)) continue;
    const std::string where = f.path.string() + ": row " + r.id;
    try {
      const auto* e = graphs.get(r, f);
      if (!e) {
        ++res.skipped_no_model;
        continue;
      }
      const GpuSpec& gpu = gpus.get(r.gpu_id, f, r.power_limit_w);
      const PredictOptions opts = network_options(r, where);
      const Prediction a = predict(e->graph, e->cost, gpu, opts, nullptr);
      Prediction l;
      corrector.reset();
      if (b.target == Target::latency) {
        l = predict(e->graph, e->cost, gpu, opts, &corrector);
      } else {
        l = a;
        apply_network_target(model, l, gpu, opts);
      }
      EvalRecord rec;
      rec.file = f.path.string();
      rec.id = r.id;
      rec.gpu_id = r.gpu_id;
      rec.model_family = r.model_family;
      rec.kind = "network";
      rec.phase = r.mode;
      rec.precision = r.precision;
      rec.measured = *measured;
      rec.analytical = analytical_value(a, b.target);
      rec.learned = analytical_value(l, b.target);
      rec.learned_share = corrector.share();
      if (!(rec.analytical > 0) || !(rec.learned > 0)) {
        ++res.skipped_other;
        continue;
      }
      res.records.push_back(std::move(rec));
    } catch (const InputError& e) {
      if (res.skipped_other++ < 5) spdlog::warn("eval: skipping {}", e.what());
    }
  }
}

}  // namespace

EvalResult evaluate(const LearnedModel& model, const EvalRequest& req) {
  EvalResult res;
  GpuResolver gpus;
  GraphCache graphs;
  ShareCorrector corrector(std::shared_ptr<const LearnedModel>(&model, [](const LearnedModel*) {}));
  for (const auto& path : req.data) {
    const DataFile f = load_data_file(path);
    evaluate_kernels(model, req, f, gpus, res);
    evaluate_networks(model, req, f, gpus, graphs, corrector, res);
  }
  if (res.skipped_no_model > 0)
    res.notes.push_back(std::to_string(res.skipped_no_model) + " network rows skipped: ONNX model not exported");
  if (res.skipped_other > 0) res.notes.push_back(std::to_string(res.skipped_other) + " rows skipped: unusable (see warnings)");
  return res;
}

namespace {

nlohmann::json summary_json(const std::vector<const EvalRecord*>& rs) {
  std::vector<double> meas, an, le;
  double share = 0;
  for (const auto* r : rs) {
    meas.push_back(r->measured);
    an.push_back(r->analytical);
    le.push_back(r->learned);
    share += r->learned_share;
  }
  auto one = [&](const std::vector<double>& pred) {
    const auto s = summarize(pred, meas);
    auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    return nlohmann::json{{"mean_ape", num(s.mean_ape)}, {"p90_ape", num(s.p90_ape)}, {"spearman", num(s.spearman)}};
  };
  // learned_share: the mean over rows of the share of a row's kernel time the boosters corrected; near 0 the
  // learned column is the analytical model (held-out families, unseen codes or ops).
  return {{"n", rs.size()},
          {"learned", one(le)},
          {"analytical", one(an)},
          {"learned_share", rs.empty() ? nlohmann::json(nullptr) : nlohmann::json(share / static_cast<double>(rs.size()))}};
}

nlohmann::json grouped(const std::vector<EvalRecord>& rs, std::string EvalRecord::*key) {
  std::map<std::string, std::vector<const EvalRecord*>> g;
  for (const auto& r : rs)
    if (!(r.*key).empty()) g[r.*key].push_back(&r);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : g) out[k] = summary_json(v);
  return out;
}

}  // namespace

nlohmann::json eval_report(const EvalResult& r, const Bundle& b) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["model_bundle"] = b.name;
  j["target"] = to_string(b.target);
  j["for_shipping"] = b.for_shipping;
  std::vector<const EvalRecord*> all;
  for (const auto& x : r.records) all.push_back(&x);
  j["overall"] = summary_json(all);
  j["by_gpu"] = grouped(r.records, &EvalRecord::gpu_id);
  j["by_op_family"] = grouped(r.records, &EvalRecord::op_family);
  j["by_model_family"] = grouped(r.records, &EvalRecord::model_family);
  j["by_phase"] = grouped(r.records, &EvalRecord::phase);
  j["by_precision"] = grouped(r.records, &EvalRecord::precision);
  nlohmann::json seen = nlohmann::json::object();
  std::set<std::string> ids;
  for (const auto& x : r.records) ids.insert(x.gpu_id);
  for (const auto& id : ids) seen[id] = contains(b.gpus_seen, id);
  j["gpu_seen_in_training"] = seen;
  j["notes"] = r.notes;
  return j;
}

std::string eval_rows_csv(const EvalResult& r) {
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  auto err = [&](double pred, double meas) { return meas > 0 ? num(100.0 * (pred - meas) / meas) : std::string(); };
  std::string out = csv_line({"file", "id", "kind", "gpu_id", "family", "phase_or_mode", "precision", "measured",
                              "analytical", "learned", "analytical_error_pct", "learned_error_pct",
                              "learned_share", "model_family"});
  for (const auto& x : r.records)
    out += csv_line({x.file, x.id, x.kind, x.gpu_id, x.kind == "kernel" ? x.op_family : x.model_family, x.phase,
                     x.precision, num(x.measured), num(x.analytical), num(x.learned), err(x.analytical, x.measured),
                     err(x.learned, x.measured), num(x.learned_share), x.model_family});
  return out;
}

std::string eval_text(const nlohmann::json& j) {
  std::ostringstream o;
  auto fmt = [](const nlohmann::json& v, const char* f) {
    if (v.is_null()) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v.get<double>());
    return std::string(buf);
  };
  auto row = [&](const std::string& name, const nlohmann::json& s) {
    char buf[256];
    const nlohmann::json share = s.contains("learned_share") ? s["learned_share"] : nlohmann::json(nullptr);
    std::snprintf(buf, sizeof buf, "  %-28s %8zu  %8s %8s %7s %7s   %8s %8s %7s\n", name.c_str(), s["n"].get<size_t>(),
                  fmt(s["learned"]["mean_ape"], "%.1f%%").c_str(), fmt(s["learned"]["p90_ape"], "%.1f%%").c_str(),
                  fmt(s["learned"]["spearman"], "%.3f").c_str(),
                  fmt(share.is_null() ? share : nlohmann::json(100 * share.get<double>()), "%.0f%%").c_str(),
                  fmt(s["analytical"]["mean_ape"], "%.1f%%").c_str(),
                  fmt(s["analytical"]["p90_ape"], "%.1f%%").c_str(), fmt(s["analytical"]["spearman"], "%.3f").c_str());
    o << buf;
  };
  o << "model bundle: " << j["model_bundle"].get<std::string>() << " (target " << j["target"].get<std::string>()
    << (j["for_shipping"].get<bool>() ? "" : ", not for shipping") << ")\n";
  char head[256];
  std::snprintf(head, sizeof head, "  %-28s %8s  %8s %8s %7s %7s   %8s %8s %7s\n", "", "rows", "mean APE", "P90 APE", "rho",
                "share", "mean APE", "P90 APE", "rho");
  o << "                                          -------------- learned --------------   --------- analytical --------\n"
    << head;
  row("all", j["overall"]);
  for (const char* sec : {"by_gpu", "by_op_family", "by_model_family"}) {
    if (j[sec].empty()) continue;
    o << std::string(sec).substr(3) << ":\n";
    for (const auto& [k, v] : j[sec].items()) {
      std::string label = k;
      if (std::string(sec) == "by_gpu" && j["gpu_seen_in_training"].contains(k) && !j["gpu_seen_in_training"][k].get<bool>())
        label += " (unseen)";
      row(label, v);
    }
  }
  o << "share: mean share of a row's kernel time the boosters corrected (0%: the learned column is the analytical "
       "model's kernels)\n";
  for (const auto& n : j["notes"]) o << "note: " << n.get<std::string>() << "\n";
  return o.str();
}

}  // namespace perfpred::learn
