#include "cmd_profile.hpp"

#include <iostream>

#include <spdlog/spdlog.h>

#include "common.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/profile/backend.hpp"
#include "perfpred/profile/runner.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::cli {

int run_profile(const ProfileOptions& opts) {
  Plan plan = load_plan(opts.plan);
  Shard shard;
  if (!opts.shard.empty()) shard = parse_shard(opts.shard);
  std::vector<Precision> precisions;
  for (const auto& p : opts.precisions)
    for (const auto& s : split(p, ','))
      if (!trim(s).empty()) precisions.push_back(precision_from_string(trim(s), "--precision"));

  if (opts.dry_run) {
    for (const auto& e : filter_precisions(select_shard(plan.entries, shard), precisions)) std::cout << e.id << "\n";
    return 0;
  }
  if (opts.out.empty()) throw InputError("--out DIR is required (the directory that receives kernels.csv)");
  if (opts.max_minutes < 0) throw InputError("--max-minutes must be >= 0");

  std::unique_ptr<ProfileBackend> backend;
  if (opts.backend == "simulated") {
    if (opts.gpu.empty()) throw InputError("--backend simulated needs --gpu ID (a catalog id or a spec file)");
    SimulatedBackendOptions so;
    so.gpu = resolve_gpu(opts.gpu);
    so.ms_per_entry = opts.simulate_ms_per_entry;
    backend = make_simulated_backend(so);
  } else if (opts.backend == "cuda") {
    if (opts.simulate_ms_per_entry > 0) throw InputError("--simulate-ms-per-entry applies only to --backend simulated");
    CudaBackendOptions co;
    co.device = opts.device;
    co.use_cupti = !opts.no_cupti;
    co.use_nvml = !opts.no_nvml;
    try {
      backend = make_cuda_backend(co);
    } catch (const BackendUnavailable& e) {
      std::cerr << "perfpred: error: " << e.what() << "\n";
      return 1;
    }
  } else {
    throw InputError("--backend '" + opts.backend + "': expected cuda or simulated");
  }

  RunOptions ro;
  ro.out_dir = opts.out;
  ro.shard = shard;
  ro.resume = opts.resume;
  ro.max_minutes = opts.max_minutes;
  ro.precisions = precisions;
  ro.progress = !opts.no_progress;
  ro.command_line = join(opts.argv, " ");
  if (opts.backend == "cuda" && !opts.gpu.empty()) ro.gpu_id = opts.gpu;

  RunSummary s;
  try {
    s = perfpred::run_profile(plan, *backend, ro);
  } catch (const BackendUnavailable& e) {
    std::cerr << "perfpred: error: " << e.what() << "\n";
    return 1;
  }
  print_json(to_json(s));
  const std::string resume = "rerun the same command with --resume to continue";
  if (s.stopped_by_fatal_error) {
    std::cerr << "perfpred: error: the device failed and the run stopped (" << s.fatal_reason << "); " << s.written
              << " rows written are valid; " << resume << " after fixing it\n";
    return 1;
  }
  if (s.stopped_by_signal) {
    std::cerr << "perfpred: interrupted by signal " << s.signal << " after " << s.written << " rows; "
              << opts.out << " is valid; " << resume << "\n";
    return 128 + s.signal;
  }
  if (s.stopped_by_time_limit) {
    std::cerr << "perfpred: stopped at --max-minutes " << opts.max_minutes << " with "
              << (s.planned - s.already_done - s.written) << " entries left; " << resume << "\n";
    return 0;
  }
  return 0;
}

}  // namespace perfpred::cli
