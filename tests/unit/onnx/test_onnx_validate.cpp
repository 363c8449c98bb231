// validate_node: nodes that break their op's spec are InputErrors naming the node, its op and the
// attribute or input, never an internal error or a silently wrong shape. One test per rule family, and
// one that valid edge cases of the same rules still import.
#include <gtest/gtest.h>

#include "perfpred/onnx/importer.hpp"
#include "perfpred/util/error.hpp"

using perfpred::Graph;
using perfpred::InputError;
namespace oi = perfpred::onnx_import;

namespace {

Graph imp(const std::string& opset, const std::string& sig, const std::string& body) {
  std::string text = "<ir_version: 8, opset_import: [\"\" : " + opset + "]>\ng " + sig + " {\n" + body + "\n}\n";
  return oi::import_text(text);
}

// The import must fail with one InputError line that names the model, the node and every fragment.
void expect_bad(const std::string& opset, const std::string& sig, const std::string& body,
                std::initializer_list<std::string> fragments) {
  try {
    imp(opset, sig, body);
    ADD_FAILURE() << "no InputError for:\n" << body;
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("<text>: node '", 0), 0u) << msg;
    for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  }
}

const char* k_x2 = "(float[4, 16] x) => (float[?] y)";
const char* k_x4 = "(float[1, 3, 32, 32] x) => (float[?] y)";

}  // namespace

TEST(OnnxValidate, AxesOutOfRange) {
  expect_bad("13", k_x2, "y = Flatten <axis = 3> (x)", {"node 'Flatten_0' (Flatten)", "'axis' = 3", "[-2, 2]"});
  expect_bad("13", k_x2, "y = Flatten <axis = -9> (x)", {"(Flatten)", "'axis' = -9"});
  expect_bad("13", k_x4, "y = Concat <axis = 7> (x, x)", {"(Concat)", "'axis' = 7", "[-4, 3]"});
  expect_bad("13", k_x2, R"(i = Constant <value = int64[2] {0, 1}> ()
  y = Gather <axis = 12> (x, i))", {"(Gather)", "'axis' = 12"});
  expect_bad("13", k_x2, "y = GatherElements <axis = 9> (x, x)", {"(GatherElements)", "'axis' = 9"});
  expect_bad("13", k_x2, "y = Softmax <axis = 9> (x)", {"(Softmax)", "'axis' = 9"});
  expect_bad("13", k_x2, "y = LogSoftmax <axis = -9> (x)", {"(LogSoftmax)", "'axis' = -9"});
  expect_bad("17", k_x2, "y = LayerNormalization <axis = 5> (x, x)", {"(LayerNormalization)", "'axis' = 5"});
  expect_bad("13", "(float[4, 16] x) => (float[?] y, float[?] z)", "y, z = Split <axis = 9> (x)", {"(Split)", "'axis' = 9"});
  expect_bad("13", k_x2, "y = ArgMax <axis = 2> (x)", {"(ArgMax)", "'axis' = 2"});
  expect_bad("13", k_x2, "y = ReduceMean <axes = [5]> (x)", {"(ReduceMean)", "'axes' [5]"});
  expect_bad("13", k_x2, "y = ReduceMean <axes = [1, -1]> (x)", {"(ReduceMean)", "twice"});
  expect_bad("13", k_x2, R"(a = Constant <value = int64[1] {9}> ()
  y = ReduceSum (x, a))", {"(ReduceSum)", "axes input [9]"});
  expect_bad("13", k_x2, R"(a = Constant <value = int64[1] {7}> ()
  y = Squeeze (x, a))", {"(Squeeze)", "axes input [7]"});
  expect_bad("13", k_x2, R"(a = Constant <value = int64[1] {0}> ()
  y = Squeeze (x, a))", {"(Squeeze)", "size 4, not 1"});
  expect_bad("13", k_x2, R"(a = Constant <value = int64[1] {9}> ()
  y = Unsqueeze (x, a))", {"(Unsqueeze)", "axes input [9]", "rank-3 output"});
  expect_bad("11", k_x2, "y = Unsqueeze <axes = [0, 0]> (x)", {"(Unsqueeze)", "twice"});
  expect_bad("13", k_x2, R"(a = Constant <value = int64 {9}> ()
  y = CumSum (x, a))", {"(CumSum)", "axis input = 9"});
  expect_bad("13", "(float[4, 16] x) => (float[?] y, int64[?] z)", R"(k = Constant <value = int64[1] {3}> ()
  y, z = TopK <axis = 4> (x, k))", {"(TopK)", "'axis' = 4"});
}

TEST(OnnxValidate, TransposePerm) {
  expect_bad("13", k_x2, "y = Transpose <perm = [1, 1]> (x)", {"(Transpose)", "'perm' [1,1]", "twice"});
  expect_bad("13", k_x4, "y = Transpose <perm = [0, 1, 5, 2]> (x)", {"(Transpose)", "has 5, out of range [0, 3]"});
  expect_bad("13", k_x4, "y = Transpose <perm = [0, 1]> (x)", {"(Transpose)", "2 values for rank-4"});
}

TEST(OnnxValidate, ConvAndPoolAttributes) {
  const std::string conv = "(float[1, 3, 32, 32] x, float[8, 3, 3, 3] w) => (float[?] y)";
  expect_bad("13", conv, "y = Conv <strides = [0, 0]> (x, w)", {"(Conv)", "'strides' [0,0]", ">= 1"});
  expect_bad("13", conv, "y = Conv <dilations = [0, 0]> (x, w)", {"(Conv)", "'dilations' [0,0]"});
  expect_bad("13", conv, "y = Conv <pads = [-5, -5, -5, -5]> (x, w)", {"(Conv)", "'pads' [-5,-5,-5,-5]", "negative"});
  expect_bad("13", conv, "y = Conv <pads = [1, 1]> (x, w)", {"(Conv)", "'pads' [1,1] has 2 values", "needs 4"});
  expect_bad("13", conv, "y = Conv <group = 0> (x, w)", {"(Conv)", "'group' = 0"});
  expect_bad("13", conv, "y = Conv <kernel_shape = [5, 5]> (x, w)", {"(Conv)", "'kernel_shape' [5,5]", "weight"});
  expect_bad("13", "(float[1, 3, 32, 32] x, float[8, 5, 3, 3] w) => (float[?] y)", "y = Conv (x, w)",
             {"(Conv)", "3 channels", "expects 5"});
  expect_bad("13", "(float[1, 3, 32, 32] x, float[8, 3, 64, 64] w) => (float[?] y)", "y = Conv (x, w)",
             {"(Conv)", "kernel spans 64", "only 32"});
  expect_bad("13", conv, "y = Conv <dilations = [20, 20]> (x, w)", {"(Conv)", "dilated kernel spans 41"});
  expect_bad("13", k_x4, "y = MaxPool <kernel_shape = [0, 0]> (x)", {"(MaxPool)", "'kernel_shape' [0,0]"});
  expect_bad("13", k_x4, "y = MaxPool <kernel_shape = [2, 2], strides = [0, 0]> (x)", {"(MaxPool)", "'strides' [0,0]"});
  expect_bad("13", k_x4, "y = MaxPool (x)", {"(MaxPool)", "'kernel_shape' is required"});
  expect_bad("13", k_x4, "y = AveragePool <kernel_shape = [2, 2, 2]> (x)", {"(AveragePool)", "3 values", "2 spatial dims"});
  expect_bad("13", "(float[1, 3, 4, 4] x) => (float[?] y)", "y = MaxPool <kernel_shape = [8, 8]> (x)",
             {"(MaxPool)", "kernel spans 8", "only 4"});
}

TEST(OnnxValidate, BroadcastMismatch) {
  expect_bad("13", "(float[1, 3, 32, 32] a, float[1, 5, 32, 32] b) => (float[?] y)", "y = Add (a, b)",
             {"(Add)", "'a' [1,3,32,32]", "'b' [1,5,32,32]", "do not broadcast"});
  expect_bad("13", "(float[4, 3] a, float[5, 1] b) => (float[?] y)", "y = Mul (a, b)", {"(Mul)", "do not broadcast"});
  // The third input of a variadic op is checked against the broadcast of the first two.
  expect_bad("13", "(float[4, 1] a, float[1, 3] b, float[5] c) => (float[?] y)", "y = Sum (a, b, c)", {"(Sum)", "'c' [5]"});
  expect_bad("13", k_x2, R"(s = Constant <value = int64[2] {3, 16}> ()
  y = Expand (x, s))", {"(Expand)", "does not broadcast to shape [3,16]"});
}

TEST(OnnxValidate, ConcatNonAxisDims) {
  expect_bad("13", "(float[1, 3, 32, 32] a, float[2, 3, 32, 32] b) => (float[?] y)", "y = Concat <axis = 1> (a, b)",
             {"(Concat)", "'b' [2,3,32,32]", "dim 0", "axis 1"});
  expect_bad("13", "(float[1, 3, 32, 32] a, float[1, 3, 32] b) => (float[?] y)", "y = Concat <axis = 1> (a, b)",
             {"(Concat)", "rank 3"});
}

TEST(OnnxValidate, ReshapeElementCount) {
  expect_bad("13", k_x4, R"(s = Constant <value = int64[2] {5, -1}> ()
  y = Reshape (x, s))", {"(Reshape)", "shape [5,-1]", "3072 elements"});
  expect_bad("13", k_x4, R"(s = Constant <value = int64[2] {100, 30}> ()
  y = Reshape (x, s))", {"(Reshape)", "3000 elements", "3072"});
  expect_bad("13", k_x4, R"(s = Constant <value = int64[2] {-1, -1}> ()
  y = Reshape (x, s))", {"(Reshape)", "more than one -1"});
  expect_bad("13", k_x4, R"(s = Constant <value = int64[2] {-2, 3072}> ()
  y = Reshape (x, s))", {"(Reshape)", "-2"});
  expect_bad("13", k_x2, R"(s = Constant <value = int64[3] {0, 0, 0}> ()
  y = Reshape (x, s))", {"(Reshape)", "copies dim 2"});
}

TEST(OnnxValidate, SliceAndSplitRanges) {
  const char* slice_axes = R"(st = Constant <value = int64[1] {0}> ()
  en = Constant <value = int64[1] {1}> ()
  ax = Constant <value = int64[1] {9}> ()
  y = Slice (x, st, en, ax))";
  expect_bad("13", k_x4, slice_axes, {"(Slice)", "axes [9]"});
  expect_bad("13", k_x4, R"(st = Constant <value = int64[1] {0}> ()
  en = Constant <value = int64[1] {1}> ()
  ax = Constant <value = int64[1] {1}> ()
  sp = Constant <value = int64[1] {0}> ()
  y = Slice (x, st, en, ax, sp))", {"(Slice)", "0 step"});
  expect_bad("13", k_x4, R"(st = Constant <value = int64[2] {0, 0}> ()
  en = Constant <value = int64[1] {1}> ()
  y = Slice (x, st, en))", {"(Slice)", "differ in length"});
  const char* sig = "(float[4, 16] x) => (float[?] y, float[?] z)";
  expect_bad("13", sig, R"(sp = Constant <value = int64[2] {5, 5}> ()
  y, z = Split <axis = 1> (x, sp))", {"(Split)", "[5,5] sums to 10", "is 16"});
  expect_bad("13", sig, R"(sp = Constant <value = int64[3] {4, 4, 8}> ()
  y, z = Split <axis = 1> (x, sp))", {"(Split)", "3 sizes for 2 outputs"});
  expect_bad("11", sig, "y, z = Split <axis = 1, split = [20, -4]> (x)", {"(Split)", "'split' [20,-4]", "negative"});
}

TEST(OnnxValidate, NormalizationParameterLengths) {
  expect_bad("13", "(float[4, 16] x, float[7] s, float[7] b, float[7] m, float[7] v) => (float[?] y)",
             "y = BatchNormalization (x, s, b, m, v)", {"(BatchNormalization)", "'s' [7]", "length 16"});
  expect_bad("13", "(float[2, 16, 8, 8] x, float[16] s, float[15] b) => (float[?] y)",
             "y = InstanceNormalization (x, s, b)", {"(InstanceNormalization)", "'b' [15]", "length 16"});
}

TEST(OnnxValidate, DepthToSpaceBlocksize) {
  expect_bad("13", k_x2, "y = DepthToSpace <blocksize = 0> (x)", {"(DepthToSpace)", "'blocksize' = 0"});
  expect_bad("13", "(float[1, 12, 4, 4] x) => (float[?] y)", "y = DepthToSpace <blocksize = 3> (x)",
             {"(DepthToSpace)", "channels 12", "blocksize^2 = 9"});
  expect_bad("13", "(float[1, 3, 5, 4] x) => (float[?] y)", "y = SpaceToDepth <blocksize = 2> (x)",
             {"(SpaceToDepth)", "dim 2 (5)", "blocksize 2"});
}

TEST(OnnxValidate, MatMulGemmEinsumInnerDims) {
  expect_bad("13", "(float[4, 16] a, float[8, 4] b) => (float[?] y)", "y = MatMul (a, b)",
             {"(MatMul)", "inner dimensions differ", "16", "8"});
  expect_bad("13", "(float[2, 4, 16] a, float[3, 16, 4] b) => (float[?] y)", "y = MatMul (a, b)",
             {"(MatMul)", "batch dimensions", "2 vs 3"});
  expect_bad("13", "(float[4, 16] a, float[16, 8] b) => (float[?] y)", "y = Gemm <transA = 1> (a, b)",
             {"(Gemm)", "inner dimensions differ", "transA 1"});
  expect_bad("13", "(float[2, 4, 16] a, float[16, 8] b) => (float[?] y)", "y = Gemm (a, b)", {"(Gemm)", "must be 2-D"});
  expect_bad("13", "(float[4, 16] a) => (float[?] y)", "y = Einsum <equation = \"ij,jk->ik\"> (a, a)",
             {"(Einsum)", "index 'j'"});
  expect_bad("13", "(float[4, 16] a) => (float[?] y)", "y = Einsum <equation = \"ijk->i\"> (a)", {"(Einsum)", "3 letters"});
}

TEST(OnnxValidate, OtherShapeArguments) {
  expect_bad("13", k_x2, R"(p = Constant <value = int64[4] {0, -10, 0, -10}> ()
  y = Pad (x, p))", {"(Pad)", "[0,-10,0,-10]", "below zero"});
  expect_bad("13", k_x2, R"(r = Constant <value = int64[2] {2, -1}> ()
  y = Tile (x, r))", {"(Tile)", "negative"});
  expect_bad("13", k_x4, R"(sc = Constant <value = float[4] {1, 1, 0, 0}> ()
  y = Resize (x, , sc))", {"(Resize)", "scales", "> 0"});
  expect_bad("13", k_x2, R"(a = Constant <value = float {0}> ()
  b = Constant <value = float {10}> ()
  y = Range (a, b, a))", {"(Range)", "delta", "is 0"});
  expect_bad("13", "(float[4, 16] x) => (float[?] y, int64[?] z)", R"(k = Constant <value = int64[1] {1000}> ()
  y, z = TopK (x, k))", {"(TopK)", "k = 1000", "(16)"});
  expect_bad("13", "(float[2, 4, 16] x, float[1, 32, 16] w, float[1, 32, 8] r) => (float[?] y)",
             "y = LSTM <hidden_size = 0> (x, w, r)", {"(LSTM)", "'hidden_size' = 0"});
}

// The same rules must not reject valid graphs at the edges of their ranges.
TEST(OnnxValidate, ValidEdgeCasesStillImport) {
  EXPECT_NO_THROW(imp("13", k_x2, "y = Flatten <axis = 2> (x)"));
  EXPECT_NO_THROW(imp("13", k_x2, "y = Flatten <axis = -2> (x)"));
  EXPECT_NO_THROW(imp("13", k_x2, "y = Softmax <axis = -2> (x)"));
  EXPECT_NO_THROW(imp("13", "(float[1, 3, 32, 32] a, float[3, 1, 1] b) => (float[?] y)", "y = Add (a, b)"));
  EXPECT_NO_THROW(imp("13", "(float[1, 3, 2, 2] x, float[8, 3, 3, 3] w) => (float[?] y)",
                      "y = Conv <pads = [1, 1, 1, 1]> (x, w)"));  // kernel 3 fits 2 + padding
  EXPECT_NO_THROW(imp("13", "(float[1, 3, 2, 2] x, float[8, 3, 3, 3] w) => (float[?] y)",
                      "y = Conv <auto_pad = \"SAME_UPPER\"> (x, w)"));
  EXPECT_NO_THROW(imp("13", "(float[1, 6, 8, 8] x, float[6, 2, 3, 3] w) => (float[?] y)", "y = Conv <group = 3> (x, w)"));
  EXPECT_NO_THROW(imp("13", k_x4, R"(s = Constant <value = int64[3] {0, 3, -1}> ()
  y = Reshape (x, s))"));
  EXPECT_NO_THROW(imp("14", "(float[2, 4] x) => (float[?] y)", R"(s = Constant <value = int64[3] {2, 0, 1}> ()
  y = Reshape <allowzero = 0> (x, s))"));
  EXPECT_NO_THROW(imp("13", "(float[1, 3, 1] x) => (float[?] y)", "y = Squeeze (x)"));
  EXPECT_NO_THROW(imp("13", "(float[4, 16] x) => (float[?] y, float[?] z)", R"(sp = Constant <value = int64[2] {6, 10}> ()
  y, z = Split <axis = -1> (x, sp))"));
  EXPECT_NO_THROW(imp("13", k_x4, R"(st = Constant <value = int64[1] {0}> ()
  en = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {-1}> ()
  y = Slice (x, st, en, ax))"));
  EXPECT_NO_THROW(imp("13", "(float[2, 4, 16] a, float[1, 16, 4] b) => (float[?] y)", "y = MatMul (a, b)"));
  EXPECT_NO_THROW(imp("13", k_x2, R"(p = Constant <value = int64[4] {0, -4, 0, -4}> ()
  y = Pad (x, p))"));
}

TEST(OnnxValidate, RnnWeightShapes) {
  const std::string sig = "(float[2, 4, 16] x, float[1, 32, 5] w, float[1, 32, 8] r) => (float[?] y)";
  expect_bad("13", sig, "y = LSTM <hidden_size = 8> (x, w, r)", {"(LSTM)", "W input 'w' [1,32,5]", "input size 16"});
  expect_bad("13", "(float[2, 4, 16] x, float[1, 24, 16] w, float[1, 24, 8] r) => (float[?] y)",
             "y = LSTM <hidden_size = 8> (x, w, r)", {"(LSTM)", "W input 'w' [1,24,16]", "4 gates"});
  expect_bad("13", "(float[2, 4, 16] x, float[1, 24, 16] w, float[1, 24, 8] r) => (float[?] y)",
             "y = GRU <hidden_size = 8, direction = \"bidirectional\"> (x, w, r)", {"(GRU)", "[2, 3 gates"});
  EXPECT_NO_THROW(imp("13", "(float[2, 4, 16] x, float[1, 24, 16] w, float[1, 24, 8] r) => (float[?] y)",
                      "y = GRU <hidden_size = 8> (x, w, r)"));
}
