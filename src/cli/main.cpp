// The perfpred command line. This is the only translation unit that includes CLI11 (it compiles
// slowly): each subcommand's options are declared here into a plain struct from cmd_<name>.hpp, and
// run_<name>() in cmd_<name>.cpp does the work. Exceptions are turned into exit codes here once:
// 0 success, 1 a check failed or an internal error, 2 bad input (docs/cli.md).
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include <iostream>

#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"
#include "cmd_inspect.hpp"
#include "cmd_profile.hpp"
#include "cmd_dataset.hpp"
#include "cmd_devices.hpp"
#include "cmd_predict.hpp"
#include "cmd_mig.hpp"
#include "cmd_select.hpp"
#include "cmd_sweep.hpp"
#include "cmd_report.hpp"
#include "cmd_budget.hpp"
#include "cmd_diff.hpp"
#include "cmd_train.hpp"
#include "cmd_eval.hpp"
#include "cmd_fit_host.hpp"
// @@cmd-includes@@

namespace {

// Exit codes (docs/cli.md): 0 ok (each command's own result), 1 internal error, 2 bad input.
constexpr int k_exit_internal = 1;
constexpr int k_exit_input = 2;
// An error is one line (names and values from files may hold newlines or invalid UTF-8) of bounded length.
constexpr size_t k_max_error_bytes = 1000;

std::string one_line(const std::string& what) { return perfpred::printable(what, k_max_error_bytes); }

void setup_logging(bool verbose, bool quiet) {
  auto logger = spdlog::stderr_color_mt("perfpred");
  logger->set_pattern("perfpred: %^%l%$: %v");
  logger->set_level(quiet ? spdlog::level::err : verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

/// --no-tf32 on every command that predicts (checked by cli::checked_allow_tf32).
void add_no_tf32(CLI::App* sub, bool& no_tf32) {
  sub->add_flag("--no-tf32", no_tf32,
                "FP32 convolutions on FP32 math only, as with torch.backends.cudnn.allow_tf32 = False (default: TF32 "
                "tensor cores where the GPU has them); fp32 only");
}

/// --attention on every command that predicts.
void add_attention(CLI::App* sub, std::string& attention) {
  sub->add_option("--attention", attention,
                  "PyTorch eager attention: sdpa (one fused scaled_dot_product_attention per MatMul -> Softmax -> "
                  "MatMul, as PyTorch >= 2.0's nn.MultiheadAttention, HF and timm run it) or math (as exported: "
                  "PyTorch < 2.0, HF's eager attention)")
      ->default_val("sdpa");
}

/// --param-updates on every command that predicts.
void add_param_updates(CLI::App* sub, std::string& param_updates) {
  sub->add_option("--param-updates", param_updates,
                  "PyTorch eager training's parameter updates: foreach (PyTorch >= 2.0's defaults: zero_grad() sets "
                  ".grad to None and torch.optim updates every tensor in a few multi-tensor kernels) or loop "
                  "(PyTorch 1.x: zero_grad() zeroes each .grad, AccumulateGrad adds into it, the optimizer loops over "
                  "tensors, a few kernels each)")
      ->default_val("foreach");
}

/// --mixed-precision on every command that predicts.
void add_mixed_precision(CLI::App* sub, std::string& mixed_precision) {
  sub->add_option("--mixed-precision", mixed_precision,
                  "How PyTorch eager trains at --precision fp16/bf16: amp (torch.autocast with a GradScaler: fp32 "
                  "weights cast to half each step, gradients cast back, scaled and unscaled) or half (model.half(): "
                  "weights, gradients and optimizer state in half, no casts)")
      ->default_val("amp");
}

/// --cuda-graphs on every command that predicts.
void add_cuda_graphs(CLI::App* sub, bool& cuda_graphs) {
  sub->add_flag("--cuda-graphs", cuda_graphs,
                "The iteration is captured once as a CUDA graph and replayed (torch.cuda.graphs, torch.compile "
                "mode=\"reduce-overhead\", TensorRT under stream capture): no host cost per op or kernel");
}

/// --grad-mode on every command that predicts.
void add_grad_mode(CLI::App* sub, bool& grad_mode) {
  sub->add_flag("--grad-mode", grad_mode,
                "PyTorch eager inference records autograd: the model is called without torch.no_grad() / "
                "torch.inference_mode() (default: inference under no_grad, each forward op's dispatch cheaper)");
}

/// --launch-queue on every command that predicts.
void add_launch_queue(CLI::App* sub, int& launch_queue) {
  sub->add_option("--launch-queue", launch_queue,
                  "Kernels the host may issue ahead of the GPU before it waits for the oldest to finish (default 0: "
                  "no limit, an asynchronous eager loop); 1 prices a harness that synchronises per layer or module: "
                  "each op costs about max(host, GPU) (docs/model.md, \"Launch queue\")")
      ->default_val(0);
}

/// --channels-last on every command that predicts.
void add_channels_last(CLI::App* sub, bool& channels_last) {
  sub->add_flag("--channels-last", channels_last,
                "The model and input are in torch.channels_last (NHWC): cuDNN's FP16/BF16 tensor-core convolutions "
                "skip their NCHW<->NHWC reorders (default: NCHW, PyTorch's contiguous format); pytorch and "
                "onnxruntime only");
}

/// --data-count's help, the same in predict/fit-host, inspect and the decision commands.
constexpr const char* k_data_count_help =
    "Elements a data-dependent op outputs (NonZero, NonMaxSuppression, Compress), which no shape decides: NAME=N for "
    "one node, N for every other (repeatable; capped at the op's upper bound)";

/// --nms-candidates' help, the same in predict/fit-host, inspect and the decision commands.
constexpr const char* k_nms_candidates_help =
    "Boxes per image and class over a NonMaxSuppression's score threshold, which its overlap tests pair: NAME=K for "
    "one node, K for every other (repeatable; capped at the box count; default: every box)";

/// --pageable-copies' help, the same in predict and fit-host/fit-gpu.
constexpr const char* k_pageable_copies_help =
    "The input/output copies move pageable host memory (an unpinned tensor: x.to('cuda'), a DataLoader without "
    "pin_memory): the CPU stages them through a driver buffer (docs/model.md, \"Copies\"); default: pinned";

/// The run a prediction is for (shapes, precision, mode, runtime), shared by predict and fit-host.
void add_run_options(CLI::App* sub, perfpred::cli::PredictCmdOptions& p) {
  sub->add_option("--batch", p.batch, "Batch size (leading dim of each runtime input)")->default_val(1);
  sub->add_option("--input-shape", p.input_shapes, "Exact input shape NAME=D0,D1,... (repeatable)");
  sub->add_option("--branch", p.branches, "Branch an If takes: NAME=then|else (repeatable)");
  sub->add_option("--loop-trips", p.loop_trips, "Iterations of a Loop/Scan whose trip count is not known: NAME=N (repeatable)");
  sub->add_option("--dim", p.dims, "Value of a symbolic input dim in every input: NAME=N (repeatable)");
  sub->add_option("--data-count", p.data_counts, k_data_count_help);
  sub->add_option("--nms-candidates", p.nms_candidates, k_nms_candidates_help);
  sub->add_option("--precision", p.precision, "fp32|tf32|fp16|bf16|int8")->default_val("fp32");
  sub->add_option("--mode", p.mode, "inference|training")->default_val("inference");
  sub->add_option("--optimizer", p.optimizer, "Training: none|sgd|momentum|adam")->default_val("sgd");
  sub->add_option("--runtime", p.runtime, "pytorch|tensorrt|onnxruntime|cudnn")->default_val("pytorch");
  add_no_tf32(sub, p.no_tf32);
  add_cuda_graphs(sub, p.cuda_graphs);
  add_grad_mode(sub, p.grad_mode);
  add_launch_queue(sub, p.launch_queue);
  add_channels_last(sub, p.channels_last);
  add_attention(sub, p.attention);
  add_param_updates(sub, p.param_updates);
  add_mixed_precision(sub, p.mixed_precision);
}

/// `fit-host` (the host factor) or `fit-gpu` (the GPU factor): predict's model and settings, and the measured latency
/// to match; the other factor is an option held during the fit.
void add_fit(CLI::App& app, perfpred::cli::FitHostCmdOptions& fit_opts, std::function<int()>& action,
             perfpred::cli::MachineFactor which) {
  const bool host = which == perfpred::cli::MachineFactor::host;
  fit_opts.factor = which;
  auto* sub = host ? app.add_subcommand("fit-host", "Fit --host-factor: the host speed at which predict matches one measured latency")
                   : app.add_subcommand("fit-gpu", "Fit --gpu-factor: the GPU speed at which predict matches one measured GPU-bound latency");
  auto& p = fit_opts.predict;
  sub->add_option("model", p.model, host ? "ONNX model file (a small model at batch 1 is host-bound: the best to fit on)"
                                         : "ONNX model file (a large batch keeps the GPU busy: the best to fit on)")
      ->required();
  sub->add_option("--gpu", p.gpu, "Catalog id, ID:MIG-PROFILE, ID@MODE or a spec JSON: the GPU it was timed on")->required();
  sub->add_option("--measured-ms", fit_opts.measured_ms, "Measured latency per batch (per step in training), ms")->required();
  add_run_options(sub, p);
  sub->add_flag("--allow-unknown", p.allow_unknown, "Cost unknown ops as bytes-only estimates");
  sub->add_flag("--allow-partial", p.allow_partial, "Fit even when working nodes have unknown shapes");
  sub->add_flag("--no-copies", p.no_copies, "The measurement leaves host<->device copies of inputs/outputs out");
  sub->add_flag("--pageable-copies", p.pageable_copies, k_pageable_copies_help);
  sub->add_option("--model", fit_opts.bundles, "Learned bundle, as predict's --model");
  sub->add_flag("--analytical", fit_opts.analytical, "Analytical model alone (refuses --model)");
  sub->add_flag("--json", fit_opts.json, "Print one JSON object");
  if (host)
    sub->add_option("--gpu-factor", p.gpu_factor, "This machine's GPU factor, held during the fit (perfpred fit-gpu)")
        ->default_val(1);
  else
    sub->add_option("--host-factor", p.host_factor, "This machine's host factor, held during the fit (perfpred fit-host)")
        ->default_val(1);
  sub->callback([&, sub] {
    fit_opts.predict.batch_given = sub->get_option("--batch")->count() > 0;
    action = [&] { return perfpred::cli::run_fit_host(fit_opts); };
  });
}

/// Every subcommand's options and the action the parsed one sets. main() owns one for the whole run, so the
/// references its callbacks keep stay valid.
struct Commands {
  std::function<int()> action;
  perfpred::cli::InspectOptions inspect;
  perfpred::cli::ProfileOptions profile;
  perfpred::cli::DatasetOptions dataset;
  perfpred::cli::DevicesOptions devices;
  perfpred::cli::PredictCmdOptions predict;
  std::vector<std::string> predict_bundles;
  bool predict_analytical = false;
  perfpred::cli::FitHostCmdOptions fit_host, fit_gpu;
  perfpred::cli::MigCliOptions mig;
  perfpred::cli::SelectCliOptions select;
  perfpred::cli::SweepCliOptions sweep;
  perfpred::cli::ReportCliOptions report;
  perfpred::cli::BudgetCliOptions budget;
  perfpred::cli::DiffCliOptions diff;
  perfpred::cli::TrainCmdOptions train;
  perfpred::cli::EvalCmdOptions eval;
};

/// --host-factor on every command that predicts for a machine (checked by cli::checked_host_factor).
void add_host_factor(CLI::App* sub, double& f) {
  sub->add_option("--host-factor", f,
                  "Host CPU time of this machine over the reference one (0.1-10; 2 = a CPU half as fast). "
                  "Fit it from one measurement: perfpred fit-host, docs/model.md (Host speed)")
      ->default_val(1);
}

/// --gpu-factor on every command that predicts for a machine (checked by cli::checked_gpu_factor).
void add_gpu_factor(CLI::App* sub, double& g) {
  sub->add_option("--gpu-factor", g,
                  "GPU kernel time of this machine over the model's (0.25-4; 1.2 = every kernel 1.2x slower: clocks, "
                  "cooling, driver, libraries). Fit it from one GPU-bound measurement: perfpred fit-gpu, "
                  "docs/model.md (GPU speed)")
      ->default_val(1);
}

/// Options every decision subcommand shares (mig, select, sweep, report, diff).
void add_predict_options(CLI::App* sub, perfpred::cli::PredictChoices& p) {
  sub->add_option("--batch", p.batch, "Batch size (leading symbolic dim of each runtime input)")->default_val(1);
  sub->add_option("--precision", p.precision, "fp32, tf32, fp16, bf16 or int8")->default_val("fp32");
  sub->add_option("--mode", p.mode, "inference or training")->default_val("inference");
  sub->add_option("--runtime", p.runtime, "pytorch, tensorrt, onnxruntime or cudnn")->default_val("pytorch");
  sub->add_option("--optimizer", p.optimizer, "Training optimizer: none, sgd, momentum or adam");
  sub->add_option("--input-shape", p.input_shapes, "Exact input shape NAME=D0,D1,... (repeatable)");
  sub->add_option("--branch", p.branches, "Branch an If takes: NAME=then|else (repeatable)");
  sub->add_option("--loop-trips", p.loop_trips, "Iterations of a Loop/Scan whose trip count is not known: NAME=N (repeatable)");
  sub->add_option("--dim", p.dims, "Value of a symbolic input dim in every input: NAME=N (repeatable)");
  sub->add_option("--data-count", p.data_counts, k_data_count_help);
  sub->add_option("--nms-candidates", p.nms_candidates, k_nms_candidates_help);
  sub->add_flag("--allow-unknown", p.allow_unknown, "Cost unknown ops as flagged bytes-only estimates");
  sub->add_flag("--allow-partial", p.allow_partial, "Predict even when working nodes have unknown shapes (JSON: \"complete\": false)");
  sub->add_option("--bundle", p.bundle, "Learned latency bundle (`default`: the shipped one); without it the analytical model");
  sub->add_flag("--analytical", p.analytical, "Use the analytical model alone (the default)");
  add_host_factor(sub, p.host_factor);
  add_gpu_factor(sub, p.gpu_factor);
  add_no_tf32(sub, p.no_tf32);
  add_cuda_graphs(sub, p.cuda_graphs);
  add_grad_mode(sub, p.grad_mode);
  add_launch_queue(sub, p.launch_queue);
  add_channels_last(sub, p.channels_last);
  add_attention(sub, p.attention);
  add_param_updates(sub, p.param_updates);
  add_mixed_precision(sub, p.mixed_precision);

}

/// `inspect`: an ONNX model's per-layer shapes, FLOPs, params and bytes.
void add_inspect(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("inspect", "Import an ONNX model and print per-layer shapes, FLOPs, params and bytes");
  sub->add_option("model", c.inspect.model, "ONNX model file")->required();
  sub->add_option("--batch", c.inspect.batch, "Value of each runtime input's leading symbolic dimension")
      ->default_val(1);
  sub->add_option("--input-shape", c.inspect.input_shapes, "Exact input shape NAME=D0,D1,... (repeatable)");
  sub->add_option("--branch", c.inspect.branches, "Branch an If takes: NAME=then|else (repeatable)");
  sub->add_option("--loop-trips", c.inspect.loop_trips, "Iterations of a Loop/Scan whose trip count is not known: NAME=N (repeatable)");
  sub->add_option("--dim", c.inspect.dims, "Value of a symbolic input dim in every input: NAME=N (repeatable); unset ones stay symbolic");
  sub->add_option("--data-count", c.inspect.data_counts, k_data_count_help);
  sub->add_option("--nms-candidates", c.inspect.nms_candidates, k_nms_candidates_help);
  sub->add_flag("--json", c.inspect.json, "Print one JSON object instead of the table");
  sub->add_flag("--allow-unknown", c.inspect.allow_unknown,
                "Cost unknown ops as flagged bytes-only estimates instead of failing");
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_inspect(c.inspect); }; });
}

/// `profile`: measure a plan on this GPU (or simulate one); the command line is recorded in the sidecar.
void add_profile(CLI::App& app, Commands& c, int argc, char** argv) {
  auto* sub = app.add_subcommand("profile", "Measure a profiling plan on this GPU (or simulate one) into a kernel dataset");
  sub->add_option("--plan", c.profile.plan, "Shipped plan name (quick, full) or plan JSON file")->default_val("quick");
  sub->add_option("--out", c.profile.out, "Output directory (kernels.csv, microbench.csv and sidecars)");
  sub->add_option("--backend", c.profile.backend, "cuda (this GPU) or simulated (roofline of --gpu, synthetic rows)")
      ->default_val("cuda");
  sub->add_option("--gpu", c.profile.gpu, "simulated: catalog id or spec file; cuda: device id to record instead of the matched one");
  sub->add_option("--device", c.profile.device, "CUDA device ordinal")->default_val(0);
  sub->add_option("--precision", c.profile.precisions, "Keep only these precisions (fp32,tf32,fp16,bf16)")->delimiter(',');
  sub->add_option("--shard", c.profile.shard, "Run entries with index % N == I (I/N)");
  sub->add_flag("--resume", c.profile.resume, "Continue an existing --out, skipping entries that have rows");
  sub->add_option("--max-minutes", c.profile.max_minutes, "Stop cleanly after this many minutes (0 = no limit)");
  sub->add_option("--simulate-ms-per-entry", c.profile.simulate_ms_per_entry,
                  "simulated: sleep this long per entry (to try kill and --resume)");
  sub->add_flag("--no-cupti", c.profile.no_cupti, "cuda: time with CUDA events only (no kernel names)");
  sub->add_flag("--no-nvml", c.profile.no_nvml, "cuda: do not sample power, clocks and temperature");
  sub->add_flag("--no-progress", c.profile.no_progress, "No progress bar or progress lines on stderr");
  sub->add_flag("--dry-run", c.profile.dry_run, "Print the entry ids this shard would run, then exit");
  sub->callback([&c, argc, argv] {
    c.profile.argv.assign(argv, argv + argc);
    c.action = [&] { return perfpred::cli::run_profile(c.profile); };
  });
}

/// `dataset merge` and `dataset info`.
void add_dataset(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("dataset", "Merge dataset shards or summarise a dataset");
  sub->require_subcommand(1);
  auto* merge = sub->add_subcommand("merge", "Join shards of one kind into OUT (rows deduplicated by id, sidecars merged)");
  merge->add_option("out", c.dataset.out, "The merged CSV to create")->required();
  merge->add_option("inputs", c.dataset.inputs, "Shard CSVs")->required();
  merge->callback([&c] {
    c.dataset.action = "merge";
    c.action = [&] { return perfpred::cli::run_dataset(c.dataset); };
  });
  auto* info = sub->add_subcommand("info", "Kind, rows by status, GPU and op family of a dataset");
  info->add_option("file", c.dataset.inputs, "Dataset CSV")->required()->expected(1);
  info->add_flag("--json", c.dataset.json, "Print JSON");
  info->callback([&c] {
    c.dataset.action = "info";
    c.action = [&] { return perfpred::cli::run_dataset(c.dataset); };
  });
}

/// `devices` and `devices show`.
void add_devices(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("devices", "List the GPU catalog (ids, MIG slices, Jetson power modes)");
  sub->add_flag("--json", c.devices.json, "Print JSON");
  auto* show = sub->add_subcommand("show", "Print one device (catalog id, ID:MIG-PROFILE, ID@MODE or a spec JSON)");
  show->add_option("id", c.devices.show_id, "Device id or spec file")->required();
  show->add_flag("--json", c.devices.json, "Print JSON");
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_devices(c.devices); }; });
}

/// `predict`: one model on one device.
void add_predict(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("predict", "Predict latency, throughput, energy and memory of a model on a GPU");
  sub->add_option("model", c.predict.model, "ONNX model file")->required();
  sub->add_option("--gpu", c.predict.gpu, "Catalog id (perfpred devices), ID:MIG-PROFILE, ID@MODE or a spec JSON")
      ->required();
  add_run_options(sub, c.predict);
  sub->add_flag("--layers", c.predict.layers, "Per-layer breakdown (table, or layers[] with --json)");
  sub->add_flag("--json", c.predict.json, "Print one JSON object");
  sub->add_flag("--allow-unknown", c.predict.allow_unknown, "Cost unknown ops as bytes-only estimates");
  sub->add_flag("--allow-partial", c.predict.allow_partial, "Predict even when working nodes have unknown shapes (JSON: \"complete\": false)");
  sub->add_flag("--no-meta", c.predict.no_meta, "Leave out the meta block (version, time): byte-identical output");
  sub->add_flag("--no-copies", c.predict.no_copies, "Leave host<->device copies of inputs/outputs out of the latency");
  sub->add_flag("--pageable-copies", c.predict.pageable_copies, k_pageable_copies_help);
  add_host_factor(sub, c.predict.host_factor);
  add_gpu_factor(sub, c.predict.gpu_factor);
  sub->add_option("--model", c.predict_bundles, "Learned bundle, one per target: latency, energy, memory (repeatable; `default` is the shipped latency bundle). Without it: the shipped bundle for the parts its policy gives it, the analytical model elsewhere");
  sub->add_flag("--analytical", c.predict_analytical, "Analytical model alone (refuses --model)");
  sub->callback([&c, sub] {
    c.predict.batch_given = sub->get_option("--batch")->count() > 0;
    c.action = [&] { return perfpred::cli::run_predict_with_model(c.predict, c.predict_bundles, c.predict_analytical); };
  });
}

/// `mig`: every MIG profile of a GPU, and the smallest that fits and meets the SLO.
void add_mig(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("mig", "Predict every MIG profile of a GPU and recommend the smallest that fits and meets the SLO");
  sub->add_option("model", c.mig.model, "ONNX model file")->required();
  sub->add_option("--gpu", c.mig.gpu, "MIG-capable device id (a100-sxm4-40gb, a30, h100-sxm5-80gb, ...)")->required();
  sub->add_option("--slo-ms", c.mig.slo_ms, "Latency target per batch, ms (> 0)");
  sub->add_option("--memory-headroom", c.mig.memory_headroom, "Share of slice memory kept free, [0, 1)")
      ->default_val(0.10);
  sub->add_flag("--max-batch", c.mig.max_batch, "Also find the largest batch each profile sustains within the SLO and memory");
  sub->add_option("--max-batch-limit", c.mig.max_batch_limit, "Ceiling of the --max-batch search")->default_val(65536);
  add_predict_options(sub, c.mig);
  sub->add_flag("--json", c.mig.json, "Print one JSON object");
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_mig(c.mig); }; });
}

/// `select`: devices ranked under latency, power and memory constraints.
void add_select(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("select", "Rank devices for a model under latency, power and memory constraints");
  sub->add_option("model", c.select.model, "ONNX model file")->required();
  sub->add_option("--devices", c.select.devices, "Device ids or spec files, comma-separated")->delimiter(',');
  sub->add_flag("--all", c.select.all, "Every catalogued device and Jetson power mode");
  sub->add_option("--max-latency-ms", c.select.max_latency_ms, "Reject devices slower than this (ms per batch)");
  sub->add_option("--max-power-w", c.select.max_power_w, "Reject devices drawing more on average (W)");
  sub->add_option("--min-memory-headroom", c.select.min_memory_headroom, "Reject devices with less free memory share at peak, [0, 1)");
  sub->add_option("--max-latency-range-high-ms", c.select.max_latency_range_high_ms, "Reject devices whose latency range reaches above this (ms per batch): the range's high end, where held-out machines fell (analytical model, docs/accuracy.md)");
  sub->add_option("--max-power-range-high-w", c.select.max_power_range_high_w, "Reject devices whose average power range reaches above this (W): the range's high end (analytical model)");
  sub->add_option("--objective", c.select.objective, "latency, energy, cost or throughput_per_watt")->default_val("latency");
  sub->add_option("--prices", c.select.prices, "prices.json for --objective cost (docs/formats.md)");
  add_predict_options(sub, c.select);
  sub->add_flag("--json", c.select.json, "Print one JSON object");
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_select(c.select); }; });
}

/// `sweep`: a grid of hypothetical GPUs around a base device.
void add_sweep(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("sweep", "Predict a model over a grid of hypothetical GPUs around a base device");
  sub->add_option("model", c.sweep.model, "ONNX model file")->required();
  sub->add_option("--base-gpu", c.sweep.base_gpu, "Device id or spec file to start from")->required();
  sub->add_option("--vary", c.sweep.vary, "FIELD=START:STOP:STEP (repeatable; e.g. sm_count=40:160:20)")->required();
  sub->add_option("--max-points", c.sweep.max_points, "Refuse grids larger than this")->default_val(100000);
  add_predict_options(sub, c.sweep);
  sub->add_flag("--csv", c.sweep.csv, "Print CSV");
  sub->add_flag("--json", c.sweep.json, "Print one JSON object");
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_sweep(c.sweep); }; });
}

/// `report`: a self-contained HTML report.
void add_report(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("report", "Write a self-contained HTML report (layer times, roofline, memory, devices)");
  sub->add_option("model", c.report.model, "ONNX model file")->required();
  sub->add_option("--gpu", c.report.gpus, "Device id or spec file (repeatable or comma-separated)")->required();
  sub->add_option("--out", c.report.out, "Output .html file")->required();
  sub->add_option("--max-layer-bars", c.report.max_layer_bars, "Slowest layers drawn as bars")->default_val(60);
  add_predict_options(sub, c.report);
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_report(c.report); }; });
}

/// `budget check`: performance budgets for CI.
void add_budget(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("budget", "Performance budgets for CI");
  sub->require_subcommand(1);
  auto* check = sub->add_subcommand("check", "Check every budget entry; exit 1 when a limit is exceeded");
  check->add_option("budgets", c.budget.file, "Budget file (docs/formats.md)")->required();
  check->add_option("--junit", c.budget.junit, "Also write JUnit XML here");
  check->add_flag("--json", c.budget.json, "Print the verdict as JSON");
  check->add_flag("--no-meta", c.budget.no_meta, "Leave out the run metadata (timestamp, version)");
  check->add_option("--bundle", c.budget.bundle, "Learned latency bundle (`default`: the shipped one); without it the analytical model");
  check->add_flag("--analytical", c.budget.analytical, "Use the analytical model alone (the default)");
  check->add_flag("--allow-partial", c.budget.allow_partial, "Check even models whose working nodes have unknown shapes");
  add_host_factor(check, c.budget.host_factor);
  add_gpu_factor(check, c.budget.gpu_factor);
  add_no_tf32(check, c.budget.no_tf32);  // every entry; one entry alone: "allow_tf32": false
  check->callback([&c] { c.action = [&] { return perfpred::cli::run_budget_check(c.budget); }; });
}

/// `diff`: two versions of a model on one device.
void add_diff(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("diff", "Compare predictions of two versions of a model on one device");
  sub->add_option("old", c.diff.old_model, "Old ONNX model")->required();
  sub->add_option("new", c.diff.new_model, "New ONNX model")->required();
  sub->add_option("--gpu", c.diff.gpu, "Device id or spec file")->required();
  sub->add_option("--fail-over", c.diff.fail_over_pct, "Exit 1 when latency or peak memory grows by more than PCT percent");
  sub->add_option("--top", c.diff.top, "Layers listed as the main contributors")->default_val(10);
  add_predict_options(sub, c.diff);
  sub->add_flag("--json", c.diff.json, "Print one JSON object");
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_diff(c.diff); }; });
}

/// `train`: a learned bundle from measured data sets.
void add_train(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("train", "Train a learned bundle on measured data sets (kernel and network CSVs)");
  sub->add_option("--data", c.train.data, "Dataset CSV (repeatable; sidecar licence checked)")->required();
  sub->add_option("--out", c.train.out, "Bundle JSON to write")->required();
  sub->add_option("--target", c.train.target, "latency|energy|memory")->default_val("latency");
  sub->add_option("--holdout-gpu", c.train.holdout_gpus, "Leave rows on this GPU id out (repeatable)");
  sub->add_option("--holdout-family", c.train.holdout_families, "Leave this op family or model family (network rows; kernel rows' application) out (repeatable)");
  sub->add_option("--rounds", c.train.rounds, "Boosting rounds per booster (efficiency boosters: the most; leave-one-GPU-out picks fewer)")->default_val(300);
  sub->add_option("--kernel-target", c.train.kernel_target, "Kernel boosters: efficiency (against each kernel's roofline, dimensionless features) or ratio (log measured/analytical, the first design)")->default_val("efficiency");
  sub->add_option("--kernel-blend", c.train.kernel_blend, "Efficiency boosters: weight of their kernel time against the analytical time, in [0, 1] (time = learned^w x analytical^(1-w); docs/accuracy.md)")->default_val(perfpred::learn::k_default_kernel_blend);
  sub->add_option("--max-depth", c.train.max_depth, "Tree depth")->default_val(6);
  sub->add_option("--eta", c.train.eta, "Learning rate")->default_val(0.08);
  sub->add_option("--threads", c.train.threads, "XGBoost threads")->default_val(2);
  sub->add_option("--seed", c.train.seed, "Random seed (row/column subsampling)")->default_val(0);
  sub->add_option("--network-fraction", c.train.network_fraction, "Deterministic share of network rows used, (0, 1]")->default_val(1.0);
  sub->add_option("--name", c.train.name, "Bundle label (default: the output file's stem)");
  sub->add_option("--host-min-sensitivity", c.train.min_host_sensitivity, "Host-overhead rows: share by which doubling the host cost must move the prediction")->default_val(0.25);
  sub->add_option("--drop-feature", c.train.drop_features, "Leave a feature out of training (name, or prefix ending in '*'; repeatable)");
  sub->add_option("--base", c.train.base, "Latency bundle whose kernel boosters are reused (fit host overhead only)");
  sub->add_option("--policy", c.train.policy, "Policy JSON embedded in the bundle: which parts (kernels, host) it predicts per device class, runtime, mode and precision, with the held-out evidence (scripts/eval_learned_policy.py writes it)");
  sub->add_flag("--allow-unlicensed-eval", c.train.allow_unlicensed_eval, "Accept data without an MIT/Apache-2.0 licence; the bundle is marked not for shipping");
  sub->add_flag("--json", c.train.json, "Print one JSON object");
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_train(c.train); }; });
}

/// `eval`: a bundle's accuracy on measured data, beside the analytical model.
void add_eval(CLI::App& app, Commands& c) {
  auto* sub = app.add_subcommand("eval", "Accuracy of a bundle on measured data, beside the analytical model alone");
  sub->add_option("--model", c.eval.model, "Bundle JSON (`default`: the shipped one)")->required();
  sub->add_option("--data", c.eval.data, "Dataset CSV (repeatable)")->required();
  sub->add_option("--holdout-gpu", c.eval.holdout_gpus, "Evaluate only rows on this GPU id (repeatable)");
  sub->add_option("--holdout-family", c.eval.holdout_families, "Evaluate only this op family or model family (network rows; kernel rows' application) (repeatable)");
  sub->add_option("--network-fraction", c.eval.network_fraction, "Deterministic share of network rows evaluated, (0, 1]")->default_val(1.0);
  sub->add_flag("--json", c.eval.json, "Print one JSON object");
  sub->add_option("--rows", c.eval.rows, "Also write every evaluated row (measured, analytical, learned, errors) to this CSV");
  sub->callback([&c] { c.action = [&] { return perfpred::cli::run_eval(c.eval); }; });
}

/// Parses the command line into `app`'s options. An exit code when there is nothing to run (help, version, a parse
/// error, printed here: a misspelt command is named with the commands there are); nothing when the parsed
/// subcommand's action should run.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A misspelt command reads as "A subcommand is required": name the word and the commands there are.
    CLI::App* level = &app;
    std::string path = "perfpred";
    for (int i = 1; i < argc; ++i) {
      const std::string word = argv[i];
      if (word.empty() || word[0] == '-') break;
      CLI::App* next = nullptr;
      std::vector<std::string> names;
      for (auto* s : level->get_subcommands({})) {
        names.push_back(s->get_name());
        if (s->get_name() == word) next = s;
      }
      if (!next) {
        if (level->get_require_subcommand_min() > 0) {
          std::string list;
          for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
          std::cerr << "perfpred: error: '" << one_line(word) << "' is not a command of " << one_line(path) << " (one of: " << list << ")\n";
          return k_exit_input;
        }
        break;
      }
      level = next;
      path += " " + word;
    }
    std::cerr << "perfpred: error: " << one_line(e.what()) << " (see --help)\n";
    return k_exit_input;
  }
  return std::nullopt;
}

/// Runs the parsed subcommand: its exit code, or 2 for bad input and 3 for an internal error, each as one line.
int run_action(const std::function<int()>& action) {
  if (!action) {
    std::cerr << "perfpred: error: no subcommand (see --help)\n";
    return k_exit_input;
  }
  try {
    return action();
  } catch (const perfpred::InputError& e) {
    std::cerr << "perfpred: error: " << one_line(e.what()) << "\n";
    return k_exit_input;
  } catch (const std::exception& e) {
    std::cerr << "perfpred: internal error: " << one_line(e.what()) << "\n";
    return k_exit_internal;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"perfpred: predict latency, energy and memory of neural networks on GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "perfpred 0.1.0");
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "Log details to stderr");
  app.add_flag("-q,--quiet", quiet, "Log only errors");

  Commands c;
  add_inspect(app, c);
  add_profile(app, c, argc, argv);
  add_dataset(app, c);
  add_devices(app, c);
  add_predict(app, c);
  add_fit(app, c.fit_host, c.action, perfpred::cli::MachineFactor::host);
  add_fit(app, c.fit_gpu, c.action, perfpred::cli::MachineFactor::gpu);
  add_mig(app, c);
  add_select(app, c);
  add_sweep(app, c);
  add_report(app, c);
  add_budget(app, c);
  add_diff(app, c);
  add_train(app, c);
  add_eval(app, c);

  if (auto code = parse_command_line(app, argc, argv)) return *code;
  setup_logging(verbose, quiet);
  return run_action(c.action);
}
