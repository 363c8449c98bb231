#include "cmd_predict.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "common.hpp"
#include "perfpred/util/strings.hpp"
#include "perfpred/analysis/cost.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/predict/predictor.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::cli {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string mib(double bytes) { return fixed(bytes / (1024.0 * 1024.0), 1) + " MiB"; }

std::string clip(const std::string& s, size_t w) { return s.size() <= w ? s : s.substr(0, w - 1) + "~"; }

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void print_text(const Prediction& p, const PredictCmdOptions& o, const std::string& model, const GpuSpec& gpu) {
  std::printf("model %s on %s (%s), batch %lld, %s, %s, runtime %s%s%s%s%s\n", model.c_str(), gpu.id.c_str(),
              gpu.name.c_str(), static_cast<long long>(o.batch), o.precision.c_str(), o.mode.c_str(),
              o.runtime.c_str(), o.mode == "training" ? (", optimizer " + o.optimizer).c_str() : "",
              (cuda_graphs_text(o.cuda_graphs) + grad_mode_text(o.grad_mode) + launch_queue_text(o.launch_queue)).c_str(), channels_last_text(o.channels_last).c_str(),
              (attention_text(o.attention != "math") + param_updates_text(o.param_updates != "loop") +
               mixed_precision_text(o.mixed_precision != "half")).c_str());
  std::printf("latency     %s ms per %s\n", fixed(p.latency_ms, 3).c_str(),
              o.mode == "training" ? "training step" : "batch");
  std::printf("throughput  %s samples/s", fixed(p.throughput_samples_per_s, 1).c_str());
  if (p.pipelined_throughput_samples_per_s != p.throughput_samples_per_s)
    std::printf(", %s with copies overlapping the work (pipelined)", fixed(p.pipelined_throughput_samples_per_s, 1).c_str());
  std::printf("\n");
  std::printf("  kernels %s ms, host overhead %s ms, h2d %s ms, d2h %s ms", fixed(p.kernels_ms, 3).c_str(),
              fixed(p.host_overhead_ms, 3).c_str(), fixed(p.h2d_ms, 3).c_str(), fixed(p.d2h_ms, 3).c_str());
  if (o.mode == "training") std::printf(", optimizer %s ms (in kernels)", fixed(p.optimizer_ms, 3).c_str());
  std::printf("\n");
  std::printf("energy      %s mJ per %s, average power %s W\n", fixed(p.energy_mj, 2).c_str(),
              o.mode == "training" ? "step" : "batch", fixed(p.avg_power_w, 1).c_str());
  std::printf("memory      %s peak of %s: %s\n", mib(p.peak_memory_bytes).c_str(), mib(gpu.memory_bytes()).c_str(),
              p.fits ? "fits" : ("DOES NOT FIT, short by " + mib(p.memory_shortfall_bytes)).c_str());
  std::printf("  weights %s, activations %s, optimizer state %s, workspace %s, context %s\n",
              mib(p.memory.weights_bytes).c_str(), mib(p.memory.activations_bytes).c_str(),
              mib(p.memory.optimizer_state_bytes).c_str(), mib(p.memory.workspace_bytes).c_str(),
              mib(p.memory.context_bytes).c_str());
  std::printf("model       %s\n", p.model_bundle.c_str());
  for (const auto& n : p.notes) std::printf("note: %s\n", n.c_str());
  if (!o.layers) return;
  std::printf("\n%-40s %-32s %7s %11s %12s %12s %-8s\n", "layer", "op", "kernels", "time_ms", "GFLOP", "MB", "bound");
  for (const auto& l : p.layers)
    std::printf("%-40s %-32s %7d %11s %12s %12s %-8s\n", clip(l.name, 40).c_str(), clip(l.op, 32).c_str(), l.kernels,
                fixed(l.time_ms, 4).c_str(), fixed(l.flops / 1e9, 3).c_str(), fixed(l.bytes / 1e6, 3).c_str(),
                to_string(l.bound).c_str());
}

}  // namespace

nlohmann::json prediction_json(const Prediction& p, const PredictCmdOptions& o, const std::string& model_name,
                               const std::string& gpu_id) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["model"] = model_name;
  j["gpu"] = gpu_id;
  j["batch"] = o.batch;
  j["precision"] = o.precision;
  j["mode"] = o.mode;
  j["runtime"] = o.runtime;
  if (o.mode == "training") j["optimizer"] = o.optimizer;
  if (o.host_factor != 1) j["host_factor"] = o.host_factor;
  if (o.gpu_factor != 1) j["gpu_factor"] = o.gpu_factor;
  echo_allow_tf32(j, !o.no_tf32);
  echo_cuda_graphs(j, o.cuda_graphs);
  echo_grad_mode(j, o.grad_mode);
  echo_launch_queue(j, o.launch_queue);
  echo_channels_last(j, o.channels_last);
  echo_attention(j, o.attention != "math");
  echo_param_updates(j, o.param_updates != "loop");
  echo_mixed_precision(j, o.mixed_precision != "half");
  j["latency_ms"] = r6(p.latency_ms);
  j["throughput_samples_per_s"] = r6(p.throughput_samples_per_s);
  j["pipelined_throughput_samples_per_s"] = r6(p.pipelined_throughput_samples_per_s);
  j["energy_mj"] = r6(p.energy_mj);
  j["avg_power_w"] = r6(p.avg_power_w);
  j["peak_memory_bytes"] = std::llround(p.peak_memory_bytes);
  j["fits"] = p.fits;
  j["memory_shortfall_bytes"] = std::llround(p.memory_shortfall_bytes);
  j["breakdown"] = {{"kernels_ms", r6(p.kernels_ms)},
                    {"host_overhead_ms", r6(p.host_overhead_ms)},
                    {"h2d_ms", r6(p.h2d_ms)},
                    {"d2h_ms", r6(p.d2h_ms)},
                    {"optimizer_ms", r6(p.optimizer_ms)}};
  j["memory"] = {{"weights_bytes", std::llround(p.memory.weights_bytes)},
                 {"activations_bytes", std::llround(p.memory.activations_bytes)},
                 {"optimizer_state_bytes", std::llround(p.memory.optimizer_state_bytes)},
                 {"workspace_bytes", std::llround(p.memory.workspace_bytes)},
                 {"context_bytes", std::llround(p.memory.context_bytes)}};
  j["model_bundle"] = p.model_bundle;
  j["gpu_seen_in_training"] = p.gpu_seen_in_training;
  if (!p.target_bundles.empty()) {
    nlohmann::json tb = nlohmann::json::object();
    for (const auto& b : p.target_bundles)
      tb[b.target] = {{"bundle", b.name}, {"factor", r6(b.factor)}, {"gpu_seen_in_training", b.gpu_seen}};
    j["target_bundles"] = std::move(tb);
  }
  j["notes"] = p.notes;
  if (o.layers) {
    nlohmann::json layers = nlohmann::json::array();
    for (const auto& l : p.layers)
      layers.push_back({{"name", l.name},
                        {"op", l.op},
                        {"kernels", l.kernels},
                        {"time_ms", r6(l.time_ms)},
                        {"flops", r6(l.flops)},
                        {"bytes", r6(l.bytes)},
                        {"bound", to_string(l.bound)}});
    j["layers"] = std::move(layers);
  }
  return j;
}

namespace {

/// The graph of the model `o` names: its file, or the serialized ModelProto in o.model_bytes.
Graph import_model(const PredictCmdOptions& o, const onnx_import::ImportOptions& io) {
  if (!o.model_bytes.empty()) return onnx_import::import_bytes(o.model_bytes, o.model, io);
  return onnx_import::import_file(o.model, io);
}

/// The predictor's options from the command's, each checked with the option named.
PredictOptions predict_options(const PredictCmdOptions& o) {
  PredictOptions po;
  po.precision = precision_from_string(o.precision, "--precision");
  po.mode = mode_from_string(o.mode, "--mode");
  po.runtime = runtime_from_string(o.runtime, "--runtime");
  po.optimizer = optimizer_from_string(o.optimizer, "--optimizer");
  if (o.batch < 1) throw InputError("--batch " + std::to_string(o.batch) + ": must be a positive integer");
  po.batch = o.batch;
  po.include_copies = !o.no_copies;
  if (o.no_copies && o.pageable_copies)
    throw InputError("--pageable-copies prices the copies that --no-copies leaves out: give one of them");
  po.pageable_copies = o.pageable_copies;
  po.detail = o.layers;
  if (po.mode == Mode::training && po.runtime == Runtime::tensorrt)
    throw InputError("--runtime tensorrt runs inference only; use --mode inference or --runtime pytorch|onnxruntime|cudnn");
  po.host_factor = checked_host_factor(o.host_factor);
  po.gpu_factor = checked_gpu_factor(o.gpu_factor);
  po.allow_tf32 = checked_allow_tf32(o.no_tf32, po.precision, o.precision);
  po.cuda_graphs = o.cuda_graphs;
  po.grad_mode = o.grad_mode;
  po.launch_queue = checked_launch_queue(o.launch_queue);
  po.channels_last = o.channels_last;
  po.fused_attention = fused_attention_from_string(o.attention, "--attention");
  po.foreach_updates = foreach_updates_from_string(o.param_updates, "--param-updates");
  po.autocast = autocast_from_string(o.mixed_precision, "--mixed-precision");
  return po;
}

}  // namespace

PredictRun compute_predict(const PredictCmdOptions& o, const KernelCorrector* corrector, const PredictionHook& after) {
  PredictOptions po = predict_options(o);
  std::error_code ec;
  if (o.model_bytes.empty()) {
    if (std::filesystem::is_directory(o.model, ec)) throw InputError(o.model + ": is a directory; give an .onnx file");
    if (!std::filesystem::is_regular_file(o.model, ec))
      throw InputError(o.model + ": no such model file (give the path of an .onnx file)");
  }

  const GpuSpec gpu = resolve_gpu(o.gpu);

  onnx_import::ImportOptions io;
  io.batch = o.batch;
  io.input_shapes = parse_input_shapes(o.input_shapes);
  parse_control_flow(o.branches, o.loop_trips, io);
  parse_dims(o.dims, io);
  parse_data_counts(o.data_counts, io);
  parse_nms_candidates(o.nms_candidates, io);
  Graph g = import_model(o, io);
  // A model exported with a fixed batch keeps it unless --batch asks for another: then every input of
  // rank >= 2 whose shape was not given explicitly is re-imported with that leading dimension. A graph
  // that bakes its batch into constants (a Reshape to [8, -1] ...) cannot take another one: that is an
  // error naming the fixed batch, not a prediction of a broken graph.
  std::vector<std::string> notes;
  std::vector<std::string> fixed, fixed_names;
  if (o.batch_given) {
    for (int t : g.inputs) {
      const Tensor& in = g.tensors[t];
      if (io.input_shapes.count(in.name) || !in.has_shape || in.shape.size() < 2 || in.shape[0] <= 0 ||
          in.shape[0] == o.batch)
        continue;
      std::vector<int64_t> s = in.shape;
      fixed.push_back(in.name + " (" + std::to_string(s[0]) + ")");
      fixed_names.push_back(in.name);
      s[0] = o.batch;
      io.input_shapes[in.name] = s;
    }
  }
  AnalyzeOptions ao;
  ao.allow_unknown = o.allow_unknown;
  GraphCost cost;
  if (fixed.empty()) {
    cost = analyze_model(g, ao, o.model, o.allow_partial);
  } else {
    try {
      g = import_model(o, io);
      cost = analyze_model(g, ao, o.model, o.allow_partial);
    } catch (const InputError& e) {
      throw InputError(o.model + ": exported with a fixed batch (" + join(fixed, ", ") + ") that --batch " +
                       std::to_string(o.batch) + " cannot replace (" + e.what() +
                       "); drop --batch, or export the model with a dynamic batch axis");
    }
    notes.push_back("inputs with a fixed batch (" + join(fixed, ", ") + ") predicted at --batch " + std::to_string(o.batch));
    // The importer's "model declares N, --input-shape gives B" is about the shapes set here, not the user's.
    std::erase_if(g.warnings, [&](const std::string& w) {
      for (const auto& n : fixed_names)
        if (w.rfind("input '" + n + "' dim 0: model declares", 0) == 0) return true;
      return false;
    });
  }
  po.batch = model_batch(g, o.batch);
  if (o.batch_given && po.batch != o.batch)
    throw InputError("--batch " + std::to_string(o.batch) + " and --input-shape disagree: the model's first input has batch " +
                     std::to_string(po.batch) + "; give one of them");

  Prediction p = predict(g, cost, gpu, po, corrector);
  if (after) after(p, g, cost, gpu, po);
  for (const auto& n : cost.nodes)
    if (n.estimated) {
      p.notes.push_back("unknown ops costed as bytes-only estimates (--allow-unknown)");
      break;
    }
  if (po.host_factor != 1) notes.push_back(host_factor_note(po.host_factor));
  if (po.gpu_factor != 1) notes.push_back(gpu_factor_note(po.gpu_factor));
  p.notes.insert(p.notes.begin(), notes.begin(), notes.end());
  for (const auto& w : g.warnings) spdlog::warn("{}", w);

  PredictRun run{std::move(p), gpu, o, std::filesystem::path(o.model).stem().string(), {}, std::nullopt, {},
                 std::nullopt, std::nullopt};
  run.shown.model_bytes.clear();
  run.shown.batch = po.batch;  // the batch the model ran at, which --input-shape or a fixed export decide
  return run;
}

namespace {
nlohmann::json predictor_json(const PredictorChoice& c) {
  nlohmann::json j = {{"bundle", c.bundle.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.bundle)}};
  for (const auto& part : c.parts) {
    nlohmann::json d = {{"predictor", part.learned ? "learned" : "analytical"}, {"evidence", part.evidence}};
    if (!part.rule.empty()) d["rule"] = part.rule;
    j[part.part] = std::move(d);
  }
  return j;
}

}  // namespace

nlohmann::json predict_document(const PredictRun& r) {
  nlohmann::json j = prediction_json(r.prediction, r.shown, r.model_name, r.gpu.id);
  if (r.latency_range) {
    const PredictionRange& l = *r.latency_range;
    j["latency_range_ms"] = range_json(l);
  } else if (!r.latency_range_note.empty()) {
    j["notes"].push_back(r.latency_range_note);
  }
  if (r.energy_range) j["energy_range_mj"] = range_json(*r.energy_range);
  if (r.power_range) j["power_range_w"] = range_json(*r.power_range);
  if (!r.predictor.parts.empty()) j["predictor"] = predictor_json(r.predictor);
  if (!r.shown.no_meta)
    j["meta"] = {{"perfpred_version", "0.1.0"}, {"created_utc", utc_now()}, {"model_path", r.shown.model}};
  return j;
}

int print_predict(const PredictRun& r) {
  if (r.shown.json) {
    print_json(predict_document(r));
    return 0;
  }
  print_text(r.prediction, r.shown, r.model_name, r.gpu);
  if (r.latency_range) {
    const PredictionRange& l = *r.latency_range;
    std::printf("range       %s-%s ms: %s of held-out measurements on machines left out of the fit fell in such "
                "ranges (%s, %d rows)\n",
                fixed(l.low, 3).c_str(), fixed(l.high, 3).c_str(),
                (fixed(100 * l.held_out_coverage, 0) + "%").c_str(), l.regime.c_str(), l.rows);
  } else if (!r.latency_range_note.empty()) {
    std::printf("note: %s\n", r.latency_range_note.c_str());
  }
  if (r.energy_range && r.power_range)
    std::printf("            energy %s-%s mJ, power %s-%s W: %s and %s of held-out measurements on %d machines left "
                "out of the fit\n",
                fixed(r.energy_range->low, 2).c_str(), fixed(r.energy_range->high, 2).c_str(),
                fixed(r.power_range->low, 1).c_str(), fixed(r.power_range->high, 1).c_str(),
                (fixed(100 * r.energy_range->held_out_coverage, 0) + "%").c_str(),
                (fixed(100 * r.power_range->held_out_coverage, 0) + "%").c_str(), r.energy_range->machines);
  if (r.power_range && r.power_range->capped_at_w > 0)
    std::printf("            power range held at the board's %s W limit (a board cannot average more)\n",
                fixed(r.power_range->capped_at_w, 0).c_str());
  for (const auto& part : r.predictor.parts)
    std::printf("%-11s %s (%s)\n", part.part.c_str(), part.learned ? "learned" : "analytical", part.evidence.c_str());
  return 0;
}

int run_predict(const PredictCmdOptions& o, const KernelCorrector* corrector, const PredictionHook& after) {
  return print_predict(compute_predict(o, corrector, after));
}

}  // namespace perfpred::cli
