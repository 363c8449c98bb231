#include "perfpred/learn/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "perfpred/util/error.hpp"

namespace perfpred::learn {

double ape(double predicted, double measured) {
  if (!(measured > 0)) throw InternalError("ape: measured value must be positive");
  return std::abs(predicted - measured) / measured * 100.0;
}

double percentile(std::vector<double> values, double pct) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double pos = pct / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  size_t i = 0;
  while (i < order.size()) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (size_t t = i; t <= j; ++t) ranks[order[t]] = avg;
    i = j + 1;
  }
  return ranks;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (a.size() != b.size() || a.size() < 2) return nan;
  const auto ra = average_ranks(a), rb = average_ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0) return nan;
  return sab / std::sqrt(saa * sbb);
}

ErrorSummary summarize(const std::vector<double>& predicted, const std::vector<double>& measured) {
  ErrorSummary s;
  s.n = predicted.size();
  if (s.n == 0 || predicted.size() != measured.size()) {
    s.mean_ape = s.p90_ape = s.spearman = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  std::vector<double> apes(s.n);
  for (size_t i = 0; i < s.n; ++i) apes[i] = ape(predicted[i], measured[i]);
  s.mean_ape = std::accumulate(apes.begin(), apes.end(), 0.0) / static_cast<double>(s.n);
  s.p90_ape = percentile(apes, 90);
  s.spearman = spearman(predicted, measured);
  return s;
}

}  // namespace perfpred::learn
