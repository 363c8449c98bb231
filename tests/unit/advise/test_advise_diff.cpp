#include <gtest/gtest.h>

#include "perfpred/advise/diff.hpp"

using namespace perfpred;
using namespace perfpred::advise;

namespace {

LayerPrediction L(const std::string& name, const std::string& op, double ms) {
  LayerPrediction l;
  l.name = name;
  l.op = op;
  l.time_ms = ms;
  return l;
}

Prediction P(std::vector<LayerPrediction> layers, double mem = 100, double energy = 10) {
  Prediction p;
  p.layers = std::move(layers);
  for (const auto& l : p.layers) p.latency_ms += l.time_ms;
  p.peak_memory_bytes = mem;
  p.energy_mj = energy;
  return p;
}

}  // namespace

TEST(DiffMatch, ByNameWhenNamesSurvive) {
  auto ch = match_layers({L("conv1", "Conv", 1), L("relu1", "Relu", 0.1), L("fc", "Gemm", 0.5)},
                         {L("conv1", "Conv", 2), L("relu1", "Relu", 0.1), L("fc", "Gemm", 0.5)});
  ASSERT_EQ(ch.size(), 3u);
  for (const auto& c : ch) EXPECT_EQ(c.match, LayerMatch::name);
  EXPECT_DOUBLE_EQ(ch[0].delta_ms(), 1.0);
}

TEST(DiffMatch, InsertedLayerDoesNotShiftThePairing) {
  // Renamed by the exporter (numbers shifted), one BatchNorm inserted: position + op pairing.
  auto ch = match_layers({L("Conv_0", "Conv", 1), L("Relu_1", "Relu", 0.1), L("Conv_2", "Conv", 1), L("Gemm_3", "Gemm", 0.5)},
                         {L("Conv_10", "Conv", 1), L("BN_11", "BatchNormalization", 0.2), L("Relu_12", "Relu", 0.1),
                          L("Conv_13", "Conv", 1.5), L("Gemm_14", "Gemm", 0.5)});
  ASSERT_EQ(ch.size(), 5u);
  EXPECT_EQ(ch[0].match, LayerMatch::position);
  EXPECT_EQ(ch[0].old_name, "Conv_0");
  EXPECT_EQ(ch[1].match, LayerMatch::added);
  EXPECT_EQ(ch[1].new_name, "BN_11");
  EXPECT_EQ(ch[2].old_name, "Relu_1");
  EXPECT_EQ(ch[3].old_name, "Conv_2");
  EXPECT_EQ(ch[3].new_name, "Conv_13");
  EXPECT_DOUBLE_EQ(ch[3].delta_ms(), 0.5);
  EXPECT_EQ(ch[4].old_name, "Gemm_3");
}

TEST(DiffMatch, RemovedLayersAndMixedMatching) {
  auto ch = match_layers({L("stem", "Conv", 1), L("drop", "Relu", 0.1), L("block/conv", "Conv", 2), L("head", "Gemm", 0.5)},
                         {L("stem", "Conv", 1), L("block/conv", "Conv", 2), L("Gemm_7", "Gemm", 0.4)});
  ASSERT_EQ(ch.size(), 4u);
  EXPECT_EQ(ch[0].match, LayerMatch::name);
  EXPECT_EQ(ch[1].match, LayerMatch::removed);  // after the layer it followed
  EXPECT_EQ(ch[1].old_name, "drop");
  EXPECT_EQ(ch[2].match, LayerMatch::name);
  EXPECT_EQ(ch[3].match, LayerMatch::position);
  EXPECT_EQ(ch[3].old_name, "head");
  // A same-named layer whose op changed is not a name match.
  auto op = match_layers({L("x", "Conv", 1)}, {L("x", "MatMul", 1)});
  ASSERT_EQ(op.size(), 2u);
  EXPECT_EQ(op[0].match, LayerMatch::removed);  // nothing precedes it: listed first
  EXPECT_EQ(op[1].match, LayerMatch::added);
}

TEST(DiffMatch, EmptySides) {
  EXPECT_TRUE(match_layers({}, {}).empty());
  auto added = match_layers({}, {L("a", "Relu", 1)});
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].match, LayerMatch::added);
  auto removed = match_layers({L("a", "Relu", 1)}, {});
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].match, LayerMatch::removed);
}

TEST(Diff, PercentagesAndTopChanges) {
  EXPECT_FALSE(percent_change(0, 5));
  EXPECT_DOUBLE_EQ(*percent_change(10, 15), 50);
  EXPECT_DOUBLE_EQ(*percent_change(10, 5), -50);
  auto d = diff_predictions(P({L("a", "Conv", 1), L("b", "Conv", 1), L("c", "Gemm", 1)}, 100, 10),
                            P({L("a", "Conv", 1), L("b", "Conv", 3), L("c", "Gemm", 1.5), L("d", "Relu", 0.5)}, 150, 12), 2);
  EXPECT_DOUBLE_EQ(*d.latency_pct, 100);
  EXPECT_DOUBLE_EQ(*d.memory_pct, 50);
  EXPECT_DOUBLE_EQ(*d.energy_pct, 20);
  ASSERT_EQ(d.top_changes.size(), 2u);
  EXPECT_EQ(d.top_changes[0].new_name, "b");
  EXPECT_EQ(d.by_name, 3u);
  EXPECT_EQ(d.added, 1u);
  EXPECT_NEAR(d.explained_share, 2.5 / 3.0, 1e-12);
  // Unchanged layers are not "changes".
  auto same = diff_predictions(P({L("a", "Conv", 1)}), P({L("a", "Conv", 1)}));
  EXPECT_TRUE(same.top_changes.empty());
  EXPECT_DOUBLE_EQ(*same.latency_pct, 0);
}
