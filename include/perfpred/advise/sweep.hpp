#pragma once
/// Design-space sweeps over hypothetical GPUs: a cartesian grid of GpuSpec field values around a
/// base device. The graph is analysed once; each grid point is one call of predict().
///
/// Consistent rescaling: peak rates are per-SM x clock products, so when sm_count varies every peak
/// rate (fp32/fp16/bf16/fp64/int8 and tensor) and tensor_cores scale by sm_count / base sm_count;
/// when boost_clock_mhz varies the rates scale by clock / base clock (base_clock_mhz keeps its ratio
/// to boost); when fp32_lanes_per_sm varies the non-tensor rates scale by lanes / base lanes. A rate
/// field given explicitly (e.g. --vary fp32_tflops=...) is applied after that scaling and wins.
/// When tdp_w varies and idle_power_w does not, idle power keeps the base's share of TDP (as a spec
/// file with "base" does). Every grid point is checked like a spec file (validate_gpu_spec): a point
/// with idle_power_w above tdp_w is an InputError naming the fields and values, before any output.
#include <functional>
#include <string>
#include <vector>

#include "perfpred/advise/model.hpp"
#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::advise {

/// One --vary FIELD=START:STOP:STEP (inclusive of STOP when the steps land on it).
struct SweepAxis {
  std::string field;
  double start = 0;
  double stop = 0;
  double step = 0;
  /// How many values values() holds, computed without making them (SIZE_MAX when past 2^63).
  size_t count() const;
  /// START, START+STEP, ... <= STOP (with a 1e-9 relative tolerance).
  std::vector<double> values() const;
};

/// Parse "FIELD=START:STOP:STEP" (STEP may be omitted for a single value: "FIELD=V"). Throws
/// InputError naming the text for an unknown field, a non-positive step, STOP < START, or a value a
/// GPU cannot have (zero or negative).
SweepAxis parse_sweep_axis(const std::string& spec);
/// Every field --vary accepts.
const std::vector<std::string>& sweepable_fields();

/// The base device with the named fields set (and dependent rates rescaled as documented above).
/// `fields` and `values` are parallel. Throws InputError when the point is not a valid GPU.
GpuSpec apply_sweep_point(const GpuSpec& base, const std::vector<std::string>& fields, const std::vector<double>& values);

/// Grid size; throws InputError when it exceeds `max_points`.
size_t sweep_grid_size(const std::vector<SweepAxis>& axes, size_t max_points);

struct SweepPoint {
  std::vector<double> values;  ///< parallel to SweepResult::fields
  double latency_ms = 0;
  double throughput_samples_per_s = 0;
  double energy_mj = 0;
  double avg_power_w = 0;
  double peak_memory_bytes = 0;
  bool fits = true;
};

struct SweepResult {
  std::string base_gpu;
  std::vector<std::string> fields;
  std::vector<SweepPoint> points;  ///< row-major: the last axis varies fastest
  double elapsed_s = 0;            ///< wall time of the predictions alone
  double points_per_second = 0;
};

/// Called about every 200 ms of a running sweep with the points done, the total and the seconds spent.
using SweepProgress = std::function<void(size_t done, size_t total, double elapsed_s)>;

/// Run the grid. Duplicate fields are an InputError. Grids of 4096 points or more run on every core
/// (without a corrector); `progress`, when set, is called from this thread while they run.
SweepResult run_sweep(const AnalyzedModel& model, const GpuSpec& base, const std::vector<SweepAxis>& axes,
                      const PredictOptions& opts, const KernelCorrector* corrector = nullptr,
                      size_t max_points = 1000000, const SweepProgress& progress = {});

}  // namespace perfpred::advise
