// The perfpred command line. This is the only translation unit that includes CLI11 (it compiles
// slowly): each subcommand's options are declared here into a plain struct from cmd_<name>.hpp, and
// run_<name>() in cmd_<name>.cpp does the work. Exceptions are turned into exit codes here once:
// 0 success, 1 a check failed or an internal error, 2 bad input (docs/cli.md).
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <functional>
#include <iostream>

#include "perfpred/util/error.hpp"
#include "cmd_predict.hpp"
#include "cmd_devices.hpp"
#include "cmd_train.hpp"
#include "cmd_eval.hpp"
#include "cmd_profile.hpp"
#include "cmd_dataset.hpp"
// @@cmd-includes@@

namespace {

constexpr int k_exit_ok = 0;
constexpr int k_exit_internal = 1;
constexpr int k_exit_input = 2;

void setup_logging(bool verbose, bool quiet) {
  auto logger = spdlog::stderr_color_mt("perfpred");
  logger->set_pattern("perfpred: %^%l%$: %v");
  logger->set_level(quiet ? spdlog::level::err : verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"perfpred: predict latency, energy and memory of neural networks on GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "perfpred 0.1.0");
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "Log details to stderr");
  app.add_flag("-q,--quiet", quiet, "Log only errors");

  std::function<int()> action;

  perfpred::cli::PredictCmdOptions predict_opts;
  std::string predict_bundle;
  bool predict_analytical = false;
  {
    auto* sub = app.add_subcommand("predict", "Predict latency, throughput, energy and memory of a model on a GPU");
    sub->add_option("model", predict_opts.model, "ONNX model file")->required();
    sub->add_option("--gpu", predict_opts.gpu, "Catalog id (perfpred devices), ID:MIG-PROFILE, ID@MODE or a spec JSON")
        ->required();
    sub->add_option("--batch", predict_opts.batch, "Batch size (leading dim of each runtime input)")->default_val(1);
    sub->add_option("--input-shape", predict_opts.input_shapes, "Exact input shape NAME=D0,D1,... (repeatable)");
    sub->add_option("--precision", predict_opts.precision, "fp32|tf32|fp16|bf16|int8")->default_val("fp32");
    sub->add_option("--mode", predict_opts.mode, "inference|training")->default_val("inference");
    sub->add_option("--optimizer", predict_opts.optimizer, "Training: none|sgd|momentum|adam")->default_val("sgd");
    sub->add_option("--runtime", predict_opts.runtime, "pytorch|tensorrt|onnxruntime|cudnn")->default_val("pytorch");
    sub->add_flag("--layers", predict_opts.layers, "Per-layer breakdown (table, or layers[] with --json)");
    sub->add_flag("--json", predict_opts.json, "Print one JSON object");
    sub->add_flag("--allow-unknown", predict_opts.allow_unknown, "Cost unknown ops as bytes-only estimates");
    sub->add_flag("--no-meta", predict_opts.no_meta, "Leave out the meta block (version, time): byte-identical output");
    sub->add_flag("--no-copies", predict_opts.no_copies, "Leave host<->device copies of inputs/outputs out of the latency");
    sub->add_option("--model", predict_bundle, "Learned latency bundle (default: models/perfpred-default.json when present)");
    sub->add_flag("--analytical", predict_analytical, "Analytical model alone, no learned bundle");
    sub->callback([&] {
      action = [&] { return perfpred::cli::run_predict_with_model(predict_opts, predict_bundle, predict_analytical); };
    });
  }
  perfpred::cli::DevicesOptions devices_opts;
  {
    auto* sub = app.add_subcommand("devices", "List the GPU catalog (ids, MIG slices, Jetson power modes)");
    sub->add_flag("--json", devices_opts.json, "Print JSON");
    auto* show = sub->add_subcommand("show", "Print one device (catalog id, ID:MIG-PROFILE, ID@MODE or a spec JSON)");
    show->add_option("id", devices_opts.show_id, "Device id or spec file")->required();
    show->add_flag("--json", devices_opts.json, "Print JSON");
    sub->callback([&] { action = [&] { return perfpred::cli::run_devices(devices_opts); }; });
  }
  perfpred::cli::TrainCmdOptions train_opts;
  {
    auto* sub = app.add_subcommand("train", "Train a learned bundle on measured data sets (kernel and network CSVs)");
    sub->add_option("--data", train_opts.data, "Dataset CSV (repeatable; sidecar licence checked)")->required();
    sub->add_option("--out", train_opts.out, "Bundle JSON to write")->required();
    sub->add_option("--target", train_opts.target, "latency|energy|memory")->default_val("latency");
    sub->add_option("--holdout-gpu", train_opts.holdout_gpus, "Leave rows on this GPU id out (repeatable)");
    sub->add_option("--holdout-family", train_opts.holdout_families, "Leave this op family or model family out (repeatable)");
    sub->add_option("--rounds", train_opts.rounds, "Boosting rounds per booster")->default_val(300);
    sub->add_option("--max-depth", train_opts.max_depth, "Tree depth")->default_val(8);
    sub->add_option("--eta", train_opts.eta, "Learning rate")->default_val(0.08);
    sub->add_option("--threads", train_opts.threads, "XGBoost threads")->default_val(2);
    sub->add_option("--seed", train_opts.seed, "Random seed (row/column subsampling)")->default_val(0);
    sub->add_option("--network-fraction", train_opts.network_fraction, "Deterministic share of network rows used, (0, 1]")->default_val(1.0);
    sub->add_option("--name", train_opts.name, "Bundle label (default: the output file's stem)");
    sub->add_flag("--allow-unlicensed-eval", train_opts.allow_unlicensed_eval, "Accept data without an MIT/Apache-2.0 licence; the bundle is marked not for shipping");
    sub->add_flag("--json", train_opts.json, "Print one JSON object");
    sub->callback([&] { action = [&] { return perfpred::cli::run_train(train_opts); }; });
  }
  perfpred::cli::EvalCmdOptions eval_opts;
  {
    auto* sub = app.add_subcommand("eval", "Accuracy of a bundle on measured data, beside the analytical model alone");
    sub->add_option("--model", eval_opts.model, "Bundle JSON")->required();
    sub->add_option("--data", eval_opts.data, "Dataset CSV (repeatable)")->required();
    sub->add_option("--holdout-gpu", eval_opts.holdout_gpus, "Evaluate only rows on this GPU id (repeatable)");
    sub->add_option("--holdout-family", eval_opts.holdout_families, "Evaluate only this op family or model family (repeatable)");
    sub->add_option("--network-fraction", eval_opts.network_fraction, "Deterministic share of network rows evaluated, (0, 1]")->default_val(1.0);
    sub->add_flag("--json", eval_opts.json, "Print one JSON object");
    sub->callback([&] { action = [&] { return perfpred::cli::run_eval(eval_opts); }; });
  }
  perfpred::cli::ProfileOptions profile_opts;
  {
    auto* sub = app.add_subcommand("profile", "Measure a profiling plan on this GPU (or simulate one) into a kernel dataset");
    sub->add_option("--plan", profile_opts.plan, "Shipped plan name (quick, full) or plan JSON file")->default_val("quick");
    sub->add_option("--out", profile_opts.out, "Output directory (kernels.csv, microbench.csv and sidecars)");
    sub->add_option("--backend", profile_opts.backend, "cuda (this GPU) or simulated (roofline of --gpu, synthetic rows)")
        ->default_val("cuda");
    sub->add_option("--gpu", profile_opts.gpu, "simulated: catalog id or spec file; cuda: device id to record instead of the matched one");
    sub->add_option("--device", profile_opts.device, "CUDA device ordinal")->default_val(0);
    sub->add_option("--precision", profile_opts.precisions, "Keep only these precisions (fp32,tf32,fp16,bf16)")->delimiter(',');
    sub->add_option("--shard", profile_opts.shard, "Run entries with index % N == I (I/N)");
    sub->add_flag("--resume", profile_opts.resume, "Continue an existing --out, skipping entries that have rows");
    sub->add_option("--max-minutes", profile_opts.max_minutes, "Stop cleanly after this many minutes (0 = no limit)");
    sub->add_option("--simulate-ms-per-entry", profile_opts.simulate_ms_per_entry,
                    "simulated: sleep this long per entry (to try kill and --resume)");
    sub->add_flag("--no-cupti", profile_opts.no_cupti, "cuda: time with CUDA events only (no kernel names)");
    sub->add_flag("--no-nvml", profile_opts.no_nvml, "cuda: do not sample power, clocks and temperature");
    sub->add_flag("--no-progress", profile_opts.no_progress, "No progress bar or progress lines on stderr");
    sub->add_flag("--dry-run", profile_opts.dry_run, "Print the entry ids this shard would run, then exit");
    sub->callback([&, argc, argv] {
      profile_opts.argv.assign(argv, argv + argc);
      action = [&] { return perfpred::cli::run_profile(profile_opts); };
    });
  }
  perfpred::cli::DatasetOptions dataset_opts;
  {
    auto* sub = app.add_subcommand("dataset", "Merge dataset shards or summarise a dataset");
    sub->require_subcommand(1);
    auto* merge = sub->add_subcommand("merge", "Join shards of one kind into OUT (rows deduplicated by id, sidecars merged)");
    merge->add_option("out", dataset_opts.out, "The merged CSV to create")->required();
    merge->add_option("inputs", dataset_opts.inputs, "Shard CSVs")->required();
    merge->callback([&] {
      dataset_opts.action = "merge";
      action = [&] { return perfpred::cli::run_dataset(dataset_opts); };
    });
    auto* info = sub->add_subcommand("info", "Kind, rows by status, GPU and op family of a dataset");
    info->add_option("file", dataset_opts.inputs, "Dataset CSV")->required()->expected(1);
    info->add_flag("--json", dataset_opts.json, "Print JSON");
    info->callback([&] {
      dataset_opts.action = "info";
      action = [&] { return perfpred::cli::run_dataset(dataset_opts); };
    });
  }
  // @@cmd-setup@@

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "perfpred: error: " << e.what() << " (see --help)\n";
    return k_exit_input;
  }
  setup_logging(verbose, quiet);
  if (!action) {
    std::cerr << "perfpred: error: no subcommand (see --help)\n";
    return k_exit_input;
  }
  try {
    return action();
  } catch (const perfpred::InputError& e) {
    std::cerr << "perfpred: error: " << e.what() << "\n";
    return k_exit_input;
  } catch (const std::exception& e) {
    std::cerr << "perfpred: internal error: " << e.what() << "\n";
    return k_exit_internal;
  }
}
