#pragma once
/// The profiling run: plan entries -> backend -> dataset rows, with resume, shards, time limit,
/// progress and clean stops on SIGINT/SIGTERM.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/profile/backend.hpp"
#include "perfpred/profile/plan.hpp"

namespace perfpred {

/// Files of a profile directory.
std::filesystem::path kernel_dataset_path(const std::filesystem::path& out_dir);      ///< kernels.csv
std::filesystem::path microbench_dataset_path(const std::filesystem::path& out_dir);  ///< microbench.csv
std::filesystem::path network_dataset_path(const std::filesystem::path& out_dir);     ///< networks.csv (model sweeps)

struct RunOptions {
  std::filesystem::path out_dir;
  Shard shard;
  bool resume = false;
  double max_minutes = 0;          ///< 0 = no limit
  std::string gpu_id;              ///< overrides the id the backend/catalog gives
  std::vector<Precision> precisions;  ///< empty = the plan's
  bool progress = true;
  std::string command_line;        ///< recorded in the sidecar
  int sync_every_rows = 20;        ///< fsync checkpoint period
};

struct RunSummary {
  int64_t planned = 0;             ///< entries of this shard
  int64_t already_done = 0;        ///< skipped because --resume found their ids
  int64_t written = 0;             ///< rows written by this run
  std::map<std::string, int64_t> by_status;
  bool complete = false;           ///< every entry of the shard has a row
  bool stopped_by_signal = false;
  int signal = 0;
  bool stopped_by_time_limit = false;
  bool stopped_by_fatal_error = false;
  std::string fatal_reason;
  double elapsed_s = 0;
  std::string gpu_id;
  std::vector<std::filesystem::path> files;
};
nlohmann::json to_json(const RunSummary& s);

/// The row a measurement becomes.
KernelRow to_kernel_row(const PlanEntry& e, const Measurement& m, const DeviceDescription& d);

/// The network row of a model run: latency_ms is the timed sequence, the sum of layer medians is in
/// the notes; nodes not executed make it partial (status unsupported, or oom when a layer ran out of
/// memory, with the executed part's latency). `model` is written relative to `out_dir` (the CSV's
/// directory), as dataset readers resolve it.
NetworkRow to_network_row(const PlanEntry& e, const SequenceMeasurement& sm, const DeviceDescription& d,
                          const std::filesystem::path& out_dir);

/// Catalog id matching a measured device (name, SM count, memory), or "spec:<name>".
std::string match_catalog_id(const DeviceDescription& d);

/// Run a plan. Throws InputError for bad options (existing data without --resume, a resumed
/// directory of another device). Installs SIGINT/SIGTERM handlers for the duration.
RunSummary run_profile(const Plan& plan, ProfileBackend& backend, const RunOptions& o);

/// Ask a running run_profile to stop after the current entry (what the signal handler does).
void request_profile_stop(int signal);

}  // namespace perfpred
