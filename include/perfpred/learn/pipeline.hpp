#pragma once
/// The train and eval pipelines behind `perfpred train` and `perfpred eval`: dataset files in,
/// a bundle or an accuracy report out, every learned figure beside the analytical model's.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/model.hpp"
#include "perfpred/learn/train.hpp"

namespace perfpred::learn {

struct TrainRequest {
  std::vector<std::filesystem::path> data;
  Target target = Target::latency;
  std::vector<std::string> holdout_gpus;      ///< rows on these GPUs are not used
  std::vector<std::string> holdout_families;  ///< op families or applications (kernel rows), model families (network rows)
  TrainOptions options;
  bool allow_unlicensed_eval = false;  ///< accept data not licensed for shipping; marks the bundle not for shipping
  std::string name;                    ///< bundle label (default: the output file's stem)
  std::string command;                 ///< recorded as created_by
  double network_fraction = 1.0;       ///< deterministic share of network rows used (speed)
  /// Latency: take the kernel boosters (and their sources, GPUs and licence status) from this bundle
  /// instead of fitting them; kernel rows in `data` are then ignored. Host boosters are fitted anew.
  std::filesystem::path base;
};

/// Train a bundle. InputError when a file's licence forbids it (without allow_unlicensed_eval) or
/// when no usable rows remain.
Bundle train_bundle(const TrainRequest& req);

/// One evaluated measurement.
struct EvalRecord {
  std::string file;          ///< the dataset the row came from
  std::string id;            ///< its row id
  std::string gpu_id;
  std::string op_family;     ///< kernel rows
  std::string model_family;  ///< network rows; kernel rows: the application their shape comes from, if known
  std::string kind;          ///< "kernel" or "network"
  std::string phase;         ///< kernel rows: forward, backward_data, ...; network rows: the mode
  std::string precision;
  double measured = 0;
  double analytical = 0;
  double learned = 0;
  /// Share of the row's analytical kernel time the boosters corrected, each kernel counted by its weight of
  /// the learned time (LearnedModel::kernel_log_ratios): 0 when every kernel kept the analytical time, so
  /// the learned column is the analytical model's kernels (a held-out op family, unseen codes or ops).
  double learned_share = 0;
};

struct EvalRequest {
  std::vector<std::filesystem::path> data;
  std::vector<std::string> holdout_gpus;      ///< when given, only rows on these GPUs are evaluated
  std::vector<std::string> holdout_families;  ///< when given, only rows of these families are evaluated
  double network_fraction = 1.0;
};

struct EvalResult {
  std::vector<EvalRecord> records;
  size_t skipped_no_model = 0;  ///< network rows whose ONNX model was not exported
  size_t skipped_other = 0;
  std::vector<std::string> notes;
};

EvalResult evaluate(const LearnedModel& model, const EvalRequest& req);

/// Per-GPU, per-op-family and per-model-family summaries, learned beside analytical.
nlohmann::json eval_report(const EvalResult& r, const Bundle& b);
/// Human-readable table of an eval_report.
std::string eval_text(const nlohmann::json& report);
/// Every evaluated row as CSV (header first): file, id, kind, gpu, family, phase or mode, precision,
/// measured, analytical and learned values, and both signed percentage errors.
std::string eval_rows_csv(const EvalResult& r);

}  // namespace perfpred::learn
