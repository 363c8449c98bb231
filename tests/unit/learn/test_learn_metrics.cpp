#include <gtest/gtest.h>

#include <cmath>

#include "perfpred/learn/metrics.hpp"

using namespace perfpred::learn;

TEST(LearnMetrics, Ape) {
  EXPECT_DOUBLE_EQ(ape(110, 100), 10.0);
  EXPECT_DOUBLE_EQ(ape(90, 100), 10.0);
  EXPECT_DOUBLE_EQ(ape(3, 2), 50.0);
}

TEST(LearnMetrics, PercentileInterpolates) {
  // numpy.percentile([1,2,3,4,5,6,7,8,9,10], 90) = 9.1
  EXPECT_NEAR(percentile({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 90), 9.1, 1e-12);
  EXPECT_NEAR(percentile({5}, 90), 5.0, 1e-12);
  EXPECT_NEAR(percentile({1, 3}, 50), 2.0, 1e-12);
  EXPECT_TRUE(std::isnan(percentile({}, 90)));
}

TEST(LearnMetrics, RanksAverageTies) {
  const auto r = average_ranks({10, 20, 20, 30, 10});
  const std::vector<double> expected = {1.5, 3.5, 3.5, 5, 1.5};
  EXPECT_EQ(r, expected);
}

TEST(LearnMetrics, SpearmanHandComputed) {
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0, 1e-12);
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0, 1e-12);
  // a = [1,2,2,3] -> ranks [1,2.5,2.5,4]; b = [1,3,2,4] -> ranks [1,3,2,4].
  // mean 2.5 both; cov = (-1.5)(-1.5)+0*0.5+0*(-0.5)+1.5*1.5 = 4.5;
  // var_a = 2.25+0+0+2.25 = 4.5; var_b = 2.25+0.25+0.25+2.25 = 5 -> 4.5/sqrt(22.5) = 0.9486833
  EXPECT_NEAR(spearman({1, 2, 2, 3}, {1, 3, 2, 4}), 4.5 / std::sqrt(22.5), 1e-12);
  EXPECT_TRUE(std::isnan(spearman({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(spearman({1}, {1})));
}

TEST(LearnMetrics, Summary) {
  // APEs: 10, 20, 0, 50 -> mean 20; p90: sorted [0,10,20,50], pos 2.7 -> 20 + 0.7*30 = 41
  const auto s = summarize({110, 120, 100, 150}, {100, 100, 100, 100});
  EXPECT_EQ(s.n, 4u);
  EXPECT_NEAR(s.mean_ape, 20.0, 1e-12);
  EXPECT_NEAR(s.p90_ape, 41.0, 1e-12);
  EXPECT_TRUE(std::isnan(s.spearman));  // measured constant
}
