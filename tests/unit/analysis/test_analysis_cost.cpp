// The analysis driver on hand-built graphs: unknown ops, unknown shapes, constant folding, parameter
// accounting, op families and feature names, and ops ONNX 1.12's parser does not know (opset 18+,
// com.microsoft).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis_test_util.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::test;

TEST(Analyze, UnknownOpsAreAllListed) {
  GraphBuilder b;
  b.f32("x", {2, 3}, 'x').f32("a", {2, 3}).f32("c", {2, 3}).f32("y", {2, 3});
  b.node("FancyOp", {"x"}, {"a"}).node("Relu", {"a"}, {"c"}).node("Mystery", {"c"}, {"y"}, {}, "my.domain");
  Graph g = b.build();
  try {
    analyze(g);
    FAIL() << "expected UnsupportedOpError";
  } catch (const UnsupportedOpError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("FancyOp_0 (FancyOp)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Mystery_2 (my.domain.Mystery)"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("Relu_1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--allow-unknown"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2 node(s)"), std::string::npos) << msg;
  }
  // It is an InputError too (exit code 2 at the CLI).
  EXPECT_THROW(analyze(g), InputError);
}

TEST(Analyze, AllowUnknownGivesBytesOnlyEstimate) {
  GraphBuilder b;
  b.f32("x", {2, 3}, 'x').f32("w", {3, 3}, 'w').f32("a", {2, 3}).f32("y", {2, 3});
  b.node("FancyOp", {"x", "w"}, {"a"}).node("Relu", {"a"}, {"y"});
  AnalyzeOptions opts;
  opts.allow_unknown = true;
  GraphCost c = analyze(b.build(), opts);
  const NodeCost& u = c.nodes[0];
  EXPECT_EQ(u.family, OpFamily::unknown);
  EXPECT_TRUE(u.estimated);
  EXPECT_DOUBLE_EQ(u.flops, 0);
  EXPECT_EQ(u.bytes_read, (6 + 9) * 4);
  EXPECT_EQ(u.weight_bytes, 9 * 4);
  EXPECT_EQ(u.bytes_written, 6 * 4);
  ASSERT_FALSE(u.warnings.empty());
  EXPECT_NE(u.warnings[0].find("bytes-only"), std::string::npos);
  EXPECT_FALSE(c.nodes[1].estimated);
  EXPECT_DOUBLE_EQ(c.total_flops, 6);
  EXPECT_EQ(c.total_bytes_read, 60 + 24);
}

TEST(Analyze, KnownOpInUnknownDomainIsUnknown) {
  GraphBuilder b;
  b.f32("x", {2}, 'x').f32("y", {2});
  b.node("Relu", {"x"}, {"y"}, {}, "com.example");
  EXPECT_THROW(analyze(b.build()), UnsupportedOpError);
}

TEST(Analyze, UnshapedWorkingNodesAreListedWithWhereShapesAreLost) {
  GraphBuilder b;
  b.f32("x", {2, 3}, 'x').unshaped("a").f32("v", {k_unknown_dim, 3}).f32("y", {k_unknown_dim, 3});
  b.node("NonZero", {"x"}, {"a"}).node("Reshape", {"a"}, {"v"}).node("Sigmoid", {"v"}, {"y"});
  Graph g = b.build();
  GraphCost c = analyze(g);
  EXPECT_FALSE(c.complete());
  // The view (Reshape) does no work and is not listed; NonZero and Sigmoid are.
  ASSERT_EQ(c.unshaped_nodes.size(), 2u);
  EXPECT_EQ(c.unshaped_nodes[0], 0);
  EXPECT_EQ(c.unshaped_nodes[1], 2);
  std::string msg = unshaped_summary(g, c);
  EXPECT_NE(msg.find("2 node(s)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Sigmoid_2 (Sigmoid) output 'y' [?, 3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lost at NonZero_0 (NonZero), whose output size depends on the values"), std::string::npos) << msg;
  // The fix is the count, not an input shape ('x' [2, 3] is known).
  EXPECT_NE(msg.find("--data-count NonZero_0=N"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("--input-shape"), std::string::npos) << msg;
}

TEST(Analyze, ShapesLostAtAnUnreadExternalConstantSayWhichAndWhy) {
  GraphBuilder b;
  b.f32("x", {2, 3, 4}, 'x').tensor("target", DType::i64, {2}, 'w').f32("r", {k_unknown_dim, k_unknown_dim});
  b.f32("w", {12, 5}, 'w').f32("y", {k_unknown_dim, 5});
  b.node("Reshape", {"x", "target"}, {"r"}).node("MatMul", {"r", "w"}, {"y"});
  Graph g = b.build();
  g.unread_external["target"] = "'m.data': no such file beside the model";
  std::string msg = unshaped_summary(g, analyze(g));
  EXPECT_NE(msg.find("lost at Reshape_0 (Reshape), which folds a constant kept in external data that was not read: "
                     "'target' ('m.data': no such file beside the model)"),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("computes at run time"), std::string::npos) << msg;
  g.unread_external.clear();  // the same graph without the note: the run-time values explanation
  EXPECT_NE(unshaped_summary(g, analyze(g)).find("computes at run time"), std::string::npos);
}

TEST(Analyze, FullyShapedGraphIsComplete) {
  GraphBuilder b;
  b.f32("x", {2, 3}, 'x').f32("y", {2, 3});
  b.node("Relu", {"x"}, {"y"});
  Graph g = b.build();
  GraphCost c = analyze(g);
  EXPECT_TRUE(c.complete());
  EXPECT_EQ(unshaped_summary(g, c), "");
}

TEST(Analyze, UnknownShapeWarnsAndCountsKnownBytes) {
  GraphBuilder b;
  b.f32("x", {2, 3}, 'x').unshaped("a").f32("y", {k_unknown_dim, 3});
  b.node("Relu", {"x"}, {"a"}).node("Sigmoid", {"a"}, {"y"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.unknown_shape_tensors, 2);
  for (const auto& n : c.nodes) {
    EXPECT_DOUBLE_EQ(n.flops, 0) << n.op;
    EXPECT_FALSE(n.warnings.empty()) << n.op;
  }
  EXPECT_EQ(c.nodes[0].bytes_read, 24);  // x is known
  EXPECT_EQ(c.nodes[0].bytes_written, 0);
  bool mentions = false;
  for (const auto& w : c.nodes[0].warnings) mentions = mentions || w.find("a") != std::string::npos;
  EXPECT_TRUE(mentions);
}

TEST(Analyze, UnknownDtypeWarns) {
  GraphBuilder b;
  b.tensor("x", DType::unknown, {4}, 'x').f32("y", {4});
  b.node("Relu", {"x"}, {"y"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].bytes_read, 0);
  EXPECT_FALSE(c.nodes[0].warnings.empty());
}

TEST(Analyze, OverflowingTensorSizeWarnsInsteadOfWrapping) {
  GraphBuilder b;
  int64_t big = int64_t{1} << 40;
  b.f32("x", {big, big}, 'x').f32("y", {big, big});
  b.node("Relu", {"x"}, {"y"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].bytes_read, 0);
  EXPECT_FALSE(c.nodes[0].warnings.empty());
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, std::ldexp(1.0, 80));  // FLOPs are doubles: no overflow
}

TEST(Analyze, ShapeSubgraphIsFoldedToViews) {
  // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): the PyTorch view(x.size(0), -1) chain.
  GraphBuilder b;
  b.f32("x", {2, 3, 4}, 'x');
  b.tensor("s", DType::i64, {3}).ints("i0", {0}).tensor("d0", DType::i64, {1}).ints("m1", {-1});
  b.tensor("shape", DType::i64, {2}).f32("y", {2, 12}).f32("z", {2, 12});
  b.node("Shape", {"x"}, {"s"}).node("Gather", {"s", "i0"}, {"d0"}).node("Concat", {"d0", "m1"}, {"shape"}, {{"axis", int64_t{0}}});
  b.node("Reshape", {"x", "shape"}, {"y"}).node("Relu", {"y"}, {"z"});
  GraphCost c = analyze(b.build());
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(c.nodes[i].family, OpFamily::view) << c.nodes[i].op;
    EXPECT_EQ(c.nodes[i].bytes_read + c.nodes[i].bytes_written, 0) << c.nodes[i].op;
  }
  EXPECT_EQ(c.nodes[4].family, OpFamily::elementwise);
  EXPECT_EQ(c.total_bytes_read, 96);
  EXPECT_EQ(c.total_params, 0);
}

TEST(Analyze, WeightPreprocessingIsFoldedAndParamsTraced) {
  // export_params=False leaves MatMul(x, Transpose(W)) in the graph: the Transpose runs at load time,
  // the MatMul still reads weights and W counts once as parameters.
  GraphBuilder b;
  b.f32("x", {2, 5}, 'x').f32("W", {3, 5}, 'w').f32("Wt", {5, 3}).f32("y", {2, 3});
  b.f32("y2", {2, 3}).f32("bias", {3}, 'w').f32("z", {2, 3});
  b.node("Transpose", {"W"}, {"Wt"}, {{"perm", std::vector<int64_t>{1, 0}}});
  b.node("MatMul", {"x", "Wt"}, {"y"});
  b.node("MatMul", {"x", "Wt"}, {"y2"});  // tied: same weight again
  b.node("Add", {"y", "bias"}, {"z"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].family, OpFamily::view);
  EXPECT_EQ(c.nodes[0].bytes_read, 0);
  EXPECT_EQ(c.nodes[1].params, 15);
  EXPECT_EQ(c.nodes[1].weight_bytes, 60);
  EXPECT_EQ(c.nodes[2].params, 0);  // counted once per graph
  EXPECT_EQ(c.nodes[2].weight_bytes, 60);
  EXPECT_EQ(c.nodes[3].params, 3);
  EXPECT_EQ(c.total_params, 18);
}

TEST(Analyze, ScalarConstantsAndIntegersAreNotParams) {
  GraphBuilder b;
  b.f32("x", {2, 4}, 'x').f32("eps", {}, 'w').f32("a", {2, 4}).tensor("idx", DType::i64, {2, 4}, 'w');
  b.f32("bn_x", {1, 2, 2, 2}, 'x').f32("s", {2}, 'w').f32("bb", {2}, 'w').f32("rm", {2}, 'w').f32("rv", {2}, 'w');
  b.f32("bn_y", {1, 2, 2, 2}).f32("g", {2, 4});
  b.node("Add", {"x", "eps"}, {"a"});
  b.node("GatherElements", {"a", "idx"}, {"g"}, {{"axis", int64_t{1}}});
  b.node("BatchNormalization", {"bn_x", "s", "bb", "rm", "rv"}, {"bn_y"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].params, 0);
  EXPECT_EQ(c.nodes[0].weight_bytes, 4);
  EXPECT_EQ(c.nodes[1].params, 0);
  EXPECT_EQ(c.nodes[2].params, 4);
  EXPECT_EQ(c.nodes[2].weight_bytes, 32);
  EXPECT_EQ(c.total_params, 4);
}

TEST(Analyze, NodesKeepOrderNamesAndIndices) {
  GraphBuilder b;
  b.f32("x", {4}, 'x').f32("a", {4}).f32("y", {4});
  b.node("Relu", {"x"}, {"a"}).node("Tanh", {"a"}, {"y"});
  GraphCost c = analyze(b.build());
  ASSERT_EQ(c.nodes.size(), 2u);
  EXPECT_EQ(c.nodes[1].node_index, 1);
  EXPECT_EQ(c.nodes[1].name, "Tanh_1");
  EXPECT_EQ(c.nodes[1].op, "Tanh");
  EXPECT_DOUBLE_EQ(c.total_flops, 4 + 16);
  EXPECT_EQ(c.total_bytes_written, 32);
}

TEST(Analyze, MalformedNodeIsAnInputErrorNamingIt) {
  GraphBuilder b;
  b.f32("x", {1, 3, 8, 8}, 'x').f32("w", {4, 2, 3, 3}, 'w').f32("y", {1, 4, 6, 6});
  b.node("Conv", {"x", "w"}, {"y"});
  try {
    analyze(b.build());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Conv_0"), std::string::npos) << e.what();
  }
  GraphBuilder m;
  m.f32("a", {2, 3}, 'x').f32("b", {4, 5}, 'x').f32("y", {2, 5});
  m.node("MatMul", {"a", "b"}, {"y"});
  EXPECT_THROW(analyze(m.build()), InputError);

  // Attribute values from the file must not overflow (the suite also runs under UBSan).
  GraphBuilder g;
  g.f32("x", {1, 4, 8, 8}, 'x').f32("w", {4, 2, 3, 3}, 'w').f32("y", {1, 4, 6, 6});
  g.node("Conv", {"x", "w"}, {"y"}, {{"group", int64_t{1} << 62}});
  EXPECT_THROW(analyze(g.build()), InputError);
  GraphBuilder r;
  r.f32("x", {5, 2, 3}, 'x').f32("w", {1, 16, 3}, 'w').f32("r", {1, 16, 4}, 'w').f32("y", {5, 1, 2, 4});
  r.node("LSTM", {"x", "w", "r"}, {"y"}, {{"hidden_size", int64_t{1} << 62}});
  EXPECT_THROW(analyze(r.build()), InputError);
  GraphBuilder p;
  p.f32("x", {1, 2, 7, 7}, 'x').f32("w", {3, 2, 3, 3}, 'w').f32("y", {1, 3, 7, 7});
  p.node("Conv", {"x", "w"}, {"y"},
         {{"auto_pad", std::string("SAME_UPPER")}, {"strides", std::vector<int64_t>{int64_t{1} << 62, 1}}});
  GraphCost pc = analyze(p.build());
  EXPECT_GE(feature::value_or(pc.nodes[0], feature::pad_h), 0);
}

TEST(Analyze, Opset18GroupNormalizationAndNewActivations) {
  GraphBuilder b;
  b.f32("x", {2, 6, 4, 4}, 'x').f32("s", {6}, 'w').f32("bb", {6}, 'w').f32("y", {2, 6, 4, 4});
  b.f32("g", {2, 6, 4, 4}).f32("m", {2, 6, 4, 4});
  b.node("GroupNormalization", {"x", "s", "bb"}, {"y"}, {{"num_groups", int64_t{3}}});
  b.node("Gelu", {"y"}, {"g"}).node("Mish", {"g"}, {"m"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].family, OpFamily::norm);
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 8.0 * 192);
  EXPECT_EQ(feature::value_or(c.nodes[0], feature::inner), 32);  // 2 channels x 16 per group
  EXPECT_EQ(feature::value_or(c.nodes[0], feature::outer), 6);
  EXPECT_EQ(c.nodes[0].params, 12);
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, 8.0 * 192);
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 8.0 * 192);
}

TEST(Analyze, MicrosoftContribOps) {
  GraphBuilder b;
  b.f32("x", {1, 4, 4, 8}, 'x').f32("s", {8}, 'w').f32("bb", {8}, 'w').f32("y", {1, 4, 4, 8});
  b.f32("a", {2, 3, 5}, 'x').f32("w", {2, 5, 7}, 'w').f32("mm", {2, 3, 7}).f32("gl", {2, 3, 7});
  b.f32("cx", {1, 2, 5, 5}, 'x').f32("cw", {3, 2, 3, 3}, 'w').f32("cy", {1, 3, 3, 3});
  b.node("GroupNorm", {"x", "s", "bb"}, {"y"}, {{"groups", int64_t{2}}}, "com.microsoft");
  b.node("FusedMatMul", {"a", "w"}, {"mm"}, {}, "com.microsoft");
  b.node("FastGelu", {"mm"}, {"gl"}, {}, "com.microsoft");
  b.node("FusedConv", {"cx", "cw"}, {"cy"}, {{"activation", std::string("Relu")}}, "com.microsoft");
  GraphCost c = analyze(b.build());
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 8.0 * 128);
  EXPECT_EQ(feature::value_or(c.nodes[0], feature::inner), 64);
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, 2.0 * 2 * 3 * 7 * 5);
  EXPECT_EQ(c.nodes[1].params, 70);
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 8.0 * 42);
  EXPECT_DOUBLE_EQ(c.nodes[3].flops, 2.0 * 3 * 9 * 2 * 9 + 27);  // + fused activation
  EXPECT_TRUE(is_known_op("FusedMatMul"));
  EXPECT_TRUE(is_known_op("Conv"));
  EXPECT_FALSE(is_known_op("NoSuchOp"));
}

TEST(Analyze, QuantizedOpsCostTheFloatOpsWorkAndCountTheirIntegerWeights) {
  // ONNX Runtime's QOperator quantisation: QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B)
  // costs the conv's MACs, its bias and 2 a output for the requantisation; its int8 filter and int32 bias are
  // parameters (integer initializers count only in these slots). ConvInteger's inputs 2 and 3 are zero points,
  // not a bias; QLinearMatMul's B is input 3; MatMulInteger writes int32.
  GraphBuilder b;
  b.tensor("x", DType::u8, {1, 2, 5, 5}, 'x').f32("s", {}, 'w').tensor("z", DType::u8, {}, 'w');
  b.tensor("w", DType::i8, {3, 2, 3, 3}, 'w').tensor("wz", DType::i8, {}, 'w').tensor("bias", DType::i32, {3}, 'w');
  b.tensor("y", DType::u8, {1, 3, 3, 3}).tensor("yi", DType::i32, {1, 3, 3, 3}).tensor("yn", DType::u8, {1, 3, 3, 3});
  b.tensor("a", DType::u8, {4, 6}, 'x').tensor("bm", DType::i8, {6, 5}, 'w').tensor("mq", DType::u8, {4, 5});
  b.tensor("mi", DType::i32, {4, 5});
  b.node("QLinearConv", {"x", "s", "z", "w", "s", "wz", "s", "z", "bias"}, {"y"});
  b.node("ConvInteger", {"x", "w", "z", "wz"}, {"yi"});
  b.node("QLinearConv", {"x", "s", "z", "w", "s", "wz", "s", "z"}, {"yn"});
  b.node("QLinearMatMul", {"a", "s", "z", "bm", "s", "wz", "s", "z"}, {"mq"});
  b.node("MatMulInteger", {"a", "bm", "z", "wz"}, {"mi"});
  GraphCost c = analyze(b.build());
  const double macs = 27.0 * 2 * 9;
  EXPECT_EQ(c.nodes[0].family, OpFamily::conv);
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 2 * macs + 27 + 2 * 27);
  EXPECT_EQ(c.nodes[0].params, 54 + 3);  // the filter, then the bias; scales and zero points are scalars
  EXPECT_EQ(feature::value_or(c.nodes[0], feature::has_bias, -1), 1);
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, 2 * macs);  // no bias: inputs 2 and 3 are zero points
  EXPECT_EQ(feature::value_or(c.nodes[1], feature::has_bias, -1), 0);
  EXPECT_EQ(c.nodes[1].bytes_written, 27 * 4);  // int32 accumulators
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 2 * macs + 2 * 27);
  EXPECT_EQ(c.nodes[2].params, 0);  // the filter was counted at its first consumer
  ASSERT_TRUE(c.nodes[3].gemm.has_value());
  EXPECT_EQ(c.nodes[3].gemm->m, 4);
  EXPECT_EQ(c.nodes[3].gemm->n, 5);
  EXPECT_EQ(c.nodes[3].gemm->k, 6);
  EXPECT_DOUBLE_EQ(c.nodes[3].flops, (2.0 * 6 + 2) * 4 * 5);
  EXPECT_EQ(c.nodes[3].params, 30);
  EXPECT_DOUBLE_EQ(c.nodes[4].flops, 2.0 * 6 * 4 * 5);
  EXPECT_EQ(c.nodes[4].bytes_written, 20 * 4);
  EXPECT_EQ(c.integer_nodes, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Analyze, QLinearContribOpsCostTheirFloatCounterparts) {
  // com.microsoft QLinearAdd/Mul (dequantise both, the op, requantise: 5 a element), Sigmoid and LeakyRelu (a
  // table lookup: 1), Softmax (as the float op: 5), the pools in NCHW and channels_last NHWC (2 a window
  // element), Concat (data movement; its inputs are the triples after Y_scale and Y_zero_point).
  GraphBuilder b;
  b.tensor("x", DType::u8, {2, 4, 6, 6}, 'x').f32("s", {}, 'w').tensor("z", DType::u8, {}, 'w');
  b.tensor("bias", DType::u8, {1, 4, 1, 1}, 'w').tensor("add", DType::u8, {2, 4, 6, 6});
  b.tensor("sig", DType::u8, {2, 4, 6, 6}).tensor("soft", DType::u8, {2, 4, 6, 6});
  b.tensor("pool", DType::u8, {2, 4, 3, 3}).tensor("nhwc", DType::u8, {2, 6, 6, 4}, 'x');
  b.tensor("pool_nhwc", DType::u8, {2, 3, 3, 4}).tensor("gap_nhwc", DType::u8, {2, 1, 1, 4});
  b.tensor("cat", DType::u8, {2, 8, 6, 6});
  b.node("QLinearAdd", {"x", "s", "z", "bias", "s", "z", "s", "z"}, {"add"}, {}, "com.microsoft");
  b.node("QLinearSigmoid", {"add", "s", "z", "s", "z"}, {"sig"}, {}, "com.microsoft");
  b.node("QLinearSoftmax", {"sig", "s", "z", "s", "z"}, {"soft"}, {}, "com.microsoft");
  b.node("QLinearAveragePool", {"x", "s", "z", "s", "z"}, {"pool"},
         {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}}, "com.microsoft");
  b.node("QLinearAveragePool", {"nhwc", "s", "z", "s", "z"}, {"pool_nhwc"},
         {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}},
          {"channels_last", int64_t{1}}},
         "com.microsoft");
  b.node("QLinearGlobalAveragePool", {"nhwc", "s", "z", "s", "z"}, {"gap_nhwc"}, {{"channels_last", int64_t{1}}},
         "com.microsoft");
  b.node("QLinearConcat", {"s", "z", "x", "s", "z", "add", "s", "z"}, {"cat"}, {{"axis", int64_t{1}}},
         "com.microsoft");
  GraphCost c = analyze(b.build());
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 5.0 * 288);
  EXPECT_EQ(c.nodes[0].params, 4);  // an 8-bit tensor added in is a weight, as a float one is for Add
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, 288);
  EXPECT_EQ(c.nodes[2].family, OpFamily::softmax);
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 5.0 * 288);
  EXPECT_DOUBLE_EQ(c.nodes[3].flops, 2.0 * 4 * 72);
  EXPECT_DOUBLE_EQ(c.nodes[4].flops, 2.0 * 4 * 72);
  // NHWC is read as NCHW: 4 channels of 6 x 6, not 6 channels of 6 x 4.
  EXPECT_EQ(feature::value_or(c.nodes[4], feature::channels, -1), 4);
  EXPECT_EQ(feature::value_or(c.nodes[4], feature::in_h, -1), 6);
  EXPECT_DOUBLE_EQ(c.nodes[5].flops, 2.0 * 288);
  EXPECT_EQ(feature::value_or(c.nodes[5], feature::channels, -1), 4);
  EXPECT_EQ(c.nodes[6].family, OpFamily::data_movement);
  EXPECT_EQ(c.nodes[6].bytes_written, 576);
  EXPECT_TRUE(c.integer_nodes.empty());
}

TEST(Analyze, QdqWeightsCountTheirIntegersAsParametersAndAreReadAsStored) {
  // A QDQ model's weights: an int8 (per-channel scales and zero points) or int4 initializer through a
  // DequantizeLinear that folds at load. The parameters are the integers (not the scales the folded float tensor
  // reaches), and the consumer reads what is stored (TensorRT and ONNX Runtime fuse the dequantisation):
  // 16 x 8 x 3 x 3 int8 + 16 scales + 16 zero points, 64 x 64 int4 + one scale.
  GraphBuilder b;
  b.f32("x", {1, 8, 16, 16}, 'x').tensor("w", DType::i8, {16, 8, 3, 3}, 'w').f32("ws", {16}, 'w');
  b.tensor("wz", DType::i8, {16}, 'w').f32("wd", {16, 8, 3, 3}).f32("y", {1, 16, 16, 16});
  b.node("DequantizeLinear", {"w", "ws", "wz"}, {"wd"}, {{"axis", int64_t{0}}});
  b.node("Conv", {"x", "wd"}, {"y"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  b.f32("a", {8, 64}, 'x').tensor("w4", DType::i4, {64, 64}, 'w').f32("s4", {}, 'w').f32("w4d", {64, 64});
  b.f32("m", {8, 64});
  b.node("DequantizeLinear", {"w4", "s4"}, {"w4d"});
  b.node("MatMul", {"a", "w4d"}, {"m"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].family, OpFamily::view);  // folded
  EXPECT_EQ(c.nodes[1].params, 16 * 8 * 9);
  EXPECT_EQ(c.nodes[1].weight_bytes, 16 * 8 * 9 + 16 * 4 + 16);
  EXPECT_EQ(c.nodes[1].bytes_read, 8 * 256 * 4 + 16 * 8 * 9 + 16 * 4 + 16);
  EXPECT_EQ(c.nodes[3].params, 64 * 64);
  EXPECT_EQ(c.nodes[3].weight_bytes, 64 * 64 / 2 + 4);
  EXPECT_EQ(c.total_params, 16 * 8 * 9 + 64 * 64);
}

TEST(Analyze, TwoBitQdqWeightsAreReadFourToAByte) {
  // Opsets 25-26's int2: a 64 x 64 int2 weight through a folding DequantizeLinear is 4,096 parameters stored in
  // 1,024 bytes (plus its 4-byte scale), and the MatMul reads what is stored.
  GraphBuilder b;
  b.f32("a", {8, 64}, 'x').tensor("w2", DType::i2, {64, 64}, 'w').f32("s2", {}, 'w').f32("w2d", {64, 64});
  b.f32("m", {8, 64});
  b.node("DequantizeLinear", {"w2", "s2"}, {"w2d"});
  b.node("MatMul", {"a", "w2d"}, {"m"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].family, OpFamily::view);  // folded
  EXPECT_EQ(c.nodes[1].params, 64 * 64);
  EXPECT_EQ(c.nodes[1].weight_bytes, 64 * 64 / 4 + 4);
  EXPECT_EQ(c.nodes[1].bytes_read, 8 * 64 * 4 + 64 * 64 / 4 + 4);
}

TEST(Analyze, DecoderContribOpsOfOnnxRuntimeGenAi) {
  // A decode step of 2 sequences (1 new token each) over a 7-token past: GroupQueryAttention with 8 query heads
  // over 2 KV heads of 16 and rotary (scores and V over T = 8 keys, softmax 5 a score, rotation 3 an element of the
  // new queries and keys); MultiHeadAttention with its own past and a bias; MatMulNBits with 4-bit weights (the
  // parameters are the N x K weights, not the packed bytes); RMSNorm (5 an element), its skip form with a bias
  // (6 + 1) and rotary embedding (3).
  GraphBuilder b;
  b.f32("q", {2, 1, 128}, 'x').f32("k", {2, 1, 32}, 'x').f32("v", {2, 1, 32}, 'x');
  b.f32("pk", {2, 2, 7, 16}, 'x').f32("pv", {2, 2, 7, 16}, 'x');
  b.tensor("seqlens", DType::i32, {2}, 'x').tensor("total", DType::i32, {}, 'w');
  b.graph().tensors.back().int_values = std::vector<int64_t>{8};
  b.f32("cos", {64, 8}, 'w').f32("sin", {64, 8}, 'w');
  b.f32("attn", {2, 1, 128}).f32("present_k", {2, 2, 8, 16}).f32("present_v", {2, 2, 8, 16});
  b.node("GroupQueryAttention", {"q", "k", "v", "pk", "pv", "seqlens", "total", "cos", "sin"},
         {"attn", "present_k", "present_v"},
         {{"num_heads", int64_t{8}}, {"kv_num_heads", int64_t{2}}, {"do_rotary", int64_t{1}}}, "com.microsoft");
  b.f32("mk", {2, 1, 64}, 'x').f32("mv", {2, 1, 64}, 'x').f32("bias", {192}, 'w');
  b.f32("mpk", {2, 4, 7, 16}, 'x').f32("mpv", {2, 4, 7, 16}, 'x').f32("mq", {2, 1, 64}, 'x');
  b.f32("mha", {2, 1, 64}).f32("mpresent_k", {2, 4, 8, 16}).f32("mpresent_v", {2, 4, 8, 16});
  b.node("MultiHeadAttention", {"mq", "mk", "mv", "bias", "", "", "mpk", "mpv"}, {"mha", "mpresent_k", "mpresent_v"},
         {{"num_heads", int64_t{4}}}, "com.microsoft");
  b.tensor("w4", DType::u8, {96, 2, 16}, 'w').f32("scales", {192}, 'w').f32("a", {2, 1, 64}, 'x').f32("y", {2, 1, 96});
  b.node("MatMulNBits", {"a", "w4", "scales"}, {"y"},
         {{"K", int64_t{64}}, {"N", int64_t{96}}, {"bits", int64_t{4}}, {"block_size", int64_t{32}}}, "com.microsoft");
  b.f32("g", {64}, 'w').f32("ln", {2, 1, 64}).f32("skb", {64}, 'w').f32("sk", {2, 1, 64});
  b.f32("rot", {2, 1, 64}).tensor("pos", DType::i64, {2, 1}, 'x');
  b.node("SimplifiedLayerNormalization", {"a", "g"}, {"ln"});
  b.node("SkipSimplifiedLayerNormalization", {"a", "mq", "g", "skb"}, {"sk"}, {}, "com.microsoft");
  b.node("RotaryEmbedding", {"a", "pos", "cos", "sin"}, {"rot"}, {}, "com.microsoft");
  GraphCost c = analyze(b.build());
  const double gqa = 2 * (2 * 2.0 * 8 * 1 * 8 * 16) + 5.0 * 2 * 8 * 8 + 3.0 * 2 * 1 * (8 + 2) * 16;
  EXPECT_EQ(c.nodes[0].family, OpFamily::gemm);
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, gqa);
  ASSERT_TRUE(c.nodes[0].gemm.has_value());
  EXPECT_EQ(c.nodes[0].gemm->batch, 16);  // B x query heads
  EXPECT_EQ(c.nodes[0].gemm->k, 16);      // the head size
  EXPECT_EQ(c.nodes[0].params, 0);        // the caches are tables, the KV pasts runtime inputs
  const double mha = 2 * (2 * 2.0 * 4 * 8 * 16) + 5.0 * 2 * 4 * 8 + (2.0 * 4 * 16 + 2.0 * 1 * 4 * 32);
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, mha);
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 2.0 * 2 * 96 * 64 + 2.0 * 96 * 64);
  EXPECT_EQ(c.nodes[2].params, 96 * 64);  // 3,072 packed bytes of 2 weights each
  ASSERT_TRUE(c.nodes[2].gemm.has_value());
  EXPECT_EQ(c.nodes[2].gemm->m, 2);
  EXPECT_EQ(c.nodes[2].gemm->n, 96);
  EXPECT_EQ(c.nodes[3].family, OpFamily::norm);
  EXPECT_DOUBLE_EQ(c.nodes[3].flops, 5.0 * 128);
  EXPECT_EQ(c.nodes[3].params, 64);
  EXPECT_DOUBLE_EQ(c.nodes[4].flops, 7.0 * 128);
  EXPECT_DOUBLE_EQ(c.nodes[5].flops, 3.0 * 128);
}

TEST(Analyze, OnnxAttentionOfOpset23) {
  // Q [2, 4, 96] in 3 heads of 32 over 1 KV head, 6 new keys after a past of 10, a mask added to the scores:
  // T = 16; 2 x (2 B S T H) per query head for the scores and V, 5 a score for the softmax, 1 for the mask.
  // Q in heads [2, 3, 4, 32] needs no head attributes. RMSNormalization 5 an element, RotaryEmbedding 3.
  GraphBuilder b;
  b.f32("q", {2, 4, 96}, 'x').f32("kv", {2, 6, 32}, 'x').f32("mask", {4, 16}, 'x').f32("past", {2, 1, 10, 32}, 'x');
  b.f32("y", {2, 4, 96}).f32("pk", {2, 1, 16, 32}).f32("pv", {2, 1, 16, 32});
  b.node("Attention", {"q", "kv", "kv", "mask", "past", "past"}, {"y", "pk", "pv"},
         {{"q_num_heads", int64_t{3}}, {"kv_num_heads", int64_t{1}}});
  b.f32("q4", {2, 3, 4, 32}, 'x').f32("y4", {2, 3, 4, 32});
  b.node("Attention", {"q4", "q4", "q4"}, {"y4"});
  b.f32("g", {96}, 'w').f32("r", {2, 4, 96}).f32("cs", {16, 16}, 'w').tensor("pos", DType::i64, {2, 4}, 'x');
  b.f32("rot", {2, 3, 4, 32});
  b.node("RMSNormalization", {"q", "g"}, {"r"});
  b.node("RotaryEmbedding", {"q4", "cs", "cs", "pos"}, {"rot"});
  GraphCost c = analyze(b.build());
  const double scores = 2.0 * 3 * 4 * 16;
  EXPECT_EQ(c.nodes[0].family, OpFamily::gemm);
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 2 * (2 * scores * 32) + 5 * scores + scores);
  const double scores4 = 2.0 * 3 * 4 * 4;
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, 2 * (2 * scores4 * 32) + 5 * scores4);
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 5.0 * 768);
  EXPECT_EQ(c.nodes[2].params, 96);
  EXPECT_DOUBLE_EQ(c.nodes[3].flops, 3.0 * 768);
  EXPECT_EQ(c.nodes[3].params, 0);
}

TEST(Analyze, AttentionWhoseWidthsDoNotSplitIntoHeadsIsAnInputError) {
  // 64 query features over 3 heads, and a MultiHeadAttention key of 30 over 4 heads: exit 2 naming the node.
  GraphBuilder b;
  b.f32("q", {1, 4, 64}, 'x').f32("k", {1, 4, 30}, 'x').f32("v", {1, 4, 32}, 'x').f32("o", {1, 4, 64});
  b.tensor("lens", DType::i32, {1}, 'x').f32("mo", {1, 4, 32});
  b.node("GroupQueryAttention", {"q", "q", "q", "", "", "lens"}, {"o"},
         {{"num_heads", int64_t{3}}, {"kv_num_heads", int64_t{1}}}, "com.microsoft");
  try {
    analyze(b.build());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("query width 64 does not split into 3 heads"), std::string::npos) << e.what();
  }
  GraphBuilder m;
  m.f32("q", {1, 4, 64}, 'x').f32("k", {1, 4, 30}, 'x').f32("v", {1, 4, 32}, 'x').f32("mo", {1, 4, 32});
  m.node("MultiHeadAttention", {"q", "k", "v"}, {"mo"}, {{"num_heads", int64_t{4}}}, "com.microsoft");
  try {
    analyze(m.build());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("do not split into num_heads = 4"), std::string::npos) << e.what();
  }
}

TEST(Analyze, DeformConvStftAndLossesCostTheirWork) {
  // DeformConv: the conv's 2 MACs and bias, plus 8 for each bilinear sample (N x C x out pixels x taps); STFT of
  // 64-sample frames: 2.5 log2(64) a real output, plus the window's multiply (B x frames x 64);
  // SoftmaxCrossEntropyLoss 7 a score; LpNormalization 3 an element.
  GraphBuilder b;
  b.f32("x", {2, 4, 8, 8}, 'x').f32("w", {6, 4, 3, 3}, 'w').f32("off", {2, 18, 8, 8}, 'x').f32("bias", {6}, 'w');
  b.f32("dc", {2, 6, 8, 8});
  b.node("DeformConv", {"x", "w", "off", "bias"}, {"dc"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  b.f32("sig", {2, 400, 1}, 'x').ints("step", {16}).f32("win", {64}, 'x').f32("spec", {2, 22, 33, 2});
  b.node("STFT", {"sig", "step", "win"}, {"spec"});
  b.f32("logits", {8, 10}, 'x').tensor("labels", DType::i64, {8}, 'x').f32("loss", {});
  b.node("SoftmaxCrossEntropyLoss", {"logits", "labels"}, {"loss"});
  b.f32("lp", {2, 4, 8, 8});
  b.node("LpNormalization", {"x"}, {"lp"}, {{"axis", int64_t{1}}});
  GraphCost c = analyze(b.build());
  const double macs = 2.0 * 6 * 64 * 4 * 9;
  EXPECT_EQ(c.nodes[0].family, OpFamily::conv);
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 2 * macs + 2.0 * 6 * 64 + 8.0 * 2 * 4 * 64 * 9);
  EXPECT_EQ(c.nodes[0].params, 6 * 4 * 9 + 6);
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, 2.5 * 6 * 2 * 22 * 33 * 2 + 2.0 * 22 * 64);
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 7.0 * 80);
  EXPECT_DOUBLE_EQ(c.nodes[3].flops, 3.0 * 512);
}

TEST(Analyze, UniqueDetAndMultinomial) {
  // Unique of 16 elements: a sort (16 x log2 16) and a pass; Det of five 3 x 3 matrices: 2 x 2/3 n^3 each;
  // Multinomial of 2 rows of 8 classes, 4 samples: the CDF (8) and a 3-step search a sample.
  GraphBuilder b;
  b.f32("x", {4, 4}, 'x').f32("y", {6}).f32("m", {5, 3, 3}, 'x').f32("d", {5}).f32("p", {2, 8}, 'x');
  b.tensor("s", DType::i32, {2, 4});
  b.node("Unique", {"x"}, {"y"});
  b.node("Det", {"m"}, {"d"});
  b.node("Multinomial", {"p"}, {"s"}, {{"sample_size", int64_t{4}}});
  GraphCost c = analyze(b.build());
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 16.0 * (1 + 4));
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, 5 * (2.0 / 3.0) * 27 * 2);
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 2 * (8.0 + 4 * 3));
  // Its cost reads the input alone, so a sample_size below 1 is refused there, naming the node.
  GraphBuilder bad;
  bad.f32("p", {2, 8}, 'x').tensor("s", DType::i32, {2, 4});
  bad.node("Multinomial", {"p"}, {"s"}, {{"sample_size", int64_t{-3}}});
  EXPECT_THROW(analyze(bad.build()), InputError);
}

TEST(Analyze, MaxRoiPoolUpperBound) {
  GraphBuilder b;
  b.f32("x", {1, 4, 8, 8}, 'x').f32("rois", {3, 5}, 'x').f32("y", {3, 4, 2, 2});
  b.node("MaxRoiPool", {"x", "rois"}, {"y"}, {{"pooled_shape", std::vector<int64_t>{2, 2}}});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].family, OpFamily::pool);
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 3.0 * 4 * 64);
}

TEST(Analyze, RoiAlignSamplesEveryOutputBin) {
  // 3 RoIs of 4 channels into 2x2 bins, sampling_ratio 2: four bilinear samples a bin, 10 FLOPs each. An adaptive
  // ratio (0, data-dependent) is costed as torchvision's 2.
  for (int64_t ratio : {2, 0}) {
    GraphBuilder b;
    b.f32("x", {1, 4, 8, 8}, 'x').f32("rois", {3, 4}, 'x').tensor("idx", DType::i64, {3}, 'x').f32("y", {3, 4, 2, 2});
    b.node("RoiAlign", {"x", "rois", "idx"}, {"y"},
           {{"output_height", int64_t{2}}, {"output_width", int64_t{2}}, {"sampling_ratio", ratio}});
    GraphCost c = analyze(b.build());
    EXPECT_EQ(c.nodes[0].family, OpFamily::pool);
    EXPECT_DOUBLE_EQ(c.nodes[0].flops, 10.0 * 3 * 4 * 2 * 2 * 4) << ratio;
  }
}

TEST(Analyze, NonMaxSuppressionCostsEveryPairOfBoxesInAClass) {
  // 2 images, 3 classes, 100 boxes: 2 x 3 x 100^2 / 2 IoUs at 8 FLOPs. How many boxes survive is data: the
  // output stays unknown, and the node is costed from its inputs.
  GraphBuilder b;
  b.f32("boxes", {2, 100, 4}, 'x').f32("scores", {2, 3, 100}, 'x').tensor("keep", DType::i64, {-1, 3});
  b.node("NonMaxSuppression", {"boxes", "scores"}, {"keep"});
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].family, OpFamily::reduce);
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 8.0 * 2 * 3 * 100 * 100 / 2);
  EXPECT_EQ(c.unshaped_nodes.size(), 1u);
  // Boxes and scores that disagree on the box count are an error naming the node.
  GraphBuilder bad;
  bad.f32("boxes", {1, 100, 4}, 'x').f32("scores", {1, 3, 99}, 'x').tensor("keep", DType::i64, {-1, 3});
  bad.node("NonMaxSuppression", {"boxes", "scores"}, {"keep"});
  EXPECT_THROW(analyze(bad.build()), InputError);
}

TEST(Analyze, NonMaxSuppressionWithAScoreThresholdPairsTheCandidatesTheCallerGives) {
  // A score threshold (fifth input) drops boxes before the overlap tests; how many pass is data. Without a
  // count every box is a candidate (the upper bound, as before); a count by name or for every such node sets
  // K, capped at the box count; an NMS without a threshold keeps all its boxes whatever the counts say.
  const auto graph = [](std::map<std::string, int64_t> named, int64_t all) {
    GraphBuilder b;
    b.f32("boxes", {1, 1000, 4}, 'x').f32("scores", {1, 80, 1000}, 'x').f32("scores1", {1, 2, 1000}, 'x');
    b.tensor("max_out", DType::i64, {1}, 'w').f32("iou", {1}, 'w').f32("thr", {1}, 'w');
    b.tensor("keep", DType::i64, {-1, 3}).tensor("keep1", DType::i64, {-1, 3});
    b.node("NonMaxSuppression", {"boxes", "scores", "max_out", "iou", "thr"}, {"keep"});
    b.node("NonMaxSuppression", {"boxes", "scores1", "max_out"}, {"keep1"});
    Graph g = b.build();
    g.nodes[0].name = "nms";
    g.nodes[1].name = "nms_no_threshold";
    g.nms_candidates = std::move(named);
    g.nms_candidates_all = all;
    return g;
  };
  const auto flops = [](const Graph& g, size_t i) { return analyze(g).nodes[i].flops; };
  EXPECT_DOUBLE_EQ(flops(graph({}, -1), 0), 8.0 * 80 * 1000 * 1000 / 2);
  EXPECT_DOUBLE_EQ(flops(graph({{"nms", 50}}, -1), 0), 8.0 * 80 * 50 * 50 / 2);
  EXPECT_DOUBLE_EQ(flops(graph({}, 20), 0), 8.0 * 80 * 20 * 20 / 2);
  EXPECT_DOUBLE_EQ(flops(graph({{"nms", 50}}, 20), 0), 8.0 * 80 * 50 * 50 / 2);  // the name wins
  EXPECT_DOUBLE_EQ(flops(graph({{"nms", 5000}}, -1), 0), 8.0 * 80 * 1000 * 1000 / 2);  // capped at the boxes
  EXPECT_DOUBLE_EQ(flops(graph({}, 0), 0), 0);
  EXPECT_DOUBLE_EQ(flops(graph({}, 20), 1), 8.0 * 2 * 1000 * 1000 / 2);  // no threshold: every box
  // The thresholded node without a count is listed once, for the prediction's note; with a count it is not, and
  // the node without a threshold never is (every box is exactly its candidates).
  EXPECT_EQ(analyze(graph({}, -1)).nms_every_box, std::vector<int>{0});
  EXPECT_TRUE(analyze(graph({{"nms", 50}}, -1)).nms_every_box.empty());
  EXPECT_TRUE(analyze(graph({}, 20)).nms_every_box.empty());
}

TEST(Analyze, EinsumMoreOperandsAndReductions) {
  GraphBuilder b;
  b.f32("a", {2, 3}, 'x').f32("b", {3, 4}, 'x').f32("c", {4, 5}, 'x').f32("y", {2, 5});
  b.f32("t", {3, 2}).f32("s", {2});
  b.node("Einsum", {"a", "b", "c"}, {"y"}, {{"equation", std::string("ij,jk,kl->il")}});
  b.node("Einsum", {"a"}, {"t"}, {{"equation", std::string("ij->ji")}});
  b.node("Einsum", {"a"}, {"s"}, {{"equation", std::string("ij->i")}});
  GraphCost c = analyze(b.build());
  // (ij,jk -> ik): 2*2*3*4 = 48; (ik,kl -> il): 2*2*4*5 = 80.
  EXPECT_DOUBLE_EQ(c.nodes[0].flops, 128);
  EXPECT_EQ(c.nodes[1].family, OpFamily::data_movement);
  EXPECT_DOUBLE_EQ(c.nodes[1].flops, 0);
  EXPECT_EQ(c.nodes[2].family, OpFamily::reduce);
  EXPECT_DOUBLE_EQ(c.nodes[2].flops, 6);

  GraphBuilder bad;
  bad.f32("a", {2, 3}, 'x').f32("b", {4, 5}, 'x').f32("y", {2, 5});
  bad.node("Einsum", {"a", "b"}, {"y"}, {{"equation", std::string("ij,jk->ik")}});
  EXPECT_THROW(analyze(bad.build()), InputError);
}

TEST(OpFamilyNames, RoundTripAndReject) {
  for (OpFamily f : {OpFamily::conv, OpFamily::conv_transpose, OpFamily::gemm, OpFamily::norm, OpFamily::elementwise,
                     OpFamily::pool, OpFamily::reduce, OpFamily::softmax, OpFamily::data_movement, OpFamily::rnn,
                     OpFamily::view, OpFamily::unknown})
    EXPECT_EQ(op_family_from_string(to_string(f)), f);
  EXPECT_EQ(to_string(OpFamily::data_movement), "data_movement");
  EXPECT_THROW(op_family_from_string("convolution"), InputError);
}

TEST(FeatureNames, UniqueShortAndCarriedByEveryNode) {
  for (OpFamily f : {OpFamily::conv, OpFamily::gemm, OpFamily::pool, OpFamily::norm, OpFamily::elementwise,
                     OpFamily::reduce, OpFamily::softmax, OpFamily::data_movement, OpFamily::rnn}) {
    auto names = feature::names(f);
    EXPECT_FALSE(names.empty()) << to_string(f);
    std::set<std::string_view> unique(names.begin(), names.end());
    EXPECT_EQ(unique.size(), names.size()) << to_string(f);
    for (auto n : names) EXPECT_LE(n.size(), 15u) << n;  // fits the small-string buffer
  }
  EXPECT_TRUE(feature::names(OpFamily::view).empty());
  auto conv = feature::names(OpFamily::conv);
  for (auto key : {feature::in_channels, feature::out_channels, feature::kernel_h, feature::kernel_w,
                   feature::kernel_d, feature::stride_h, feature::stride_w, feature::dilation_h, feature::pad_h,
                   feature::pad_w, feature::groups, feature::in_h, feature::in_w, feature::out_h, feature::out_w,
                   feature::batch})
    EXPECT_NE(std::find(conv.begin(), conv.end(), key), conv.end()) << key;
}

TEST(OpTable, CoversEveryOpOfTheIssue) {
  for (const char* op :
       {"Conv", "ConvTranspose", "Gemm", "MatMul", "Einsum", "BatchNormalization", "LayerNormalization",
        "InstanceNormalization", "GroupNormalization", "Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "Erf", "Gelu",
        "HardSwish", "HardSigmoid", "Softplus", "Clip", "Mish", "Elu", "Selu", "Exp", "Log", "Sqrt", "Pow", "Neg",
        "Abs", "Reciprocal", "Floor", "Ceil", "Not", "Sign", "Sin", "Cos", "MaxPool", "AveragePool", "GlobalMaxPool",
        "GlobalAveragePool", "LpPool", "GlobalLpPool", "LRN", "Softmax", "LogSoftmax", "Add", "Sub", "Mul", "Div",
        "Max", "Min", "Sum", "Mean", "Equal", "Less", "Greater", "Where", "And", "Or", "Mod", "ReduceMean",
        "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare",
        "ArgMax", "ArgMin", "Concat", "Split", "Slice", "Gather", "GatherElements", "ScatterND", "Transpose",
        "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Pad", "Resize", "Upsample", "Tile", "Expand", "Dropout",
        "LSTM", "GRU", "RNN", "Cast", "Identity", "CumSum", "TopK", "NonZero", "Range", "Trilu", "OneHot",
        "MaxRoiPool", "RoiAlign", "NonMaxSuppression", "Softsign", "ThresholdedRelu", "Celu", "Shrink", "QuantizeLinear", "DequantizeLinear", "Shape",
        "Constant", "ConstantOfShape", "Size"})
    EXPECT_TRUE(is_known_op(op)) << op;
}

TEST(DataMovement, ScatterOneHotNonZeroRangeUpsample) {
  GraphBuilder b;
  b.f32("x", {4, 6}, 'x').tensor("idx", DType::i64, {2, 1}, 'x').f32("upd", {2, 6}, 'x').f32("sc", {4, 6});
  b.tensor("cls", DType::i64, {5}, 'x').tensor("depth", DType::i64, {}, 'x').f32("vals", {2}, 'x').f32("oh", {5, 10});
  b.tensor("nz", DType::i64, {2, 24});
  b.f32("im", {1, 2, 3, 3}, 'x').f32("scales", {4}, 'w').f32("up", {1, 2, 6, 6});
  b.node("ScatterND", {"x", "idx", "upd"}, {"sc"});
  b.node("OneHot", {"cls", "depth", "vals"}, {"oh"});
  b.node("NonZero", {"x"}, {"nz"});
  b.node("Upsample", {"im", "scales"}, {"up"}, {{"mode", std::string("nearest")}});
  GraphCost c = analyze(b.build());
  for (const auto& n : c.nodes) {
    EXPECT_EQ(n.family, OpFamily::data_movement) << n.op;
    EXPECT_DOUBLE_EQ(n.flops, 0) << n.op;
    EXPECT_TRUE(n.warnings.empty()) << n.op;
  }
  EXPECT_EQ(c.nodes[0].bytes_read, 96 + 16 + 48);
  EXPECT_EQ(c.nodes[0].bytes_written, 96);
  EXPECT_EQ(c.nodes[1].bytes_written, 200);
  EXPECT_EQ(c.nodes[2].bytes_written, 48 * 8);
  EXPECT_EQ(c.nodes[3].bytes_read, 72 + 16);
  EXPECT_EQ(c.nodes[3].params, 0);  // Resize/Upsample scales are not weights
  EXPECT_EQ(feature::value_or(c.nodes[3], feature::elements), 72);
}

TEST(DataMovement, ConstantOfShapeFoldsOrFills) {
  GraphBuilder b;
  b.f32("x", {2, 8}, 'x').ints("shape", {2, 8}).f32("zeros", {2, 8}).f32("y", {2, 8});
  b.tensor("dyn", DType::i64, {2}).f32("fill", {2, 8});
  b.node("ConstantOfShape", {"shape"}, {"zeros"});     // constant input: folded at load time
  b.node("Add", {"x", "zeros"}, {"y"});
  b.node("Shape", {"x"}, {"dyn"});
  b.node("ConstantOfShape", {"dyn"}, {"fill"});         // Shape output is known before the run too
  GraphCost c = analyze(b.build());
  EXPECT_EQ(c.nodes[0].family, OpFamily::view);
  EXPECT_EQ(c.nodes[0].bytes_written, 0);
  EXPECT_EQ(c.nodes[1].family, OpFamily::elementwise);
  EXPECT_EQ(c.nodes[1].weight_bytes, 0);  // a folded constant, not a weight
  EXPECT_EQ(c.nodes[1].params, 0);
  EXPECT_EQ(c.nodes[3].family, OpFamily::view);

  GraphBuilder r;  // a ConstantOfShape whose shape comes from runtime data is a real fill kernel
  r.tensor("n", DType::i64, {2}, 'x').f32("fill", {k_unknown_dim, k_unknown_dim});
  r.node("ConstantOfShape", {"n"}, {"fill"});
  GraphCost rc = analyze(r.build());
  EXPECT_EQ(rc.nodes[0].family, OpFamily::data_movement);
  EXPECT_EQ(rc.nodes[0].bytes_read, 16);
  EXPECT_EQ(rc.unknown_shape_tensors, 1);
  EXPECT_FALSE(rc.nodes[0].warnings.empty());
}

TEST(NodeCostTest, IntensityIsFlopsPerByte) {
  NodeCost c;
  EXPECT_DOUBLE_EQ(c.intensity(), 0);  // no bytes: 0, not a division by zero
  c.flops = 100;
  c.bytes_read = 30;
  c.bytes_written = 20;
  EXPECT_DOUBLE_EQ(c.intensity(), 2);
}

// com.microsoft Attention with a KV cache: projection, scores over past + new keys, softmax, mix with V.
TEST(Analyze, MicrosoftAttentionCountsProjectionAndAttentionOverThePast) {
  GraphBuilder b;
  b.f32("x", {2, 5, 64}, 'x').f32("w", {64, 192}, 'w').f32("bias", {192}, 'w').f32("past", {2, 2, 4, 3, 16}, 'x');
  b.f32("y", {2, 5, 64}).f32("present", {2, 2, 4, 8, 16});
  b.node("Attention", {"x", "w", "bias", "", "past"}, {"y", "present"}, {{"num_heads", int64_t{4}}}, "com.microsoft");
  GraphCost c = analyze(b.build());
  const NodeCost& n = c.nodes[0];
  EXPECT_EQ(n.family, OpFamily::gemm);
  const double proj = 2.0 * 2 * 5 * 64 * 192 + 2 * 5 * 192;
  const double t = 3 + 5;  // past + new tokens
  const double att = 2.0 * 2 * 4 * 5 * t * 16 * 2 + 5.0 * 2 * 4 * 5 * t;
  EXPECT_DOUBLE_EQ(n.flops, proj + att);
  EXPECT_EQ(n.params, 64 * 192 + 192);
  ASSERT_TRUE(n.gemm);
  EXPECT_EQ(n.gemm->m, 10);
  EXPECT_EQ(n.gemm->k, 64);
  EXPECT_NEAR(2.0 * n.gemm->m * n.gemm->n * n.gemm->k, n.flops, 2.0 * 10 * 64);
  EXPECT_TRUE(c.complete());
}

// FusedMatMul as ONNX Runtime's MatmulTransposeFusion writes it: transBatchA reads [M, batch, K].
TEST(Analyze, FusedMatMulTransBatchReadsTheLeadingDimAsM) {
  GraphBuilder b;
  b.f32("a", {16, 4, 8}, 'x').f32("b", {4, 8, 16}, 'x').f32("y", {4, 16, 16});
  b.node("FusedMatMul", {"a", "b"}, {"y"}, {{"transBatchA", int64_t{1}}}, "com.microsoft");
  GraphCost c = analyze(b.build());
  ASSERT_TRUE(c.nodes[0].gemm);
  EXPECT_EQ(c.nodes[0].gemm->batch, 4);
  EXPECT_EQ(c.nodes[0].gemm->m, 16);
  EXPECT_EQ(c.nodes[0].gemm->k, 8);
  EXPECT_EQ(c.nodes[0].gemm->n, 16);
}
