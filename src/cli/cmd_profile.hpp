#pragma once
// `perfpred profile`: run a profiling plan on a GPU (CUDA harness) or the simulated backend and
// write a kernel dataset (docs/profiling.md).
#include <string>
#include <vector>

namespace perfpred::cli {

struct ProfileOptions {
  std::string plan = "quick";            ///< shipped plan name or plan file
  std::string out;                       ///< output directory (kernels.csv, microbench.csv, sidecars)
  std::string backend = "cuda";          ///< cuda or simulated
  std::string gpu;                       ///< simulated: catalog id or spec file; cuda: override the device id
  int device = 0;                        ///< CUDA device ordinal
  std::vector<std::string> precisions;   ///< keep only these precisions
  std::string shard;                     ///< "I/N"
  bool resume = false;
  double max_minutes = 0;
  double simulate_ms_per_entry = 0;
  bool no_cupti = false;
  bool no_nvml = false;
  bool no_progress = false;
  bool dry_run = false;                  ///< print the entry ids of this shard and exit
  std::vector<std::string> argv;         ///< the command line, recorded in the sidecar
};

/// Returns the exit code: 0 done (or stopped by --max-minutes), 1 a fatal device error,
/// 128+signal when interrupted; throws InputError on bad input.
int run_profile(const ProfileOptions& opts);

}  // namespace perfpred::cli
