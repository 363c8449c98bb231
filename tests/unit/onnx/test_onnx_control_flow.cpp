// Control flow expanded at import (control_flow.cpp and the importer's decisions): an If takes the
// branch its folded condition picks, or the more expensive one (noted), or the one --branch names; a
// Loop or Scan is unrolled by its trip count, which comes from the graph or --loop-trips.
#include <gtest/gtest.h>

#include <algorithm>

#include "perfpred/onnx/importer.hpp"
#include "perfpred/util/error.hpp"
#include "tensor_named.hpp"

using namespace perfpred;
namespace oi = perfpred::onnx_import;

namespace {

const Tensor& T(const Graph& g, const std::string& name) { return perfpred::test::tensor_named(g, name); }

bool has_node(const Graph& g, const std::string& name) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.name == name; });
}

bool has_op(const Graph& g, const std::string& op) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op == op; });
}

std::string error_of(const std::string& text, const oi::ImportOptions& o = {}) {
  try {
    oi::import_text(text, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// cond = (x has 8 elements): folds from the input shape. then: MatMul with w; else: Relu.
const char* k_if_shape = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x, float[4, 6] w) => (float[N, 6] y) {
  n = Size (x)
  eight = Constant <value = int64 {8}> ()
  c = Equal (n, eight)
  y = If <then_branch = t () => (float[N, 6] ty) { ty = MatMul (x, w) },
          else_branch = e () => (float[N, 6] ey) { z = MatMul (x, w)
                                                   ey = Relu (z) }> (c)
}
)";

// The condition is a runtime input: not known at import.
const char* k_if_runtime = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x, float[4, 4] w, bool c) => (float[N, 4] y) {
  y = If <then_branch = t () => (float[N, 4] ty) { ty = Relu (x) },
          else_branch = e () => (float[N, 4] ey) { a = MatMul (x, w)
                                                   ey = MatMul (a, w) }> (c)
}
)";

// for i in range(x.size(0)): acc = acc + x[i]; also emits acc * i as a scan output per iteration.
const char* k_loop = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 5] x) => (float[5] acc_out, float[K, 5] scan_out) {
  s = Shape (x)
  zero = Constant <value = int64 {0}> ()
  m = Gather <axis = 0> (s, zero)
  t = Constant <value = bool {1}> ()
  init = Constant <value = float[5] {0, 0, 0, 0, 0}> ()
  acc_out, scan_out = Loop <body = b (int64 i, bool cin, float[5] acc) => (bool cout, float[5] acc2, float[5] sc) {
      row = Gather <axis = 0> (x, i)
      acc2 = Add (acc, row)
      fi = Cast <to = 1> (i)
      sc = Mul (acc2, fi)
      cout = Identity (cin)
  }> (m, t, init)
}
)";

// The trip count is a runtime input.
const char* k_loop_runtime = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x, int64 m) => (float[3] y) {
  t = Constant <value = bool {1}> ()
  y = Loop <body = b (int64 i, bool cin, float[3] a) => (bool cout, float[3] a2) {
      a2 = Relu (a)
      cout = Identity (cin)
  }> (m, t, x)
}
)";

// Scan over the rows of x: running sum as state, each row doubled as the scan output.
const char* k_scan = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] init, float[N, 3] x) => (float[3] total, float[N, 3] doubled) {
  total, doubled = Scan <num_scan_inputs = 1, body = b (float[3] s, float[3] row) => (float[3] s2, float[3] d) {
      s2 = Add (s, row)
      d = Add (row, row)
  }> (init, x)
}
)";

}  // namespace

TEST(OnnxControlFlow, IfTakesTheBranchItsFoldedConditionPicks) {
  oi::ImportOptions o;
  o.batch = 2;  // 2 x 4 = 8 elements: then
  Graph g = oi::import_text(k_if_shape, o);
  EXPECT_TRUE(has_node(g, "If_3/then/MatMul_0")) << "then-branch node named after the If and branch";
  EXPECT_FALSE(has_op(g, "Relu"));
  EXPECT_FALSE(has_op(g, "If"));
  EXPECT_EQ(T(g, "y").shape, (std::vector<int64_t>{2, 6}));
  o.batch = 3;  // 12 elements: else
  g = oi::import_text(k_if_shape, o);
  EXPECT_TRUE(has_node(g, "If_3/else/Relu_1"));
  EXPECT_EQ(T(g, "y").shape, (std::vector<int64_t>{3, 6}));
  EXPECT_TRUE(g.warnings.empty());
}

TEST(OnnxControlFlow, UnknownConditionCostsTheMoreExpensiveBranchWithANote) {
  oi::ImportOptions o;
  o.input_shapes["c"] = {};
  Graph g = oi::import_text(k_if_runtime, o);
  EXPECT_TRUE(has_node(g, "If_0/else/MatMul_0"));
  EXPECT_FALSE(has_op(g, "Relu"));
  ASSERT_EQ(g.warnings.size(), 1u);
  EXPECT_NE(g.warnings[0].find("If 'If_0': condition not known at import; costed the more expensive branch, else"),
            std::string::npos) << g.warnings[0];
  EXPECT_NE(g.warnings[0].find("--branch If_0=then"), std::string::npos) << g.warnings[0];
  o.branches["If_0"] = "then";
  g = oi::import_text(k_if_runtime, o);
  EXPECT_TRUE(has_node(g, "If_0/then/Relu_0"));
  EXPECT_FALSE(has_op(g, "MatMul"));
  EXPECT_TRUE(g.warnings.empty());
}

TEST(OnnxControlFlow, LoopWithATripCountFromShapesIsUnrolled) {
  oi::ImportOptions o;
  o.batch = 3;
  Graph g = oi::import_text(k_loop, o);
  EXPECT_FALSE(has_op(g, "Loop"));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(has_node(g, "Loop_5/iter" + std::to_string(i) + "/Add_1")) << i;
  EXPECT_FALSE(has_node(g, "Loop_5/iter3/Add_1"));
  EXPECT_EQ(T(g, "acc_out").shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(T(g, "scan_out").shape, (std::vector<int64_t>{3, 5}));
  // Loop-carried values chain: iteration 1 adds to iteration 0's sum.
  const Node* add1 = nullptr;
  for (const auto& n : g.nodes)
    if (n.name == "Loop_5/iter1/Add_1") add1 = &n;
  ASSERT_NE(add1, nullptr);
  EXPECT_EQ(g.tensors[static_cast<size_t>(add1->inputs[0])].name, "Loop_5/iter0/acc2");
}

TEST(OnnxControlFlow, LoopWithARuntimeTripCountNeedsLoopTrips) {
  oi::ImportOptions o;
  o.input_shapes["m"] = {};
  std::string msg = error_of(k_loop_runtime, o);
  EXPECT_NE(msg.find("node 'Loop_1' (Loop): trip count not known at import"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--loop-trips Loop_1=N"), std::string::npos) << msg;
  o.loop_trips["Loop_1"] = 4;
  Graph g = oi::import_text(k_loop_runtime, o);
  EXPECT_TRUE(has_node(g, "Loop_1/iter3/Relu_0"));
  EXPECT_FALSE(has_node(g, "Loop_1/iter4/Relu_0"));
  EXPECT_EQ(T(g, "y").shape, (std::vector<int64_t>{3}));
}

TEST(OnnxControlFlow, ScanIsUnrolledOverItsScannedAxis) {
  oi::ImportOptions o;
  o.input_shapes["init"] = {3};
  o.input_shapes["x"] = {4, 3};
  Graph g = oi::import_text(k_scan, o);
  EXPECT_FALSE(has_op(g, "Scan"));
  EXPECT_TRUE(has_node(g, "Scan_0/iter3/Add_0"));
  EXPECT_EQ(T(g, "total").shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(T(g, "doubled").shape, (std::vector<int64_t>{4, 3}));
}

TEST(OnnxControlFlow, OptionsNamingNoSuchNodeAreErrors) {
  oi::ImportOptions o;
  o.batch = 2;
  o.branches["nope"] = "then";
  std::string msg = error_of(k_if_shape, o);
  EXPECT_NE(msg.find("--branch nope=then: the model has no If named 'nope'; Ifs: If_3"), std::string::npos) << msg;
  o.branches.clear();
  o.loop_trips["nope"] = 2;
  msg = error_of(k_if_shape, o);
  EXPECT_NE(msg.find("--loop-trips nope=2"), std::string::npos) << msg;
}

// A control-flow node without the graphs it needs is named before anything reads its inputs (a Scan
// without a body crashed ONNX 1.12's shape inference).
TEST(OnnxControlFlow, MissingBodiesAndBranchesAreErrorsNamingTheNode) {
  const char* scan = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N, 3] x) => (float[N, 3] y) {
  y = Scan <num_scan_inputs = 1> (x)
}
)";
  std::string msg = error_of(scan);
  EXPECT_NE(msg.find("node 'Scan_0' (Scan): has no body graph"), std::string::npos) << msg;
  const char* iff = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N, 3] x, bool c) => (float[N, 3] y) {
  y = If <then_branch = t () => (float[N, 3] ty) { ty = Relu (x) }> (c)
}
)";
  oi::ImportOptions o;
  o.input_shapes["c"] = {};
  msg = error_of(iff, o);
  EXPECT_NE(msg.find("node 'If_0' (If): has no else_branch graph"), std::string::npos) << msg;
}

// The unroll budget counts what each copy adds besides its body: a Loop's two constants (iteration, condition), a
// Scan's Gather and index per scanned input. Four iterations of the two-node Loop body are 16 nodes, over 15.
TEST(OnnxControlFlow, UnrollBudgetCountsEachCopysFeedingNodes) {
  oi::ImportOptions o;
  o.input_shapes["m"] = {};
  o.loop_trips["Loop_1"] = 4;
  o.max_unrolled_nodes = 15;
  std::string msg = error_of(k_loop_runtime, o);
  EXPECT_NE(msg.find("node 'Loop_1' (Loop): 4 iterations through 4 nodes each exceed 15 unrolled nodes; pass a "
                     "smaller --loop-trips Loop_1=N"),
            std::string::npos)
      << msg;
  o.max_unrolled_nodes = 16;
  EXPECT_TRUE(has_node(oi::import_text(k_loop_runtime, o), "Loop_1/iter3/Relu_0"));
  oi::ImportOptions s;  // the Scan over 4 rows: a 2-node body and a Gather and its index a copy, 16 nodes
  s.input_shapes["init"] = {3};
  s.input_shapes["x"] = {4, 3};
  s.max_unrolled_nodes = 15;
  msg = error_of(k_scan, s);
  EXPECT_NE(msg.find("node 'Scan_0' (Scan): 4 iterations through 4 nodes each exceed 15 unrolled nodes"),
            std::string::npos)
      << msg;
}
