// Bundle policies: which predictor each part of a prediction uses, from held-out evidence.
#include <gtest/gtest.h>

#include <cmath>

#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/model.hpp"
#include "perfpred/learn/policy.hpp"
#include "perfpred/learn/train.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::learn;

namespace {

GpuSpec device(const char* segment) {
  GpuSpec g;
  g.id = std::string("gpu-") + segment;
  g.segment = segment;
  g.sm_count = 40;
  return g;
}

nlohmann::json rules_json() {
  return {{"rules",
           {{{"part", "kernels"}, {"device_class", "embedded"}, {"predictor", "analytical"},
             {"evidence", "Jetson held out: 76% learned against 12% analytical"}},
            {{"part", "kernels"}, {"runtime", "pytorch"}, {"mode", "inference"}, {"precision", "fp32"},
             {"predictor", "learned"}, {"evidence", "NeuSight leave-one-GPU-out: 21.9% against 40.9%"}},
            {{"part", "host"}, {"predictor", "analytical"},
             {"evidence", "leave-one-family-out: 37.2% learned against 10.2% analytical"}}}}};
}

// A latency bundle with one kernel booster (gemm) that predicts 1.3x the analytical time.
Bundle gemm_bundle() {
  std::vector<KernelSample> samples;
  for (int i = 0; i < 200; ++i) {
    KernelSample s;
    s.gpu.id = i % 2 ? "gpu-a" : "gpu-b";
    s.gpu.sm_count = i % 2 ? 40 : 80;
    s.kernel.family = OpFamily::gemm;
    s.kernel.op = "MatMul";
    s.kernel.gemm = GemmShape{1, 64 + i, 128, 256};
    s.kernel.flops = 2.0 * (64 + i) * 128 * 256;
    s.kernel.time_s = s.kernel.flops / 1e13;
    s.measured_s = s.kernel.time_s * 1.3;
    samples.push_back(s);
  }
  TrainOptions o;
  o.nthread = 1;
  o.rounds = 60;
  o.eta = 0.2;
  Bundle b;
  b.name = "policy-test";
  train_kernel_models(samples, o, b);
  return b;
}

KernelEstimate gemm() {
  KernelEstimate k;
  k.family = OpFamily::gemm;
  k.op = "MatMul";
  k.gemm = GemmShape{1, 100, 128, 256};
  k.flops = 2.0 * 100 * 128 * 256;
  k.time_s = k.flops / 1e13;
  return k;
}

}  // namespace

TEST(LearnPolicy, FirstMatchingRuleDecidesWithWildcards) {
  const Policy p = policy_from_json(rules_json(), "b.json");
  ASSERT_EQ(p.rules.size(), 3u);
  PredictOptions fp32;
  const PartDecision dc = decide(p, k_part_kernels, device("datacenter"), fp32, true);
  EXPECT_TRUE(dc.learned);
  EXPECT_EQ(dc.rule, "kernels */pytorch/inference/fp32");
  EXPECT_NE(dc.evidence.find("NeuSight"), std::string::npos);
  // The embedded rule comes first: a Jetson keeps the analytical kernels even for PyTorch fp32 inference.
  const PartDecision emb = decide(p, k_part_kernels, device("embedded"), fp32, true);
  EXPECT_FALSE(emb.learned);
  EXPECT_NE(emb.evidence.find("Jetson"), std::string::npos);
  // No rule for fp16 kernels: analytical, and the reason says what had no evidence.
  PredictOptions fp16;
  fp16.precision = Precision::fp16;
  const PartDecision none = decide(p, k_part_kernels, device("desktop"), fp16, true);
  EXPECT_FALSE(none.learned);
  EXPECT_TRUE(none.rule.empty());
  EXPECT_NE(none.evidence.find("fp16"), std::string::npos);
  EXPECT_NE(none.evidence.find("desktop"), std::string::npos);
  // The host rule matches everything but says analytical.
  EXPECT_FALSE(decide(p, k_part_host, device("desktop"), fp32, true).learned);
  // A part the bundle has no booster for is analytical whatever the rules say.
  const PartDecision missing = decide(p, k_part_kernels, device("datacenter"), fp32, false);
  EXPECT_FALSE(missing.learned);
  EXPECT_NE(missing.evidence.find("no kernel boosters"), std::string::npos);
}

TEST(LearnPolicy, BadRulesNameTheFieldAndRoundTrip) {
  auto bad = [](nlohmann::json j, const std::string& want) {
    try {
      policy_from_json(j, "b.json");
      ADD_FAILURE() << "accepted " << j.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  bad(nlohmann::json::array(), "field policy");
  nlohmann::json j = rules_json();
  j["rules"][1]["runtime"] = "tvm";
  bad(j, "policy.rules[1].runtime");
  j = rules_json();
  j["rules"][0]["device_class"] = "phone";
  bad(j, "policy.rules[0].device_class");
  j = rules_json();
  j["rules"][2]["predictor"] = "both";
  bad(j, "policy.rules[2].predictor");
  j = rules_json();
  j["rules"][2].erase("evidence");
  bad(j, "policy.rules[2]: missing field evidence");
  j = rules_json();
  j["rules"][0]["part"] = "energy";
  bad(j, "policy.rules[0].part");
  const Policy p = policy_from_json(rules_json(), "b.json");
  const Policy q = policy_from_json(to_json(p), "again");
  ASSERT_EQ(q.rules.size(), p.rules.size());
  for (size_t i = 0; i < p.rules.size(); ++i) {
    EXPECT_EQ(q.rules[i].part, p.rules[i].part);
    EXPECT_EQ(q.rules[i].learned, p.rules[i].learned);
    EXPECT_EQ(q.rules[i].evidence, p.rules[i].evidence);
    EXPECT_EQ(q.rules[i].precision, p.rules[i].precision);
  }
}

TEST(LearnPolicy, TheCorrectorFollowsThePolicy) {
  Bundle b = gemm_bundle();
  const auto plain = std::make_shared<LearnedModel>(b);
  b.policy = policy_from_json(rules_json(), "b.json");
  const Bundle again = bundle_from_json(to_json(b), "again");  // the policy survives a save
  ASSERT_EQ(again.policy.rules.size(), 3u);
  const auto ruled = std::make_shared<LearnedModel>(again);
  const BundleCorrector without(plain), with(ruled);
  const std::vector<KernelEstimate> ks = {gemm()};
  std::vector<double> f;
  PredictOptions fp32, fp16;
  fp16.precision = Precision::fp16;
  // Without a policy the bundle corrects every kernel it has a booster for.
  without.factors(ks, device("datacenter"), fp16, f);
  EXPECT_GT(f[0], 1.1);
  EXPECT_TRUE(without.decision(k_part_kernels, device("embedded"), fp32).learned);
  // With one, only where a rule says learned.
  with.factors(ks, device("datacenter"), fp32, f);
  EXPECT_NEAR(f[0], 1.3, 0.1);
  with.factors(ks, device("embedded"), fp32, f);
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_DOUBLE_EQ(with.factor(ks[0], device("desktop"), fp16), 1.0);
  EXPECT_DOUBLE_EQ(with.host_overhead_s(2e-3, device("desktop"), fp32), 2e-3);
  const PartDecision host = with.decision(k_part_host, device("desktop"), fp32);
  EXPECT_FALSE(host.learned);
  EXPECT_NE(host.evidence.find("host-overhead booster"), std::string::npos);  // the bundle has none
}
