#include "cmd_eval.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common.hpp"
#include "perfpred/learn/pipeline.hpp"
#include "perfpred/util/error.hpp"

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
  std::vector<std::shared_ptr<const learn::LearnedModel>> target_models;  ///< energy, memory
  PredictionHook after;
};

PredictBundles::PredictBundles(const std::vector<std::string>& models, bool analytical) {
  if (analytical && !models.empty()) throw InputError("predict: --model and --analytical exclude each other");
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

int run_predict_with_model(const PredictCmdOptions& opts, const std::vector<std::string>& models, bool analytical) {
  const PredictBundles b(models, analytical);
  return run_predict(opts, b.corrector.get(), b.after);
}

nlohmann::json predict_document_with_model(const PredictCmdOptions& opts, const std::vector<std::string>& models,
                                           bool analytical) {
  const PredictBundles b(models, analytical);
  return predict_document(compute_predict(opts, b.corrector.get(), b.after));
}

}  // namespace perfpred::cli
