#include "cmd_mig.hpp"

#include <iostream>

#include "advise_support.hpp"
#include "perfpred/advise/mig.hpp"
#include "perfpred/report/json.hpp"
#include "perfpred/report/text.hpp"

namespace perfpred::cli {

using namespace perfpred::report;

namespace {

/// MIG advice with what its JSON and table show.
struct MigRun {
  PredictOptions popts;
  std::string bundle_label;
  advise::MigAdvice adv;
};

MigRun compute_mig(const MigCliOptions& o) {
  if (o.max_batch && !o.input_shapes.empty())
    throw InputError("--max-batch varies the batch; it cannot be combined with --input-shape");
  if (o.max_batch_limit < 1) throw InputError("--max-batch-limit must be at least 1");
  PredictOptions popts = support::predict_options(o);
  advise::MigOptions mo;
  mo.slo_ms = o.slo_ms;
  mo.memory_headroom = o.memory_headroom;
  mo.max_batch = o.max_batch;
  mo.max_batch_limit = o.max_batch_limit;
  // Check the cheap inputs before importing the model.
  {
    const std::string& g = o.gpu;
    if (g.find('/') != std::string::npos || (g.size() > 5 && g.compare(g.size() - 5, 5, ".json") == 0))
      throw InputError("--gpu " + g + ": mig takes a catalog id of a MIG-capable GPU (A100, A30, H100, H200), "
                       "not a spec file: MIG profiles are catalog data");
  }
  if (mo.slo_ms && !(*mo.slo_ms > 0))
    throw InputError("--slo-ms " + fmt_given(*mo.slo_ms) + ": the latency target must be a positive number of milliseconds");
  support::Corrector corr(o.bundle, o.analytical);
  auto model = support::model_at_batch(o.model, parse_input_shapes(o.input_shapes), o.allow_unknown, o.allow_partial, support::control_flow(o));
  advise::MigAdvice adv = advise::advise_mig(model, o.gpu, popts, mo, corr.get());
  return {popts, corr.label(), std::move(adv)};
}

nlohmann::json mig_json(const MigCliOptions& o, const MigRun& run) {
  const auto& [popts, label, adv] = run;
  nlohmann::json profiles = nlohmann::json::array();
  for (const auto& r : adv.profiles) {
    nlohmann::json p{{"profile", r.slice.mig_profile},
                     {"id", r.slice.id},
                     {"sm_count", r.slice.sm_count},
                     {"compute_slices", r.geometry.compute_slices},
                     {"compute_slices_total", r.geometry.compute_slices_total},
                     {"memory_slices", r.geometry.memory_slices},
                     {"memory_slices_total", r.geometry.memory_slices_total},
                     {"max_instances", r.geometry.max_instances},
                     {"usable_memory_bytes", r.usable_memory_bytes},
                     {"memory_limit_bytes", r.memory_limit_bytes},
                     {"fits_memory", r.fits_memory},
                     {"meets_slo", r.meets_slo},
                     {"eligible", r.eligible()},
                     {"prediction", summary_json(r.prediction)},
                     {"gpu_throughput_samples_per_s", r.gpu_throughput_samples_per_s},
                     {"reason", r.reason}};
    if (o.max_batch) {
      p["max_batch"] = r.max_batch ? nlohmann::json(*r.max_batch) : nlohmann::json(nullptr);
      p["max_batch_prediction"] =
          r.max_batch_prediction ? summary_json(*r.max_batch_prediction) : nlohmann::json(nullptr);
      if (r.max_batch_prediction)
        p["max_batch_gpu_throughput_samples_per_s"] =
            advise::instances_throughput(*r.max_batch_prediction, *r.max_batch, r.geometry.max_instances);
    }
    profiles.push_back(std::move(p));
  }
  nlohmann::json j{{"schema_version", 1},
                   {"model", o.model},
                   {"gpu", device_brief_json(adv.gpu)},
                   {"batch", popts.batch},
                   {"precision", to_string(popts.precision)},
                   {"mode", to_string(popts.mode)},
                   {"runtime", to_string(popts.runtime)},
                   {"slo_ms", o.slo_ms ? nlohmann::json(*o.slo_ms) : nlohmann::json(nullptr)},
                   {"memory_headroom", o.memory_headroom},
                   {"model_bundle", label},
                   {"whole_gpu", summary_json(adv.whole_gpu)},
                   {"profiles", profiles},
                   {"recommended", adv.recommended ? nlohmann::json(adv.profiles[*adv.recommended].slice.mig_profile)
                                                   : nlohmann::json(nullptr)},
                   {"best_packing", adv.best_packing ? nlohmann::json(adv.profiles[*adv.best_packing].slice.mig_profile)
                                                     : nlohmann::json(nullptr)},
                   {"explanation", adv.explanation}};
  echo_machine_factors(j, popts.host_factor, popts.gpu_factor);
  echo_allow_tf32(j, popts.allow_tf32);
  echo_cuda_graphs(j, popts.cuda_graphs);
  echo_grad_mode(j, popts.grad_mode);
  echo_launch_queue(j, popts.launch_queue);
  echo_channels_last(j, popts.channels_last);
  echo_attention(j, popts.fused_attention);
  echo_param_updates(j, popts.foreach_updates);
  echo_mixed_precision(j, popts.autocast);
  return j;
}

}  // namespace

nlohmann::json mig_document(const MigCliOptions& o) { return mig_json(o, compute_mig(o)); }

int run_mig(const MigCliOptions& o) {
  const MigRun r = compute_mig(o);
  const auto& [popts, label, adv] = r;
  if (o.json) {
    print_json(mig_json(o, r));
    return adv.recommended ? 0 : 1;
  }

  std::cout << "MIG profiles of " << adv.gpu.id << " for " << o.model << " (batch " << popts.batch << ", "
            << to_string(popts.precision) << ", " << to_string(popts.mode) << machine_factors_text(popts.host_factor, popts.gpu_factor)
            << allow_tf32_text(popts.allow_tf32) << cuda_graphs_text(popts.cuda_graphs) << grad_mode_text(popts.grad_mode) << launch_queue_text(popts.launch_queue) << channels_last_text(popts.channels_last) << attention_text(popts.fused_attention) << param_updates_text(popts.foreach_updates) << mixed_precision_text(popts.autocast) << ", "
            << (o.slo_ms ? "SLO " + fmt_exact(*o.slo_ms) + " ms" : std::string("no SLO")) << ", "
            << fmt_fixed(o.memory_headroom * 100, 0) << "% memory headroom, predictor " << label << ")\n\n";
  std::vector<std::string> head = {"profile", "SMs", "usable", "peak mem", "fits", "latency", "SLO", "samples/s",
                                   "inst", "GPU samples/s", "energy"};
  std::vector<bool> right = {false, true, true, true, false, true, false, true, true, true, true};
  if (o.max_batch) {
    head.insert(head.end(), {"max batch", "GPU samples/s @max"});
    right.insert(right.end(), {true, true});
  }
  TextTable t(head, right);
  for (size_t i = 0; i < adv.profiles.size(); ++i) {
    const auto& r = adv.profiles[i];
    const auto& p = r.prediction;
    std::vector<std::string> row = {
        r.slice.mig_profile + (adv.recommended && *adv.recommended == i ? " *" : ""),
        std::to_string(r.slice.sm_count),
        fmt_bytes(r.usable_memory_bytes),
        fmt_bytes(p.peak_memory_bytes),
        r.fits_memory ? "yes" : "no",
        fmt_ms(p.latency_ms),
        o.slo_ms ? (r.meets_slo ? "ok" : "over") : "-",
        fmt_fixed(p.throughput_samples_per_s, 1),
        std::to_string(r.geometry.max_instances),
        fmt_fixed(r.gpu_throughput_samples_per_s, 1),
        fmt_fixed(p.energy_mj, 2) + " mJ"};
    if (o.max_batch) {
      row.push_back(r.max_batch ? std::to_string(*r.max_batch) : "none");
      row.push_back(r.max_batch_prediction
                        ? fmt_fixed(advise::instances_throughput(*r.max_batch_prediction, *r.max_batch,
                                                                 r.geometry.max_instances), 1)
                        : "-");
    }
    t.add_row(row);
  }
  {
    const auto& p = adv.whole_gpu;
    std::vector<std::string> row = {"whole GPU", std::to_string(adv.gpu.sm_count), fmt_bytes(adv.gpu.memory_bytes()),
                                    fmt_bytes(p.peak_memory_bytes), p.fits ? "yes" : "no", fmt_ms(p.latency_ms),
                                    o.slo_ms ? (p.latency_ms <= *o.slo_ms ? "ok" : "over") : "-",
                                    fmt_fixed(p.throughput_samples_per_s, 1), "1",
                                    fmt_fixed(p.pipelined_throughput_samples_per_s, 1), fmt_fixed(p.energy_mj, 2) + " mJ"};
    if (o.max_batch) row.insert(row.end(), {"-", "-"});
    t.add_row(row);
  }
  std::cout << t.str() << "\n";
  if (adv.recommended)
    std::cout << "Recommendation: " << adv.profiles[*adv.recommended].slice.mig_profile << " (marked *). "
              << adv.explanation << "\n";
  else
    std::cout << "No recommendation. " << adv.explanation << "\n";
  return adv.recommended ? 0 : 1;
}

}  // namespace perfpred::cli
