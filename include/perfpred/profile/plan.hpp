#pragma once
/// Profiling plans (docs/formats.md, "Profiling plans"): JSON sweeps expanded into a deterministic
/// list of entries with stable ids.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/core/graph.hpp"
#include "perfpred/core/precision.hpp"

namespace perfpred {

inline constexpr int k_plan_schema_version = 1;

/// What an entry measures: one operator execution (kernel dataset), a microbenchmark, or a whole
/// model executed layer by layer (network dataset).
enum class EntryKind { kernel, microbench, network };

struct PlanEntry;
/// One (model, batch, precision, mode) of a model sweep: the layer entries executed back to back.
struct ModelRun {
  std::string model;             ///< the path as the plan gives it ("models/zoo/resnet18.onnx")
  std::filesystem::path model_path;  ///< resolved, absolute
  std::string model_family;      ///< "resnet", "mobilenet", ...
  int64_t batch = 1;
  Precision precision = Precision::fp32;
  std::string mode;              ///< "inference" or "training"
  /// Execution order: forward layers; for training then backward (reverse node order) and the SGD update.
  std::vector<PlanEntry> layers;
  std::vector<std::string> views;        ///< "name (Op)" of pure views: no kernel, cost nothing
  std::vector<std::string> unsupported;  ///< "name (Op): why" of nodes the harness cannot execute
  std::vector<std::string> not_measured; ///< "name (Op) phase: why" of backward kernels the harness has none for
  int64_t nodes = 0;             ///< graph nodes
  int64_t parameters = 0;        ///< trainable parameter elements (the SGD update's size)
  double forward_flops = 0;      ///< analysis total, one forward pass
};

/// One measurement of the plan, fully described: the runner and every backend read only this.
struct PlanEntry {
  std::string id;        ///< stable: "<op_kind>|<phase>|<precision>|k=v;k=v" (same config, same id)
  std::string sweep;     ///< name of the sweep that produced it
  EntryKind kind = EntryKind::kernel;
  std::string op_kind;   ///< plan vocabulary: conv, gemm, pool, batch_norm, layer_norm, activation,
                         ///< elementwise, softmax, attention, lstm; copy, launch, bandwidth, peak_flops
  std::string op_family; ///< dataset op_family (conv, gemm, norm, elementwise, pool, softmax, rnn, data_movement)
  std::string op;        ///< ONNX-style op type (Conv, MatMul, Relu, MemcpyH2D, ...)
  std::string phase;     ///< forward, backward_data, backward_weight, backward
  Precision precision = Precision::fp32;
  bool has_precision = true;  ///< false for copies, launch overhead and bandwidth (written as empty)
  /// Integer parameters by stable name (batch, in_channels, kernel_h, stride_h, groups, bytes, pinned, ...).
  std::map<std::string, int64_t> params;
  /// String parameters (function=relu, mode=max, direction=h2d, memory=pinned, product=qk).
  std::map<std::string, std::string> labels;
  std::vector<std::vector<int64_t>> inputs;  ///< input tensor shapes as the dataset writes them
  int64_t gemm_batch = 0, gemm_m = 0, gemm_n = 0, gemm_k = 0;  ///< 0 when the op has no matrix-product view
  double flops = 0;      ///< multiply-add = 2
  double bytes = 0;      ///< DRAM bytes of the ideal kernel
  int64_t device_bytes = 0;  ///< device memory the measurement allocates (for OOM checks)
  /// Layers of a model sweep: the model (as the plan names it), node and position in the execution order.
  std::string model;
  std::string node;
  int64_t layer_index = -1;
  /// Said in the kernel row's notes: how a model node is executed ("executed as relu", ...).
  std::vector<std::string> notes;
  /// kind == network: the model run this entry executes (shared by the copies shards make).
  std::shared_ptr<const ModelRun> network;

  /// Integer parameter or `def`.
  int64_t param(const std::string& k, int64_t def = 0) const;
  /// String parameter or `def`.
  std::string label(const std::string& k, const std::string& def = "") const;
  /// "8x64x56x56;64x64x3x3".
  std::string inputs_text() const;
  /// "kernel_h=3;stride_h=1;function=relu" (params then labels, by name).
  std::string attrs_text() const;
};

/// A parsed plan: settings plus the expanded entries.
struct Plan {
  std::string name;
  std::string description;
  int warmup = 3;          ///< executions before timing (caches, clocks, cuDNN autotuning)
  int repeats = 20;        ///< timed executions; the median is reported
  bool flush_l2 = true;    ///< overwrite L2 between repeats so each starts cold
  double target_minutes = 0;  ///< the plan's stated budget on a datacenter GPU (documentation)
  std::vector<PlanEntry> entries;  ///< deterministic order, unique ids
  nlohmann::json source;   ///< the plan document as read (recorded in the sidecar)
};

/// Parse and expand a plan document; InputError names `label`, the sweep and the field. Model paths
/// of "kind": "model" sweeps resolve against `plan_dir` (the plan file's directory), then the
/// repository (data_dir()/.. and model_dir()/..).
Plan plan_from_json(const nlohmann::json& j, const std::string& label, const std::filesystem::path& plan_dir = {});

/// Where a model path of a plan resolves (absolute), or an empty path when no candidate exists.
std::filesystem::path resolve_model_path(const std::string& model, const std::filesystem::path& plan_dir);

/// Options of one model expansion (one model sweep combination).
struct ModelExpandOptions {
  std::string model;                 ///< as the plan names it
  std::filesystem::path model_path;  ///< resolved file
  std::string sweep;
  int64_t batch = 1;
  Precision precision = Precision::fp32;
  std::string mode = "inference";    ///< inference or training
};
/// Import a model (onnx importer), cost it (analysis) and map every node to layer entries of the
/// per-op vocabulary (src/profile/model_plan.cpp). InputError names the model file on bad input.
ModelRun expand_model(const ModelExpandOptions& o);
/// The same for a graph already imported (with o.batch resolved); o.model_path only names it.
ModelRun expand_graph(const Graph& g, const ModelExpandOptions& o);
/// Load a plan: a path to a JSON file, or the name of a shipped plan (data_dir()/plans/NAME.json).
Plan load_plan(const std::string& name_or_path);
/// Where a shipped plan name or a path resolves to (for messages).
std::filesystem::path resolve_plan_path(const std::string& name_or_path);

/// `--shard I/N`: entries whose index % count == index.
struct Shard {
  int index = 0;
  int count = 1;
};
/// Parse "I/N" (0 <= I < N); InputError naming --shard otherwise.
Shard parse_shard(const std::string& text);
/// Entries of one shard, in plan order.
std::vector<PlanEntry> select_shard(const std::vector<PlanEntry>& entries, Shard s);
/// Keep entries whose precision is in the list (empty list keeps all).
std::vector<PlanEntry> filter_precisions(const std::vector<PlanEntry>& entries, const std::vector<Precision>& keep);

}  // namespace perfpred
