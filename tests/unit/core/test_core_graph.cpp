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
