#include "cmd_select.hpp"

#include <algorithm>
#include <iostream>
#include <set>

#include "advise_support.hpp"
#include "perfpred/advise/select.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/report/json.hpp"
#include "perfpred/report/text.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::cli {

using namespace perfpred::report;

namespace {

std::string objective_cell(const advise::SelectCandidate& c, advise::Objective o) {
  switch (o) {
    case advise::Objective::latency: return fmt_ms(c.prediction.latency_ms);
    case advise::Objective::energy: return fmt_fixed(c.prediction.energy_mj, 2) + " mJ";
    case advise::Objective::cost:
      return c.cost_usd_per_million_samples ? "$" + fmt_fixed(*c.cost_usd_per_million_samples, 4) + "/1M" : "n/a";
    case advise::Objective::throughput_per_watt: return fmt_fixed(c.samples_per_joule, 2) + " samples/J";
  }
  return "";
}

/// "4.53-11.6 ms": a latency range at the latency column's precision.
std::string range_cell(const PredictionRange& r) {
  const std::string low = fmt_ms(r.low);
  return low.substr(0, low.size() - 3) + "-" + fmt_ms(r.high);
}

nlohmann::json candidate_json(const advise::SelectCandidate& c) {
  nlohmann::json j{{"gpu", device_brief_json(c.gpu)},
                   {"prediction", summary_json(c.prediction)},
                   {"memory_headroom", number_or_null(c.memory_headroom)},
                   {"samples_per_joule", number_or_null(c.samples_per_joule)},
                   {"objective_value", number_or_null(c.objective_value)},
                   {"violations", c.violations},
                   {"rank", c.rank}};
  j["price_usd_per_hour"] = c.price_usd_per_hour ? nlohmann::json(*c.price_usd_per_hour) : nlohmann::json(nullptr);
  j["cost_usd_per_million_samples"] =
      c.cost_usd_per_million_samples ? nlohmann::json(*c.cost_usd_per_million_samples) : nlohmann::json(nullptr);
  if (c.latency_range) j["latency_range_ms"] = range_json(*c.latency_range);
  if (c.energy_range) j["energy_range_mj"] = range_json(*c.energy_range);
  if (c.power_range) j["power_range_w"] = range_json(*c.power_range);
  return j;
}

/// A ranking with what its JSON and table show.
struct SelectRun {
  advise::Objective objective;
  PredictOptions popts;
  advise::SelectConstraints c;
  std::string bundle_label;
  advise::SelectResult res;
};

SelectRun compute_select(const SelectCliOptions& o) {
  advise::Objective objective = advise::objective_from_string(o.objective);
  PredictOptions popts = support::predict_options(o);
  if (o.all && !o.devices.empty()) throw InputError("give --devices or --all, not both");
  if (!o.all && o.devices.empty()) throw InputError("select needs --devices ID,ID,... or --all");
  // Resolve devices first: an unknown id is an input error before any import.
  std::vector<GpuSpec> devices;
  std::set<std::string> seen;
  if (o.all) {
    const auto& cat = GpuCatalog::instance();
    for (const auto& d : cat.devices()) {
      devices.push_back(d);
      auto modes = cat.power_modes(d.id);
      // The first (max) power mode is the device as catalogued; the others are real choices under a power cap.
      for (size_t i = 1; i < modes.size(); ++i) devices.push_back(modes[i]);
    }
  } else {
    for (const auto& arg : o.devices)
      for (const auto& raw : split(arg, ',')) {
        std::string id = trim(raw);
        if (id.empty()) throw InputError("--devices '" + arg + "': empty device id");
        GpuSpec g = resolve_gpu(id);
        if (!seen.insert(g.id).second) continue;
        devices.push_back(g);
      }
  }
  std::optional<advise::PriceTable> prices;
  if (!o.prices.empty()) prices = advise::load_prices(o.prices);
  if (objective == advise::Objective::cost && !prices)
    throw InputError("--objective cost needs --prices prices.json (docs/formats.md)");
  support::Corrector corr(o.bundle, o.analytical);
  advise::SelectConstraints c;
  c.max_latency_ms = o.max_latency_ms;
  c.max_power_w = o.max_power_w;
  c.min_memory_headroom = o.min_memory_headroom;
  c.max_latency_range_high_ms = o.max_latency_range_high_ms;
  c.max_power_range_high_w = o.max_power_range_high_w;
  // The ranges, as predict reports them: where the analytical model predicts (the shipped table).
  const auto ranges = corr.get() ? std::nullopt : support::shipped_ranges();
  // Validate constraints and prices before the (slower) import.
  advise::validate_selection(devices, c, objective, prices ? &*prices : nullptr, corr.get() != nullptr,
                             ranges.has_value());
  const auto cf = support::control_flow(o);
  auto model = support::load_model(o.model, popts.batch, parse_input_shapes(o.input_shapes), o.allow_unknown, o.allow_partial, &cf);
  popts.batch = model->batch;  // an --input-shape or a fixed export decides the batch
  auto res = advise::select_devices(*model, devices, popts, c, objective, prices ? &*prices : nullptr, corr.get(),
                                    ranges ? &*ranges : nullptr);
  return {objective, popts, c, corr.label(), std::move(res)};
}

nlohmann::json select_json(const SelectCliOptions& o, const SelectRun& r) {
  const auto& [objective, popts, c, label, res] = r;
  nlohmann::json ranked = nlohmann::json::array(), rejected = nlohmann::json::array();
  for (const auto& x : res.ranked) ranked.push_back(candidate_json(x));
  for (const auto& x : res.rejected) rejected.push_back(candidate_json(x));
  nlohmann::json cons = nlohmann::json::object();
  if (c.max_latency_ms) cons["max_latency_ms"] = *c.max_latency_ms;
  if (c.max_power_w) cons["max_power_w"] = *c.max_power_w;
  if (c.min_memory_headroom) cons["min_memory_headroom"] = *c.min_memory_headroom;
  if (c.max_latency_range_high_ms) cons["max_latency_range_high_ms"] = *c.max_latency_range_high_ms;
  if (c.max_power_range_high_w) cons["max_power_range_high_w"] = *c.max_power_range_high_w;
  nlohmann::json j{{"schema_version", 1},
                   {"model", o.model},
                   {"batch", popts.batch},
                   {"precision", to_string(popts.precision)},
                   {"mode", to_string(popts.mode)},
                   {"runtime", to_string(popts.runtime)},
                   {"objective", to_string(objective)},
                   {"constraints", cons},
                   {"model_bundle", label},
                   {"ranked", ranked},
                   {"rejected", rejected}};
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

nlohmann::json select_document(const SelectCliOptions& o) { return select_json(o, compute_select(o)); }

int run_select(const SelectCliOptions& o) {
  const SelectRun r = compute_select(o);
  const auto& [objective, popts, c, label, res] = r;
  if (o.json) {
    print_json(select_json(o, r));
    return res.ranked.empty() ? 1 : 0;
  }
  std::cout << "Devices for " << o.model << " (batch " << popts.batch << ", " << to_string(popts.precision) << ", "
            << to_string(popts.mode) << machine_factors_text(popts.host_factor, popts.gpu_factor) << allow_tf32_text(popts.allow_tf32) << cuda_graphs_text(popts.cuda_graphs) << grad_mode_text(popts.grad_mode) << launch_queue_text(popts.launch_queue) << channels_last_text(popts.channels_last) << attention_text(popts.fused_attention) << param_updates_text(popts.foreach_updates) << mixed_precision_text(popts.autocast)
            << "), ranked by " << to_string(objective) << ", predictor " << label
            << "\n\n";
  // The latency range beside the latency where the candidates carry one (the analytical model with the table).
  const bool ranged = std::any_of(res.ranked.begin(), res.ranked.end(),
                                  [](const advise::SelectCandidate& x) { return x.latency_range.has_value(); });
  std::vector<std::string> head = {"rank", "device", "latency"};
  std::vector<bool> right = {true, false, true};
  if (ranged) {
    head.push_back("latency range");
    right.push_back(true);
  }
  for (const char* h : {"samples/s", "energy", "power", "peak mem", "headroom", "price/h"}) {
    head.push_back(h);
    right.push_back(true);
  }
  head.push_back(to_string(objective));
  right.push_back(true);
  TextTable t(head, right);
  for (const auto& x : res.ranked) {
    const auto& p = x.prediction;
    std::vector<std::string> row = {std::to_string(x.rank), x.gpu.id, fmt_ms(p.latency_ms)};
    if (ranged)
      row.push_back(x.latency_range ? range_cell(*x.latency_range) : "-");
    for (auto& cell : {fmt_fixed(p.throughput_samples_per_s, 1), fmt_fixed(p.energy_mj, 2) + " mJ",
                       fmt_fixed(p.avg_power_w, 1) + " W", fmt_bytes(p.peak_memory_bytes),
                       fmt_fixed(x.memory_headroom * 100, 1) + "%",
                       x.price_usd_per_hour ? "$" + fmt_fixed(*x.price_usd_per_hour, 2) : std::string("-"),
                       objective_cell(x, objective)})
      row.push_back(cell);
    t.add_row(row);
  }
  if (res.ranked.empty()) std::cout << "No device meets every constraint.\n";
  else std::cout << t.str();
  if (!res.rejected.empty()) {
    std::cout << "\nRejected:\n";
    size_t w = 0;
    for (const auto& x : res.rejected) w = std::max(w, x.gpu.id.size());
    for (const auto& x : res.rejected)
      std::cout << "  " << x.gpu.id << std::string(w - x.gpu.id.size() + 2, ' ') << join(x.violations, "; ") << "\n";
  }
  return res.ranked.empty() ? 1 : 0;
}

}  // namespace perfpred::cli
