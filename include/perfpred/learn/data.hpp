#pragma once
/// From dataset files (docs/formats.md) to training and evaluation samples: GPU resolution (sidecar
/// devices, then the catalog), kernel rows to analytical estimates, network rows to predictions.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/core/graph.hpp"
#include "perfpred/dataset/dataset.hpp"
#include "perfpred/learn/train.hpp"

namespace perfpred::learn {

/// MIT, Apache-2.0 or perfpred-measured: data that may train a shipped bundle.
bool licence_allows_shipping(const std::string& licence);

/// One dataset file, read whole.
struct DataFile {
  std::filesystem::path path;
  DatasetKind kind = DatasetKind::kernel;
  bool has_meta = false;
  DatasetMeta meta;
  std::vector<KernelRow> kernels;
  std::vector<NetworkRow> networks;
  /// The sidecar's licence, or "none stated" without a sidecar.
  std::string licence() const;
  /// The sidecar's first source name, else the rows' `source`.
  std::string source_name() const;
};

/// Read a dataset file and its sidecar (when present). InputError names the file.
DataFile load_data_file(const std::filesystem::path& path);

/// Resolves gpu_id values: devices described in the file's sidecar first (required for `spec:` ids),
/// then the catalog. Cached per (file, id).
class GpuResolver {
 public:
  /// The spec of a row's gpu_id (catalog id, or a device in the sidecar), under `power_limit_w` when the row
  /// ran under one (a network row's power_limit_w: the spec with_power_limit gives, as "<id>@<W>w" would).
  const GpuSpec& get(const std::string& gpu_id, const DataFile& file, std::optional<double> power_limit_w = {});

 private:
  std::map<std::string, GpuSpec> m_cache;
};

/// Runtime of a dataset row: pytorch, tensorrt, onnxruntime, cudnn; cublas counts as cudnn (a bare library call).
Runtime row_runtime(const std::string& s, const std::string& where);

/// Options of a kernel row (precision, runtime, batch from attrs or the first input's leading dim).
PredictOptions kernel_options(const KernelRow& r, const std::string& where);
/// The kernel a row describes, with the analytical terms filled by estimate_kernel. InputError when a
/// required field (op_family, flops or bytes) is missing or malformed.
KernelEstimate row_kernel(const KernelRow& r, const GpuSpec& gpu, const PredictOptions& opts, const std::string& where);

/// The measured time of a kernel row's kernels, ms: its notes' `cupti_busy_ms` where the profiler recorded one
/// (CUPTI's sum of the op's kernel durations; `time_ms` is CUDA-event time around one library call, which holds
/// whatever host work the library does inside the timed region: cuDNN 9's legacy API on the H200 made it
/// several times the kernels', data/measured/README.md), else `time_ms`. Microbenchmark and copy rows keep
/// `time_ms` (they time many launches or a copy per row), and so do recurrent rows (their steps' launch gaps
/// are GPU idle time the model prices). Empty where neither is a positive number.
std::optional<double> kernel_label_ms(const KernelRow& r);

/// Options of a network row (precision, runtime, mode, batch, copies when includes_h2d is 1).
PredictOptions network_options(const NetworkRow& r, const std::string& where);

/// Imports and analyses each network model once per batch.
class GraphCache {
 public:
  struct Entry {
    Graph graph;
    GraphCost cost;
  };
  /// The graph of a row's model, or nullptr when the row names no model file. InputError on a bad model.
  const Entry* get(const NetworkRow& r, const DataFile& file);
  size_t size() const { return m_cache.size(); }

 private:
  std::map<std::string, std::unique_ptr<Entry>> m_cache;
};

/// Canonical text of a row for the training-data hash.
std::string row_text(const KernelRow& r);
std::string row_text(const NetworkRow& r);

/// Deterministic subsample: keep a row when hash(id) mod 1e6 < fraction * 1e6.
bool keep_row(const std::string& id, double fraction);

}  // namespace perfpred::learn
