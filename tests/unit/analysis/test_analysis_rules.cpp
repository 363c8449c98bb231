// Each op's cost rule on a small model written inline as ONNX text; every expected figure is worked out
// by hand in the comment next to it. Weights are graph inputs, as in a model exported with
// export_params=False: the importer classifies them as weights by the slot that consumes them.
#include <gtest/gtest.h>

#include "analysis_test_util.hpp"

using namespace perfpred;
using namespace perfpred::test;

TEST(ConvRule, TwoDWithBias) {
  auto a = analyse_text(R"(g (float[1,3,8,8] x, float[4,3,3,3] w, float[4] b) => (float[1,4,6,6] y) {
    y = Conv(x, w, b)
  })");
  const auto& c = a.node("Conv");
  EXPECT_EQ(c.family, OpFamily::conv);
  // 2 * N*K*OH*OW * C*KH*KW = 2*1*4*36*3*9 = 7776, + bias 144.
  EXPECT_DOUBLE_EQ(c.flops, 7920);
  EXPECT_EQ(c.params, 4 * 3 * 3 * 3 + 4);
  EXPECT_EQ(c.bytes_read, (192 + 108 + 4) * 4);
  EXPECT_EQ(c.weight_bytes, (108 + 4) * 4);
  EXPECT_EQ(c.bytes_written, 144 * 4);
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->batch, 1);
  EXPECT_EQ(c.gemm->m, 36);
  EXPECT_EQ(c.gemm->n, 4);
  EXPECT_EQ(c.gemm->k, 27);
  EXPECT_EQ(attr(c, "in_channels"), 3);
  EXPECT_EQ(attr(c, "out_channels"), 4);
  EXPECT_EQ(attr(c, "kernel_h"), 3);
  EXPECT_EQ(attr(c, "kernel_w"), 3);
  EXPECT_EQ(attr(c, "kernel_d"), 1);
  EXPECT_EQ(attr(c, "out_h"), 6);
  EXPECT_EQ(attr(c, "in_w"), 8);
  EXPECT_EQ(attr(c, "has_bias"), 1);
  EXPECT_EQ(c.attrs.size(), feature::names(OpFamily::conv).size());
  EXPECT_NEAR(c.intensity(), 7920.0 / (1216 + 576), 1e-12);
  EXPECT_EQ(a.cost.total_params, 112);
  EXPECT_DOUBLE_EQ(a.cost.total_flops, 7920);
}

TEST(ConvRule, GroupedStridedPadded) {
  auto a = analyse_text(R"(g (float[2,8,10,10] x, float[8,2,3,3] w) => (float[2,8,5,5] y) {
    y = Conv<group = 4, strides = [2, 2], pads = [1, 1, 1, 1]>(x, w)
  })");
  const auto& c = a.node("Conv");
  // 2 * N*K*OH*OW * C/g*KH*KW = 2 * 2*8*25 * 2*9 = 14400.
  EXPECT_DOUBLE_EQ(c.flops, 14400);
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->batch, 4);
  EXPECT_EQ(c.gemm->m, 50);
  EXPECT_EQ(c.gemm->n, 2);
  EXPECT_EQ(c.gemm->k, 18);
  EXPECT_DOUBLE_EQ(2.0 * c.gemm->batch * c.gemm->m * c.gemm->n * c.gemm->k, c.flops);
  EXPECT_EQ(attr(c, "groups"), 4);
  EXPECT_EQ(attr(c, "stride_h"), 2);
  EXPECT_EQ(attr(c, "pad_h"), 1);
  EXPECT_EQ(attr(c, "has_bias"), 0);
  EXPECT_EQ(c.params, 8 * 2 * 9);
}

TEST(ConvRule, Depthwise) {
  auto a = analyse_text(R"(g (float[1,16,7,7] x, float[16,1,3,3] w) => (float[1,16,7,7] y) {
    y = Conv<group = 16, pads = [1, 1, 1, 1]>(x, w)
  })");
  const auto& c = a.node("Conv");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 16 * 49 * 1 * 9);  // 14112
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->batch, 16);
  EXPECT_EQ(c.gemm->n, 1);
  EXPECT_EQ(c.gemm->k, 9);
}

TEST(ConvRule, DilatedAndSamePadding) {
  auto a = analyse_text(R"(g (float[1,2,9,9] x, float[3,2,3,3] w) => (float[1,3,5,5] y) {
    y = Conv<dilations = [2, 2]>(x, w)
  })");
  const auto& c = a.node("Conv");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 3 * 25 * 2 * 9);  // 2700
  EXPECT_EQ(attr(c, "dilation_h"), 2);
  EXPECT_EQ(attr(c, "dilation_w"), 2);

  auto s = analyse_text(R"(g (float[1,2,7,7] x, float[3,2,3,3] w) => (float[1,3,7,7] y) {
    y = Conv<auto_pad = "SAME_UPPER">(x, w)
  })");
  EXPECT_EQ(attr(s.node("Conv"), "pad_h"), 1);  // total pad 2, split 1 + 1
}

TEST(ConvRule, OneDAndThreeD) {
  auto a = analyse_text(R"(g (float[1,4,16] x, float[8,4,5] w) => (float[1,8,12] y) {
    y = Conv(x, w)
  })");
  const auto& c1 = a.node("Conv");
  EXPECT_DOUBLE_EQ(c1.flops, 2.0 * 8 * 12 * 4 * 5);  // 3840
  EXPECT_EQ(attr(c1, "kernel_w"), 5);
  EXPECT_EQ(attr(c1, "kernel_h"), 1);
  EXPECT_EQ(attr(c1, "out_w"), 12);
  EXPECT_EQ(attr(c1, "out_h"), 1);

  auto b = analyse_text(R"(g (float[1,2,4,6,6] x, float[4,2,3,3,3] w) => (float[1,4,2,4,4] y) {
    y = Conv(x, w)
  })");
  const auto& c3 = b.node("Conv");
  EXPECT_DOUBLE_EQ(c3.flops, 2.0 * 4 * 32 * 2 * 27);  // 13824
  EXPECT_EQ(attr(c3, "kernel_d"), 3);
  EXPECT_EQ(attr(c3, "out_d"), 2);
  EXPECT_EQ(attr(c3, "in_d"), 4);
  ASSERT_TRUE(c3.gemm);
  EXPECT_EQ(c3.gemm->m, 32);
  EXPECT_EQ(c3.gemm->k, 54);
}

TEST(ConvTransposeRule, StridedAndGrouped) {
  auto a = analyse_text(R"(g (float[1,4,3,3] x, float[4,2,3,3] w, float[2] b) => (float[1,2,7,7] y) {
    y = ConvTranspose<strides = [2, 2]>(x, w, b)
  })");
  const auto& c = a.node("ConvTranspose");
  EXPECT_EQ(c.family, OpFamily::conv_transpose);
  // 2 * N*C*IH*IW * K*KH*KW = 2 * 4*9 * 2*9 = 1296, + bias 2*49 = 98.
  EXPECT_DOUBLE_EQ(c.flops, 1296 + 98);
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->batch, 1);
  EXPECT_EQ(c.gemm->m, 9);
  EXPECT_EQ(c.gemm->n, 18);
  EXPECT_EQ(c.gemm->k, 4);
  EXPECT_EQ(attr(c, "out_channels"), 2);
  EXPECT_EQ(attr(c, "in_channels"), 4);
  EXPECT_EQ(c.params, 4 * 2 * 9 + 2);

  auto g = analyse_text(R"(g (float[1,4,3,3] x, float[4,1,3,3] w) => (float[1,2,7,7] y) {
    y = ConvTranspose<strides = [2, 2], group = 2>(x, w)
  })");
  const auto& cg = g.node("ConvTranspose");
  EXPECT_DOUBLE_EQ(cg.flops, 2.0 * 4 * 9 * 1 * 9);  // 648
  EXPECT_EQ(cg.gemm->batch, 2);
  EXPECT_DOUBLE_EQ(2.0 * cg.gemm->batch * cg.gemm->m * cg.gemm->n * cg.gemm->k, cg.flops);
}

TEST(GemmRule, TransposedWithBias) {
  auto a = analyse_text(R"(g (float[2,5] x, float[3,5] w, float[3] b) => (float[2,3] y) {
    y = Gemm<transB = 1>(x, w, b)
  })");
  const auto& c = a.node("Gemm");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 2 * 3 * 5 + 6);
  EXPECT_EQ(c.params, 18);
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->m, 2);
  EXPECT_EQ(c.gemm->n, 3);
  EXPECT_EQ(c.gemm->k, 5);
  EXPECT_EQ(attr(c, "m"), 2);
  EXPECT_EQ(attr(c, "k"), 5);
}

TEST(MatMulRule, BatchedBroadcast) {
  auto a = analyse_text(R"(g (float[2,1,4,5] x, float[3,5,6] z) => (float[2,3,4,6] y) {
    y = MatMul(x, z)
  })");
  const auto& c = a.node("MatMul");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 6 * 4 * 6 * 5);  // batch 2x3 broadcast = 6
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->batch, 6);
  EXPECT_EQ(c.gemm->m, 4);
  EXPECT_EQ(c.gemm->n, 6);
  EXPECT_EQ(c.gemm->k, 5);
  EXPECT_EQ(attr(c, "batch"), 6);
  // Both operands activations: reads 40 + 90 floats, writes 144.
  EXPECT_EQ(c.bytes_read, (40 + 90) * 4);
  EXPECT_EQ(c.bytes_written, 144 * 4);
}

TEST(MatMulRule, NdActivationTimesMatrixIsOneFlatGemm) {
  // A channels-last MLP ([32,7,7,768] x [768,3072], ConvNeXt/Swin): cuBLAS runs one [1568,768]x[768,3072]
  // GEMM, not 224 batched [7,768] products (which pad every 7-row tile to a full one).
  auto a = analyse_text(R"(g (float[32,7,7,768] x, float[768,3072] w) => (float[32,7,7,3072] y) {
    y = MatMul(x, w)
  })");
  const auto& c = a.node("MatMul");
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->batch, 1);
  EXPECT_EQ(c.gemm->m, 32 * 7 * 7);
  EXPECT_EQ(c.gemm->n, 3072);
  EXPECT_EQ(c.gemm->k, 768);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 1568 * 3072 * 768);
  // A B operand with only unit batch dims folds too; a batched B does not.
  auto u = analyse_text(R"(g (float[4,3,5] x, float[1,5,6] w) => (float[4,3,6] y) {
    y = MatMul(x, w)
  })");
  EXPECT_EQ(u.node("MatMul").gemm->batch, 1);
  EXPECT_EQ(u.node("MatMul").gemm->m, 12);
  auto bm = analyse_text(R"(g (float[4,3,5] x, float[4,5,6] w) => (float[4,3,6] y) {
    y = MatMul(x, w)
  })");
  EXPECT_EQ(bm.node("MatMul").gemm->batch, 4);
  EXPECT_EQ(bm.node("MatMul").gemm->m, 3);
}

TEST(MatMulRule, VectorOperands) {
  auto a = analyse_text(R"(g (float[5] x, float[5,3] w) => (float[3] y) {
    y = MatMul(x, w)
  })");
  const auto& c = a.node("MatMul");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 3 * 5);
  EXPECT_EQ(c.gemm->m, 1);
  EXPECT_EQ(c.params, 15);  // a static input in MatMul's B slot is a weight
}

TEST(EinsumRule, CommonForms) {
  auto bmm = analyse_text(R"(g (float[2,3,4] x, float[2,4,5] z) => (float[2,3,5] y) {
    y = Einsum<equation = "bij,bjk->bik">(x, z)
  })");
  const auto& c = bmm.node("Einsum");
  EXPECT_EQ(c.family, OpFamily::gemm);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 2 * 3 * 4 * 5);
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->batch, 2);
  EXPECT_EQ(c.gemm->m, 3);
  EXPECT_EQ(c.gemm->n, 5);
  EXPECT_EQ(c.gemm->k, 4);

  auto attn = analyse_text(R"(g (float[1,2,3,4] q, float[1,2,5,4] k) => (float[1,2,3,5] y) {
    y = Einsum<equation = "bhid,bhjd->bhij">(q, k)
  })");
  const auto& ca = attn.node("Einsum");
  EXPECT_DOUBLE_EQ(ca.flops, 2.0 * 1 * 2 * 3 * 4 * 5);
  EXPECT_EQ(ca.gemm->batch, 2);
  EXPECT_EQ(ca.gemm->m, 3);
  EXPECT_EQ(ca.gemm->n, 5);
  EXPECT_EQ(ca.gemm->k, 4);

  auto ell = analyse_text(R"(g (float[2,3,4,5] x, float[3,5,6] z) => (float[2,3,4,6] y) {
    y = Einsum<equation = "...ij,...jk->...ik">(x, z)
  })");
  const auto& ce = ell.node("Einsum");
  ASSERT_TRUE(ce.gemm);
  EXPECT_DOUBLE_EQ(ce.flops, 2.0 * 2 * 3 * 4 * 5 * 6);
  EXPECT_EQ(ce.gemm->batch, 6);
  EXPECT_EQ(ce.gemm->m, 4);
  EXPECT_EQ(ce.gemm->n, 6);
  EXPECT_EQ(ce.gemm->k, 5);

  auto implicit = analyse_text(R"(g (float[3,4] x, float[4,5] z) => (float[3,5] y) {
    y = Einsum<equation = "ij,jk">(x, z)
  })");
  EXPECT_DOUBLE_EQ(implicit.node("Einsum").flops, 2.0 * 3 * 4 * 5);
}

TEST(NormRule, BatchNormCountsScaleAndBiasOnly) {
  auto a = analyse_text(R"(g (float[2,3,4,4] x, float[3] s, float[3] b, float[3] m, float[3] v) => (float[2,3,4,4] y) {
    y = BatchNormalization(x, s, b, m, v)
  })");
  const auto& c = a.node("BatchNormalization");
  EXPECT_EQ(c.family, OpFamily::norm);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 96);
  EXPECT_EQ(c.params, 6);  // scale + bias; not running mean/var
  EXPECT_EQ(c.bytes_read, (96 + 12) * 4);
  EXPECT_EQ(c.weight_bytes, 12 * 4);
  EXPECT_EQ(attr(c, "elements"), 96);
  EXPECT_EQ(attr(c, "outer"), 3);
  EXPECT_EQ(attr(c, "inner"), 32);
}

TEST(NormRule, LayerAndInstanceNorm) {
  auto ln = analyse_text(R"(g (float[2,4,8] x, float[8] s, float[8] b) => (float[2,4,8] y) {
    y = LayerNormalization<axis = -1>(x, s, b)
  })");
  const auto& c = ln.node("LayerNormalization");
  EXPECT_DOUBLE_EQ(c.flops, 8.0 * 64);
  EXPECT_EQ(c.params, 16);
  EXPECT_EQ(attr(c, "inner"), 8);
  EXPECT_EQ(attr(c, "outer"), 8);

  auto in = analyse_text(R"(g (float[2,3,4,4] x, float[3] s, float[3] b) => (float[2,3,4,4] y) {
    y = InstanceNormalization(x, s, b)
  })");
  const auto& ci = in.node("InstanceNormalization");
  EXPECT_DOUBLE_EQ(ci.flops, 8.0 * 96);
  EXPECT_EQ(attr(ci, "inner"), 16);
  EXPECT_EQ(attr(ci, "outer"), 6);
}

TEST(NormRule, ExportedGroupNormPatternCostedOpByOp) {
  // torch's GroupNorm(3, 6) export: Reshape to [N, G, -1], InstanceNormalization with constant unit
  // scale/bias, Reshape back, then Mul by gamma and Add beta (the trainable parameters).
  auto a = analyse_text(R"(g (float[2,6,4,4] x, float[6,1,1] gamma, float[6,1,1] beta) => (float[2,6,4,4] y) {
    s1 = Constant<value = int64[3] {2, 3, -1}>()
    r = Reshape(x, s1)
    one = Constant<value = float[3] {1.0, 1.0, 1.0}>()
    zero = Constant<value = float[3] {0.0, 0.0, 0.0}>()
    n = InstanceNormalization(r, one, zero)
    s2 = Constant<value = int64[4] {2, 6, 4, 4}>()
    r2 = Reshape(n, s2)
    m = Mul(r2, gamma)
    y = Add(m, beta)
  })");
  EXPECT_DOUBLE_EQ(a.node("InstanceNormalization").flops, 8.0 * 192);
  EXPECT_EQ(attr(a.node("InstanceNormalization"), "inner"), 32);
  EXPECT_EQ(a.node("InstanceNormalization").params, 0);  // constant ones/zeros are not trainable
  EXPECT_DOUBLE_EQ(a.node("Mul").flops, 192);
  EXPECT_DOUBLE_EQ(a.node("Add").flops, 192);
  EXPECT_EQ(a.node("Mul").params + a.node("Add").params, 12);
  EXPECT_EQ(a.cost.total_params, 12);
  for (const auto& n : a.cost.nodes)
    if (n.op == "Reshape" || n.op == "Constant") {
      EXPECT_EQ(n.family, OpFamily::view);
      EXPECT_EQ(n.bytes_read + n.bytes_written, 0);
    }
  EXPECT_DOUBLE_EQ(a.cost.total_flops, 8.0 * 192 + 192 + 192);
}

TEST(NormRule, LrnAndSoftmax) {
  auto a = analyse_text(R"(g (float[1,8,4,4] x) => (float[1,8,4,4] y) {
    y = LRN<size = 5>(x)
  })");
  EXPECT_DOUBLE_EQ(a.node("LRN").flops, (2.0 * 5 + 4) * 128);

  auto s = analyse_text(R"(g (float[2,5] x) => (float[2,5] y, float[2,5] z) {
    y = Softmax<axis = -1>(x)
    z = LogSoftmax(x)
  })");
  EXPECT_EQ(s.node("Softmax").family, OpFamily::softmax);
  EXPECT_DOUBLE_EQ(s.node("Softmax").flops, 50);
  EXPECT_DOUBLE_EQ(s.node("LogSoftmax").flops, 50);
  EXPECT_EQ(attr(s.node("Softmax"), "inner"), 5);
  EXPECT_EQ(attr(s.node("Softmax"), "outer"), 2);

  // Opset 11: default axis 1 and the input is coerced to 2-D there, so inner covers dims 1..end.
  auto old = analyse_text(R"(g (float[2,3,4] x) => (float[2,3,4] y) {
    y = Softmax(x)
  })", 11);
  EXPECT_EQ(attr(old.node("Softmax"), "inner"), 12);
}

TEST(ElementwiseRule, ActivationsPerElement) {
  // op -> flops per element (the documented convention).
  const std::vector<std::pair<std::string, double>> ops{
      {"Relu", 1},    {"LeakyRelu", 2}, {"Sigmoid", 4}, {"Tanh", 4},        {"Erf", 4},      {"HardSwish", 4},
      {"HardSigmoid", 3}, {"Softplus", 4}, {"Clip", 2}, {"Elu", 4},         {"Selu", 4},     {"Exp", 4},
      {"Log", 4},     {"Sqrt", 4},      {"Neg", 1},     {"Abs", 1},         {"Reciprocal", 1}, {"Floor", 1},
      {"Ceil", 1},    {"Sign", 1},      {"Sin", 4},     {"Cos", 4},         {"Softsign", 3}, {"ThresholdedRelu", 2},
      {"Celu", 4},    {"Shrink", 2}};
  for (const auto& [op, per] : ops) {
    auto a = analyse_text("g (float[2,3] x) => (float[2,3] y) { y = " + op + "(x) }");
    const auto& c = a.node(op);
    EXPECT_EQ(c.family, OpFamily::elementwise) << op;
    EXPECT_DOUBLE_EQ(c.flops, per * 6) << op;
    EXPECT_EQ(c.bytes_read, 24) << op;
    EXPECT_EQ(c.bytes_written, 24) << op;
  }
  auto n = analyse_text("g (bool[2,3] x) => (bool[2,3] y) { y = Not(x) }");
  EXPECT_DOUBLE_EQ(n.node("Not").flops, 6);
  EXPECT_EQ(n.node("Not").bytes_read, 6);
}

TEST(ElementwiseRule, BroadcastingArithmetic) {
  auto a = analyse_text(R"(g (float[2,3,4] x, float[4] z) => (float[2,3,4] y) {
    y = Add(x, z)
  })");
  const auto& c = a.node("Add");
  EXPECT_DOUBLE_EQ(c.flops, 24);
  EXPECT_EQ(attr(c, "broadcast"), 1);
  EXPECT_EQ(attr(c, "inner"), 4);
  EXPECT_EQ(attr(c, "outer"), 6);
  EXPECT_EQ(c.bytes_read, (24 + 4) * 4);

  auto ops = analyse_text(R"(g (float[2,1] x, float[1,3] z) => (float[2,3] s, float[2,3] d, float[2,3] mx, bool[2,3] e, float[2,3] md) {
    s = Sub(x, z)
    d = Div(x, z)
    mx = Max(x, z)
    e = Less(x, z)
    md = Mod<fmod = 1>(x, z)
  })");
  for (const char* op : {"Sub", "Div", "Max", "Less", "Mod"}) {
    EXPECT_DOUBLE_EQ(ops.node(op).flops, 6) << op;
    EXPECT_EQ(attr(ops.node(op), "broadcast"), 1) << op;
  }
  auto pr = analyse_text(R"(g (float[2,3] x, float[3] slope) => (float[2,3] y) {
    y = PRelu(x, slope)
  })");
  EXPECT_DOUBLE_EQ(pr.node("PRelu").flops, 12);
  EXPECT_EQ(pr.node("PRelu").params, 3);

  auto v = analyse_text(R"(g (float[2,2] a, float[2,2] b, float[2,2] c) => (float[2,2] s, float[2,2] m) {
    s = Sum(a, b, c)
    m = Mean(a, b, c)
  })");
  EXPECT_DOUBLE_EQ(v.node("Sum").flops, 2 * 4);
  EXPECT_DOUBLE_EQ(v.node("Mean").flops, 3 * 4);
  EXPECT_EQ(v.node("Sum").bytes_read, 3 * 16);
}

TEST(ElementwiseRule, WhereAndLogic) {
  auto a = analyse_text(R"(g (bool[2,1] c, float[2,3] x, float[1,3] z) => (float[2,3] y, bool[2,1] o) {
    y = Where(c, x, z)
    o = Or(c, c)
  })");
  const auto& w = a.node("Where");
  EXPECT_EQ(w.family, OpFamily::data_movement);
  EXPECT_DOUBLE_EQ(w.flops, 0);
  EXPECT_EQ(w.bytes_read, 2 + 24 + 12);
  EXPECT_EQ(w.bytes_written, 24);
  EXPECT_DOUBLE_EQ(a.node("Or").flops, 2);
  EXPECT_EQ(a.node("Or").bytes_read, 2);  // the same tensor twice is read once
}

TEST(PoolRule, MaxAverageGlobalLp) {
  auto a = analyse_text(R"(g (float[1,2,8,8] x) => (float[1,2,4,4] m, float[1,2,8,8] av, float[1,2,1,1] gp, float[1,2,4,4] lp) {
    m = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(x)
    av = AveragePool<kernel_shape = [3, 3], pads = [1, 1, 1, 1]>(x)
    gp = GlobalAveragePool(x)
    lp = LpPool<kernel_shape = [2, 2], strides = [2, 2]>(x)
  })");
  EXPECT_EQ(a.node("MaxPool").family, OpFamily::pool);
  EXPECT_DOUBLE_EQ(a.node("MaxPool").flops, 4 * 32);
  EXPECT_EQ(attr(a.node("MaxPool"), "kernel_h"), 2);
  EXPECT_EQ(attr(a.node("MaxPool"), "stride_h"), 2);
  EXPECT_EQ(attr(a.node("MaxPool"), "out_h"), 4);
  EXPECT_DOUBLE_EQ(a.node("AveragePool").flops, 9 * 128);
  EXPECT_EQ(attr(a.node("AveragePool"), "pad_w"), 1);
  EXPECT_DOUBLE_EQ(a.node("GlobalAveragePool").flops, 128);
  EXPECT_EQ(attr(a.node("GlobalAveragePool"), "kernel_h"), 8);
  EXPECT_DOUBLE_EQ(a.node("LpPool").flops, 2 * 4 * 32);
  EXPECT_EQ(a.node("MaxPool").bytes_read, 128 * 4);
  EXPECT_EQ(a.node("MaxPool").bytes_written, 32 * 4);
}

TEST(ReduceRule, ReductionsAndArgMax) {
  auto a = analyse_text(R"(g (float[2,3,4] x) => (float[2,4] m, float[2,1,4] ss, int64[2,3] am, float[1,1,1] l2) {
    m = ReduceMean<axes = [1], keepdims = 0>(x)
    ss = ReduceSumSquare<axes = [1]>(x)
    am = ArgMax<axis = 2, keepdims = 0>(x)
    l2 = ReduceL2(x)
  })", 13);
  const auto& m = a.node("ReduceMean");
  EXPECT_EQ(m.family, OpFamily::reduce);
  EXPECT_DOUBLE_EQ(m.flops, 24);
  EXPECT_EQ(attr(m, "inner"), 3);
  EXPECT_EQ(attr(m, "outer"), 8);
  EXPECT_DOUBLE_EQ(a.node("ReduceSumSquare").flops, 48);
  EXPECT_DOUBLE_EQ(a.node("ArgMax").flops, 24);
  EXPECT_EQ(a.node("ArgMax").bytes_written, 6 * 8);
  EXPECT_DOUBLE_EQ(a.node("ReduceL2").flops, 48);
  EXPECT_EQ(attr(a.node("ReduceL2"), "inner"), 24);
}

TEST(DataMovementRule, ConcatSplitTransposeCast) {
  auto a = analyse_text(R"(g (float[2,3] x, float[2,5] z) => (float[8,2] t, float16[2,8] h, float[2,4] s1, float[2,4] s2) {
    c = Concat<axis = 1>(x, z)
    t = Transpose<perm = [1, 0]>(c)
    h = Cast<to = 10>(c)
    s1, s2 = Split<axis = 1>(c)
  })", 13);
  const auto& c = a.node("Concat");
  EXPECT_EQ(c.family, OpFamily::data_movement);
  EXPECT_DOUBLE_EQ(c.flops, 0);
  EXPECT_EQ(c.bytes_read, 64);
  EXPECT_EQ(c.bytes_written, 64);
  EXPECT_EQ(attr(c, "elements"), 16);
  EXPECT_EQ(a.node("Transpose").bytes_written, 64);
  EXPECT_EQ(a.node("Cast").bytes_written, 32);  // float16
  EXPECT_EQ(a.node("Split").bytes_written, 64);
  EXPECT_EQ(attr(a.node("Split"), "elements"), 16);
}

TEST(DataMovementRule, GatherReadsOnlySelectedRows) {
  auto a = analyse_text(R"(g (int64[2,3] ids, float[100,8] table) => (float[2,3,8] y) {
    y = Gather(table, ids)
  })");
  const auto& c = a.node("Gather");
  EXPECT_EQ(c.params, 800);  // embedding table
  EXPECT_EQ(c.bytes_read, 48 * 4 + 6 * 8);
  EXPECT_EQ(c.weight_bytes, 48 * 4);
  EXPECT_EQ(c.bytes_written, 48 * 4);
}

TEST(DataMovementRule, SlicePadTileExpandResize) {
  auto a = analyse_text(R"(g (float[4,10] x, float[1,1,4,4] im) => (float[4,5] s, float[6,12] p, float[8,10] t, float[3,4,10] e, float[1,1,8,8] rl, float[1,1,8,8] rn) {
    st = Constant<value = int64[1] {0}>()
    en = Constant<value = int64[1] {5}>()
    ax = Constant<value = int64[1] {1}>()
    s = Slice(x, st, en, ax)
    pads = Constant<value = int64[4] {1, 1, 1, 1}>()
    p = Pad(x, pads)
    reps = Constant<value = int64[2] {2, 1}>()
    t = Tile(x, reps)
    shp = Constant<value = int64[3] {3, 4, 10}>()
    e = Expand(x, shp)
    scales = Constant<value = float[4] {1.0, 1.0, 2.0, 2.0}>()
    rl = Resize<mode = "linear">(im, , scales)
    rn = Resize<mode = "nearest">(im, , scales)
  })", 13);
  const auto& s = a.node("Slice");
  EXPECT_DOUBLE_EQ(s.flops, 0);
  EXPECT_EQ(s.bytes_read, 20 * 4 + 3 * 8);  // only the sliced part, plus the three index constants
  EXPECT_EQ(s.bytes_written, 20 * 4);
  EXPECT_EQ(s.params, 0);
  EXPECT_EQ(a.node("Pad").bytes_written, 72 * 4);
  EXPECT_EQ(a.node("Tile").bytes_written, 80 * 4);
  EXPECT_EQ(a.node("Expand").bytes_written, 120 * 4);
  // bilinear over 2 resized axes: 2 * 2^2 per output element; nearest: none.
  std::vector<double> resize_flops;
  for (const auto& n : a.cost.nodes)
    if (n.op == "Resize") resize_flops.push_back(n.flops);
  ASSERT_EQ(resize_flops.size(), 2u);
  EXPECT_DOUBLE_EQ(resize_flops[0], 8.0 * 64);  // linear
  EXPECT_DOUBLE_EQ(resize_flops[1], 0);         // nearest
  for (const auto& n : a.cost.nodes) {
    if (n.op == "Constant") {
      EXPECT_EQ(n.family, OpFamily::view);
    }
  }
  EXPECT_EQ(a.cost.total_params, 0);
}

TEST(ViewRule, NoKernelNoCost) {
  auto a = analyse_text(R"(g (float[2,3,4] x) => (float[24] y, float[2,12] f, float[2,3,4] d, float[2,3,4] i) {
    shp = Constant<value = int64[1] {24}>()
    y = Reshape(x, shp)
    f = Flatten(x)
    d = Dropout(x)
    i = Identity(x)
  })", 13);
  for (const auto& n : a.cost.nodes) {
    EXPECT_EQ(n.family, OpFamily::view) << n.op;
    EXPECT_EQ(n.bytes_read, 0) << n.op;
    EXPECT_EQ(n.bytes_written, 0) << n.op;
    EXPECT_DOUBLE_EQ(n.flops, 0) << n.op;
    EXPECT_TRUE(n.warnings.empty()) << n.op;
  }
}

TEST(RnnRule, LstmGruAndBidirectionalRnn) {
  // seq 5, batch 2, input 3, hidden 4.
  auto l = analyse_text(R"(g (float[5,2,3] x, float[1,16,3] w, float[1,16,4] r, float[1,32] b) => (float[5,1,2,4] y) {
    y = LSTM<hidden_size = 4>(x, w, r, b)
  })");
  const auto& c = l.node("LSTM");
  EXPECT_EQ(c.family, OpFamily::rnn);
  // per step and batch row: 2*16*(3+4) = 224 matmul, 2*16 = 32 bias, 24*4 = 96 gates -> 352; x 5 steps x 2 rows.
  EXPECT_DOUBLE_EQ(c.flops, 5 * 2 * 352);
  EXPECT_EQ(c.params, 48 + 64 + 32);
  ASSERT_TRUE(c.gemm);
  EXPECT_EQ(c.gemm->m, 2);
  EXPECT_EQ(c.gemm->n, 16);
  EXPECT_EQ(c.gemm->k, 7);
  EXPECT_EQ(attr(c, "seq_len"), 5);
  EXPECT_EQ(attr(c, "hidden"), 4);
  EXPECT_EQ(attr(c, "input_size"), 3);
  EXPECT_EQ(attr(c, "directions"), 1);
  EXPECT_EQ(attr(c, "gates"), 4);

  auto g = analyse_text(R"(g (float[5,2,3] x, float[1,12,3] w, float[1,12,4] r, float[1,24] b) => (float[5,1,2,4] y) {
    y = GRU<hidden_size = 4>(x, w, r, b)
  })");
  // 2*12*7 = 168, bias 24, gates 16*4 = 64 -> 256 per step and row.
  EXPECT_DOUBLE_EQ(g.node("GRU").flops, 5 * 2 * 256);
  EXPECT_EQ(attr(g.node("GRU"), "gates"), 3);

  auto r = analyse_text(R"(g (float[5,2,3] x, float[2,4,3] w, float[2,4,4] rr) => (float[5,2,2,4] y) {
    y = RNN<hidden_size = 4, direction = "bidirectional">(x, w, rr)
  })");
  // 2*4*7 = 56 + tanh 4*4 = 16 -> 72 per step, row and direction.
  EXPECT_DOUBLE_EQ(r.node("RNN").flops, 5 * 2 * 2 * 72);
  EXPECT_EQ(attr(r.node("RNN"), "directions"), 2);
}

TEST(MiscRule, CumSumTopKTriluOneHotRangeQuantize) {
  auto a = analyse_text(R"(g (float[3,8] x) => (float[3,8] cs, float[3,2] tv, int64[3,2] ti, float[3,8] tr, float[3,8] q) {
    ax = Constant<value = int64 {1}>()
    cs = CumSum(x, ax)
    k = Constant<value = int64[1] {2}>()
    tv, ti = TopK(x, k)
    tr = Trilu(x)
    sc = Constant<value = float {0.5}>()
    zp = Constant<value = uint8 {0}>()
    qq = QuantizeLinear(x, sc, zp)
    q = DequantizeLinear(qq, sc, zp)
  })", 13);
  EXPECT_DOUBLE_EQ(a.node("CumSum").flops, 24);
  EXPECT_EQ(attr(a.node("CumSum"), "inner"), 8);
  EXPECT_DOUBLE_EQ(a.node("TopK").flops, 24 * 1);  // ceil(log2(2)) = 1 comparison per element
  EXPECT_EQ(a.node("Trilu").family, OpFamily::data_movement);
  EXPECT_DOUBLE_EQ(a.node("QuantizeLinear").flops, 48);
  EXPECT_EQ(a.node("QuantizeLinear").bytes_written, 24);  // uint8
  EXPECT_DOUBLE_EQ(a.node("DequantizeLinear").flops, 48);
}

// The ops opsets 24 and 26 added. TensorScatter writes a [2,2,3,8] update into a [2,2,16,8] cache in place: the
// update is read (384 B) and written (384 B), the write indices read (16 B); the cache is neither read nor copied.
// Swish is 6 FLOPs an element (alpha x, the sigmoid's 4, the product); CumProd one an element along its axis;
// BitCast reinterprets the bytes and launches nothing.
TEST(NewerOpsetRules, TensorScatterSwishCumProdBitCast) {
  auto a = analyse_text(R"(g (float[2,2,16,8] cache, float[2,2,3,8] upd, int64[2] wi, float[4,5] x)
      => (float[2,2,16,8] kv, float[4,5] s, float[4,5] cp, int32[4,5] b) {
    kv = TensorScatter(cache, upd, wi)
    s = Swish<alpha = 2.0>(x)
    ax = Constant<value = int64 {1}>()
    cp = CumProd(x, ax)
    b = BitCast<to = 6>(x)
  })", 26);
  const auto& ts = a.node("TensorScatter");
  EXPECT_EQ(ts.family, OpFamily::data_movement);
  EXPECT_EQ(ts.bytes_read, 384 + 16);
  EXPECT_EQ(ts.bytes_written, 384);
  EXPECT_DOUBLE_EQ(ts.flops, 0);
  const auto& s = a.node("Swish");
  EXPECT_EQ(s.family, OpFamily::elementwise);
  EXPECT_DOUBLE_EQ(s.flops, 6 * 20);
  const auto& cp = a.node("CumProd");
  EXPECT_EQ(cp.family, OpFamily::reduce);
  EXPECT_DOUBLE_EQ(cp.flops, 20);
  const auto& b = a.node("BitCast");
  EXPECT_EQ(b.family, OpFamily::view);
  EXPECT_EQ(b.bytes_read + b.bytes_written, 0);
}
