#include "cmd_eval.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common.hpp"
#include "perfpred/learn/pipeline.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/paths.hpp"

namespace perfpred::cli {

int run_eval(const EvalCmdOptions& o) {
  if (o.model.empty()) throw InputError("eval: --model BUNDLE.json is required");
  if (o.data.empty()) throw InputError("eval: give at least one --data file");
  if (!(o.network_fraction > 0 && o.network_fraction <= 1)) throw InputError("eval: --network-fraction must be in (0, 1]");
  const auto model = learn::LearnedModel::load(learn::bundle_argument(o.model));
  learn::EvalRequest req;
  for (const auto& d : o.data) req.data.emplace_back(d);
  req.holdout_gpus = o.holdout_gpus;
  req.holdout_families = o.holdout_families;
  req.network_fraction = o.network_fraction;
  const auto res = learn::evaluate(*model, req);
  if (res.records.empty())
    throw InputError("eval: no rows to evaluate in the given --data files for a " +
                     learn::to_string(model->bundle().target) + " bundle (check --holdout-gpu/--holdout-family)");
  if (!o.rows.empty()) write_text_file(o.rows, learn::eval_rows_csv(res), "eval --rows");
  const auto report = learn::eval_report(res, model->bundle());
  for (const auto& g : o.holdout_gpus)
    if (model->gpu_seen(g)) spdlog::warn("eval: GPU {} was in the bundle's training data: not a held-out result", g);
  if (o.json)
    print_json(report);
  else
    std::fputs(learn::eval_text(report).c_str(), stdout);
  return 0;
}

namespace {

/// The bundles of `predict --model ...`, loaded and checked: the latency corrector (may be null) and the
/// hook that applies energy and memory bundles to a prediction.
struct PredictBundles {
  PredictBundles(const std::vector<std::string>& models, bool analytical);
  std::unique_ptr<learn::BundleCorrector> corrector;
  /// Why no latency bundle predicts (--analytical, no shipped bundle), when `corrector` is null.
  std::string analytical_reason;
  std::vector<std::shared_ptr<const learn::LearnedModel>> target_models;  ///< energy, memory
  PredictionHook after;
};

PredictBundles::PredictBundles(const std::vector<std::string>& models, bool analytical) {
  if (analytical && !models.empty()) throw InputError("predict: --model and --analytical exclude each other");
  if (analytical) analytical_reason = "--analytical: the analytical model alone";
  if (models.empty() && !analytical) {
    // The shipped bundle predicts the parts its policy gives it; without it (or without a policy) the
    // analytical model predicts everything.
    if (const auto path = learn::default_bundle_path()) {
      auto m = learn::LearnedModel::load(*path, learn::LearnedModel::Boosters::on_use);
      if (m->bundle().target == learn::Target::latency && !m->bundle().policy.empty())
        corrector = std::make_unique<learn::BundleCorrector>(m);
      else
        analytical_reason = "the shipped bundle " + path->string() +
                            " has no latency policy saying where it beats the analytical model";
    } else {
      analytical_reason = "no shipped bundle (" + (model_dir() / "perfpred-default.json").string() +
                          " is not there; PERFPRED_MODEL_DIR names its folder)";
    }
  }
  std::map<learn::Target, std::string> given;
  for (const auto& path : models) {
    auto m = learn::LearnedModel::load(learn::bundle_argument(path));
    const learn::Target t = m->bundle().target;
    if (given.count(t))
      throw InputError("predict: --model " + path + " and --model " + given[t] + " are both " + learn::to_string(t) +
                       " bundles; give at most one per target (latency, energy, memory)");
    given[t] = path;
    if (t == learn::Target::latency)
      corrector = std::make_unique<learn::BundleCorrector>(m);
    else
      target_models.push_back(std::move(m));
  }
  if (!target_models.empty()) {
    // Energy and memory bundles learned log(measured / analytical) on analytical predictions: their factor is
    // computed on the analytical prediction and applied to the analytical value of their target.
    after = [target_models = target_models](Prediction& p, const Graph& g, const GraphCost& cost,
                                            const GpuSpec& gpu, const PredictOptions& po) {
      const Prediction a = predict(g, cost, gpu, po, nullptr);
      for (const auto& m : target_models) {
        const learn::Target t = m->bundle().target;
        const double f = m->network_factor(a, gpu, po);
        const bool seen = m->gpu_seen(gpu.id) || (!gpu.parent_id.empty() && m->gpu_seen(gpu.parent_id));
        if (t == learn::Target::energy && a.energy_mj > 0) {
          p.energy_mj = a.energy_mj * f;
          if (p.latency_ms > 0) p.avg_power_w = p.energy_mj / p.latency_ms;  // mJ / ms = W
        } else if (t == learn::Target::memory && a.peak_memory_bytes > 0) {
          p.peak_memory_bytes = a.peak_memory_bytes * f;
          const double cap = gpu.memory_bytes();
          if (cap > 0) {
            p.fits = p.peak_memory_bytes <= cap;
            p.memory_shortfall_bytes = p.fits ? 0 : p.peak_memory_bytes - cap;
          }
        }
        p.target_bundles.push_back({learn::to_string(t), m->bundle().name, f, seen});
        p.notes.push_back(learn::to_string(t) + " from bundle " + m->bundle().name + " (x" + std::to_string(f).substr(0, 6) +
                          " on the analytical value" + (seen ? "" : "; GPU not in its training data") + ")");
      }
    };
  }
}

}  // namespace

namespace {

/// Which predictor made each part of `r`; model_bundle names the bundle only where it predicted a part.
void record_predictor(const PredictBundles& b, PredictRun& r, const PredictOptions& po) {
  PredictorChoice& c = r.predictor;
  c.parts.clear();
  bool any = false;
  for (const char* part : {learn::k_part_kernels, learn::k_part_host}) {
    PredictorChoice::Part p;
    p.part = part;
    if (b.corrector) {
      const learn::PartDecision d = b.corrector->decision(part, r.gpu, po);
      p.learned = d.learned;
      p.rule = d.rule;
      p.evidence = d.evidence;
    } else {
      p.evidence = b.analytical_reason.empty() ? "no latency bundle given: the analytical model" : b.analytical_reason;
    }
    any = any || p.learned;
    c.parts.push_back(std::move(p));
  }
  c.bundle = b.corrector ? b.corrector->label() : "";
  if (b.corrector && !any) {
    r.prediction.model_bundle = "analytical";
    r.prediction.gpu_seen_in_training = false;
  }
}

/// The latency range of `r` from the shipped table (models/latency-intervals.json), which tools/fit_intervals.py
/// fits on the analytical model's held-out errors: only where the analytical model predicted the latency.
void attach_latency_range(PredictRun& r, const PredictOptions& po) {
  for (const auto& part : r.predictor.parts)
    if (part.learned) {
      r.latency_range_note = "no latency range: the ranges were fitted on the analytical model's held-out errors, "
                             "and a learned bundle predicted part of this latency";
      return;
    }
  const auto path = model_dir() / k_interval_file;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    r.latency_range_note = "no latency range: " + path.string() + " is missing (tools/fit_intervals.py writes it)";
    return;
  }
  // Read once per path (the Python module predicts many times, PERFPRED_MODEL_DIR may change between calls).
  static std::mutex mutex;
  static std::map<std::string, IntervalTable> tables;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = tables.find(path.string());
    if (it == tables.end()) it = tables.emplace(path.string(), load_interval_table(path)).first;
    r.latency_range = latency_range(it->second, r.prediction, po);
    r.energy_range = energy_range(it->second, r.prediction, po);
    r.power_range = power_range(it->second, r.prediction, po, power_range_cap_w(r.gpu));
  }
  if (!r.latency_range) r.latency_range_note = "no latency range: " + path.string() + " has no regime for this prediction";
}

PredictRun compute_with_bundles(const PredictCmdOptions& opts, const PredictBundles& b) {
  PredictOptions po;
  auto hook = [&](Prediction& p, const Graph& g, const GraphCost& cost, const GpuSpec& gpu, const PredictOptions& o) {
    po = o;
    if (b.after) b.after(p, g, cost, gpu, o);
  };
  PredictRun r = compute_predict(opts, b.corrector.get(), hook);
  record_predictor(b, r, po);
  attach_latency_range(r, po);
  return r;
}

}  // namespace

int run_predict_with_model(const PredictCmdOptions& opts, const std::vector<std::string>& models, bool analytical) {
  const PredictBundles b(models, analytical);
  return print_predict(compute_with_bundles(opts, b));
}

LatencyByFactor latency_by_factor(const PredictCmdOptions& opts, const std::vector<std::string>& models,
                                  bool analytical, MachineFactor which) {
  struct State {
    std::shared_ptr<const PredictBundles> bundles;
    Graph graph;
    GraphCost cost;
    GpuSpec gpu;
    PredictOptions po;
  };
  auto st = std::make_shared<State>();
  auto b = std::make_shared<PredictBundles>(models, analytical);
  st->bundles = b;
  // The hook keeps the imported, costed model and the options predict() got, to predict again at any F.
  auto hook = [&](Prediction& p, const Graph& g, const GraphCost& cost, const GpuSpec& gpu, const PredictOptions& o) {
    st->graph = g;
    st->cost = cost;
    st->gpu = gpu;
    st->po = o;
    if (b->after) b->after(p, g, cost, gpu, o);
  };
  LatencyByFactor out;
  out.run = compute_predict(opts, b->corrector.get(), hook);
  record_predictor(*b, out.run, st->po);
  out.latency_ms = [st, which](double f) {
    PredictOptions o = st->po;
    (which == MachineFactor::host ? o.host_factor : o.gpu_factor) = f;
    return predict(st->graph, st->cost, st->gpu, o, st->bundles->corrector.get()).latency_ms;
  };
  return out;
}

nlohmann::json predict_document_with_model(const PredictCmdOptions& opts, const std::vector<std::string>& models,
                                           bool analytical) {
  const PredictBundles b(models, analytical);
  return predict_document(compute_with_bundles(opts, b));
}

}  // namespace perfpred::cli
