#pragma once
/// MIG advice: predict a model on every MIG profile of a GPU and recommend one.
///
/// Recommendation rule (documented in docs/cli.md): among profiles whose predicted peak memory fits
/// within usable memory less the headroom, and whose latency meets the SLO when one is given, pick
/// the smallest (fewest compute slices, then fewest memory slices, plain before +me). Unlike a
/// memory-threshold table, every profile is predicted (4g included, and memory above 40 GB on the
/// 80/94/141 GB parts), and the advice also names the profile with the highest whole-GPU throughput
/// when the GPU is partitioned into as many instances of it as fit.
#include <optional>
#include <string>
#include <vector>

#include "perfpred/advise/model.hpp"
#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::advise {

struct MigOptions {
  std::optional<double> slo_ms;   ///< latency target per batch; none = memory only
  double memory_headroom = 0.10;  ///< share of usable memory kept free (fragmentation, growth)
  bool max_batch = false;         ///< also search the largest batch each profile sustains
  int64_t max_batch_limit = 65536;  ///< search ceiling
};

/// Compute/memory slice counts of a profile name ("3g.20gb" on a 40 GB part).
struct MigGeometry {
  int compute_slices = 0;        ///< the "3" of 3g
  int memory_slices = 0;         ///< of memory_slices_total
  int compute_slices_total = 7;  ///< 7 on A100/H100/H200, 4 on A30
  int memory_slices_total = 8;   ///< 8 on A100/H100/H200, 4 on A30
  bool media_extensions = false; ///< "+me": only one such instance per GPU
  int max_instances = 1;         ///< instances of this profile that fit on one GPU at once
};

/// Derive the geometry of `slice` (a MIG GpuSpec) on `parent`. `compute_total` is the largest
/// compute-slice count among the parent's profiles. Throws InputError when the profile name is not
/// "<N>g.<M>gb[+me]".
MigGeometry mig_geometry(const GpuSpec& slice, const GpuSpec& parent, int compute_total);

/// Samples per second from `instances` copies of a model, each running batches of `batch` back to back with its
/// copies overlapping its work, all sharing the GPU's host link (pipelined_period_ms): at full load the
/// instances of a partitioned GPU together deliver about what their SMs and that link allow.
double instances_throughput(const Prediction& p, int64_t batch, int instances);

/// One profile's verdict.
struct MigProfileResult {
  GpuSpec slice;
  MigGeometry geometry;
  Prediction prediction;            ///< at the requested batch
  double usable_memory_bytes = 0;   ///< slice memory
  double memory_limit_bytes = 0;    ///< usable x (1 - headroom)
  bool fits_memory = false;         ///< peak <= memory_limit_bytes
  bool meets_slo = true;            ///< latency <= SLO (true without SLO)
  double gpu_throughput_samples_per_s = 0;  ///< max_instances loops at full load (instances_throughput)
  std::optional<int64_t> max_batch;  ///< largest batch within SLO and memory (with --max-batch); nullopt when even 1 fails
  std::optional<Prediction> max_batch_prediction;
  std::string reason;               ///< why it is or is not eligible, one line
  bool eligible() const { return fits_memory && meets_slo; }
};

/// The whole advice.
struct MigAdvice {
  GpuSpec gpu;                        ///< the whole (non-MIG) device
  Prediction whole_gpu;               ///< the model on the whole GPU, for reference
  std::vector<MigProfileResult> profiles;  ///< sorted smallest first
  std::optional<size_t> recommended;  ///< index into profiles
  std::optional<size_t> best_packing; ///< eligible profile with the highest whole-GPU throughput
  std::string explanation;            ///< the why, one or more sentences
};

/// Predict every profile of `gpu_id` and recommend one. Throws InputError when the id is unknown or
/// the device has no MIG profiles (naming the devices that do), or when the SLO is not positive.
MigAdvice advise_mig(const ModelAtBatch& model, const std::string& gpu_id, const PredictOptions& opts,
                     const MigOptions& mig, const KernelCorrector* corrector = nullptr);

/// Same, with the whole GPU and its slices given (tests; hypothetical devices). `geometries`, when
/// given, is parallel to `slices` (the catalog's slice counts and max instances); otherwise each is
/// derived from the profile name with mig_geometry().
MigAdvice advise_mig(const ModelAtBatch& model, const GpuSpec& gpu, const std::vector<GpuSpec>& slices,
                     const PredictOptions& opts, const MigOptions& mig, const KernelCorrector* corrector = nullptr,
                     const std::vector<MigGeometry>* geometries = nullptr);

/// The largest batch in [1, limit] for which `ok(batch)` holds, assuming ok is monotone (true up to
/// some batch, false after): doubling then bisection. nullopt when ok(1) is false.
std::optional<int64_t> largest_batch(const std::function<bool(int64_t)>& ok, int64_t limit);

}  // namespace perfpred::advise
