// Tensor sequences as TorchScript exports Python lists: the shape rules track a sequence's tensors one by one
// (SplitToSequence, SequenceConstruct/Insert/Erase), so SequenceLength folds into a Loop's trip count and
// ConcatFromSequence and SequenceAt are shaped; a sequence where a tensor belongs (or the reverse) is an error
// naming the node, and so is a sequence graph input. Optionals (TorchScript's Optional[Tensor]) likewise: whether
// one holds a tensor folds into OptionalHasElement and the If it decides.
#include <gtest/gtest.h>

#include <algorithm>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/util/error.hpp"
#include "../error_of.hpp"
#include "proto_writer.hpp"
#include "tensor_named.hpp"

using namespace perfpred;
namespace oi = perfpred::onnx_import;

namespace {

const Tensor& T(const Graph& g, const std::string& name) { return perfpred::test::tensor_named(g, name); }

std::string error_of(const std::string& text) {
  return test::error_of([&] { oi::import_text(text); });
}

std::vector<std::vector<int64_t>> element_shapes(const Tensor& t) {
  std::vector<std::vector<int64_t>> r;
  if (t.elements)
    for (const auto& e : *t.elements) r.push_back(e.shape);
  return r;
}

// torch.split(x, 3, dim=1) of 8 channels (3, 3, 2), every part doubled in a loop over the list's length,
// appended to a new list and joined with torch.cat: TorchScript's export. Written as proto bytes, since the
// ONNX text format of the linked library has no sequence types for the Loop body.
std::string split_loop_cat_model() {
  using namespace pw;
  const int f32 = 1, i64 = 7, boolean = 9;
  pw::Graph body;
  body.inputs = {value_info("i", i64, {}), value_info("c", boolean, {}), seq_value_info("s", f32)};
  body.outputs = {value_info("co", boolean, {}), seq_value_info("so", f32)};
  body.nodes = {node("SequenceAt", {"parts", "i"}, {"p"}, "at"), node("Mul", {"p", "two"}, {"d"}, "double"),
                node("SequenceInsert", {"s", "d"}, {"so"}, "append"), node("Identity", {"c"}, {"co"}, "keep")};
  pw::Graph g;
  g.inputs = {value_info("x", f32, {2, 8, 5})};
  g.outputs = {value_info("y", f32, {2, 8, 5})};
  const float two = 2;
  const char yes = 1;
  g.initializers = {tensor("three", i64, {}, int64_raw({3})), tensor("yes", boolean, {}, std::string(&yes, 1)),
                    tensor("two", f32, {}, std::string(reinterpret_cast<const char*>(&two), sizeof two))};
  g.nodes = {node("SplitToSequence", {"x", "three"}, {"parts"}, "split", int_attr("axis", 1)),
             node("SequenceEmpty", {}, {"empty"}, "empty", int_attr("dtype", f32)),
             node("SequenceLength", {"parts"}, {"n"}, "length"),
             node("Loop", {"n", "yes", "empty"}, {"acc"}, "loop", graph_attr("body", body.bytes("body"))),
             node("ConcatFromSequence", {"acc"}, {"y"}, "cat", int_attr("axis", 1))};
  return model(g, 17);
}

TEST(OnnxSequences, SplitLoopAndConcatAsTorchScriptExportsThem) {
  const Graph g = oi::import_bytes(split_loop_cat_model(), "split_loop_cat.onnx");
  const Tensor& parts = T(g, "parts");
  ASSERT_TRUE(parts.is_sequence);
  EXPECT_EQ(element_shapes(parts), (std::vector<std::vector<int64_t>>{{2, 3, 5}, {2, 3, 5}, {2, 2, 5}}));
  EXPECT_TRUE(parts.sequence_known());
  EXPECT_EQ(*parts.bytes(), 2 * 8 * 5 * 4);
  EXPECT_EQ(shape_to_string(parts), "seq(3)");
  // The loop ran SequenceLength's three trips; the list it built joins back to x's shape.
  EXPECT_EQ(std::count_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.op == "Mul"; }), 3);
  const Tensor& y = T(g, "y");
  EXPECT_FALSE(y.is_sequence);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 8, 5}));
  // Costs: the split and the join copy the tensor, each insert only its new tensor.
  const GraphCost c = analyze(g);
  for (const auto& nc : c.nodes) {
    if (nc.op == "SplitToSequence") {
      EXPECT_EQ(nc.bytes_written, 2 * 8 * 5 * 4);
      EXPECT_EQ(nc.family, OpFamily::data_movement);
    }
    if (nc.op == "SequenceInsert") {
      EXPECT_EQ(nc.bytes_read, nc.bytes_written);
      EXPECT_LE(nc.bytes_written, 2 * 3 * 5 * 4);
      EXPECT_GE(nc.bytes_written, 2 * 2 * 5 * 4);
    }
    if (nc.op == "ConcatFromSequence") {
      EXPECT_EQ(nc.bytes_written, 2 * 8 * 5 * 4);
    }
  }
}

// SequenceConstruct of three tensors, an insert at the front, an erase of the last, an At from the back,
// a stack on a new axis and the split of one axis into squeezed slices.
const char* k_construct_erase_at = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4, 6] a, float[4, 6] b, float[4, 6] c, float[4, 6] d) => (float[3, 4, 6] stacked, float[4, 6] last, float[6] row) {
  s = SequenceConstruct (a, b, c)
  zero = Constant <value = int64 {0}> ()
  s2 = SequenceInsert (s, d, zero)
  s3 = SequenceErase (s2)
  back = Constant <value = int64 {-1}> ()
  last = SequenceAt (s3, back)
  stacked = ConcatFromSequence <axis = 0, new_axis = 1> (s3)
  rows = SplitToSequence <axis = 0, keepdims = 0> (a)
  row = SequenceAt (rows, zero)
}
)";

TEST(OnnxSequences, ConstructInsertEraseAtAndStack) {
  const Graph g = oi::import_text(k_construct_erase_at);
  EXPECT_EQ(T(g, "s").elements->size(), 3u);
  EXPECT_EQ(T(g, "s2").elements->size(), 4u);
  EXPECT_EQ(T(g, "s3").elements->size(), 3u);
  EXPECT_EQ(shape_to_string(T(g, "s3")), "seq(3 x [4, 6])");
  EXPECT_EQ(T(g, "last").shape, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(T(g, "stacked").shape, (std::vector<int64_t>{3, 4, 6}));
  EXPECT_EQ(T(g, "rows").elements->size(), 4u);
  EXPECT_EQ(T(g, "row").shape, (std::vector<int64_t>{6}));
  EXPECT_EQ(T(g, "row").dtype, DType::f32);
}

TEST(OnnxSequences, KindMismatchesAndBadPositionsNameTheNode) {
  // A sequence into Relu.
  std::string e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] a, float[4] b) => (float[4] y) {
  s = SequenceConstruct (a, b)
  y = Relu (s)
})");
  EXPECT_NE(e.find("(Relu)"), std::string::npos) << e;
  EXPECT_NE(e.find("is a sequence of tensors; Relu takes a tensor"), std::string::npos) << e;
  // A tensor where SequenceAt needs a sequence.
  e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] a) => (float[4] y) {
  zero = Constant <value = int64 {0}> ()
  y = SequenceAt (a, zero)
})");
  EXPECT_NE(e.find("input 'a' is a tensor; SequenceAt takes a sequence"), std::string::npos) << e;
  // A tensor of another type than the sequence holds.
  e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] a, int64[4] b) => (float[4] y) {
  s = SequenceConstruct (a)
  s2 = SequenceInsert (s, b)
  zero = Constant <value = int64 {0}> ()
  y = SequenceAt (s2, zero)
})");
  EXPECT_NE(e.find("tensor 'b' is int64 where the sequence holds float32"), std::string::npos) << e;
  // A position past the end.
  e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] a, float[4] b) => (float[4] y) {
  s = SequenceConstruct (a, b)
  five = Constant <value = int64 {5}> ()
  y = SequenceAt (s, five)
})");
  EXPECT_NE(e.find("position 5 is outside the sequence of 2 tensors"), std::string::npos) << e;
  // Split sizes that do not cover the axis.
  e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 8] a) => (float[2, 8] y) {
  sizes = Constant <value = int64[2] {3, 3}> ()
  s = SplitToSequence <axis = 1> (a, sizes)
  y = ConcatFromSequence <axis = 1> (s)
})");
  EXPECT_NE(e.find("split sizes add up to 6, not the axis' 8"), std::string::npos) << e;
  // ... or past it, with sizes whose sum would overflow int64.
  e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 8] a) => (float[2, 8] y) {
  sizes = Constant <value = int64[2] {5, 9223372036854775807}> ()
  s = SplitToSequence <axis = 1> (a, sizes)
  y = ConcatFromSequence <axis = 1> (s)
})");
  EXPECT_NE(e.find("split sizes add up to more than the axis' 8"), std::string::npos) << e;
  // Elements that do not join.
  e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 8] a, float[3, 8] b) => (float[5, 8] y) {
  s = SequenceConstruct (a, b)
  y = ConcatFromSequence <axis = 1> (s)
})");
  EXPECT_NE(e.find("ConcatFromSequence): the sequence's tensors differ"), std::string::npos) << e;
}

TEST(OnnxSequences, OverlongSequencesAndSequenceInputsAreRefused) {
  // 10,000 one-element slices: more than perfpred follows.
  std::string e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[10000, 2] a) => (float[10000, 2] y) {
  s = SplitToSequence <axis = 0> (a)
  y = ConcatFromSequence <axis = 0, new_axis = 1> (s)
})");
  EXPECT_NE(e.find("a sequence of 1025 tensors; perfpred follows sequences of up to 1024"), std::string::npos) << e;
  {
    using namespace pw;
    pw::Graph g;
    g.inputs = {seq_value_info("s", 1)};
    g.outputs = {value_info("y", 1, {4})};
    g.initializers = {tensor("zero", 7, {}, int64_raw({0}))};
    g.nodes = {node("SequenceAt", {"s", "zero"}, {"y"}, "at")};
    e = test::error_of([&] { oi::import_bytes(model(g, 17), "seq_input.onnx"); });
  }
  EXPECT_NE(e.find("input 's' is a sequence of tensors; perfpred sizes tensor inputs only"), std::string::npos) << e;
}

// `if bias is not None` on an empty Optional: OptionalHasElement folds to false and the If takes its else branch;
// an Optional of x unwraps to x's shape.
TEST(OnnxOptionals, HasElementFoldsAndTheIfTakesItsBranch) {
  using namespace pw;
  const int f32 = 1;
  const std::string float_type = f_bytes(1, f_int(1, f32));  // TypeProto.tensor_type.elem_type
  const std::string type_attr = f_bytes(5, f_bytes(1, "type") + f_bytes(14, float_type) + f_int(20, 13));
  pw::Graph then_branch, else_branch;
  then_branch.outputs = {value_info("t_out", f32, {2, 16})};
  then_branch.nodes = {node("Relu", {"x"}, {"t_out"}, "then_relu")};
  else_branch.outputs = {value_info("e_out", f32, {2, 16})};
  else_branch.nodes = {node("Neg", {"x"}, {"e_out"}, "else_neg")};
  pw::Graph g;
  g.inputs = {value_info("x", f32, {2, 16})};
  g.outputs = {value_info("y", f32, {2, 16}), value_info("z", f32, {2, 16})};
  g.nodes = {node("Optional", {}, {"none"}, "no_bias", type_attr),
             node("OptionalHasElement", {"none"}, {"has"}, "is_not_none"),
             node("If", {"has"}, {"y"}, "if_bias",
                  graph_attr("then_branch", then_branch.bytes("then")) +
                      graph_attr("else_branch", else_branch.bytes("else"))),
             node("Optional", {"x"}, {"wrapped"}, "wrap"),
             node("OptionalGetElement", {"wrapped"}, {"z"}, "unwrap")};
  const perfpred::Graph m = oi::import_bytes(model(g, 17), "optional_if.onnx");
  const Tensor& has = T(m, "has");
  ASSERT_TRUE(has.int_values.has_value());
  EXPECT_EQ(has.int_values->front(), 0);
  EXPECT_TRUE(std::any_of(m.nodes.begin(), m.nodes.end(), [](const Node& n) { return n.op == "Neg"; }));
  EXPECT_FALSE(std::any_of(m.nodes.begin(), m.nodes.end(), [](const Node& n) { return n.op == "Relu"; }));
  EXPECT_TRUE(T(m, "none").is_optional);
  EXPECT_EQ(*T(m, "none").bytes(), 0);
  EXPECT_EQ(shape_to_string(T(m, "none")), "optional(none)");
  EXPECT_EQ(shape_to_string(T(m, "wrapped")), "optional([2, 16])");
  EXPECT_FALSE(T(m, "z").is_optional);
  EXPECT_EQ(T(m, "z").shape, (std::vector<int64_t>{2, 16}));
  // An optional where a tensor belongs, and the tensor of an empty one.
  std::string e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] a) => (float[4] y) {
  o = Optional (a)
  y = Relu (o)
})");
  EXPECT_NE(e.find("input 'o' is an optional value; Relu takes a tensor there"), std::string::npos) << e;
  pw::Graph bad;
  bad.inputs = {value_info("x", f32, {2})};
  bad.outputs = {value_info("y", f32, {2})};
  bad.nodes = {node("Optional", {}, {"none"}, "no_bias", type_attr), node("OptionalGetElement", {"none"}, {"y"}, "get")};
  e = test::error_of([&] { oi::import_bytes(model(bad, 17), "empty_get.onnx"); });
  EXPECT_NE(e.find("node 'get' (OptionalGetElement): the optional 'none' is empty"), std::string::npos) << e;
}

}  // namespace

// SequenceMap unrolls into one copy of its body per element: a list of three [2, 3] and [2, 5] tensors split from
// one input, each element's transposed MatMul with a weight passed whole (a tensor input) and its sum with the element of a
// second sequence, so each output element is shaped from its own input; a scalar per element as a second output.
TEST(OnnxSequences, SequenceMapRunsItsBodyOncePerElement) {
  const Graph g = oi::import_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 11] x, float[2, 11] z, float[2, 4] w) => (float[2, 12] y, float[3] totals) {
  sizes = Constant <value = int64[3] {3, 5, 3}> ()
  s = SplitToSequence <axis = 1> (x, sizes)
  t = SplitToSequence <axis = 1> (z, sizes)
  m, r = SequenceMap <body = b (float[2, N] e, float[2, N] f, float[2, 4] v) => (float[N, 4] o, float r) {
      sum = Add (e, f)
      st = Transpose <perm = [1, 0]> (sum)
      o = MatMul (st, v)
      r = ReduceSum <keepdims = 0> (e)
  }> (s, t, w)
  y = ConcatFromSequence <axis = 0> (m)
  totals = ConcatFromSequence <axis = 0, new_axis = 1> (r)
}
)");
  ASSERT_TRUE(T(g, "m").sequence_known());
  const auto& m = *T(g, "m").elements;
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(m[1].shape, (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(m[2].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(T(g, "y").shape, (std::vector<int64_t>{11, 4}));
  EXPECT_EQ(T(g, "totals").shape, (std::vector<int64_t>{3}));
  int matmuls = 0;
  for (const auto& n : g.nodes) matmuls += n.op == "MatMul";
  EXPECT_EQ(matmuls, 3);
}

TEST(OnnxSequences, SequenceMapOfUnevenOrUnknownSequencesNamesTheNode) {
  std::string e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 6] x) => (float[2, 6] y) {
  two = Constant <value = int64[2] {3, 3}> ()
  three = Constant <value = int64[3] {2, 2, 2}> ()
  s = SplitToSequence <axis = 1> (x, two)
  t = SplitToSequence <axis = 1> (x, three)
  m = SequenceMap <body = b (float[2, N] e, float[2, M] f) => (float[2, N] o) {
      o = Identity (e)
  }> (s, t)
  y = ConcatFromSequence <axis = 1> (m)
})");
  EXPECT_NE(e.find("(SequenceMap): input 't' holds 3 tensors, the first input 2"), std::string::npos) << e;
  e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 6] x) => (float[2, 6] y) {
  m = SequenceMap <body = b (float[2, 6] e) => (float[2, 6] o) {
      o = Identity (e)
  }> (x)
  y = ConcatFromSequence <axis = 1> (m)
})");
  EXPECT_NE(e.find("input 'x' is a tensor; the first input is the sequence it maps"), std::string::npos) << e;
  e = error_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 6] x, int64[K] sizes) => (float[2, 6] y) {
  s = SplitToSequence <axis = 1> (x, sizes)
  m = SequenceMap <body = b (float[2, N] e) => (float[2, N] o) {
      o = Identity (e)
  }> (s)
  y = ConcatFromSequence <axis = 1> (m)
})");
  EXPECT_NE(e.find("(SequenceMap): the length of the sequences it maps is not known at import"), std::string::npos) << e;
}

// The unrolled copies count against the import's node budget, the SequenceAt of each element included.
TEST(OnnxSequences, SequenceMapCopiesCountAgainstTheUnrollBudget) {
  oi::ImportOptions o;
  o.max_unrolled_nodes = 10;
  const std::string e = test::error_of([&] {
    oi::import_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 8] x) => (float[2, 8] y) {
  s = SplitToSequence <axis = 1> (x, two)
  two = Constant <value = int64 {2}> ()
  m = SequenceMap <body = b (float[2, 2] e) => (float[2, 2] o) {
      r = Relu (e)
      o = Neg (r)
  }> (s)
  y = ConcatFromSequence <axis = 1> (m)
})", o);
  });
  EXPECT_NE(e.find("(SequenceMap): 4 elements through 4 nodes each exceed 10 unrolled nodes"), std::string::npos) << e;
}
