#include "cmd_eval.hpp"

#include <cstdio>
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
  const auto model = learn::LearnedModel::load(o.model);
  learn::EvalRequest req;
  for (const auto& d : o.data) req.data.emplace_back(d);
  req.holdout_gpus = o.holdout_gpus;
  req.holdout_families = o.holdout_families;
  req.network_fraction = o.network_fraction;
  const auto res = learn::evaluate(*model, req);
  if (res.records.empty())
    throw InputError("eval: no rows to evaluate in the given --data files for a " +
                     learn::to_string(model->bundle().target) + " bundle (check --holdout-gpu/--holdout-family)");
  const auto report = learn::eval_report(res, model->bundle());
  for (const auto& g : o.holdout_gpus)
    if (model->gpu_seen(g)) spdlog::warn("eval: GPU {} was in the bundle's training data: not a held-out result", g);
  if (o.json)
    print_json(report);
  else
    std::fputs(learn::eval_text(report).c_str(), stdout);
  return 0;
}

int run_predict_with_model(const PredictCmdOptions& opts, const std::string& model, bool analytical) {
  if (analytical && !model.empty()) throw InputError("predict: --model and --analytical exclude each other");
  std::unique_ptr<learn::BundleCorrector> corrector;
  if (!analytical) {
    std::optional<std::filesystem::path> path;
    if (!model.empty()) path = model;
    else path = learn::default_bundle_path();
    if (path) {
      try {
        auto m = learn::LearnedModel::load(*path);
        if (m->bundle().target != learn::Target::latency)
          throw InputError(path->string() + ": a " + learn::to_string(m->bundle().target) +
                           " bundle; predict --model takes a latency bundle (use eval for energy and memory bundles)");
        corrector = std::make_unique<learn::BundleCorrector>(m);
      } catch (const InputError& e) {
        if (!model.empty()) throw;
        spdlog::warn("default bundle not used ({}); predicting with the analytical model", e.what());
      }
    }
  }
  return run_predict(opts, corrector.get());
}

}  // namespace perfpred::cli
