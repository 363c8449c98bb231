#include <gtest/gtest.h>

#include <set>

#include "perfpred/profile/plan.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using nlohmann::json;

namespace {

json small_plan() {
  return json::parse(R"({
    "schema_version": 1, "name": "t", "precisions": ["fp32", "fp16"],
    "sweeps": [
      {"name": "c", "op": "conv", "phases": ["forward", "backward_data", "backward_weight"],
       "grid": {"batch": [1, 8], "in_channels": 64, "out_channels": 64, "size": 56, "kernel": 3, "stride": [1, 2]}},
      {"name": "dw", "op": "conv", "grid": {"batch": 1, "in_channels": 32, "size": 112, "kernel": 3, "groups": "depthwise"}},
      {"name": "g", "op": "gemm", "precisions": ["tf32"], "grid": {"m": 128, "n": 256, "k": 512}},
      {"name": "act", "op": "activation", "precisions": ["fp32", "tf32"], "grid": {"function": ["relu", "gelu"], "elements": 1024}}
    ],
    "microbenchmarks": [
      {"name": "cp", "op": "copy", "grid": {"direction": ["h2d", "d2h"], "memory": "pinned", "bytes": [4096, 65536]}}
    ]
  })");
}

}  // namespace

TEST(Plan, ExpandsDeterministicallyWithUniqueIds) {
  Plan a = plan_from_json(small_plan(), "t.json");
  Plan b = plan_from_json(small_plan(), "t.json");
  // conv: 2 batch x 2 stride x 2 precisions x 3 phases = 24; depthwise 2; gemm 1; act 2 (tf32 skipped); copies 4.
  ASSERT_EQ(a.entries.size(), 24u + 2 + 1 + 2 + 4);
  std::set<std::string> ids;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    EXPECT_EQ(a.entries[i].id, b.entries[i].id);
    EXPECT_TRUE(ids.insert(a.entries[i].id).second) << a.entries[i].id;
  }
  EXPECT_EQ(a.entries[0].id,
            "conv|forward|fp32|batch=1;dilation_h=1;dilation_w=1;groups=1;in_channels=64;in_h=56;in_w=56;kernel_h=3;"
            "kernel_w=3;out_channels=64;out_h=56;out_w=56;pad_h=1;pad_w=1;stride_h=1;stride_w=1");
}

TEST(Plan, ConvCostsAndGemmViews) {
  Plan p = plan_from_json(small_plan(), "t.json");
  const PlanEntry& fwd = p.entries[0];
  EXPECT_EQ(fwd.op, "Conv");
  EXPECT_EQ(fwd.op_family, "conv");
  EXPECT_EQ(fwd.inputs_text(), "1x64x56x56;64x64x3x3");
  EXPECT_DOUBLE_EQ(fwd.flops, 2.0 * 1 * 64 * 56 * 56 * 64 * 9);
  EXPECT_DOUBLE_EQ(fwd.bytes, 4.0 * (64 * 56 * 56 * 2 + 64 * 64 * 9));
  EXPECT_EQ(fwd.gemm_m, 56 * 56);
  EXPECT_EQ(fwd.gemm_n, 64);
  EXPECT_EQ(fwd.gemm_k, 64 * 9);
  const PlanEntry& bwd_w = p.entries[2];
  EXPECT_EQ(bwd_w.phase, "backward_weight");
  // Gradients carry the forward's implicit-GEMM view, the one the model times them on.
  EXPECT_EQ(bwd_w.gemm_m, 56 * 56);
  EXPECT_EQ(bwd_w.gemm_n, 64);
  EXPECT_EQ(bwd_w.gemm_k, 64 * 9);
  const PlanEntry& bwd_d = p.entries[1];
  EXPECT_EQ(bwd_d.phase, "backward_data");
  EXPECT_EQ(bwd_d.gemm_m, 56 * 56);
  EXPECT_EQ(bwd_d.gemm_k, 64 * 9);
  EXPECT_DOUBLE_EQ(bwd_w.flops, fwd.flops);
  // Stride 2 halves the output.
  bool found = false;
  for (const auto& e : p.entries)
    if (e.op_kind == "conv" && e.param("stride_h") == 2) {
      EXPECT_EQ(e.param("out_h"), 28);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(Plan, DepthwiseGemmAndPrecisionRules) {
  Plan p = plan_from_json(small_plan(), "t.json");
  int depthwise = 0, tf32_acts = 0;
  for (const auto& e : p.entries) {
    if (e.sweep == "dw") {
      ++depthwise;
      EXPECT_EQ(e.param("groups"), 32);
      EXPECT_EQ(e.param("out_channels"), 32);
      EXPECT_EQ(e.gemm_batch, 32);
      EXPECT_EQ(e.gemm_k, 9);
    }
    if (e.sweep == "g") {
      EXPECT_EQ(e.op, "Gemm");
      EXPECT_EQ(e.precision, Precision::tf32);
      EXPECT_DOUBLE_EQ(e.flops, 2.0 * 128 * 256 * 512);
    }
    if (e.op_kind == "activation" && e.precision == Precision::tf32) ++tf32_acts;
    if (e.op_kind == "copy") {
      EXPECT_FALSE(e.has_precision);
      EXPECT_EQ(e.kind, EntryKind::microbench);
    }
  }
  EXPECT_EQ(depthwise, 2);
  EXPECT_EQ(tf32_acts, 0);
}

TEST(Plan, Int8IsConvAndGemmForwardOnly) {
  // int8 at the plan level reaches only conv and GEMM forwards; other ops and phases skip it.
  json j = json::parse(R"({"schema_version": 1, "name": "t", "precisions": ["fp16", "int8"], "sweeps": [
    {"name": "c", "op": "conv", "phases": ["forward", "backward_data"], "grid": {"batch": 1, "in_channels": 16, "out_channels": 32, "size": 8, "kernel": 3}},
    {"name": "g", "op": "gemm", "phases": ["forward", "backward_weight"], "grid": {"m": 64, "n": 128, "k": 256}},
    {"name": "p", "op": "pool", "grid": {"batch": 1, "channels": 16, "size": 8, "kernel": 2, "stride": 2}}]})");
  Plan p = plan_from_json(j, "t.json");
  int int8_entries = 0;
  for (const auto& e : p.entries) {
    if (e.precision != Precision::int8) continue;
    ++int8_entries;
    EXPECT_EQ(e.phase, "forward") << e.id;
    EXPECT_NE(e.op_kind, "pool") << e.id;
    if (e.sweep == "g") {
      EXPECT_DOUBLE_EQ(e.bytes, 64.0 * 256 + 256.0 * 128 + 4.0 * 64 * 128);  // int32 out
    }
  }
  EXPECT_EQ(int8_entries, 2);
}

TEST(Plan, InvalidCombinationsAreDroppedNotErrors) {
  json j = json::parse(R"({"schema_version": 1, "name": "t", "sweeps": [
    {"op": "conv", "grid": {"batch": 1, "in_channels": [16, 64], "out_channels": 64, "size": 8, "kernel": 3, "groups": 32}}]})");
  Plan p = plan_from_json(j, "t.json");
  ASSERT_EQ(p.entries.size(), 1u);  // 16 channels are not divisible by 32 groups
  EXPECT_EQ(p.entries[0].param("in_channels"), 64);
}

TEST(Plan, ErrorsNameTheSweepAndField) {
  auto err = [](const std::string& text) {
    try {
      plan_from_json(json::parse(text), "p.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"name": "s1", "op": "conv", "grid": {"batch": 1, "chans": 3}}]})");
  EXPECT_NE(m.find("p.json: sweeps[0] (s1)"), std::string::npos) << m;
  EXPECT_NE(m.find("'chans'"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"op": "softmax", "phases": ["backward_weight"], "grid": {"rows": 1, "cols": 2}}]})");
  EXPECT_NE(m.find("backward_weight"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"op": "gemm", "grid": {"m": 1, "n": 2}}]})");
  EXPECT_NE(m.find("missing 'k'"), std::string::npos) << m;
  m = err(R"({"schema_version": 2, "name": "t"})");
  EXPECT_NE(m.find("schema_version"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"op": "copy", "grid": {"bytes": 1}}]})");
  EXPECT_NE(m.find("belongs in 'microbenchmarks'"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"op": "softmax", "precisions": ["int8"], "grid": {"rows": 1, "cols": 2}}]})");
  EXPECT_NE(m.find("int8 is profiled for conv and gemm (forward) only, not softmax"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"op": "gemm", "precisions": ["int8"], "phases": ["backward_data"], "grid": {"m": 1, "n": 1, "k": 1}}]})");
  EXPECT_NE(m.find("expands to no entries"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"op": "gemm", "grid": {"m": 0, "n": 1, "k": 1}}]})");
  EXPECT_NE(m.find("'m' = 0"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "extra": 1})");
  EXPECT_NE(m.find("unknown field 'extra'"), std::string::npos) << m;
  // Fields of the wrong type (fuzz_json_files: a sweep named by an object ended as an internal error).
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"name": {"batch": [1]}, "op": "conv", "grid": {"batch": 1}}]})");
  EXPECT_NE(m.find("p.json: sweeps[0]: field 'name' must be a string (got object"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": 7})");
  EXPECT_NE(m.find("p.json: field 'name' must be a string (got number 7)"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "description": ["a"]})");
  EXPECT_NE(m.find("field 'description' must be a string"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"op": 3, "grid": {"batch": 1}}]})");
  EXPECT_NE(m.find("sweeps[0]: field 'op' must be a string"), std::string::npos) << m;
  m = err(R"({"schema_version": 1, "name": "t", "sweeps": [{"kind": "model", "name": false, "models": ["m.onnx"]}]})");
  EXPECT_NE(m.find("sweeps[0]: field 'name' must be a string (got boolean false)"), std::string::npos) << m;
}

TEST(Plan, ShardsPartitionThePlan) {
  Plan p = plan_from_json(small_plan(), "t.json");
  std::multiset<std::string> all;
  for (int i = 0; i < 3; ++i)
    for (const auto& e : select_shard(p.entries, Shard{i, 3})) all.insert(e.id);
  EXPECT_EQ(all.size(), p.entries.size());
  std::set<std::string> unique(all.begin(), all.end());
  EXPECT_EQ(unique.size(), p.entries.size());
  auto s1 = select_shard(p.entries, Shard{1, 3});
  EXPECT_EQ(s1[0].id, p.entries[1].id);
  EXPECT_EQ(s1[1].id, p.entries[4].id);
  EXPECT_THROW(parse_shard("3/3"), InputError);
  EXPECT_THROW(parse_shard("1"), InputError);
  EXPECT_THROW(parse_shard("-1/2"), InputError);
  EXPECT_EQ(parse_shard("2/5").index, 2);
  auto fp16 = filter_precisions(p.entries, {Precision::fp16});
  for (const auto& e : fp16) EXPECT_TRUE(!e.has_precision || e.precision == Precision::fp16);
  EXPECT_EQ(fp16.size(), 12u + 1 + 4);  // conv fp16, depthwise fp16, copies keep (no precision)
}

TEST(Plan, ShippedPlansParse) {
  Plan quick = load_plan(std::string(PERFPRED_SOURCE_ROOT) + "/data/plans/quick.json");
  Plan full = load_plan(std::string(PERFPRED_SOURCE_ROOT) + "/data/plans/full.json");
  EXPECT_EQ(quick.name, "quick");
  EXPECT_GT(quick.entries.size(), 500u);
  EXPECT_LT(quick.entries.size(), 1500u);
  EXPECT_GT(full.entries.size(), 5 * quick.entries.size());
  std::set<std::string> kinds;
  for (const auto& e : quick.entries) kinds.insert(e.op_kind);
  for (const char* k : {"conv", "gemm", "attention", "pool", "batch_norm", "layer_norm", "activation", "elementwise",
                        "softmax", "lstm", "copy", "launch", "bandwidth", "peak_flops"})
    EXPECT_TRUE(kinds.count(k)) << k;
  EXPECT_THROW(load_plan("/nonexistent/plan.json"), InputError);
}

TEST(Plan, CopyMemoryKindsIncludeMappedZeroCopy) {
  auto j = json::parse(R"({"schema_version": 1, "name": "m", "precisions": ["fp32"], "sweeps": [],
    "microbenchmarks": [{"name": "cp", "op": "copy", "grid": {"direction": "h2d", "memory": ["pageable", "pinned", "mapped"], "bytes": 4096}}]})");
  Plan p = plan_from_json(j, "m.json");
  ASSERT_EQ(p.entries.size(), 3u);
  std::set<std::string> kinds;
  for (const auto& e : p.entries) kinds.insert(e.label("memory"));
  EXPECT_EQ(kinds, (std::set<std::string>{"pageable", "pinned", "mapped"}));
  j["microbenchmarks"][0]["grid"]["memory"] = "managed";
  EXPECT_THROW(plan_from_json(j, "m.json"), InputError);
}
