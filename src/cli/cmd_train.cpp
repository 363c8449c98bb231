#include "cmd_train.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common.hpp"
#include "perfpred/learn/pipeline.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::cli {

namespace {

std::string command_line(const TrainCmdOptions& o) {
  std::string c = "perfpred train";
  for (const auto& d : o.data) c += " --data " + d;
  c += " --out " + o.out + " --target " + o.target;
  for (const auto& g : o.holdout_gpus) c += " --holdout-gpu " + g;
  for (const auto& f : o.holdout_families) c += " --holdout-family " + f;
  c += " --rounds " + std::to_string(o.rounds);
  if (o.kernel_target != "efficiency") c += " --kernel-target " + o.kernel_target;
  if (o.network_fraction < 1) c += " --network-fraction " + std::to_string(o.network_fraction);
  if (!o.base.empty()) c += " --base " + o.base;
  if (!o.policy.empty()) c += " --policy " + o.policy;
  for (const auto& d : o.drop_features) c += " --drop-feature " + d;
  if (o.min_host_sensitivity != 0.25) c += " --host-min-sensitivity " + std::to_string(o.min_host_sensitivity);
  if (o.kernel_blend != learn::k_default_kernel_blend) c += " --kernel-blend " + std::to_string(o.kernel_blend);
  if (o.allow_unlicensed_eval) c += " --allow-unlicensed-eval";
  return c;
}

}  // namespace

int run_train(const TrainCmdOptions& o) {
  if (o.out.empty()) throw InputError("train: --out BUNDLE.json is required");
  if (o.rounds < 1 || o.rounds > 100000) throw InputError("train: --rounds must be in 1..100000");
  if (o.max_depth < 1 || o.max_depth > 20) throw InputError("train: --max-depth must be in 1..20");
  if (!(o.eta > 0 && o.eta <= 1)) throw InputError("train: --eta must be in (0, 1]");
  if (o.threads < 1) throw InputError("train: --threads must be >= 1");
  if (!(o.kernel_blend >= 0 && o.kernel_blend <= 1)) throw InputError("train: --kernel-blend must be in [0, 1]");
  if (!(o.network_fraction > 0 && o.network_fraction <= 1)) throw InputError("train: --network-fraction must be in (0, 1]");
  learn::TrainRequest req;
  for (const auto& d : o.data) req.data.emplace_back(d);
  req.target = learn::target_from_string(o.target);
  req.holdout_gpus = o.holdout_gpus;
  req.holdout_families = o.holdout_families;
  if (o.kernel_target == "efficiency") req.options.kernel_target = learn::KernelTarget::efficiency;
  else if (o.kernel_target == "ratio") req.options.kernel_target = learn::KernelTarget::log_ratio;
  else throw InputError("train: --kernel-target '" + o.kernel_target + "' is not a kernel target; use efficiency or ratio");
  req.options.rounds = o.rounds;
  req.options.max_depth = o.max_depth;
  req.options.eta = o.eta;
  req.options.nthread = o.threads;
  req.options.seed = o.seed;
  req.options.drop_features = o.drop_features;
  req.options.kernel_blend = o.kernel_blend;
  if (!(o.min_host_sensitivity >= 0 && o.min_host_sensitivity <= 1))
    throw InputError("train: --host-min-sensitivity must be in [0, 1]");
  req.options.min_host_sensitivity = o.min_host_sensitivity;
  req.allow_unlicensed_eval = o.allow_unlicensed_eval;
  req.network_fraction = o.network_fraction;
  req.name = o.name.empty() ? std::filesystem::path(o.out).stem().string() : o.name;
  req.base = o.base;
  req.command = command_line(o);

  // The policy is read before training so that a bad file fails at once, not after minutes of boosting.
  learn::Policy policy;
  if (!o.policy.empty()) {
    if (req.target != learn::Target::latency)
      throw InputError("train: --policy decides latency parts (kernels, host); drop it for a " + o.target + " bundle");
    policy = learn::policy_from_json(read_json_file(o.policy, "train --policy"), o.policy);
  }

  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  learn::Bundle b = learn::train_bundle(req);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  b.params["train_wall_s"] = wall_s;
  b.policy = policy;
  learn::save_bundle(b, o.out);

  nlohmann::json families = nlohmann::json::object();
  for (const auto& [fam, blob] : b.kernel_models)
    families[fam] = {{"rows", blob.train_rows}, {"train_mean_ape", blob.train_mean_ape}};
  nlohmann::json hosts = nlohmann::json::object();
  for (const auto& [rt, blob] : b.host_models)
    hosts[rt] = {{"rows", blob.train_rows}, {"train_mean_ape", blob.train_mean_ape}};
  const auto size = std::filesystem::file_size(o.out);
  if (o.json) {
    nlohmann::json j{{"schema_version", 1},
                     {"bundle", o.out},
                     {"name", b.name},
                     {"target", learn::to_string(b.target)},
                     {"rows", b.train_rows},
                     {"rows_hash", b.rows_hash},
                     {"gpus_seen", b.gpus_seen},
                     {"kernel_models", families},
                     {"kernel_target", b.kernel_target},
                     {"early_stopping", b.params.value("early_stopping", nlohmann::json(nullptr))},
                     {"label_corrections", b.params.value("label_corrections", nlohmann::json(nullptr))},
                     {"host_models", hosts},
                     {"network_model", b.network_model ? nlohmann::json{{"rows", b.network_model->train_rows},
                                                                        {"train_mean_ape", b.network_model->train_mean_ape}}
                                                       : nlohmann::json(nullptr)},
                     {"for_shipping", b.for_shipping},
                     {"policy", b.policy.empty() ? nlohmann::json(nullptr) : learn::to_json(b.policy)},
                     {"bundle_bytes", size},
                     {"train_wall_s", wall_s},
                     {"train_cpu_s", cpu_s}};
    print_json(j);
    return 0;
  }
  std::printf("wrote %s (%s bundle '%s', %.1f MB%s)\n", o.out.c_str(), learn::to_string(b.target).c_str(),
              b.name.c_str(), static_cast<double>(size) / 1e6, b.for_shipping ? "" : ", NOT FOR SHIPPING");
  std::printf("rows %zu, hash %s, GPUs seen: %s\n", b.train_rows, b.rows_hash.c_str(), join(b.gpus_seen, ", ").c_str());
  for (const auto& [fam, blob] : b.kernel_models)
    std::printf("  kernel booster %-14s %8zu rows  in-sample mean APE %.2f%%\n", fam.c_str(), blob.train_rows,
                blob.train_mean_ape);
  for (const auto& [rt, blob] : b.host_models)
    std::printf("  host booster   %-14s %8zu rows  in-sample mean APE (host share) %.2f%%\n", rt.c_str(),
                blob.train_rows, blob.train_mean_ape);
  if (b.network_model)
    std::printf("  network booster (%s) %zu rows  in-sample mean APE %.2f%%\n", learn::to_string(b.target).c_str(),
                b.network_model->train_rows, b.network_model->train_mean_ape);
  std::printf("training time %.1f s wall, %.1f s CPU\n", wall_s, cpu_s);
  return 0;
}

}  // namespace perfpred::cli
