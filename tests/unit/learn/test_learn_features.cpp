#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "perfpred/analysis/features.hpp"
#include "perfpred/learn/features.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::learn;

namespace {

GpuSpec test_gpu() {
  GpuSpec g;
  g.id = "test-gpu";
  g.sm_count = 80;
  g.boost_clock_mhz = 1530;
  g.fp32_tflops = 15.7;
  g.tensor_fp16_tflops = 125;
  g.mem_bandwidth_gbps = 900;
  g.l2_cache_mb = 6;
  g.shared_mem_per_sm_kb = 96;
  g.compute_capability = "7.0";
  g.max_threads_per_sm = 2048;
  return g;
}

size_t index_of(const std::vector<std::string>& names, const std::string& n) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == n) return i;
  ADD_FAILURE() << "no feature " << n;
  return 0;
}

}  // namespace

TEST(LearnFeatures, NamesAreStableAndUnique) {
  const auto& names = kernel_feature_names();
  // The first names and their order are part of the bundle format (k_feature_version).
  ASSERT_GE(names.size(), 8u);
  EXPECT_EQ(names[0], "family_code");
  EXPECT_EQ(names[1], "op_code");
  EXPECT_EQ(names[4], "log_flops");
  EXPECT_EQ(names[10], "log_time_s");
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  for (const auto* set : {&host_feature_names(), &network_feature_names()})
    EXPECT_EQ(std::set<std::string>(set->begin(), set->end()).size(), set->size());
  EXPECT_EQ(host_feature_names().front(), "log_host_s");
  // Every attribute name becomes attr_<name>.
  for (const auto& a : attr_feature_names()) index_of(names, "attr_" + a);
  index_of(names, "gpu_log_bw_gbps_per_sm");
  index_of(names, "gpu_tensor_cores");
}

TEST(LearnFeatures, NodeAttributesAreExactlyTheAnalysisNames) {
  // The learned model sees every attribute analysis writes (one definition, in analysis) and no other.
  std::set<std::string> analysis_names;
  for (OpFamily fam : {OpFamily::conv, OpFamily::conv_transpose, OpFamily::gemm, OpFamily::norm, OpFamily::elementwise,
                       OpFamily::pool, OpFamily::reduce, OpFamily::softmax, OpFamily::data_movement, OpFamily::rnn})
    for (std::string_view n : feature::names(fam)) analysis_names.emplace(n);
  const auto& attrs = attr_feature_names();
  EXPECT_EQ(std::set<std::string>(attrs.begin(), attrs.end()), analysis_names);
  EXPECT_EQ(attrs.size(), analysis_names.size());  // no duplicates
  EXPECT_TRUE(analysis_names.count("broadcast") && analysis_names.count("has_bias"));
}

TEST(LearnFeatures, KernelValues) {
  KernelEstimate k;
  k.op = "Conv+Relu";
  k.family = OpFamily::conv;
  k.flops = 1e9;
  k.bytes = 1e7;
  k.compute_s = 1e-4;
  k.memory_s = 1e-5;
  k.launch_s = 5e-6;
  k.time_s = 1.2e-4;
  k.waves = 2.5;
  k.wave_efficiency = 0.83;
  k.gemm = GemmShape{1, 3136, 64, 576};
  k.attrs = {{"kernel_h", 3}, {"stride_h", 1}, {"groups", 1}, {"not_a_feature", 7}};
  PredictOptions o;
  o.precision = Precision::fp16;
  o.batch = 8;
  const auto& names = kernel_feature_names();
  const auto v = kernel_features(k, test_gpu(), o);
  ASSERT_EQ(v.size(), names.size());
  EXPECT_EQ(v[index_of(names, "family_code")], 0.0f);  // conv is the first family
  EXPECT_EQ(v[index_of(names, "op_code")], static_cast<float>(op_code("Conv")));
  EXPECT_EQ(v[index_of(names, "fused_ops")], 2.0f);
  EXPECT_NEAR(v[index_of(names, "log_intensity")], 2.0, 1e-6);
  EXPECT_NEAR(v[index_of(names, "log_time_s")], std::log10(1.2e-4), 1e-6);
  EXPECT_NEAR(v[index_of(names, "gemm_log_m")], std::log10(3136.0), 1e-6);
  EXPECT_EQ(v[index_of(names, "attr_kernel_h")], 3.0f);
  EXPECT_TRUE(std::isnan(v[index_of(names, "attr_kernel_w")]));  // not given -> missing
  EXPECT_EQ(v[index_of(names, "gpu_tensor_cores")], 1.0f);       // fp16 on a tensor-core GPU
  EXPECT_NEAR(v[index_of(names, "gpu_log_bw_gbps_per_sm")], std::log10(900.0 / 80), 1e-6);
  EXPECT_NEAR(v[index_of(names, "gpu_compute_capability")], 7.0, 1e-6);
  EXPECT_NEAR(v[index_of(names, "opt_log_batch")], std::log10(8.0), 1e-6);

  o.precision = Precision::fp32;
  const auto v32 = kernel_features(k, test_gpu(), o);
  EXPECT_EQ(v32[index_of(names, "gpu_tensor_cores")], 0.0f);
}

TEST(LearnFeatures, MissingGemmAndZeroTermsAreNaN) {
  KernelEstimate k;
  k.op = "Relu";
  k.family = OpFamily::elementwise;
  k.bytes = 1e6;
  k.memory_s = 1e-6;
  k.time_s = 3e-6;
  const auto& names = kernel_feature_names();
  const auto v = kernel_features(k, test_gpu(), PredictOptions{});
  EXPECT_TRUE(std::isnan(v[index_of(names, "gemm_log_m")]));
  EXPECT_TRUE(std::isnan(v[index_of(names, "log_compute_s")]));
  EXPECT_EQ(v[index_of(names, "log_flops")], 0.0f);  // log10(1 + 0)
}

TEST(LearnFeatures, FamiliesAndOpCodes) {
  EXPECT_EQ(booster_family(OpFamily::conv_transpose), "conv");
  EXPECT_EQ(booster_family(OpFamily::view), "");
  EXPECT_EQ(booster_families().size(), 9u);
  EXPECT_EQ(op_code("Conv"), 0);
  EXPECT_EQ(op_code("Conv.bwd_data"), 0);
  EXPECT_EQ(op_code("NoSuchOp"), -1);
  EXPECT_EQ(target_from_string("energy"), Target::energy);
  EXPECT_THROW(target_from_string("speed"), InputError);
}
