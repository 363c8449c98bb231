#include "cmd_budget.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <iostream>

#include "advise_support.hpp"
#include "perfpred/advise/budget.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/report/junit.hpp"
#include "perfpred/report/text.hpp"
#include "perfpred/util/paths.hpp"

namespace perfpred::cli {

namespace {

constexpr const char* k_perfpred_version = "0.1.0";

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string check_line(const advise::BudgetCheck& c) {
  return "predicted " + report::fmt_exact(c.value) + ", limit " + report::fmt_exact(c.limit_value) + ", margin " +
         report::fmt_pct(c.margin_pct);
}

/// One JUnit test case per entry and limit (class perfpred.budget.<name>, name = the limit).
void write_junit(const std::string& out, const advise::BudgetFile& file, const advise::BudgetReport& rep,
                 double host_factor, double gpu_factor) {
  std::vector<report::JUnitCase> cases;
  for (const auto& r : rep.results)
    for (const auto& c : r.checks) {
      report::JUnitCase jc;
      jc.classname = "perfpred.budget." + r.entry->name;
      jc.name = c.limit;
      jc.system_out = r.gpu.id + ": " + check_line(c);
      if (!c.passed) {
        const PredictOptions& eo = r.entry->options;
        jc.failure_message = c.limit + " exceeded on " + r.gpu.id + ": " + check_line(c);
        jc.failure_text = "entry " + std::to_string(r.entry->index) + " (" + r.entry->name + "), model " +
                          r.entry->model + ", batch " + std::to_string(r.batch) + ", " + to_string(eo.precision) +
                          ", " + to_string(eo.mode) + allow_tf32_text(eo.allow_tf32) + cuda_graphs_text(eo.cuda_graphs) + grad_mode_text(eo.grad_mode) + launch_queue_text(eo.launch_queue) + channels_last_text(eo.channels_last) +
                          attention_text(eo.fused_attention) + param_updates_text(eo.foreach_updates) + mixed_precision_text(eo.autocast) +
                          machine_factors_text(host_factor, gpu_factor);
      }
      cases.push_back(std::move(jc));
    }
  write_text_file(out, report::junit_xml("perfpred budget " + file.path.filename().string(), cases), "--junit");
}

}  // namespace

int run_budget_check(const BudgetCliOptions& o) {
  const double host_factor = checked_host_factor(o.host_factor);
  const double gpu_factor = checked_gpu_factor(o.gpu_factor);
  advise::BudgetFile file = advise::parse_budget_file(o.file);
  for (auto& e : file.entries) {
    e.options.host_factor = host_factor;  // the machine CI runs on, for every entry
    e.options.gpu_factor = gpu_factor;
    if (!o.no_tf32) continue;
    if (e.options.precision != Precision::fp32)
      throw InputError(e.where + ": --no-tf32 applies to fp32 entries only (this one is " +
                       to_string(e.options.precision) +
                       "); drop --no-tf32 and give the fp32 entries \"allow_tf32\": false");
    e.options.allow_tf32 = false;
  }
  const std::filesystem::path dir =
      file.path.has_parent_path() ? file.path.parent_path() : std::filesystem::path(".");
  support::Corrector corr(o.bundle, o.analytical);
  auto loader = [&o](const advise::BudgetEntry& e) {
    onnx_import::ImportOptions cf;
    cf.branches = e.branches;
    cf.loop_trips = e.loop_trips;
    cf.dims = e.dims;
    for (const auto& [name, n] : e.data_counts) {
      if (name == "*") cf.data_count_all = n;
      else cf.data_counts[name] = n;
    }
    for (const auto& [name, n] : e.nms_candidates) {
      if (name == "*") cf.nms_candidates_all = n;
      else cf.nms_candidates[name] = n;
    }
    cf.overrides_are_keys = true;
    return support::load_model(e.model_path, e.batch, e.input_shapes, false, o.allow_partial, &cf);
  };
  auto resolver = [&](const std::string& id) {
    // A spec file is resolved against the budget file's directory, like the model.
    bool is_path = id.find('/') != std::string::npos || (id.size() > 5 && id.substr(id.size() - 5) == ".json");
    if (is_path && std::filesystem::path(id).is_relative()) return resolve_gpu((dir / id).string());
    return resolve_gpu(id);
  };
  // The range table, where an entry checks a range's high end (limits.*_range_high_*).
  std::optional<IntervalTable> ranges;
  const auto table = model_dir() / k_interval_file;
  std::error_code ec;
  for (const auto& e : file.entries)
    if ((e.limits.latency_range_high_ms || e.limits.energy_range_high_mj || e.limits.power_range_high_w) && !ranges &&
        std::filesystem::exists(table, ec))
      ranges = load_interval_table(table);
  advise::BudgetReport rep =
      advise::check_budgets(file, loader, resolver, corr.get(), ranges ? &*ranges : nullptr);

  if (!o.junit.empty()) write_junit(o.junit, file, rep, host_factor, gpu_factor);
  if (o.json) {
    nlohmann::json j = advise::budget_verdict_json(rep);
    j["model_bundle"] = corr.label();
    echo_machine_factors(j, host_factor, gpu_factor);
    if (!o.no_meta)
      j["meta"] = {{"perfpred_version", k_perfpred_version},
                   {"budget_file", o.file},
                   {"generated_at", utc_now()},
                   {"junit", o.junit.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.junit)}};
    print_json(j);
  } else {
    std::cout << advise::budget_text(rep);
    if (host_factor != 1) std::cout << "note: " << host_factor_note(host_factor) << "\n";
    if (gpu_factor != 1) std::cout << "note: " << gpu_factor_note(gpu_factor) << "\n";
  }
  return rep.passed() ? 0 : 1;
}

}  // namespace perfpred::cli
