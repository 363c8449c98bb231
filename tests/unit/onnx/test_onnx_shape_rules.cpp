// Folding of shape subgraphs and per-op shape rules, on small models written as ONNX text.
#include <gtest/gtest.h>

#include "perfpred/onnx/importer.hpp"
#include "perfpred/util/error.hpp"
#include "../../../src/onnx/shape_rules.hpp"
#include "tensor_named.hpp"

using perfpred::Graph;
using perfpred::Tensor;
namespace oi = perfpred::onnx_import;
using V = std::vector<int64_t>;

namespace {

const Tensor& T(const Graph& g, const std::string& name) { return perfpred::test::tensor_named(g, name); }
V S(const Graph& g, const std::string& name) { return T(g, name).shape; }
V I(const Graph& g, const std::string& name) {
  const Tensor& t = T(g, name);
  if (!t.int_values) throw std::runtime_error(name + " has no folded int values");
  return *t.int_values;
}

Graph imp(const std::string& opset, const std::string& sig, const std::string& body, int64_t batch = 2) {
  oi::ImportOptions o;
  o.batch = batch;
  std::string text = "<ir_version: 8, opset_import: [\"\" : " + opset + "]>\ng " + sig + " {\n" + body + "\n}\n";
  return oi::import_text(text, o);
}

void all_known(const Graph& g) {
  for (const auto& n : g.nodes)
    for (int o : n.outputs)
      if (o >= 0) {
        EXPECT_TRUE(g.tensors[static_cast<size_t>(o)].shape_known()) << n.name << " " << n.op;
      }
}

}  // namespace

// x is [2, 3, 4, 5] (batch 2); each shape op folds to known integer values.
TEST(OnnxFolding, EachShapeOpFolds) {
  Graph g = imp("13", "(float[N, 3, 4, 5] x) => (float[N, 60] y)", R"(
  s = Shape (x)
  i1 = Constant <value = int64 {1}> ()
  c = Gather <axis = 0> (s, i1)
  st = Constant <value = int64[1] {1}> ()
  en = Constant <value = int64[1] {3}> ()
  sl = Slice (s, st, en)
  ax0 = Constant <value = int64[1] {0}> ()
  cu = Unsqueeze (c, ax0)
  cat = Concat <axis = 0> (cu, sl)
  sq = Squeeze (cu, ax0)
  f = Cast <to = 1> (sq)
  fi = Cast <to = 7> (f)
  two = Constant <value = int64 {2}> ()
  add = Add (fi, two)
  sub = Sub (add, two)
  mul = Mul (sub, two)
  div = Div (mul, two)
  zero = Constant <value = int64 {0}> ()
  one = Constant <value = int64 {1}> ()
  rng = Range (zero, div, one)
  sh13 = Constant <value = int64[2] {1, 3}> ()
  ex = Expand (rng, sh13)
  sh31 = Constant <value = int64[2] {3, 1}> ()
  rs = Reshape (rng, sh31)
  cos = ConstantOfShape <value = int64[1] {7}> (sl)
  eq = Equal (rng, one)
  wh = Where (eq, two, rng)
  sq33 = Constant <value = int64[2] {3, 3}> ()
  ones = ConstantOfShape <value = int64[1] {1}> (sq33)
  tri = Trilu <upper = 0> (ones)
  n0 = Gather <axis = 0> (s, zero)
  n0u = Unsqueeze (n0, ax0)
  m1 = Constant <value = int64[1] {-1}> ()
  yshape = Concat <axis = 0> (n0u, m1)
  y = Reshape (x, yshape)
)");
  EXPECT_EQ(I(g, "s"), (V{2, 3, 4, 5}));
  EXPECT_EQ(I(g, "c"), (V{3}));
  EXPECT_EQ(S(g, "c"), V{});
  EXPECT_EQ(I(g, "sl"), (V{3, 4}));
  EXPECT_EQ(I(g, "cu"), (V{3}));
  EXPECT_EQ(I(g, "cat"), (V{3, 3, 4}));
  EXPECT_EQ(I(g, "sq"), (V{3}));
  ASSERT_TRUE(T(g, "f").float_values);
  EXPECT_EQ(*T(g, "f").float_values, (std::vector<double>{3.0}));
  EXPECT_EQ(I(g, "fi"), (V{3}));
  EXPECT_EQ(I(g, "add"), (V{5}));
  EXPECT_EQ(I(g, "sub"), (V{3}));
  EXPECT_EQ(I(g, "mul"), (V{6}));
  EXPECT_EQ(I(g, "div"), (V{3}));
  EXPECT_EQ(I(g, "rng"), (V{0, 1, 2}));
  EXPECT_EQ(S(g, "ex"), (V{1, 3}));
  EXPECT_EQ(I(g, "ex"), (V{0, 1, 2}));
  EXPECT_EQ(S(g, "rs"), (V{3, 1}));
  EXPECT_EQ(I(g, "rs"), (V{0, 1, 2}));
  EXPECT_EQ(S(g, "cos"), (V{3, 4}));
  EXPECT_EQ(I(g, "cos"), V(12, 7));
  EXPECT_EQ(I(g, "eq"), (V{0, 1, 0}));
  EXPECT_EQ(I(g, "wh"), (V{0, 2, 2}));
  EXPECT_EQ(I(g, "tri"), (V{1, 0, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(I(g, "yshape"), (V{2, -1}));
  EXPECT_EQ(S(g, "y"), (V{2, 60}));
  all_known(g);
}

// torchvision's detection transform scales an image by the min and max of its size; an exported box count's
// ReduceProd decides an If. Min, max, sum, product and mean of small constants fold, per axis too.
TEST(OnnxFolding, ReductionsOfSmallConstantsFold) {
  Graph g = imp("13", "(float[N, 3] x) => (float[N, 3] y)", R"(
  sz = Constant <value = int64[2] {512, 640}> ()
  mn = ReduceMin <keepdims = 0> (sz)
  mx = ReduceMax <keepdims = 0> (sz)
  pr = ReduceProd (sz)
  m = Constant <value = float[2, 3] {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}> ()
  rows = ReduceSum <axes = [1], keepdims = 0> (m)
  cols = ReduceMean <axes = [0]> (m)
  cmax = ReduceMax <axes = [-2], keepdims = 0> (m)
  l2 = ReduceL2 <keepdims = 0> (sz)
  y = Identity (x)
)");
  EXPECT_EQ(I(g, "mn"), (V{512}));
  EXPECT_EQ(S(g, "mn"), V{});
  EXPECT_EQ(I(g, "mx"), (V{640}));
  EXPECT_EQ(I(g, "pr"), (V{512 * 640}));
  EXPECT_EQ(S(g, "pr"), (V{1}));
  ASSERT_TRUE(T(g, "rows").float_values);
  EXPECT_EQ(*T(g, "rows").float_values, (std::vector<double>{6.0, 15.0}));
  ASSERT_TRUE(T(g, "cols").float_values);
  EXPECT_EQ(S(g, "cols"), (V{1, 3}));
  EXPECT_EQ(*T(g, "cols").float_values, (std::vector<double>{2.5, 3.5, 4.5}));
  ASSERT_TRUE(T(g, "cmax").float_values);
  EXPECT_EQ(*T(g, "cmax").float_values, (std::vector<double>{4.0, 5.0, 6.0}));
  // Norms and log-sum-exp keep their shape only.
  EXPECT_EQ(S(g, "l2"), V{});
  EXPECT_FALSE(T(g, "l2").int_values || T(g, "l2").float_values);
}

// The boxes NMS keeps are data-dependent ([K, 1], K unknown), but their second dim is 1: a Gather of known dims
// out of the Shape folds, as torchvision's exported detection models test it (`keep.shape[1] == 1`).
TEST(OnnxFolding, KnownDimsOfAPartlyKnownShapeFold) {
  Graph g = imp("13", "(float[N, 6] x) => (int64[2] y)", R"(
  nz = NonZero (x)
  t = Transpose <perm = [1, 0]> (nz)
  i1 = Constant <value = int64[1] {1}> ()
  one = Constant <value = int64[1] {1}> ()
  k = Gather <axis = 1> (t, i1)
  s = Shape (k)
  d1 = Gather <axis = 0> (s, i1)
  is_one = Equal (d1, one)
  i0 = Constant <value = int64 {0}> ()
  d0 = Gather <axis = 0> (s, i0)
  tail = Shape <start = 1> (k)
  last = Gather <axis = 0> (tail, i0)
  y = Identity (s)
)");
  EXPECT_EQ(S(g, "k"), (V{-1, 1}));
  EXPECT_EQ(I(g, "d1"), (V{1}));
  EXPECT_EQ(I(g, "is_one"), (V{1}));
  EXPECT_EQ(I(g, "last"), (V{1}));
  // The unknown dim stays unknown.
  EXPECT_FALSE(T(g, "d0").int_values);
}

// Data-dependent lengths (NonZero's nonzeros, the boxes NMS keeps, the slices Compress keeps) stay unknown unless
// the user sets them (--data-count), by node name or for every such node, each capped at the op's upper bound.
TEST(OnnxShapeRules, DataCountsSetDataDependentLengthsUpToTheirBound) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 6] x, float[1, 50, 4] boxes, float[1, 3, 50] scores, bool[4] keep, float[4, 5] rows) => (int64[2, N] nz, int64[M, 3] sel, float[K, 5] kept, int64[J, 3] none) {
  nz = NonZero (x)
  most = Constant <value = int64[1] {10}> ()
  sel = NonMaxSuppression <center_point_box = 0> (boxes, scores, most)
  kept = Compress <axis = 0> (rows, keep)
  none = NonMaxSuppression (boxes, scores)
}
)";
  const auto run = [&](std::map<std::string, int64_t> counts, int64_t all) {
    oi::ImportOptions o;
    o.data_counts = std::move(counts);
    o.data_count_all = all;
    return oi::import_text(text, o);
  };
  Graph none = run({}, -1);
  EXPECT_EQ(S(none, "nz"), (V{2, -1}));
  EXPECT_EQ(S(none, "sel"), (V{-1, 3}));
  EXPECT_EQ(S(none, "kept"), (V{-1, 5}));
  // Every node: NonZero of 12 elements keeps at most 12, NMS 1 image x 3 classes x 10 boxes, Compress 4 rows.
  Graph all = run({}, 100);
  EXPECT_EQ(S(all, "nz"), (V{2, 12}));
  EXPECT_EQ(S(all, "sel"), (V{30, 3}));
  EXPECT_EQ(S(all, "kept"), (V{4, 5}));
  // Without max_output_boxes_per_class an NMS keeps none (the spec's default 0).
  EXPECT_EQ(S(all, "none"), (V{0, 3}));
  // By name, the rest from the default.
  Graph named = run({{"NonMaxSuppression_2", 7}}, 3);
  EXPECT_EQ(S(named, "sel"), (V{7, 3}));
  EXPECT_EQ(S(named, "nz"), (V{2, 3}));
  EXPECT_EQ(S(named, "kept"), (V{3, 5}));
  // A name no data-dependent node has is an error listing those it has.
  try {
    run({{"nms", 7}}, -1);
    ADD_FAILURE() << "no error for an unknown node";
  } catch (const perfpred::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--data-count nms=7: the model has no NonZero, NonMaxSuppression, Compress or Unique"),
              std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NonMaxSuppression_2"), std::string::npos) << e.what();
  }
}

// RoiAlign and MaxRoiPool pool one [C, out_h, out_w] map per region: perfpred's own rule, run on a graph ONNX's
// inference has not seen (Faster R-CNN's RoIs get their count from --data-count only after ONNX has run, and its
// box head stayed [?, 256, 7, 7] without it).
// Unique keeps as many distinct elements (or slices along its axis) as --data-count says, at most all of them; its
// inverse_indices cover every input element or slice. Det and Multinomial shape from their input.
TEST(OnnxShapeRules, UniqueTakesADataCountDetAndMultinomialTheirInput) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[3, 4] x, float[5, 3, 3] m, float[2, 7] p) => (float[U] y) {
  y, idx, inv, cnt = Unique (x)
  rows, ridx, rinv, rcnt = Unique <axis = 0> (x)
  d = Det (m)
  s = Multinomial <sample_size = 4> (p)
}
)";
  oi::ImportOptions o;
  Graph g = oi::import_text(text, o);
  EXPECT_EQ(S(g, "y"), (V{-1}));
  EXPECT_EQ(S(g, "inv"), (V{12}));
  EXPECT_EQ(T(g, "inv").dtype, perfpred::DType::i64);
  o.data_counts = {{"Unique_1", 2}};  // the second node, by its generated name
  o.data_count_all = 100;            // capped at the 12 elements
  g = oi::import_text(text, o);
  EXPECT_EQ(S(g, "y"), (V{12}));
  EXPECT_EQ(S(g, "cnt"), (V{12}));
  EXPECT_EQ(S(g, "rows"), (V{2, 4}));
  EXPECT_EQ(S(g, "rinv"), (V{3}));
  EXPECT_EQ(S(g, "d"), (V{5}));
  EXPECT_EQ(S(g, "s"), (V{2, 4}));
  EXPECT_EQ(T(g, "s").dtype, perfpred::DType::i32);
}

TEST(OnnxShapeRules, RoiPoolingKeepsOneMapPerRegion) {
  Graph g;
  const auto tensor = [&g](const std::string& name, V shape) {
    Tensor t;
    t.name = name;
    t.dtype = perfpred::DType::f32;
    t.has_shape = !shape.empty();
    t.shape = std::move(shape);
    return g.add_tensor(std::move(t));
  };
  const int x = tensor("x", {1, 256, 10, 10}), rois = tensor("rois", {150, 4}), idx = tensor("idx", {150});
  const int r5 = tensor("r5", {7, 5}), y = tensor("y", {}), z = tensor("z", {});
  perfpred::Node align;
  align.name = "align";
  align.op = "RoiAlign";
  align.inputs = {x, rois, idx};
  align.outputs = {y};
  align.attrs = {{"output_height", int64_t{7}}, {"output_width", int64_t{7}}};
  perfpred::Node pool;
  pool.name = "pool";
  pool.op = "MaxRoiPool";
  pool.inputs = {x, r5};
  pool.outputs = {z};
  pool.attrs = {{"pooled_shape", V{2, 3}}};
  g.nodes = {align, pool};
  EXPECT_TRUE(perfpred::onnx_import::detail::infer_node(g, g.nodes[0]));
  EXPECT_TRUE(perfpred::onnx_import::detail::infer_node(g, g.nodes[1]));
  EXPECT_EQ(S(g, "y"), (V{150, 256, 7, 7}));
  EXPECT_EQ(S(g, "z"), (V{7, 256, 2, 3}));
}

// A causal attention mask built from the sequence length, as GPT-2 exports build it.
TEST(OnnxFolding, CausalMaskFromSequenceLength) {
  Graph g = imp("14", "(float[N, 6, 8] x) => (float[N, 6, 6] y)", R"(
  s = Shape (x)
  one = Constant <value = int64 {1}> ()
  len = Gather <axis = 0> (s, one)
  zero = Constant <value = int64 {0}> ()
  ax0 = Constant <value = int64[1] {0}> ()
  lu = Unsqueeze (len, ax0)
  sq = Concat <axis = 0> (lu, lu)
  ones = ConstantOfShape <value = float[1] {1.0}> (sq)
  mask = Trilu <upper = 0> (ones)
  zf = Constant <value = float {0.0}> ()
  isz = Equal (mask, zf)
  ninf = Constant <value = float {-10000.0}> ()
  add = Where (isz, ninf, zf)
  xt = Transpose <perm = [0, 2, 1]> (x)
  sc = MatMul (x, xt)
  y = Add (sc, add)
)");
  EXPECT_EQ(S(g, "mask"), (V{6, 6}));
  EXPECT_EQ(S(g, "sc"), (V{2, 6, 6}));
  EXPECT_EQ(S(g, "y"), (V{2, 6, 6}));
  all_known(g);
}

TEST(OnnxShapeRules, ReshapeZeroAndMinusOne) {
  Graph g = imp("13", "(float[N, 12, 5] x) => (float[N, 3, 4, 5] y, float[N, 60] z)", R"(
  a = Constant <value = int64[4] {0, 3, -1, 5}> ()
  y = Reshape (x, a)
  b = Constant <value = int64[2] {0, -1}> ()
  z = Reshape (x, b)
)", 4);
  EXPECT_EQ(S(g, "y"), (V{4, 3, 4, 5}));
  EXPECT_EQ(S(g, "z"), (V{4, 60}));
}

TEST(OnnxShapeRules, MatMulBroadcastAndVectorCases) {
  Graph g = imp("13", "(float[N, 1, 5, 7] a, float[3, 7, 2] b, float[7] v) => (float[N, 3, 5, 2] y, float[N, 1, 5] z)", R"(
  y = MatMul (a, b)
  z = MatMul (a, v)
)");
  EXPECT_EQ(S(g, "y"), (V{2, 3, 5, 2}));
  EXPECT_EQ(S(g, "z"), (V{2, 1, 5}));
}

TEST(OnnxShapeRules, TransposeSoftmaxSplitGatherEinsum) {
  Graph g = imp("13", "(float[N, 4, 6] x, int64[3] idx) => (float[N, 6, 4] t, float[N, 4, 2] s0, float[N, 4, 4] s1, float[N, 3, 6] gi, float[N, 4, 4] e)", R"(
  t = Transpose <perm = [0, 2, 1]> (x)
  sm = Softmax <axis = -1> (t)
  sp = Constant <value = int64[2] {2, 4}> ()
  s0, s1 = Split <axis = 2> (x, sp)
  gi = Gather <axis = 1> (x, idx)
  e = Einsum <equation = "bij,bkj->bik"> (x, x)
)");
  EXPECT_EQ(S(g, "t"), (V{2, 6, 4}));
  EXPECT_EQ(S(g, "sm"), (V{2, 6, 4}));
  EXPECT_EQ(S(g, "s0"), (V{2, 4, 2}));
  EXPECT_EQ(S(g, "s1"), (V{2, 4, 4}));
  EXPECT_EQ(S(g, "gi"), (V{2, 3, 6}));
  EXPECT_EQ(S(g, "e"), (V{2, 4, 4}));
}

// Implicit outputs (letters used once, in ASCII order as numpy orders them, after the broadcast "...") and
// "..." broadcasting.
TEST(OnnxShapeRules, EinsumImplicitOutputsAndEllipsisBroadcast) {
  Graph g = imp("13", "(float[2, 3] a, float[3, 4] b, float[7, 1, 2, 3] c, float[5, 3, 4] d, float[4, 4] q) => (float[?] i, float[?] u, float[?] e, float[?] x, float[?] t)", R"(
  i = Einsum <equation = "ij,jk"> (a, b)
  u = Einsum <equation = "Bj,ja"> (a, b)
  e = Einsum <equation = "...ij,...jk->...ik"> (c, d)
  x = Einsum <equation = "...j,jk"> (c, b)
  t = Einsum <equation = "ii"> (q)
)");
  EXPECT_EQ(S(g, "i"), (V{2, 4}));
  EXPECT_EQ(S(g, "u"), (V{2, 4}));  // numpy.einsum("Bj,ja", ...) is "Bj,ja->Ba"
  EXPECT_EQ(S(g, "e"), (V{7, 5, 2, 4}));
  EXPECT_EQ(S(g, "x"), (V{7, 1, 2, 4}));
  EXPECT_EQ(S(g, "t"), (V{}));
}

TEST(OnnxShapeRules, EinsumExplicitFormForOnnx) {
  using perfpred::onnx_import::detail::einsum_explicit;
  EXPECT_EQ(einsum_explicit("ij, jk"), "ij,jk->ik");
  EXPECT_EQ(einsum_explicit("iJ,Jk"), "iJ,Jk->ik");
  EXPECT_EQ(einsum_explicit("Ba,aA"), "Ba,aA->AB");
  EXPECT_EQ(einsum_explicit("Bj,ja"), "Bj,ja->Ba");
  EXPECT_EQ(einsum_explicit("...j,jk"), "...j,jk->...k");
  EXPECT_EQ(einsum_explicit("ii"), "ii->");
  EXPECT_EQ(einsum_explicit("bij,bkj->bik"), "bij,bkj->bik");
  EXPECT_EQ(einsum_explicit(""), "");
  EXPECT_EQ(einsum_explicit("i1,1k"), "");
  EXPECT_EQ(einsum_explicit("ij->i->j"), "");
  EXPECT_EQ(einsum_explicit("ij->i,j"), "");
}

// Opset differences: attributes before the opset that turned them into inputs.
TEST(OnnxOpsets, SliceAttributesBeforeOpset10) {
  Graph g = imp("9", "(float[N, 10, 8] x) => (float[N, 4, 8] y)", R"(
  y = Slice <starts = [2], ends = [6], axes = [1]> (x)
)");
  EXPECT_EQ(S(g, "y"), (V{2, 4, 8}));
}

TEST(OnnxOpsets, SliceInputsWithStepsAndClamping) {
  Graph g = imp("13", "(float[N, 10, 8] x) => (float[N, 5, 8] y, float[N, 10, 3] z)", R"(
  st = Constant <value = int64[1] {0}> ()
  en = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {1}> ()
  sp = Constant <value = int64[1] {2}> ()
  y = Slice (x, st, en, ax, sp)
  st2 = Constant <value = int64[1] {-1}> ()
  en2 = Constant <value = int64[1] {-9223372036854775807}> ()
  ax2 = Constant <value = int64[1] {2}> ()
  sp2 = Constant <value = int64[1] {-3}> ()
  z = Slice (x, st2, en2, ax2, sp2)
)");
  EXPECT_EQ(S(g, "y"), (V{2, 5, 8}));
  EXPECT_EQ(S(g, "z"), (V{2, 10, 3}));
}

// Found by fuzz_onnx_import: Slice built its per-axis index list for folding values even for a tensor that has
// none, so a slice of a 2^40-long axis asked for terabytes. Only a tensor with folded values needs it.
TEST(OnnxOpsets, SliceOfAHugeAxisWithoutValuesAllocatesNoIndexList) {
  Graph g = imp("13", "(float[1099511627776, 2] x) => (float[1099511627775, 2] y)", R"(
  st = Constant <value = int64[1] {1}> ()
  en = Constant <value = int64[1] {9223372036854775807}> ()
  ax = Constant <value = int64[1] {0}> ()
  y = Slice (x, st, en, ax)
)");
  EXPECT_EQ(S(g, "y"), (V{1099511627775, 2}));
}

TEST(OnnxOpsets, SqueezeUnsqueezeAxesAttributeBeforeOpset13) {
  Graph g = imp("11", "(float[N, 1, 6] x) => (float[N, 6] y, float[N, 1, 6, 1] z)", R"(
  y = Squeeze <axes = [1]> (x)
  z = Unsqueeze <axes = [-1]> (x)
)");
  EXPECT_EQ(S(g, "y"), (V{2, 6}));
  EXPECT_EQ(S(g, "z"), (V{2, 1, 6, 1}));
}

TEST(OnnxOpsets, SplitSizesAttributeVsInput) {
  Graph g11 = imp("11", "(float[N, 10] x) => (float[N, 3] a, float[N, 7] b)", R"(
  a, b = Split <axis = 1, split = [3, 7]> (x)
)");
  EXPECT_EQ(S(g11, "a"), (V{2, 3}));
  EXPECT_EQ(S(g11, "b"), (V{2, 7}));
  Graph g13 = imp("13", "(float[N, 10] x) => (float[N, 3] a, float[N, 7] b)", R"(
  sp = Constant <value = int64[2] {3, 7}> ()
  a, b = Split <axis = 1> (x, sp)
)");
  EXPECT_EQ(S(g13, "a"), (V{2, 3}));
  EXPECT_EQ(S(g13, "b"), (V{2, 7}));
  Graph even = imp("13", "(float[N, 10] x) => (float[N, 5] a, float[N, 5] b)", R"(
  a, b = Split <axis = 1> (x)
)");
  EXPECT_EQ(S(even, "b"), (V{2, 5}));
}

TEST(OnnxOpsets, PadAttributeVsInput) {
  Graph g10 = imp("10", "(float[N, 3, 8, 8] x) => (float[N, 3, 10, 12] y)", R"(
  y = Pad <pads = [0, 0, 1, 2, 0, 0, 1, 2]> (x)
)");
  EXPECT_EQ(S(g10, "y"), (V{2, 3, 10, 12}));
  Graph g13 = imp("13", "(float[N, 3, 8, 8] x) => (float[N, 3, 10, 12] y)", R"(
  p = Constant <value = int64[8] {0, 0, 1, 2, 0, 0, 1, 2}> ()
  y = Pad (x, p)
)");
  EXPECT_EQ(S(g13, "y"), (V{2, 3, 10, 12}));
}

TEST(OnnxOpsets, ClipAttributeVsInputs) {
  Graph g10 = imp("10", "(float[N, 5] x) => (float[N, 5] y)", "  y = Clip <min = 0.0, max = 6.0> (x)");
  EXPECT_EQ(S(g10, "y"), (V{2, 5}));
  Graph g13 = imp("13", "(float[N, 5] x) => (float[N, 5] y)", R"(
  lo = Constant <value = float {0.0}> ()
  hi = Constant <value = float {6.0}> ()
  y = Clip (x, lo, hi)
)");
  EXPECT_EQ(S(g13, "y"), (V{2, 5}));
  ASSERT_TRUE(T(g13, "hi").float_values);
  EXPECT_EQ(*T(g13, "hi").float_values, (std::vector<double>{6.0}));
}

TEST(OnnxOpsets, UpsampleAndResize) {
  Graph g7 = imp("7", "(float[N, 3, 4, 4] x) => (float[N, 3, 8, 8] y)", R"(
  y = Upsample <scales = [1.0, 1.0, 2.0, 2.0]> (x)
)");
  EXPECT_EQ(S(g7, "y"), (V{2, 3, 8, 8}));
  Graph g9 = imp("9", "(float[N, 3, 4, 4] x) => (float[N, 3, 8, 12] y)", R"(
  sc = Constant <value = float[4] {1.0, 1.0, 2.0, 3.0}> ()
  y = Upsample (x, sc)
)");
  EXPECT_EQ(S(g9, "y"), (V{2, 3, 8, 12}));
  Graph g13 = imp("13", "(float[N, 3, 4, 4] x) => (float[N, 3, 8, 8] y, float[N, 3, 5, 7] z)", R"(
  roi = Constant <value = float[0] {}> ()
  sc = Constant <value = float[4] {1.0, 1.0, 2.0, 2.0}> ()
  y = Resize <mode = "nearest"> (x, roi, sc)
  s = Shape (x)
  st = Constant <value = int64[1] {0}> ()
  en = Constant <value = int64[1] {2}> ()
  nc = Slice (s, st, en)
  hw = Constant <value = int64[2] {5, 7}> ()
  sizes = Concat <axis = 0> (nc, hw)
  z = Resize <mode = "linear"> (x, roi, , sizes)
)");
  EXPECT_EQ(S(g13, "y"), (V{2, 3, 8, 8}));
  EXPECT_EQ(S(g13, "z"), (V{2, 3, 5, 7}));
}

TEST(OnnxShapeRules, ConvPoolAndConvTranspose) {
  Graph g = imp("13", "(float[N, 3, 32, 32] x, float[8, 3, 3, 3] w, float[8, 4, 2, 2] tw) => (float[N, 8, 16, 16] c, float[N, 8, 8, 8] p, float[N, 16, 32, 32] t, float[N, 8, 1, 1] gp)", R"(
  c = Conv <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (x, w)
  p = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (c)
  t = ConvTranspose <strides = [2, 2], group = 4> (c, tw)
  gp = GlobalAveragePool (c)
  cp = AveragePool <kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1> (c)
)");
  EXPECT_EQ(S(g, "c"), (V{2, 8, 16, 16}));
  EXPECT_EQ(S(g, "p"), (V{2, 8, 8, 8}));
  EXPECT_EQ(S(g, "t"), (V{2, 16, 32, 32}));
  EXPECT_EQ(S(g, "gp"), (V{2, 8, 1, 1}));
  EXPECT_EQ(S(g, "cp"), (V{2, 8, 8, 8}));
}

TEST(OnnxShapeRules, LstmOutputs) {
  Graph g = imp("13", "(float[5, 2, 16] x, float[1, 128, 16] w, float[1, 128, 32] r) => (float[5, 1, 2, 32] y)", R"(
  y, yh, yc = LSTM <hidden_size = 32> (x, w, r)
)");
  EXPECT_EQ(S(g, "y"), (V{5, 1, 2, 32}));
  EXPECT_EQ(S(g, "yh"), (V{1, 2, 32}));
  EXPECT_EQ(S(g, "yc"), (V{1, 2, 32}));
}

// F.pad as torch exports it: pads [n, 2] reversed and transposed before Pad reads them (swin_t windows).
TEST(OnnxShapeRules, TransposeFoldsSmallConstantsForPad) {
  Graph g = imp("17", "(float[N, 5, 6] x) => (float[N, 8, 7] y)", R"(
  p = Constant <value = int64[3, 2] {0, 0, 1, 2, 0, 1}> ()
  t = Transpose <perm = [1, 0]> (p)
  f = Reshape (t, flat)
  flat = Constant <value = int64[1] {-1}> ()
  y = Pad (x, f)
)");
  EXPECT_EQ(I(g, "t"), (V{0, 1, 0, 0, 2, 1}));    // begins 0, 1, 0; ends 0, 2, 1
  EXPECT_EQ(S(g, "y"), (V{2, 5 + 1 + 2, 6 + 0 + 1}));
}

TEST(OnnxShapeRules, MicrosoftFusedOps) {
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[N, 16, 4, 8] a, float[N, 4, 8, 16] b, float[N, 3, 8, 8] img, float[4, 3, 3, 3] w,
   float[N, 6, 32] x, float[32, 96] qkv, float[96] qb, int32[N, 11] mask, float[2, N, 4, 5, 8] past)
    => (float[4, 16, 16] y) {
  y = com.microsoft.FusedMatMul <transBatchA = 1, transA = 0> (a2, b2)
  a2 = Squeeze (a, zero)
  b2 = Squeeze (b, zero)
  zero = Constant <value = int64[1] {0}> ()
  c = com.microsoft.FusedConv <activation = "Relu", pads = [1, 1, 1, 1]> (img, w)
  att, present = com.microsoft.Attention <num_heads = 4> (x, qkv, qb, mask, past)
}
)";
  oi::ImportOptions o;
  o.batch = 1;
  o.input_shapes["past"] = {2, 1, 4, 5, 8};
  Graph g = oi::import_text(text, o);
  EXPECT_EQ(S(g, "y"), (V{4, 16, 16}));  // a2 [16, 4, 8] read as [4, 16, 8]
  EXPECT_EQ(S(g, "c"), (V{1, 4, 8, 8}));
  EXPECT_EQ(S(g, "att"), (V{1, 6, 32}));
  EXPECT_EQ(S(g, "present"), (V{2, 1, 4, 5 + 6, 8}));
}

// ONNX Runtime's QOperator quantisation: the standard integer ops take their output types from the zero point
// (QLinearConv, QLinearMatMul, whose B is input 3) or write int32 (ConvInteger, MatMulInteger); the com.microsoft
// QLinear* ops take the float op's shape, the pools in NCHW or channels_last NHWC, QLinearConcat its inputs from
// the triples after (Y_scale, Y_zero_point). tests/cli/test_onnx_oracle.sh (quantized_ops) checks the same
// against ONNX Runtime.
TEST(OnnxShapeRules, QuantizedOps) {
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 13, "com.microsoft" : 1]>
g (float[N, 3, 8, 8] x, float[N, 5, 16] h) => (uint8[N, 6] o) {
  s = Constant <value = float {0.05}> ()
  z = Constant <value = uint8 {128}> ()
  wz = Constant <value = int8 {0}> ()
  w_shape = Constant <value = int64[4] {4, 3, 3, 3}> ()
  w = ConstantOfShape <value = int8[1] {0}> (w_shape)
  bm_shape = Constant <value = int64[2] {8, 6}> ()
  bm = ConstantOfShape <value = int8[1] {0}> (bm_shape)
  bu_shape = Constant <value = int64[2] {16, 7}> ()
  bu = ConstantOfShape <value = uint8[1] {0}> (bu_shape)
  xq = QuantizeLinear (x, s, z)
  c = QLinearConv <pads = [1, 1, 1, 1], strides = [2, 2]> (xq, s, z, w, s, wz, s, z)
  ci = ConvInteger (xq, w, z, wz)
  a = com.microsoft.QLinearAdd (c, s, z, c, s, z, s, z)
  sg = com.microsoft.QLinearSigmoid (a, s, z, s, z)
  cat = com.microsoft.QLinearConcat <axis = 1> (s, z, a, s, z, sg, s, z)
  p = com.microsoft.QLinearAveragePool <kernel_shape = [2, 2], strides = [2, 2]> (cat, s, z, s, z)
  t = Transpose <perm = [0, 2, 3, 1]> (cat)
  pn = com.microsoft.QLinearAveragePool <kernel_shape = [3, 3], pads = [1, 1, 1, 1], channels_last = 1> (t, s, z, s, z)
  gn = com.microsoft.QLinearGlobalAveragePool <channels_last = 1> (t, s, z, s, z)
  gp = com.microsoft.QLinearGlobalAveragePool (cat, s, z, s, z)
  f = Flatten (gp)
  o = QLinearMatMul (f, s, z, bm, s, wz, s, z)
  hq, hs, hz = DynamicQuantizeLinear (h)
  mi = MatMulInteger (hq, bu, hz, z)
}
)";
  oi::ImportOptions opts;
  opts.batch = 2;
  Graph g = oi::import_text(text, opts);
  all_known(g);
  EXPECT_EQ(S(g, "c"), (V{2, 4, 4, 4}));
  EXPECT_EQ(T(g, "c").dtype, perfpred::DType::u8);
  EXPECT_EQ(S(g, "ci"), (V{2, 4, 6, 6}));
  EXPECT_EQ(T(g, "ci").dtype, perfpred::DType::i32);
  EXPECT_EQ(S(g, "a"), (V{2, 4, 4, 4}));
  EXPECT_EQ(S(g, "cat"), (V{2, 8, 4, 4}));
  EXPECT_EQ(T(g, "cat").dtype, perfpred::DType::u8);
  EXPECT_EQ(S(g, "p"), (V{2, 8, 2, 2}));
  EXPECT_EQ(S(g, "pn"), (V{2, 4, 4, 8}));
  EXPECT_EQ(S(g, "gn"), (V{2, 1, 1, 8}));
  EXPECT_EQ(S(g, "gp"), (V{2, 8, 1, 1}));
  EXPECT_EQ(S(g, "o"), (V{2, 6}));
  EXPECT_EQ(T(g, "hq").dtype, perfpred::DType::u8);
  EXPECT_EQ(S(g, "hs"), V{});
  EXPECT_EQ(T(g, "hs").dtype, perfpred::DType::f32);
  EXPECT_EQ(S(g, "mi"), (V{2, 5, 7}));
  EXPECT_EQ(T(g, "mi").dtype, perfpred::DType::i32);
}

// ONNX Runtime GenAI's decoder ops (tests/cli/test_onnx_oracle.sh llm_contrib_ops checks the common forms against
// ONNX Runtime): GroupQueryAttention with one packed QKV input (the head size from (N + 2 kvN) heads) and a total
// length that is a runtime input (present's length unknown), MultiHeadAttention whose key and value come split
// into heads [B, N, L, H] (no past joins them), MatMulNBits' [..., N], RMSNorm's inv_std_var.
TEST(OnnxShapeRules, DecoderContribOps) {
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[2, 1, 256] qkv, float[2, 2, 9, 32] pk, float[2, 2, 9, 32] pv, int32[2] lens, int32 total,
   float[2, 1, 128] q, float[2, 4, 6, 32] k4, float[2, 4, 6, 16] v4, float[2, 1, 64] a, uint8[48, 2, 16] w4,
   float[96] sc, float[64] gamma) => (float[2, 1, 128] o) {
  o, present_k, present_v = com.microsoft.GroupQueryAttention <num_heads = 4, kv_num_heads = 2>
      (qkv, , , pk, pv, lens, total)
  m, mk, mv = com.microsoft.MultiHeadAttention <num_heads = 4> (q, k4, v4)
  y = com.microsoft.MatMulNBits <K = 64, N = 48, bits = 4, block_size = 32> (a, w4, sc)
  n, inv = SimplifiedLayerNormalization <axis = -1> (a, gamma)
}
)";
  Graph g = oi::import_text(text, oi::ImportOptions{});
  EXPECT_EQ(S(g, "o"), (V{2, 1, 128}));  // 256 / (4 + 2 x 2) = 32 a head
  EXPECT_EQ(S(g, "present_k"), (V{2, 2, -1, 32}));
  EXPECT_EQ(S(g, "m"), (V{2, 1, 64}));
  EXPECT_EQ(S(g, "mk"), (V{2, 4, 6, 32}));
  EXPECT_EQ(S(g, "mv"), (V{2, 4, 6, 16}));
  EXPECT_EQ(S(g, "y"), (V{2, 1, 48}));
  EXPECT_EQ(S(g, "n"), (V{2, 1, 64}));
  EXPECT_EQ(S(g, "inv"), (V{2, 1, 1}));
  EXPECT_EQ(T(g, "inv").dtype, perfpred::DType::f32);
}

// Sizes from scalar inputs and reduction attributes (tests/cli/test_onnx_oracle.sh misc_ops checks the common forms
// against ONNX Runtime): a two-sided STFT has a bin a frame sample, a window takes output_datatype, MaxUnpool's pads
// come off the output, a sum-reduced loss is a scalar.
TEST(OnnxShapeRules, AudioUnpoolAndLossSizes) {
  Graph g = imp("19",
                "(float[N, 300, 2] sig, float[N, 3, 4, 4] x, int64[N, 3, 4, 4] idx, float[N, 5, 7] p, int64[N, 7] t) "
                "=> (float[N] y)",
                R"(
  step = Constant <value = int64 {10}> ()
  len = Constant <value = int64 {32}> ()
  win = HammingWindow <output_datatype = 10> (len)
  spec = STFT <onesided = 0> (sig, step, , len)
  up = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2], pads = [0, 0, 1, 1]> (x, idx)
  loss = NegativeLogLikelihoodLoss <reduction = "sum"> (p, t)
  each = NegativeLogLikelihoodLoss <reduction = "none"> (p, t)
  y = Identity (loss)
)");
  EXPECT_EQ(S(g, "win"), (V{32}));
  EXPECT_EQ(T(g, "win").dtype, perfpred::DType::f16);
  EXPECT_EQ(S(g, "spec"), (V{2, 27, 32, 2}));  // (300 - 32) / 10 + 1 frames
  EXPECT_EQ(S(g, "up"), (V{2, 3, 7, 7}));      // 8 less the end pads
  EXPECT_EQ(S(g, "loss"), V{});
  EXPECT_EQ(S(g, "each"), (V{2, 7}));
}

// Ops revised in opsets 18-21, which the linked ONNX library (1.12, opset 17) would shape with their
// older semantics: perfpred's rules alone shape them, as ONNX Runtime does (tests/cli/test_onnx_oracle.sh
// checks the same ops in opset18_ops/opset20_ops/opset21_ops against it).
TEST(OnnxShapeRules, Opset18RevisedOps) {
  Graph g = imp("18", "(float[N, 8, 12, 16] x, float[1, 12, 16] cols) => (float[N, 8, 12, 4] y)", R"(
  ax12 = Constant <value = int64[2] {1, 2}> ()
  rmean = ReduceMean <keepdims = 1> (x, ax12)
  axe = Constant <value = int64[0] {}> ()
  rnoop = ReduceL2 <noop_with_empty_axes = 1> (x, axe)
  rall = ReduceMax <keepdims = 0> (x)
  sp0, sp1, y = Split <axis = 3, num_outputs = 3> (x)
  pads = Constant <value = int64[4] {1, 2, 3, 4}> ()
  pax = Constant <value = int64[2] {1, 3}> ()
  padded = Pad (x, pads, , pax)
  sizes = Constant <value = int64[2] {30, 20}> ()
  kar = Resize <mode = "nearest", axes = [2, 3], keep_aspect_ratio_policy = "not_larger"> (x, , , sizes)
  kas = Resize <mode = "nearest", axes = [2, 3], keep_aspect_ratio_policy = "not_smaller"> (x, , , sizes)
  sc = Constant <value = float[1] {2.5}> ()
  rsc = Resize <mode = "nearest", axes = [3]> (x, , sc)
  ccs = Constant <value = int64[2] {10, 20}> ()
  ccp = CenterCropPad <axes = [2, 3]> (x, ccs)
  img = Constant <value = int64[2] {5, 5}> ()
  blk = Constant <value = int64[2] {2, 2}> ()
  c2i = Col2Im (cols, img, blk)
  lp = LpPool <kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1> (x)
)");
  all_known(g);
  EXPECT_EQ(S(g, "rmean"), (V{2, 1, 1, 16}));
  EXPECT_EQ(S(g, "rnoop"), (V{2, 8, 12, 16}));
  EXPECT_EQ(S(g, "rall"), (V{}));
  EXPECT_EQ(S(g, "sp0"), (V{2, 8, 12, 6}));
  EXPECT_EQ(S(g, "y"), (V{2, 8, 12, 4}));
  EXPECT_EQ(S(g, "padded"), (V{2, 12, 12, 22}));
  EXPECT_EQ(S(g, "kar"), (V{2, 8, 15, 20}));  // scale min(30/12, 20/16) = 1.25
  EXPECT_EQ(S(g, "kas"), (V{2, 8, 30, 40}));  // scale max = 2.5
  EXPECT_EQ(S(g, "rsc"), (V{2, 8, 12, 40}));
  EXPECT_EQ(S(g, "ccp"), (V{2, 8, 10, 20}));
  EXPECT_EQ(S(g, "c2i"), (V{1, 3, 5, 5}));
  EXPECT_EQ(S(g, "lp"), (V{2, 8, 6, 8}));
}

TEST(OnnxShapeRules, Opset20And21Ops) {
  Graph g = imp("20", "(float[N, 8, 12, 16] x, float[N, 2, 3] theta, float[N, 50, 1] sig) => (float[N, 8, 6, 10] y)", R"(
  size = Constant <value = int64[4] {2, 8, 6, 10}> ()
  grid = AffineGrid (theta, size)
  y = GridSample (x, grid)
  gl = Gelu <approximate = "tanh"> (x)
  len = Constant <value = int64 {64}> ()
  ax = Constant <value = int64 {1}> ()
  spec = DFT <onesided = 1> (sig, len, ax)
  full = DFT (sig)
)");
  all_known(g);
  EXPECT_EQ(S(g, "grid"), (V{2, 6, 10, 2}));
  EXPECT_EQ(S(g, "y"), (V{2, 8, 6, 10}));
  EXPECT_EQ(S(g, "gl"), (V{2, 8, 12, 16}));
  EXPECT_EQ(S(g, "spec"), (V{2, 33, 2}));
  EXPECT_EQ(S(g, "full"), (V{2, 50, 2}));  // axis -2 by default from opset 20
  g = imp("21", "(float[N, 8, 12, 16] x, float[8] s, float[8] b) => (float[N, 8, 12, 16] y)", R"(
  y = GroupNormalization <num_groups = 4> (x, s, b)
)");
  EXPECT_EQ(S(g, "y"), (V{2, 8, 12, 16}));
}

// The newer schemas' arity is checked like ONNX's own; a model past the newest opset is refused.
TEST(OnnxShapeRules, NewerOpsetArityAndRefusal) {
  try {
    imp("18", "(float[N, 4] x) => (float[N] y)", "  a = Constant <value = int64[1] {1}> ()\n  y = ReduceMean (x, a, a)");
    ADD_FAILURE() << "no error";
  } catch (const perfpred::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 3 inputs; it takes 1 to 2 (ONNX ReduceMean-18 schema, opset 18)"), std::string::npos)
        << e.what();
  }
  try {  // an op opset 23 added, with one input short
    imp("23", "(float[N, 4, 8] q) => (float[N, 4, 8] y)",
        "  y = Attention <q_num_heads = 2, kv_num_heads = 2> (q, q)");
    ADD_FAILURE() << "no error";
  } catch (const perfpred::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 inputs; it takes 3 to 6 (ONNX Attention-23 schema, opset 23)"),
              std::string::npos)
        << e.what();
  }
  Graph g = imp("22", "(float[N, 4] x) => (float[N, 4] y)", "  y = Relu (x)");  // opset 22: types only
  EXPECT_EQ(S(g, "y"), (V{2, 4}));
  try {
    imp("27", "(float[N, 4] x) => (float[N, 4] y)", "  y = Relu (x)");
    ADD_FAILURE() << "no error";
  } catch (const perfpred::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("opset 27 is newer than perfpred imports (opsets 7-26"), std::string::npos)
        << e.what();
  }
}

// The ops opset 23 added (tests/cli/test_onnx_oracle.sh opset23_ops checks them against ONNX Runtime):
// RMSNormalization and RotaryEmbedding keep their input's shape; Attention's output has Q's rank, its present the
// past's length plus the new keys', its qk_matmul_output [B, qN, S, T]; a 3-D Q without q_num_heads cannot be split
// into heads.
TEST(OnnxShapeRules, Opset23Ops) {
  Graph g = imp("23",
                "(float[N, 8, 96] q, float[N, 8, 32] kv, float[N, 1, 5, 32] past, float[N, 3, 8, 32] q4, "
                "float[16, 16] cs, int64[N, 8] pos) => (float[N, 8, 96] y)",
                R"(
  r = RMSNormalization <axis = -1> (q, g96)
  g96_shape = Constant <value = int64[1] {96}> ()
  g96 = ConstantOfShape <value = float[1] {1}> (g96_shape)
  y, pk, pv = Attention <q_num_heads = 3, kv_num_heads = 1> (r, kv, kv, , past, past)
  rot = RotaryEmbedding (q4, cs, cs, pos)
  a4, , , qk = Attention (rot, rot, rot)
)");
  EXPECT_EQ(S(g, "r"), (V{2, 8, 96}));
  EXPECT_EQ(S(g, "y"), (V{2, 8, 96}));
  EXPECT_EQ(S(g, "pk"), (V{2, 1, 13, 32}));
  EXPECT_EQ(S(g, "rot"), (V{2, 3, 8, 32}));
  EXPECT_EQ(S(g, "a4"), (V{2, 3, 8, 32}));
  EXPECT_EQ(S(g, "qk"), (V{2, 3, 8, 8}));
  Graph bad = imp("23", "(float[N, 8, 96] q) => (float[N, 8, 96] y)", "  y = Attention (q, q, q)");
  EXPECT_FALSE(T(bad, "y").shape_known());  // no heads to split into: predict then names the unshaped node
}

// The ops opsets 24 and 26 added (tests/cli/test_onnx_oracle.sh opset26_ops checks them against ONNX Runtime):
// Swish, CumProd and TensorScatter keep their first input's shape (TensorScatter writes the update into a cache of
// fixed length), BitCast keeps the shape and reads the bits as `to`; Attention-24 takes nonpad_kv_seqlen as a
// seventh input, which changes no shape.
TEST(OnnxShapeRules, Opset24And26Ops) {
  Graph g = imp("26",
                "(float[N, 8, 96] x, float[N, 2, 16, 32] cache, float[N, 2, 3, 32] upd, int64[N] wi, float[N, 2, 4, 32] q, "
                "int64[N] lens) => (float[N, 8, 96] y)",
                R"(
  y = Swish <alpha = 1.5> (x)
  ax = Constant <value = int64 {1}> ()
  cp = CumProd <reverse = 1> (x, ax)
  bits = BitCast <to = 6> (x)
  half_bits = BitCast <to = 5> (h)
  h = Cast <to = 10> (x)
  kv = TensorScatter <axis = -2, mode = "circular"> (cache, upd, wi)
  att = Attention (q, kv, kv, , , , lens)
)");
  all_known(g);
  EXPECT_EQ(S(g, "y"), (V{2, 8, 96}));
  EXPECT_EQ(S(g, "cp"), (V{2, 8, 96}));
  EXPECT_EQ(S(g, "bits"), (V{2, 8, 96}));
  EXPECT_EQ(T(g, "bits").dtype, perfpred::DType::i32);
  EXPECT_EQ(T(g, "half_bits").dtype, perfpred::DType::i16);
  EXPECT_EQ(S(g, "kv"), (V{2, 2, 16, 32}));
  EXPECT_EQ(S(g, "att"), (V{2, 2, 4, 32}));
}

// Each of them refuses what ONNX Runtime would: a BitCast to another width or to a string, an update longer than
// the cache or off it in a non-sequence axis, the batch axis as the sequence axis, a mode ONNX does not define,
// and the arity of the newer schemas (BitCast's `to` is required).
TEST(OnnxShapeRules, Opset24And26OpsRefuseMalformedNodes) {
  const auto fails = [](const std::string& sig, const std::string& body, const std::string& want) {
    try {
      imp("26", sig, body);
      ADD_FAILURE() << "no error for: " << body;
    } catch (const perfpred::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  fails("(float[N, 4] x) => (int16[N, 4] y)", "  y = BitCast <to = 5> (x)",
        "(int16, 16 bits) has another width than input 'x' [2,4] (float32, 32 bits)");
  fails("(float[N, 4] x) => (string[N, 4] y)", "  y = BitCast <to = 8> (x)", "is not a non-string ONNX data type");
  fails("(float[N, 4] x) => (float[N, 4] y)", "  y = BitCast (x)", "attribute 'to' is required (ONNX BitCast-26 schema");
  fails("(float[N, 2, 4, 8] c, float[N, 2, 5, 8] u) => (float[N, 2, 4, 8] y)", "  y = TensorScatter (c, u)",
        "in axis 2 (the sequence axis: the update may not be longer than the cache)");
  fails("(float[N, 2, 4, 8] c, float[N, 3, 1, 8] u) => (float[N, 2, 4, 8] y)", "  y = TensorScatter (c, u)",
        "in axis 1 (only the sequence axis may differ)");
  fails("(float[N, 2, 4, 8] c, float[N, 2, 1, 8] u) => (float[N, 2, 4, 8] y)", "  y = TensorScatter <axis = 0> (c, u)",
        "names axis 0, the batch axis");
  fails("(float[N, 2, 4, 8] c, float[N, 2, 1, 8] u) => (float[N, 2, 4, 8] y)",
        "  y = TensorScatter <mode = \"ring\"> (c, u)", "attribute 'mode' = 'ring' must be 'linear' or 'circular'");
  fails("(float[N, 2, 4, 8] c, float[N, 2, 1, 8] u, int64[3] w) => (float[N, 2, 4, 8] y)",
        "  y = TensorScatter (c, u, w)", "must be one index per batch row [2]");
  fails("(float[N, 4] x) => (float[N, 4] y)", "  y = CumProd (x)", "has 1 inputs; it takes 2 (ONNX CumProd-26 schema");
  fails("(float[N, 4] x) => (float[N, 4] y)", "  a = Constant <value = int64 {2}> ()\n  y = CumProd (x, a)",
        "axis input = 2 is out of range [-2, 1]");
}
