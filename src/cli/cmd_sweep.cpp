#include "cmd_sweep.hpp"

#include <cmath>

#include <iostream>

#include <unistd.h>

#include "advise_support.hpp"
#include "perfpred/advise/sweep.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/report/json.hpp"
#include "perfpred/report/text.hpp"

namespace perfpred::cli {

using namespace perfpred::report;

namespace {

// Progress of a long sweep on stderr: a line rewritten in place on a terminal, else a line every 5 s.
// Short sweeps (done within 2 s) print nothing.
struct ProgressPrinter {
  bool tty = ::isatty(2) != 0;
  bool printed = false;
  double last = 0;
  void operator()(size_t done, size_t total, double s) {
    if (s < 2 || (!tty && s - last < 5)) return;
    last = s;
    printed = true;
    const double left = done > 0 ? s * static_cast<double>(total - done) / static_cast<double>(done) : 0;
    std::cerr << (tty ? "\r" : "") << "perfpred: sweep: " << done << " / " << total << " points ("
              << fmt_fixed(100.0 * static_cast<double>(done) / static_cast<double>(total), 0) << "%), about "
              << fmt_fixed(left, 0) << " s left" << (tty ? "   " : "\n") << std::flush;
  }
  ~ProgressPrinter() {
    if (tty && printed) std::cerr << "\n";
  }
};

/// A grid of predictions with what its JSON, CSV and table show.
struct SweepRun {
  PredictOptions popts;
  GpuSpec base;
  std::string bundle_label;
  advise::SweepResult res;
};

SweepRun compute_sweep(const SweepCliOptions& o, bool progress_on_stderr) {
  if (o.vary.empty()) throw InputError("sweep needs at least one --vary FIELD=START:STOP:STEP (e.g. sm_count=40:160:20)");
  if (o.max_points < 1) throw InputError("--max-points must be at least 1");
  PredictOptions popts = support::predict_options(o);
  popts.detail = false;  // totals only: no per-kernel strings per point
  std::vector<advise::SweepAxis> axes;
  for (const auto& v : o.vary) axes.push_back(advise::parse_sweep_axis(v));
  advise::sweep_grid_size(axes, static_cast<size_t>(o.max_points));
  GpuSpec base = resolve_gpu(o.base_gpu);
  support::Corrector corr(o.bundle, o.analytical);
  const auto cf = support::control_flow(o);
  auto model = support::load_model(o.model, popts.batch, parse_input_shapes(o.input_shapes), o.allow_unknown, o.allow_partial, &cf);
  popts.batch = model->batch;  // an --input-shape or a fixed export decides the batch
  ProgressPrinter progress;  // its last line ends before the result is printed
  auto res = advise::run_sweep(*model, base, axes, popts, corr.get(), static_cast<size_t>(o.max_points),
                               [&](size_t d, size_t t, double sec) {
                                 if (progress_on_stderr) progress(d, t, sec);
                               });
  GpuSpec point = base;
  point.segment = "hypothetical";  // every sweep point is a hypothetical device (advise/sweep.cpp)
  return {popts, base, corr.label_for(point, popts), std::move(res)};
}

nlohmann::json sweep_json(const SweepCliOptions& o, const SweepRun& r) {
  const auto& [popts, base, label, res] = r;
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& p : res.points) {
    nlohmann::json row;
    for (size_t i = 0; i < res.fields.size(); ++i) row[res.fields[i]] = p.values[i];
    row["latency_ms"] = number_or_null(p.latency_ms);
    row["throughput_samples_per_s"] = number_or_null(p.throughput_samples_per_s);
    row["energy_mj"] = number_or_null(p.energy_mj);
    row["avg_power_w"] = number_or_null(p.avg_power_w);
    row["peak_memory_bytes"] = std::llround(p.peak_memory_bytes);  // whole bytes, as predict writes them
    row["fits"] = p.fits;
    pts.push_back(std::move(row));
  }
  nlohmann::json j{{"schema_version", 1},
                   {"model", o.model},
                   {"base_gpu", device_brief_json(base)},
                   {"batch", popts.batch},
                   {"precision", to_string(popts.precision)},
                   {"mode", to_string(popts.mode)},
                   {"runtime", to_string(popts.runtime)},
                   {"model_bundle", label},
                   {"fields", res.fields},
                   {"points", pts},
                   {"elapsed_s", res.elapsed_s},
                   {"points_per_second", res.points_per_second}};
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

nlohmann::json sweep_document(const SweepCliOptions& o) { return sweep_json(o, compute_sweep(o, false)); }

int run_sweep(const SweepCliOptions& o) {
  if (o.csv && o.json) throw InputError("give --csv or --json, not both");
  const SweepRun r = compute_sweep(o, true);
  const auto& [popts, base, label, res] = r;
  const std::string rate = std::to_string(res.points.size()) + " points in " + fmt_fixed(res.elapsed_s, 3) + " s (" +
                           fmt_fixed(res.points_per_second, 0) + " points/s)";
  std::vector<std::string> cols = res.fields;
  for (const char* c : {"latency_ms", "throughput_samples_per_s", "energy_mj", "avg_power_w", "peak_memory_bytes", "fits"})
    cols.push_back(c);
  if (o.json) {
    print_json(sweep_json(o, r));
    std::cerr << "perfpred: sweep: " << rate << "\n";
    return 0;
  }
  if (o.csv) {
    std::string out = csv_line(cols);
    for (const auto& p : res.points) {
      std::vector<std::string> f;
      for (double v : p.values) f.push_back(fmt_exact(v));
      for (double v : {p.latency_ms, p.throughput_samples_per_s, p.energy_mj, p.avg_power_w}) f.push_back(fmt_exact(v));
      f.push_back(std::to_string(std::llround(p.peak_memory_bytes)));  // whole bytes, never 2.02e+09
      f.push_back(p.fits ? "1" : "0");
      out += csv_line(f);
    }
    std::cout << out;
    std::cerr << "perfpred: sweep: " << rate << "\n";
    return 0;
  }
  std::cout << "Sweep of " << o.model << " around " << base.id << " (batch " << popts.batch << ", "
            << to_string(popts.precision) << ", " << to_string(popts.mode) << machine_factors_text(popts.host_factor, popts.gpu_factor)
            << allow_tf32_text(popts.allow_tf32) << cuda_graphs_text(popts.cuda_graphs) << grad_mode_text(popts.grad_mode) << launch_queue_text(popts.launch_queue) << channels_last_text(popts.channels_last) << attention_text(popts.fused_attention) << param_updates_text(popts.foreach_updates) << mixed_precision_text(popts.autocast)
            << ", predictor " << label << ")\n\n";
  std::vector<std::string> head = res.fields;
  for (const char* c : {"latency", "samples/s", "energy", "power", "peak mem", "fits"}) head.push_back(c);
  TextTable t(head, std::vector<bool>(head.size(), true));
  for (const auto& p : res.points) {
    std::vector<std::string> row;
    for (double v : p.values) row.push_back(fmt_exact(v));
    row.insert(row.end(), {fmt_ms(p.latency_ms), fmt_fixed(p.throughput_samples_per_s, 1), fmt_fixed(p.energy_mj, 2) + " mJ",
                           fmt_fixed(p.avg_power_w, 1) + " W", fmt_bytes(p.peak_memory_bytes), p.fits ? "yes" : "no"});
    t.add_row(row);
  }
  std::cout << t.str() << "\n" << rate << "\n";
  return 0;
}

}  // namespace perfpred::cli
