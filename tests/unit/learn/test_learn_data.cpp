#include <gtest/gtest.h>

#include "perfpred/learn/data.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;

namespace {
NetworkRow training_row(const std::string& notes) {
  NetworkRow r;
  r.mode = "training";
  r.precision = "fp32";
  r.runtime = "pytorch";
  r.batch = 32;
  r.notes = notes;
  return r;
}
}  // namespace

// Training memory depends on optimizer state: GPUMemNet rows train with Adam and say so in their notes.
TEST(LearnData, NetworkOptionsTakeTheOptimizerFromTheRowNotes) {
  EXPECT_EQ(learn::network_options(training_row("optimizer Adam, lr 1e-3"), "t").optimizer, Optimizer::adam);
  EXPECT_EQ(learn::network_options(training_row("SGD with momentum 0.9"), "t").optimizer, Optimizer::momentum);
  EXPECT_EQ(learn::network_options(training_row("plain sgd"), "t").optimizer, Optimizer::sgd);
  EXPECT_EQ(learn::network_options(training_row("forward+backward, no optimizer step"), "t").optimizer,
            Optimizer::none);
  EXPECT_EQ(learn::network_options(training_row(""), "t").optimizer, Optimizer::sgd);
}

TEST(LearnData, NetworkOptionsRejectAMissingBatch) {
  NetworkRow r = training_row("");
  r.batch.reset();
  EXPECT_THROW(learn::network_options(r, "t"), InputError);
}
