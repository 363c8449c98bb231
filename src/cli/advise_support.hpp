#pragma once
// Shared plumbing of the decision subcommands (mig, select, sweep, report, budget, diff): importing a
// model at a batch (cached), predict options from their option strings, and the learned corrector.
// Header-only so the cli library's cmd_*.cpp glob needs no change.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "predict_choices.hpp"
#include "perfpred/advise/model.hpp"
#include "perfpred/analysis/cost.hpp"
#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/model.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/predict/predictor.hpp"
#include "perfpred/util/paths.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::cli::support {

/// Import and analyse `path` at `batch` (exact input shapes win over batch).
inline std::shared_ptr<const advise::AnalyzedModel> load_model(const std::filesystem::path& path, int64_t batch,
                                                               const std::map<std::string, std::vector<int64_t>>& shapes,
                                                               bool allow_unknown, bool allow_partial = false,
                                                               const onnx_import::ImportOptions* control_flow = nullptr) {
  // The error_code form: a name the OS refuses (too long) is not found, not a filesystem_error.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InputError(path.string() + ": model file not found" + (ec ? " (" + ec.message() + ")" : std::string()));
  onnx_import::ImportOptions io;
  io.batch = batch;
  io.input_shapes = shapes;
  if (control_flow) {
    io.branches = control_flow->branches;
    io.loop_trips = control_flow->loop_trips;
    io.overrides_are_keys = control_flow->overrides_are_keys;
    io.dims = control_flow->dims;
    io.data_counts = control_flow->data_counts;
    io.data_count_all = control_flow->data_count_all;
    io.nms_candidates = control_flow->nms_candidates;
    io.nms_candidates_all = control_flow->nms_candidates_all;
  }
  auto m = std::make_shared<advise::AnalyzedModel>();
  m->graph = onnx_import::import_file(path, io);
  AnalyzeOptions ao;
  ao.allow_unknown = allow_unknown;
  m->cost = analyze_model(m->graph, ao, path.string(), allow_partial);
  m->batch = model_batch(m->graph, batch);
  return m;
}

/// A ModelAtBatch over one file that caches every batch it has imported.
inline advise::ModelAtBatch model_at_batch(const std::filesystem::path& path,
                                           std::map<std::string, std::vector<int64_t>> shapes, bool allow_unknown,
                                           bool allow_partial = false, onnx_import::ImportOptions control_flow = {}) {
  struct Cache {
    std::mutex mu;
    std::map<int64_t, std::shared_ptr<const advise::AnalyzedModel>> by_batch;
  };
  auto cache = std::make_shared<Cache>();
  return [=](int64_t batch) {
    std::lock_guard<std::mutex> lock(cache->mu);
    auto it = cache->by_batch.find(batch);
    if (it != cache->by_batch.end()) return it->second;
    spdlog::debug("importing {} at batch {}", path.string(), batch);
    auto m = load_model(path, batch, shapes, allow_unknown, allow_partial, &control_flow);
    cache->by_batch[batch] = m;
    return m;
  };
}

/// --branch, --loop-trips, --dim, --data-count and --nms-candidates of a decision command, as ImportOptions
/// (only those fields set).
inline onnx_import::ImportOptions control_flow(const PredictChoices& c) {
  onnx_import::ImportOptions io;
  parse_control_flow(c.branches, c.loop_trips, io);
  parse_dims(c.dims, io);
  parse_data_counts(c.data_counts, io);
  parse_nms_candidates(c.nms_candidates, io);
  return io;
}

/// PredictOptions from the option strings every decision command shares.
inline PredictOptions predict_options(const PredictChoices& c) {
  if (c.batch < 1) throw InputError("--batch " + std::to_string(c.batch) + ": must be at least 1");
  PredictOptions o;
  o.batch = c.batch;
  o.precision = precision_from_string(c.precision, "--precision");
  o.mode = mode_from_string(c.mode, "--mode");
  o.runtime = runtime_from_string(c.runtime, "--runtime");
  if (!c.optimizer.empty()) o.optimizer = optimizer_from_string(c.optimizer, "--optimizer");
  o.host_factor = checked_host_factor(c.host_factor);
  o.gpu_factor = checked_gpu_factor(c.gpu_factor);
  o.allow_tf32 = checked_allow_tf32(c.no_tf32, o.precision, c.precision);
  o.cuda_graphs = c.cuda_graphs;
  o.grad_mode = c.grad_mode;
  o.launch_queue = checked_launch_queue(c.launch_queue);
  o.channels_last = c.channels_last;
  o.fused_attention = fused_attention_from_string(c.attention, "--attention");
  o.foreach_updates = foreach_updates_from_string(c.param_updates, "--param-updates");
  o.autocast = autocast_from_string(c.mixed_precision, "--mixed-precision");
  return o;
}

/// The learned latency corrector: --bundle PATH (or `default`, the shipped bundle); none by default
/// and with --analytical. The analytical model is the default because it is the better predictor on
/// network families the shipped bundle was not trained on (docs/accuracy.md, "Learned model"). A
/// bundle that cannot be used is an InputError.
class Corrector {
 public:
  Corrector(const std::string& bundle, bool analytical) {
    if (analytical || bundle.empty()) return;
    const auto path = learn::bundle_argument(bundle);
    auto model = learn::LearnedModel::load(path);
    if (model->bundle().target != learn::Target::latency)
      throw InputError(path.string() + ": a " + learn::to_string(model->bundle().target) +
                       " bundle; these commands take a latency bundle");
    m_model = model;
    m_corrector = std::make_unique<learn::BundleCorrector>(model);
  }
  const KernelCorrector* get() const { return m_corrector.get(); }
  std::string label() const { return m_corrector ? m_corrector->label() : "analytical"; }
  /// What predicts on `gpu` with `o`: the bundle's name where its policy gives it a part, else "analytical".
  std::string label_for(const GpuSpec& gpu, const PredictOptions& o) const {
    if (!m_corrector) return "analytical";
    for (const char* part : {learn::k_part_kernels, learn::k_part_host})
      if (m_corrector->decision(part, gpu, o).learned) return m_corrector->label();
    return "analytical";
  }

 private:
  std::shared_ptr<learn::LearnedModel> m_model;
  std::unique_ptr<learn::BundleCorrector> m_corrector;
};

/// The shipped range table (model_dir()/latency-intervals.json), or none where it is missing; a malformed one is
/// an InputError naming the file and the field.
inline std::optional<IntervalTable> shipped_ranges() {
  const auto path = model_dir() / k_interval_file;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  return load_interval_table(path);
}

}  // namespace perfpred::cli::support
