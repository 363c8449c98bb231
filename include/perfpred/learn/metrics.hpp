#pragma once
/// Accuracy metrics of predictions against measurements.
#include <cstddef>
#include <vector>

namespace perfpred::learn {

/// Absolute percentage error |predicted - measured| / measured * 100. measured must be > 0.
double ape(double predicted, double measured);

/// Percentile of values (0..100) with linear interpolation between closest ranks (numpy's default);
/// NaN for an empty input.
double percentile(std::vector<double> values, double pct);

/// Ranks 1..n, ties sharing the average of their ranks.
std::vector<double> average_ranks(const std::vector<double>& v);

/// Spearman rank correlation with tie-averaged ranks (Pearson correlation of the ranks);
/// NaN when fewer than 2 values or when either side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

/// Summary of one group of (predicted, measured) pairs.
struct ErrorSummary {
  size_t n = 0;
  double mean_ape = 0;
  double p90_ape = 0;
  double spearman = 0;
};
ErrorSummary summarize(const std::vector<double>& predicted, const std::vector<double>& measured);

}  // namespace perfpred::learn
