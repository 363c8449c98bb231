#pragma once
/// Fitting the host factor (PredictOptions::host_factor) or the GPU factor (PredictOptions::gpu_factor) to one
/// measured latency: the F in [lo, hi] at which a prediction's latency equals the measurement. Latency is
/// non-decreasing in either (every host cost, or every kernel time, scales with it), so a bisection on log F
/// finds it; where the latency is flat over part of the range (bound by the other side there) the smallest
/// matching F is returned.
#include <functional>

namespace perfpred {

inline constexpr double k_host_factor_min = 0.1;
inline constexpr double k_host_factor_max = 10;
/// The GPU factor's range: the held-out machines fitted 0.79-1.41 (docs/accuracy.md, Session 27); 4x either way
/// leaves room and refuses a measurement of another GPU or batch.
inline constexpr double k_gpu_factor_min = 0.25;
inline constexpr double k_gpu_factor_max = 4;

struct HostFit {
  enum class Status {
    fitted,     ///< `factor` predicts `measured_ms`
    below,      ///< the measurement is faster than the prediction at `lo` (floor_ms)
    above,      ///< the measurement is slower than the prediction at `hi` (ceiling_ms)
    not_monotone,  ///< the latency at `lo` exceeds the one at `hi`: not a host-speed question
  };
  Status status = Status::fitted;
  double factor = 1;       ///< the fitted F (fitted only)
  double latency_ms = 0;   ///< the latency predicted at `factor`
  double floor_ms = 0;     ///< latency at lo
  double ceiling_ms = 0;   ///< latency at hi
  int evaluations = 0;     ///< calls of latency_at
};

/// The F in [lo, hi] with latency_at(F) == measured_ms, to a relative tolerance `rel_tol` on F. A
/// measurement at the floor or the ceiling (within 1e-6 relative: predict's JSON rounding) fits lo or hi.
HostFit fit_host_factor(const std::function<double(double)>& latency_at, double measured_ms,
                        double lo = k_host_factor_min, double hi = k_host_factor_max, double rel_tol = 1e-7);

/// The same fit over the GPU factor's range.
inline HostFit fit_gpu_factor(const std::function<double(double)>& latency_at, double measured_ms) {
  return fit_host_factor(latency_at, measured_ms, k_gpu_factor_min, k_gpu_factor_max);
}

}  // namespace perfpred
