#include "cmd_report.hpp"

#include <iostream>
#include <set>

#include "advise_support.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/report/html.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::cli {

int run_report(const ReportCliOptions& o) {
  if (o.out.empty()) throw InputError("report needs --out FILE.html");
  if (o.gpus.empty()) throw InputError("report needs at least one --gpu ID");
  if (o.max_layer_bars < 1) throw InputError("--max-layer-bars must be at least 1");
  PredictOptions popts = support::predict_options(o);
  std::vector<GpuSpec> gpus;
  std::set<std::string> seen;
  for (const auto& arg : o.gpus)
    for (const auto& raw : split(arg, ',')) {
      std::string id = trim(raw);
      if (id.empty()) throw InputError("--gpu '" + arg + "': empty device id");
      GpuSpec g = resolve_gpu(id);
      if (seen.insert(g.id).second) gpus.push_back(g);
    }
  std::filesystem::path out(o.out);
  std::error_code ec;
  if (out.has_parent_path() && !std::filesystem::is_directory(out.parent_path(), ec))
    throw InputError("--out " + o.out + ": directory " + out.parent_path().string() + " does not exist");
  support::Corrector corr(o.bundle, o.analytical);
  const auto cf = support::control_flow(o);
  auto model = support::load_model(o.model, popts.batch, parse_input_shapes(o.input_shapes), o.allow_unknown, o.allow_partial, &cf);
  popts.batch = model->batch;  // an --input-shape or a fixed export decides the batch
  report::ReportInput in;
  in.title = std::filesystem::path(o.model).filename().string();
  in.model_path = o.model;
  in.graph = &model->graph;
  in.cost = &model->cost;
  in.options = popts;
  in.max_layer_bars = static_cast<size_t>(o.max_layer_bars);
  const auto ranges = support::shipped_ranges();  // as predict reports them: where the analytical model predicted
  for (const auto& g : gpus) {
    Prediction p = predict(model->graph, model->cost, g, popts, corr.get());
    if (popts.gpu_factor != 1) p.notes.insert(p.notes.begin(), gpu_factor_note(popts.gpu_factor));
    if (popts.host_factor != 1) p.notes.insert(p.notes.begin(), host_factor_note(popts.host_factor));
    report::ReportDevice d{g, std::move(p), std::nullopt, std::nullopt};
    if (ranges && corr.label_for(g, popts) == "analytical") {
      d.latency_range = latency_range(*ranges, d.prediction, popts);
      d.energy_range = energy_range(*ranges, d.prediction, popts);
    }
    in.devices.push_back(std::move(d));
  }
  std::string html = report::render_html_report(in);
  write_text_file(o.out, html, "--out");
  std::cout << "wrote " << o.out << " (" << html.size() << " bytes, " << gpus.size() << " device"
            << (gpus.size() > 1 ? "s" : "") << ", " << model->graph.nodes.size() << " nodes)\n";
  return 0;
}

}  // namespace perfpred::cli
