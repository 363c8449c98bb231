#include "cmd_diff.hpp"

#include <cmath>
#include <iostream>

#include "advise_support.hpp"
#include "perfpred/advise/diff.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/report/json.hpp"
#include "perfpred/report/text.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::cli {

using namespace perfpred::report;

namespace {

nlohmann::json pct_json(const std::optional<double>& v) { return v ? number_or_null(*v) : nlohmann::json(nullptr); }

nlohmann::json change_json(const advise::LayerChange& c) {
  return {{"match", to_string(c.match)}, {"old_name", c.old_name}, {"new_name", c.new_name}, {"op", c.op},
          {"old_ms", c.old_ms},          {"new_ms", c.new_ms},     {"delta_ms", c.delta_ms()}};
}

std::string pct_text(const std::optional<double>& v) { return v ? fmt_pct(*v) : "n/a"; }

}  // namespace

int run_diff(const DiffCliOptions& o) {
  if (o.fail_over_pct && !(std::isfinite(*o.fail_over_pct) && *o.fail_over_pct >= 0))
    throw InputError("--fail-over " + fmt_given(*o.fail_over_pct) + ": must be a percentage >= 0, e.g. 5");
  if (o.top < 1) throw InputError("--top must be at least 1");
  PredictOptions popts = support::predict_options(o);
  GpuSpec gpu = resolve_gpu(o.gpu);
  support::Corrector corr(o.bundle, o.analytical);
  auto shapes = parse_input_shapes(o.input_shapes);
  const auto cf = support::control_flow(o);
  auto a = support::load_model(o.old_model, popts.batch, shapes, o.allow_unknown, o.allow_partial, &cf);
  auto b = support::load_model(o.new_model, popts.batch, shapes, o.allow_unknown, o.allow_partial, &cf);
  // Each model at its own batch (an --input-shape or a fixed export decides it): throughput compares.
  PredictOptions oa = popts, ob = popts;
  oa.batch = a->batch;
  ob.batch = b->batch;
  Prediction pa = predict(a->graph, a->cost, gpu, oa, corr.get());
  Prediction pb = predict(b->graph, b->cost, gpu, ob, corr.get());
  advise::ModelDiff d = advise::diff_predictions(pa, pb, static_cast<size_t>(o.top));

  std::vector<std::string> over;
  if (o.fail_over_pct) {
    auto grew = [&](const std::optional<double>& pct, double old_v, double new_v) {
      if (pct) return *pct > *o.fail_over_pct;
      return old_v == 0 && new_v > 0;  // from nothing to something is unbounded growth
    };
    if (grew(d.latency_pct, pa.latency_ms, pb.latency_ms)) over.push_back("latency " + pct_text(d.latency_pct));
    if (grew(d.memory_pct, pa.peak_memory_bytes, pb.peak_memory_bytes))
      over.push_back("peak memory " + pct_text(d.memory_pct));
  }
  const bool failed = !over.empty();

  if (o.json) {
    nlohmann::json layers = nlohmann::json::array(), top = nlohmann::json::array();
    for (const auto& c : d.layers) layers.push_back(change_json(c));
    for (const auto& c : d.top_changes) top.push_back(change_json(c));
    nlohmann::json j{{"schema_version", 1},
                {"old_model", o.old_model},
                {"new_model", o.new_model},
                {"gpu", device_brief_json(gpu)},
                {"batch", popts.batch},
                {"precision", to_string(popts.precision)},
                {"mode", to_string(popts.mode)},
                {"runtime", to_string(popts.runtime)},
                {"model_bundle", corr.label()},
                {"old", summary_json(pa)},
                {"new", summary_json(pb)},
                {"change_pct",
                 {{"latency_ms", pct_json(d.latency_pct)},
                  {"peak_memory_bytes", pct_json(d.memory_pct)},
                  {"energy_mj", pct_json(d.energy_pct)}}},
                {"layer_matching",
                 {{"by_name", d.by_name}, {"by_position", d.by_position}, {"added", d.added}, {"removed", d.removed}}},
                {"top_changes", top},
                {"explained_share", d.explained_share},
                {"layers", layers},
                {"fail_over_pct", o.fail_over_pct ? nlohmann::json(*o.fail_over_pct) : nlohmann::json(nullptr)},
                {"failed", failed},
                {"failed_because", over}};
    echo_machine_factors(j, popts.host_factor, popts.gpu_factor);
  echo_allow_tf32(j, popts.allow_tf32);
  echo_cuda_graphs(j, popts.cuda_graphs);
  echo_grad_mode(j, popts.grad_mode);
  echo_launch_queue(j, popts.launch_queue);
  echo_channels_last(j, popts.channels_last);
  echo_attention(j, popts.fused_attention);
  echo_param_updates(j, popts.foreach_updates);
  echo_mixed_precision(j, popts.autocast);
    print_json(j);
    return failed ? 1 : 0;
  }
  std::cout << "Diff on " << gpu.id << " (batch " << popts.batch << ", " << to_string(popts.precision) << ", "
            << to_string(popts.mode) << machine_factors_text(popts.host_factor, popts.gpu_factor) << allow_tf32_text(popts.allow_tf32) << cuda_graphs_text(popts.cuda_graphs) << grad_mode_text(popts.grad_mode) << launch_queue_text(popts.launch_queue) << channels_last_text(popts.channels_last) << attention_text(popts.fused_attention) << param_updates_text(popts.foreach_updates) << mixed_precision_text(popts.autocast)
            << ", predictor " << corr.label() << ")\n\n";
  TextTable t({"", "old", "new", "change"}, {false, true, true, true});
  t.add_row({"latency", fmt_ms(pa.latency_ms), fmt_ms(pb.latency_ms), pct_text(d.latency_pct)});
  t.add_row({"peak memory", fmt_bytes(pa.peak_memory_bytes), fmt_bytes(pb.peak_memory_bytes), pct_text(d.memory_pct)});
  t.add_row({"energy", fmt_fixed(pa.energy_mj, 2) + " mJ", fmt_fixed(pb.energy_mj, 2) + " mJ", pct_text(d.energy_pct)});
  t.add_row({"weights", fmt_bytes(pa.memory.weights_bytes), fmt_bytes(pb.memory.weights_bytes),
             pct_text(advise::percent_change(pa.memory.weights_bytes, pb.memory.weights_bytes))});
  t.add_row({"activations", fmt_bytes(pa.memory.activations_bytes), fmt_bytes(pb.memory.activations_bytes),
             pct_text(advise::percent_change(pa.memory.activations_bytes, pb.memory.activations_bytes))});
  t.add_row({"layers", std::to_string(pa.layers.size()), std::to_string(pb.layers.size()), ""});
  std::cout << t.str() << "\nLayers matched: " << d.by_name << " by name, " << d.by_position << " by position and op, "
            << d.added << " added, " << d.removed << " removed.\n";
  if (d.top_changes.empty()) {
    std::cout << "No layer changed its predicted time.\n";
  } else {
    std::cout << "Layers that account for most of the change (" << fmt_fixed(d.explained_share * 100, 0)
              << "% of the net layer-time change):\n";
    TextTable lt({"change", "layer", "op", "old", "new", "delta"}, {false, false, false, true, true, true});
    for (const auto& c : d.top_changes) {
      std::string name = c.new_name.empty() ? c.old_name : c.new_name;
      if (c.match == advise::LayerMatch::position && c.old_name != c.new_name) name = c.old_name + " -> " + c.new_name;
      lt.add_row({to_string(c.match), name, c.op, c.match == advise::LayerMatch::added ? "-" : fmt_ms(c.old_ms),
                  c.match == advise::LayerMatch::removed ? "-" : fmt_ms(c.new_ms),
                  (c.delta_ms() >= 0 ? "+" : "") + fmt_ms(c.delta_ms())});
    }
    std::cout << lt.str();
  }
  if (o.fail_over_pct)
    std::cout << "\n" << (failed ? "FAIL: " + join(over, ", ") + " over the " + fmt_exact(*o.fail_over_pct) + "% limit"
                                 : "PASS: latency and peak memory within +" + fmt_exact(*o.fail_over_pct) + "%")
              << "\n";
  return failed ? 1 : 0;
}

}  // namespace perfpred::cli
