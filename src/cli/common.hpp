#pragma once
// Helpers shared by the subcommands (no CLI11 here).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/core/graph.hpp"
#include "perfpred/core/precision.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/predict/interval.hpp"

namespace perfpred::cli {

/// Parse repeated "--input-shape NAME=D0,D1,..." values; throws InputError naming the bad value.
std::map<std::string, std::vector<int64_t>> parse_input_shapes(const std::vector<std::string>& specs);

/// Parse repeated "--branch NAME=then|else" and "--loop-trips NAME=N" into `io`; throws InputError naming
/// the bad value.
void parse_control_flow(const std::vector<std::string>& branches, const std::vector<std::string>& loop_trips,
                        onnx_import::ImportOptions& io);

/// Parse repeated "--dim NAME=N" (N >= 1) into io.dims; throws InputError naming the bad value.
void parse_dims(const std::vector<std::string>& dims, onnx_import::ImportOptions& io);

/// Parse repeated "--data-count NAME=N" (one data-dependent node) and "--data-count N" (every other one), N >= 0,
/// into io.data_counts / io.data_count_all; throws InputError naming the bad value.
void parse_data_counts(const std::vector<std::string>& counts, onnx_import::ImportOptions& io);
/// Parse repeated "--nms-candidates NAME=K" (one NonMaxSuppression) and "--nms-candidates K" (every other one with
/// a score threshold), K >= 0, into io.nms_candidates / io.nms_candidates_all; throws InputError naming the bad value.
void parse_nms_candidates(const std::vector<std::string>& counts, onnx_import::ImportOptions& io);

/// The batch a model runs at, for throughput: the leading dimension of its first runtime input of rank
/// >= 2 once shapes are known (a symbolic one took `requested`; a fixed export or an --input-shape keeps
/// its own), else `requested`.
int64_t model_batch(const Graph& g, int64_t requested);

/// analyze() with the model's file named in its errors (an unknown op: which of two models in a diff?).
/// A model with working nodes of unknown shape is an InputError naming them (no silent numbers) unless
/// `allow_partial`; then it is recorded, and print_json adds `"complete": false` and `unshaped_nodes`.
GraphCost analyze_model(const Graph& g, const AnalyzeOptions& o, const std::string& model_path, bool allow_partial);

/// Working nodes of unknown shape ("model: NODE (OP)") of every model analysed with allow_partial so far.
const std::vector<std::string>& partial_nodes();

/// Six significant digits: stable, readable JSON (the model is not more precise than that); 0 for a
/// non-finite value.
double r6(double v);

/// A prediction's range in a JSON document (predict's latency_range_ms, energy_range_mj, power_range_w; select's
/// candidates): low, high, the regime and the held-out evidence behind it.
nlohmann::json range_json(const PredictionRange& r);

/// --host-factor F (this machine's host CPU time over the reference machine's) checked: F in [0.1, 10],
/// else an InputError naming the flag. Every command that predicts for a machine takes it.
double checked_host_factor(double f);
/// --gpu-factor G (this machine's GPU time over the model's) checked: G in [0.25, 4], else an InputError naming
/// the flag. Every command that takes --host-factor takes it.
double checked_gpu_factor(double g);
/// --launch-queue N (kernels the host may issue ahead of the GPU; 0: no limit) checked: N in [0, 65536], else an
/// InputError naming the flag.
int checked_launch_queue(int n);
/// The note a prediction with host factor F != 1 carries ("host costs ... scaled by 2 (--host-factor)").
std::string host_factor_note(double f);
/// The note a prediction with GPU factor G != 1 carries ("kernel times scaled by 1.2 (--gpu-factor)").
std::string gpu_factor_note(double g);
/// ", host factor 2, GPU factor 1.2" for a text header: each factor where it is not 1, else "".
std::string machine_factors_text(double host_factor, double gpu_factor);
/// Echo F and G in a command's JSON document as predict does: `host_factor` / `gpu_factor` and their notes in
/// `notes`, each only where it is not 1 (1 leaves the document byte-identical to one without the flag).
void echo_machine_factors(nlohmann::json& j, double host_factor, double gpu_factor);

/// PredictOptions::allow_tf32 for --no-tf32 at precision `p` (`given`: the precision as written): false
/// with the flag. Every command that predicts takes the flag and checks it here: with a precision other
/// than fp32 it is an InputError naming the flag (TF32 only ever stands in for FP32 math).
bool checked_allow_tf32(bool no_tf32, Precision p, const std::string& given);
/// Echo allow_tf32 in a command's JSON document as predict does: `"allow_tf32": false` only where it is
/// off (the default leaves the document byte-identical to one without the flag).
void echo_allow_tf32(nlohmann::json& j, bool allow_tf32);
/// ", no TF32" for a text header where allow_tf32 is off, else "".
std::string allow_tf32_text(bool allow_tf32);
/// `"cuda_graphs": true` in a command's JSON document only with --cuda-graphs (byte-identical without it).
void echo_cuda_graphs(nlohmann::json& j, bool cuda_graphs);
/// ", CUDA graphs" for a text header with --cuda-graphs, else "".
std::string cuda_graphs_text(bool cuda_graphs);
/// `"grad_mode": true` in a command's JSON document only with --grad-mode (byte-identical without it).
void echo_grad_mode(nlohmann::json& j, bool grad_mode);
/// ", grad mode" for a text header with --grad-mode, else "".
std::string grad_mode_text(bool grad_mode);
/// `"launch_queue": N` in a command's JSON document only with --launch-queue N > 0 (byte-identical without it).
void echo_launch_queue(nlohmann::json& j, int launch_queue);
/// ", launch queue N" for a text header with --launch-queue N > 0, else "".
std::string launch_queue_text(int launch_queue);
/// Echo --channels-last in a command's JSON document: `"channels_last": true` only where it is set.
void echo_channels_last(nlohmann::json& j, bool channels_last);
/// ", channels_last" for a text header where --channels-last is set, else "".
std::string channels_last_text(bool channels_last);
/// `"attention": "math"` in a command's JSON document only with --attention math (byte-identical without it).
void echo_attention(nlohmann::json& j, bool fused_attention);
/// ", attention as written" for a text header with --attention math, else "".
std::string attention_text(bool fused_attention);
/// Echo --param-updates loop in a command's JSON document (`"param_updates": "loop"`); foreach, the default, is
/// not echoed.
void echo_param_updates(nlohmann::json& j, bool foreach_updates);
/// ", per-tensor parameter updates (PyTorch 1.x)" for a text header under --param-updates loop, else "".
std::string param_updates_text(bool foreach_updates);
/// Echo --mixed-precision half in a command's JSON document (`"mixed_precision": "half"`); amp is not echoed.
void echo_mixed_precision(nlohmann::json& j, bool autocast);
/// ", half model (no autocast)" for a text header under --mixed-precision half, else "".
std::string mixed_precision_text(bool autocast);

/// Print a JSON document to stdout, 2-space indented, newline-terminated. Deterministic key order. An
/// object gains `"complete": false` and `unshaped_nodes` when a partial model was analysed.
void print_json(const nlohmann::json& j);
/// The text print_json writes (invalid UTF-8 replaced, never a throw): what the Python module returns too.
std::string json_text(const nlohmann::json& j);

/// Write `text` to `path` through `path.tmp` and a rename, so a reader never sees half a file.
/// `option` names the flag in errors ("--junit FILE: directory ... does not exist").
void write_text_file(const std::string& path, const std::string& text, const std::string& option);

}  // namespace perfpred::cli
