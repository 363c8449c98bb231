#include "perfpred/predict/host_fit.hpp"

#include <cmath>

namespace perfpred {

HostFit fit_host_factor(const std::function<double(double)>& latency_at, double measured_ms, double lo, double hi,
                        double rel_tol) {
  HostFit r;
  r.floor_ms = latency_at(lo);
  r.ceiling_ms = latency_at(hi);
  r.evaluations = 2;
  const double slack = 1e-6 * measured_ms;  // a latency copied from predict's JSON has 6 significant digits
  if (r.floor_ms > r.ceiling_ms) {
    r.status = HostFit::Status::not_monotone;
    return r;
  }
  if (measured_ms < r.floor_ms - slack) {
    r.status = HostFit::Status::below;
    return r;
  }
  if (measured_ms > r.ceiling_ms + slack) {
    r.status = HostFit::Status::above;
    return r;
  }
  if (measured_ms <= r.floor_ms) {
    r.factor = lo;
    r.latency_ms = r.floor_ms;
    return r;
  }
  if (measured_ms >= r.ceiling_ms) {
    r.factor = hi;
    r.latency_ms = r.ceiling_ms;
    return r;
  }
  // Invariant: latency(lo) < measured <= latency(hi). Halve the interval in log F.
  double a = lo, b = hi, lat_b = r.ceiling_ms;
  while (b / a > 1 + rel_tol && r.evaluations < 200) {
    const double mid = std::sqrt(a * b);
    const double lat = latency_at(mid);
    ++r.evaluations;
    if (lat < measured_ms) {
      a = mid;
    } else {
      b = mid;
      lat_b = lat;
    }
  }
  r.factor = b;
  r.latency_ms = lat_b;
  return r;
}

}  // namespace perfpred
