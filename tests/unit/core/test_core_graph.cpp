#include <gtest/gtest.h>

#include "perfpred/core/graph.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;

TEST(Graph, TensorIndexAndShape) {
  Graph g;
  Tensor t;
  t.name = "x";
  t.dtype = DType::f16;
  t.shape = {2, 3};
  t.has_shape = true;
  int id = g.add_tensor(t);
  EXPECT_EQ(g.find_tensor("x"), id);
  EXPECT_EQ(g.find_tensor("y"), -1);
  EXPECT_EQ(g.tensors[id].bytes().value(), 12);
  EXPECT_EQ(shape_to_string(g.tensors[id]), "[2, 3]");
  EXPECT_THROW(g.add_tensor(t), InternalError);
}

TEST(Graph, UnknownDimHasNoNumel) {
  Tensor t;
  t.shape = {k_unknown_dim, 3};
  t.has_shape = true;
  EXPECT_FALSE(t.shape_known());
  EXPECT_FALSE(t.numel().has_value());
  EXPECT_EQ(shape_to_string(t), "[?, 3]");
}

TEST(DType, OnnxCodes) {
  EXPECT_EQ(dtype_from_onnx(1), DType::f32);
  EXPECT_EQ(dtype_from_onnx(10), DType::f16);
  EXPECT_EQ(dtype_from_onnx(16), DType::bf16);
  EXPECT_EQ(dtype_size(DType::bf16), 2);
  EXPECT_EQ(dtype_from_string(to_string(DType::i64)), DType::i64);
}

TEST(DType, FourBitTypesPackTwoElementsToAByte) {
  // ONNX's UINT4 (21), INT4 (22) and FLOAT4E2M1 (23): 4 bits an element, a tensor's bytes rounded up.
  EXPECT_EQ(dtype_from_onnx(21), DType::u4);
  EXPECT_EQ(dtype_from_onnx(22), DType::i4);
  EXPECT_EQ(dtype_from_onnx(23), DType::f4);
  EXPECT_EQ(dtype_bits(DType::i4), 4);
  EXPECT_EQ(dtype_bits(DType::f16), 16);
  EXPECT_EQ(dtype_bits(DType::unknown), 0);
  EXPECT_EQ(dtype_from_string(to_string(DType::u4)), DType::u4);
  Tensor t;
  t.dtype = DType::i4;
  t.shape = {3, 5};
  t.has_shape = true;
  EXPECT_EQ(t.bytes(), 8);  // 15 elements, 60 bits
  t.shape = {64, 64};
  EXPECT_EQ(t.bytes(), 2048);
}

TEST(DType, TwoBitTypesPackFourElementsToAByte) {
  // Opset 24's FLOAT8E8M0 (24) is an 8-bit float; opsets 25-26 add UINT2 (25) and INT2 (26).
  EXPECT_EQ(dtype_from_onnx(24), DType::f8);
  EXPECT_EQ(dtype_from_onnx(25), DType::u2);
  EXPECT_EQ(dtype_from_onnx(26), DType::i2);
  EXPECT_EQ(dtype_from_onnx(27), DType::unknown);
  EXPECT_EQ(dtype_bits(DType::u2), 2);
  EXPECT_EQ(dtype_size(DType::i2), 0);
  EXPECT_EQ(dtype_from_string(to_string(DType::i2)), DType::i2);
  EXPECT_EQ(to_string(DType::u2), "uint2");
  Tensor t;
  t.dtype = DType::i2;
  t.shape = {3, 5};
  t.has_shape = true;
  EXPECT_EQ(t.bytes(), 4);  // 15 elements, 30 bits
  t.shape = {64, 64};
  EXPECT_EQ(t.bytes(), 1024);
}

TEST(Graph, NmsCandidatesComeFromTheCountsOnlyBehindAScoreThreshold) {
  Graph g;
  Node filtered;
  filtered.name = "nms";
  filtered.op = "NonMaxSuppression";
  filtered.inputs = {0, 1, 2, 3, 4};
  Node plain = filtered;
  plain.name = "plain";
  plain.inputs = {0, 1, 2, -1, -1};  // an omitted score_threshold is no threshold
  EXPECT_TRUE(nms_filters_by_score(filtered));
  EXPECT_FALSE(nms_filters_by_score(plain));
  EXPECT_EQ(nms_candidates(g, filtered, 1000), 1000);  // no count: every box
  g.nms_candidates_all = 40;
  EXPECT_EQ(nms_candidates(g, filtered, 1000), 40);
  g.nms_candidates["nms"] = 70;
  EXPECT_EQ(nms_candidates(g, filtered, 1000), 70);
  EXPECT_EQ(nms_candidates(g, filtered, 50), 50);  // capped at the boxes
  EXPECT_EQ(nms_candidates(g, plain, 1000), 1000);
}
