// Importer: input classification, symbolic dims, external data, topological order, and every bad-input case.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "perfpred/onnx/importer.hpp"
#include "perfpred/util/error.hpp"
#include "proto_writer.hpp"
#include "tensor_named.hpp"

using perfpred::Graph;
using perfpred::InputError;
using perfpred::Tensor;
namespace oi = perfpred::onnx_import;

namespace {

const Tensor& T(const Graph& g, const std::string& name) { return perfpred::test::tensor_named(g, name); }

std::vector<int64_t> S(const Graph& g, const std::string& name) { return T(g, name).shape; }

// Expect an InputError whose one-line message contains every fragment.
template <typename F>
void expect_input_error(F&& f, std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const auto& frag : fragments) EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in: " << msg;
  }
}

// LeNet's `x.view(x.size(0), -1)` as PyTorch exports it at opset 13 (weights as graph inputs).
const char* k_lenet13 = R"(
<ir_version: 8, opset_import: ["" : 13]>
lenet (float[batch, 1, 28, 28] input, float[6, 1, 5, 5] c1w, float[6] c1b, float[10, 864] fw, float[10] fb) => (float[batch, 10] out) {
  c1 = Conv <kernel_shape = [5, 5]> (input, c1w, c1b)
  r1 = Relu (c1)
  p1 = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (r1)
  shp = Shape (p1)
  idx = Constant <value = int64 {0}> ()
  n = Gather <axis = 0> (shp, idx)
  ax = Constant <value = int64[1] {0}> ()
  nu = Unsqueeze (n, ax)
  minus1 = Constant <value = int64[1] {-1}> ()
  cat = Concat <axis = 0> (nu, minus1)
  flat = Reshape (p1, cat)
  out = Gemm <transB = 1> (flat, fw, fb)
}
)";

}  // namespace

TEST(OnnxImporter, LenetViewChainAtOpset13) {
  for (int64_t batch : {1, 7}) {
    oi::ImportOptions o;
    o.batch = batch;
    Graph g = oi::import_text(k_lenet13, o);
    EXPECT_EQ(g.opset, 13);
    EXPECT_EQ(S(g, "cat"), (std::vector<int64_t>{2}));
    ASSERT_TRUE(T(g, "cat").int_values);
    EXPECT_EQ(*T(g, "cat").int_values, (std::vector<int64_t>{batch, -1}));
    EXPECT_EQ(S(g, "flat"), (std::vector<int64_t>{batch, 864}));
    EXPECT_EQ(S(g, "out"), (std::vector<int64_t>{batch, 10}));
    for (const auto& n : g.nodes) EXPECT_TRUE(n.warnings.empty()) << n.name;
  }
}

TEST(OnnxImporter, WeightsAsGraphInputsAreInitializers) {
  Graph g = oi::import_text(k_lenet13);
  for (const char* w : {"c1w", "c1b", "fw", "fb"}) {
    EXPECT_TRUE(T(g, w).is_initializer) << w;
    EXPECT_FALSE(T(g, w).is_graph_input) << w;
  }
  EXPECT_TRUE(T(g, "input").is_graph_input);
  EXPECT_FALSE(T(g, "input").is_initializer);
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.inputs[0])].name, "input");
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_TRUE(T(g, "out").is_graph_output);
}

TEST(OnnxImporter, WithWeightInitializersEveryGraphInputIsRuntimeData) {
  // The weights live in initializers, so a second static input (a mask added to the output) is data
  // the host copies each call, not a parameter: no optimizer state, an H2D copy.
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 13]>
masked (float[1, 3, 8, 8] x, float[1, 4, 8, 8] mask) => (float[1, 4, 8, 8] y) <float[4, 3, 3, 3] w = {0.0}> {
  c = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (x, w)
  y = Add (c, mask)
}
)";
  Graph g = oi::import_text(text);
  EXPECT_TRUE(T(g, "w").is_initializer);
  EXPECT_TRUE(T(g, "mask").is_graph_input);
  EXPECT_FALSE(T(g, "mask").is_initializer);
  EXPECT_EQ(g.inputs.size(), 2u);
}

TEST(OnnxImporter, BatchNormLayerNormAndTransformerWeightsAsInputs) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4, 8, 8] x, float[4] s, float[4] b, float[4] m, float[4] v, float[256, 16] w, float[16] lb, float[16] lnw, float[16] lnb, float[1, 1, 16] tok) => (float[N, 5, 16] y) {
  bn = BatchNormalization (x, s, b, m, v)
  shp = Constant <value = int64[2] {0, -1}> ()
  f = Reshape (bn, shp)
  mm = MatMul (f, w)
  add = Add (lb, mm)
  ln = LayerNormalization <axis = -1> (add, lnw, lnb)
  sh3 = Constant <value = int64[3] {0, 1, 16}> ()
  ln3 = Reshape (ln, sh3)
  n0 = Shape (x)
  i0 = Constant <value = int64[1] {0}> ()
  nb = Gather (n0, i0)
  rest = Constant <value = int64[2] {1, 1}> ()
  esh = Concat <axis = 0> (nb, rest)
  tk = Expand (tok, esh)
  four = Constant <value = int64[3] {1, 4, 1}> ()
  ln4 = Tile (ln3, four)
  y = Concat <axis = 1> (tk, ln4)
}
)";
  oi::ImportOptions o;
  o.batch = 3;
  Graph g = oi::import_text(text, o);
  for (const char* w : {"s", "b", "m", "v", "w", "lb", "lnw", "lnb", "tok"}) {
    EXPECT_TRUE(T(g, w).is_initializer) << w;
    EXPECT_FALSE(T(g, w).is_graph_input) << w;
  }
  EXPECT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(S(g, "mm"), (std::vector<int64_t>{3, 16}));
  EXPECT_EQ(S(g, "tk"), (std::vector<int64_t>{3, 1, 16}));
  EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{3, 5, 16}));
}

TEST(OnnxImporter, SymbolicBatchAndInputShapeOverride) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[B, 3, H, W] x) => (float[B, 3, H, W] y) {
  y = Relu (x)
}
)";
  expect_input_error([&] { oi::import_text(text); }, {"input 'x'", "dim 2", "'H'", "--input-shape x="});
  oi::ImportOptions o;
  o.input_shapes["x"] = {2, 3, 10, 12};
  Graph g = oi::import_text(text, o);
  EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{2, 3, 10, 12}));
  o.input_shapes.clear();
  o.input_shapes["nope"] = {1};
  expect_input_error([&] { oi::import_text(text, o); }, {"'nope'", "inputs: x"});
  o.input_shapes.clear();
  o.input_shapes["x"] = {2, 3};
  expect_input_error([&] { oi::import_text(text, o); }, {"x", "rank 4"});
}

// --dim sets a symbolic dim by name in every input; a conflicting --input-shape, an unknown name or an
// unset non-leading dim are errors naming the dim and --dim; keep_symbolic (inspect) keeps it, named.
TEST(OnnxImporter, SymbolicDimsByName) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[batch, seq, 64] x, float[batch, past_sequence_length, 64] past, float[64, 64] w) => (float[batch, seq, 64] y, float[batch, seq, 64] z) {
  kv = Concat <axis = 1> (past, x)
  y = MatMul (x, w)
  z = Relu (y)
}
)";
  expect_input_error([&] { oi::import_text(text); }, {"input 'x' dim 1", "symbolic dim 'seq'", "--dim seq=N", "--input-shape x=1,N,64"});
  oi::ImportOptions o;
  o.dims = {{"seq", 5}, {"past_sequence_length", 7}};
  Graph g = oi::import_text(text, o);
  EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{1, 5, 64}));
  EXPECT_EQ(S(g, "kv"), (std::vector<int64_t>{1, 12, 64}));
  o.dims["batch"] = 3;  // wins over --batch
  o.batch = 2;
  g = oi::import_text(text, o);
  EXPECT_EQ(S(g, "kv"), (std::vector<int64_t>{3, 12, 64}));
  o.input_shapes["x"] = {3, 5, 64};  // agrees with --dim
  EXPECT_EQ(S(oi::import_text(text, o), "y"), (std::vector<int64_t>{3, 5, 64}));
  o.input_shapes["x"] = {3, 6, 64};
  expect_input_error([&] { oi::import_text(text, o); }, {"--input-shape x gives dim 1 ('seq') = 6", "--dim seq=5"});
  o.input_shapes.clear();
  o.dims = {{"sek", 5}};
  expect_input_error([&] { oi::import_text(text, o); }, {"--dim sek=5", "no input has a symbolic dim named 'sek'",
                                                        "symbolic dims: batch, past_sequence_length, seq"});
  o.overrides_are_keys = true;  // a budget file's `dims`
  expect_input_error([&] { oi::import_text(text, o); }, {"dims.sek (5)", "no input has"});
  // Kept symbolic: the input and what ONNX's inference carries the symbol to are named, the rest unknown.
  oi::ImportOptions k;
  k.keep_symbolic = true;
  k.dims = {{"past_sequence_length", 7}};
  g = oi::import_text(text, k);
  EXPECT_EQ(S(g, "x"), (std::vector<int64_t>{1, -1, 64}));
  EXPECT_EQ(T(g, "x").dim_names, (std::vector<std::string>{"", "seq", ""}));
  EXPECT_EQ(S(g, "z"), (std::vector<int64_t>{1, -1, 64}));
  ASSERT_EQ(T(g, "z").dim_names.size(), 3u);
  EXPECT_EQ(T(g, "z").dim_names[1], "seq");
  EXPECT_EQ(S(g, "past"), (std::vector<int64_t>{1, 7, 64}));
  EXPECT_EQ(perfpred::shape_to_string(T(g, "z")), "[1, seq, 64]");
}

TEST(OnnxImporter, LeadingSymbolicDimTakesBatch) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[batch, 16] x, int64[batch, 7] ids) => (float[batch, 16] y, int64[batch, 7] z) {
  y = Relu (x)
  z = Identity (ids)
}
)";
  oi::ImportOptions o;
  o.batch = 32;
  Graph g = oi::import_text(text, o);
  EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(S(g, "z"), (std::vector<int64_t>{32, 7}));
  EXPECT_EQ(g.inputs.size(), 2u);
}

TEST(OnnxImporter, MissingInputShapeIsAnError) {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {}, false));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("Relu", {"x"}, {"y"}, "relu"));
  expect_input_error([&] { oi::import_bytes(pw::model(pg), "m.onnx"); }, {"m.onnx", "input 'x'", "no declared shape", "--input-shape"});
}

TEST(OnnxImporter, RuntimeInputDimsMustBePositive) {
  auto relu_model = [](const std::vector<int64_t>& dims) {
    std::string shape;
    for (int64_t d : dims) shape += pw::dim_value(d);  // raw dim_value, negative ones too
    std::string tensor_type = pw::f_int(1, 1) + pw::f_bytes(2, shape);
    pw::Graph pg;
    pg.inputs.push_back(pw::f_bytes(1, "x") + pw::f_bytes(2, pw::f_bytes(1, tensor_type)));
    pg.outputs.push_back(pw::value_info("y", 1, {}, false));
    pg.nodes.push_back(pw::node("Relu", {"x"}, {"y"}, "relu"));
    return pw::model(pg);
  };
  expect_input_error([&] { oi::import_bytes(relu_model({-3, 16}), "neg.onnx"); },
                     {"neg.onnx: input 'x'", "dim 0 as -3", ">= 1"});
  expect_input_error([&] { oi::import_bytes(relu_model({0, 16}), "zero.onnx"); },
                     {"zero.onnx: input 'x'", "[0,16]", "dim 0 = 0"});
  oi::ImportOptions o;
  o.input_shapes["x"] = {2, 0};
  expect_input_error([&] { oi::import_bytes(relu_model({2, 16}), "ovr.onnx", o); }, {"ovr.onnx: input 'x'", "dim 1 = 0"});
  EXPECT_NO_THROW(oi::import_bytes(relu_model({2, 16}), "ok.onnx"));
}

// Node errors of the shape rules carry the model's label exactly once, at the front, so a command
// reading two models (diff) says which one failed.
TEST(OnnxImporter, NodeErrorsNameTheModelOnce) {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("a", 1, {1, 3, 8, 8}));
  pg.inputs.push_back(pw::value_info("b", 1, {1, 5, 8, 8}));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("Add", {"a", "b"}, {"y"}, "add"));
  try {
    oi::import_bytes(pw::model(pg), "models/b.onnx");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("models/b.onnx: node 'add' (Add): ", 0), 0u) << msg;
    EXPECT_EQ(msg.find("models/b.onnx", 1), std::string::npos) << msg;
  }
  // Errors the importer raises itself follow the same form.
  pw::Graph dangling;
  dangling.inputs.push_back(pw::value_info("x", 1, {2}));
  dangling.outputs.push_back(pw::value_info("y", 1, {}, false));
  dangling.nodes.push_back(pw::node("Add", {"x", "ghost"}, {"y"}, "adder"));
  expect_input_error([&] { oi::import_bytes(pw::model(dangling), "a.onnx"); }, {"a.onnx: node 'adder' (Add): input 'ghost'"});
}

TEST(OnnxImporter, NodesAreSortedTopologically) {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {2, 3}));
  pg.outputs.push_back(pw::value_info("z", 1, {}, false));
  pg.nodes.push_back(pw::node("Sigmoid", {"y"}, {"z"}, "second"));
  pg.nodes.push_back(pw::node("Relu", {"x"}, {"y"}, "first"));
  Graph g = oi::import_bytes(pw::model(pg), "sorted.onnx");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "first");
  EXPECT_EQ(g.nodes[1].name, "second");
  EXPECT_EQ(S(g, "z"), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g.model_name, "sorted");
}

TEST(OnnxImporter, CycleIsAnErrorNamingANodeOnIt) {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {2}));
  pg.outputs.push_back(pw::value_info("z", 1, {}, false));
  pg.nodes.push_back(pw::node("Relu", {"x"}, {"a"}, "entry"));
  pg.nodes.push_back(pw::node("Add", {"a", "c"}, {"b"}, "loop_add"));
  pg.nodes.push_back(pw::node("Relu", {"b"}, {"c"}, "loop_relu"));
  pg.nodes.push_back(pw::node("Relu", {"c"}, {"z"}, "exit"));
  try {
    oi::import_bytes(pw::model(pg), "cyclic.onnx");
    ADD_FAILURE() << "cycle accepted";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("cyclic.onnx"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
    EXPECT_TRUE(msg.find("loop_add") != std::string::npos || msg.find("loop_relu") != std::string::npos) << msg;
  }
}

TEST(OnnxImporter, DanglingNodeInputIsAnError) {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {2}));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("Add", {"x", "ghost"}, {"y"}, "adder"));
  expect_input_error([&] { oi::import_bytes(pw::model(pg), "m.onnx"); }, {"node 'adder' (Add)", "'ghost'"});
}

TEST(OnnxImporter, EmptyTruncatedAndNonOnnxBytes) {
  expect_input_error([] { oi::import_bytes("", "empty.onnx"); }, {"empty.onnx", "empty"});
  expect_input_error([] { oi::import_bytes("this is a text file, not a model\n", "notes.onnx"); }, {"notes.onnx", "not an ONNX model"});
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {1, 3, 8, 8}));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("Relu", {"x"}, {"y"}, "relu"));
  pg.initializers.push_back(pw::tensor("unused", 1, {64}, std::string(256, '\0')));
  std::string bytes = pw::model(pg);
  ASSERT_NO_THROW(oi::import_bytes(bytes, "whole.onnx"));
  for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{5}, size_t{1}})
    expect_input_error([&] { oi::import_bytes(bytes.substr(0, cut), "cut.onnx"); }, {"cut.onnx"});
}

TEST(OnnxImporter, FileErrors) {
  expect_input_error([] { oi::import_file("/nonexistent/dir/model.onnx"); }, {"/nonexistent/dir/model.onnx", "cannot open"});
  auto dir = std::filesystem::temp_directory_path() / ("perfpred_onnx_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto empty = dir / "empty.onnx";
  std::ofstream(empty).close();
  expect_input_error([&] { oi::import_file(empty); }, {empty.string(), "empty"});
  auto text = dir / "text.onnx";
  std::ofstream(text) << "not a model at all\n";
  expect_input_error([&] { oi::import_file(text); }, {text.string()});
  expect_input_error([&] { oi::import_file(dir); }, {dir.string()});
  std::filesystem::remove_all(dir);
}

TEST(OnnxImporter, OverflowingDimsAreErrors) {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {2}));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("Add", {"x", "huge"}, {"y"}, "add"));
  pg.initializers.push_back(pw::tensor("huge", 1, {int64_t{1} << 32, int64_t{1} << 32}, ""));
  expect_input_error([&] { oi::import_bytes(pw::model(pg), "big.onnx"); }, {"big.onnx", "initializer 'huge'", "overflow"});

  const char* text = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N, 4] x) => (float[N, 4] y) {
  y = Relu (x)
}
)";
  oi::ImportOptions o;
  o.input_shapes["x"] = {int64_t{1} << 62, 4};
  expect_input_error([&] { oi::import_text(text, o); }, {"input 'x'", "overflow"});

  // A derived shape that overflows: Expand to a folded shape whose product exceeds int64.
  const char* expand = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N, 1] x) => (float[N, 4] y) {
  s = Constant <value = int64[3] {4294967296, 4294967296, 16}> ()
  y = Expand (x, s)
}
)";
  expect_input_error([&] { oi::import_text(expand); }, {"node", "Expand", "overflow"});
}

TEST(OnnxImporter, ExternalDataIsNeverOpened) {
  // The location names files that do not exist (and one that must never be read): import succeeds
  // with the weight's dims and dtype, proving the importer does not open external data.
  for (const std::string loc : {"/nonexistent/perfpred/weights.bin", "../../../../etc/shadow", "weights.bin"}) {
    pw::Graph pg;
    pg.inputs.push_back(pw::value_info("x", 1, {-1, 3, 8, 8}));
    pg.outputs.push_back(pw::value_info("y", 1, {}, false));
    pg.nodes.push_back(pw::node("Conv", {"x", "w"}, {"y"}, "conv"));
    pg.initializers.push_back(pw::tensor("w", 1, {16, 3, 3, 3}, "", loc));
    oi::ImportOptions o;
    o.batch = 2;
    Graph g = oi::import_bytes(pw::model(pg), "/tmp/perfpred-missing-dir/ext.onnx", o);
    EXPECT_TRUE(T(g, "w").is_initializer);
    EXPECT_EQ(S(g, "w"), (std::vector<int64_t>{16, 3, 3, 3}));
    EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{2, 16, 6, 6}));
  }
}

// A model as onnx.save(..., save_as_external_data=True, size_threshold=0) writes it: x -> Reshape(x, shape)
// -> MatMul(., w), the Reshape target (int64 [2]) and w (float [12, 4096], a weight) both external; the
// target at `offset` in `shape_file`, w in a file that never exists.
std::string reshape_model_with_external_target(const std::string& shape_file, const std::string& offset,
                                               const std::string& length = "16") {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {2, 3, 4}));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("Reshape", {"x", "shape"}, {"r"}, "reshape"));
  pg.nodes.push_back(pw::node("MatMul", {"r", "w"}, {"y"}, "mm"));
  pg.initializers.push_back(
      pw::external_tensor("shape", 7, {2}, {{"location", shape_file}, {"offset", offset}, {"length", length}}));
  pg.initializers.push_back(pw::external_tensor("w", 1, {12, 4096}, {{"location", "weights-never-written.bin"}}));
  return pw::model(pg);
}

struct ExternalDir {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("perfpred-ext-" + std::to_string(::getpid()));
  ExternalDir() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "sub");
  }
  ~ExternalDir() { std::filesystem::remove_all(dir); }
  std::filesystem::path write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return dir / name;
  }
};

TEST(OnnxImporter, SmallExternalConstantsAreReadFromBesideTheModel) {
  ExternalDir d;
  // The target after 8 bytes of something else, in a subfolder (a relative location below the model's).
  d.write("sub/data.bin", std::string(8, '\7') + pw::int64_raw({2, -1}));
  const auto path = d.write("m.onnx", reshape_model_with_external_target("sub/data.bin", "8"));
  Graph g = oi::import_file(path);
  EXPECT_EQ(S(g, "r"), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{2, 4096}));
  EXPECT_EQ(S(g, "w"), (std::vector<int64_t>{12, 4096}));  // the weight's file was never needed
  EXPECT_TRUE(g.unread_external.empty());
  for (const auto& w : g.warnings) EXPECT_EQ(w.find("external"), std::string::npos) << w;
}

TEST(OnnxImporter, UnreadableExternalConstantsAreNamedWithWhy) {
  ExternalDir d;
  d.write("data.bin", pw::int64_raw({2, -1}));
  d.write("../perfpred-ext-outside.bin", pw::int64_raw({2, -1}));  // valid bytes that must never be read
  ASSERT_EQ(::mkfifo((d.dir / "pipe").c_str(), 0600), 0);
  struct Case {
    std::string location, offset, why, length = "16";
  };
  const std::vector<Case> cases = {
      {"missing.bin", "0", "'missing.bin': no such file beside the model"},
      {"../perfpred-ext-outside.bin", "0", "outside the model's folder"},
      {(d.dir / "data.bin").string(), "0", "an absolute location"},
      {"data.bin", "8", "beyond the file's end (16 bytes)"},
      {"data.bin", "-8", "an offset that is not a byte count"},
      {"sub", "0", "not a regular file"},
      {"pipe", "0", "not a regular file"},  // a FIFO: opened without blocking, then refused
      {"data.bin", "0", "its length says 24 bytes, its dims and type make 16", "24"},
  };
  for (const auto& c : cases) {
    const auto path = d.write("m.onnx", reshape_model_with_external_target(c.location, c.offset, c.length));
    Graph g = oi::import_file(path);
    EXPECT_FALSE(T(g, "r").shape_known()) << c.location;
    EXPECT_NE(g.unread_external["shape"].find(c.why), std::string::npos) << c.location << ": " << g.unread_external["shape"];
    EXPECT_EQ(g.unread_external.count("w"), 0u);  // a weight: never opened, so never reported
    bool warned = false;
    for (const auto& w : g.warnings) warned |= w.find("stored in external data were not read: 'shape'") != std::string::npos;
    EXPECT_TRUE(warned) << c.location;
  }
  std::filesystem::remove(d.dir / "../perfpred-ext-outside.bin");
}

TEST(OnnxImporter, LargeWeightsKeepDimsAndSmallIntegerInitializersKeepValues) {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {-1, 64}));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("MatMul", {"x", "w"}, {"m"}, "mm"));
  pg.nodes.push_back(pw::node("Reshape", {"m", "shape"}, {"y"}, "reshape"));
  pg.initializers.push_back(pw::tensor("w", 1, {64, 1024}, std::string(64 * 1024 * 4, '\1')));
  pg.initializers.push_back(pw::tensor("shape", 7, {3}, pw::int64_raw({0, 32, -1})));
  oi::ImportOptions o;
  o.batch = 5;
  Graph g = oi::import_bytes(pw::model(pg), "w.onnx", o);
  EXPECT_EQ(S(g, "w"), (std::vector<int64_t>{64, 1024}));
  EXPECT_FALSE(T(g, "w").float_values);
  ASSERT_TRUE(T(g, "shape").int_values);
  EXPECT_EQ(*T(g, "shape").int_values, (std::vector<int64_t>{0, 32, -1}));
  EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{5, 32, 32}));
}

// The condition is a runtime input, so both branches are costed; the missing else branch is the error.
TEST(OnnxImporter, IfWithoutElseBranchIsAnErrorNamingTheNode) {
  pw::Graph body;
  body.outputs.push_back(pw::value_info("b", 1, {}, false));
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("c", 9, {}));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("If", {"c"}, {"y"}, "branch", pw::graph_attr("then_branch", body.bytes("then"))));
  expect_input_error([&] { oi::import_bytes(pw::model(pg), "if.onnx"); }, {"if.onnx", "node 'branch' (If)", "else_branch"});
}

TEST(OnnxImporter, UnknownOpImportsWithAWarning) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 13, "custom" : 1]>
g (float[N, 4] x) => (float[N, 4] y) {
  t = custom.Frobnicate (x)
  y = Relu (t)
}
)";
  Graph g = oi::import_text(text);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op, "Frobnicate");
  EXPECT_EQ(g.nodes[0].domain, "custom");
  EXPECT_FALSE(T(g, "t").shape_known());
  EXPECT_FALSE(g.nodes[0].warnings.empty());
  EXPECT_FALSE(g.warnings.empty());
}

// ONNX 1.12 counts an implicit Einsum's letters in int[26] indexed by c - 'a': an uppercase letter wrote
// outside it (a fuzz input crashed in einsumRankInference). The unknown op keeps a node unshaped, so ONNX's
// inference runs over the Einsum; the importer hands it the explicit form, and perfpred shapes it itself.
TEST(OnnxImporter, ImplicitEinsumWithUppercaseLettersIsShapedWithoutOnnxCorruptingTheStack) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 13, "custom" : 1]>
g (float[2, 3] x, float[3, 4] w, float[5, 2, 3] b) => (float[?] y, float[?] e, float[?] t) {
  y = Einsum <equation = "iJ,Jk"> (x, w)
  e = Einsum <equation = "...J, Jk"> (b, w)
  t = custom.Frobnicate (x)
}
)";
  Graph g = oi::import_text(text);
  EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(S(g, "e"), (std::vector<int64_t>{5, 2, 4}));
  EXPECT_FALSE(T(g, "t").shape_known());
}

TEST(OnnxImporter, OpsetsUpTo26ImportPastItAreRefused) {
  const char* text = R"(
<ir_version: 11, opset_import: ["" : 23]>
g (float[N, 4] x) => (float[N, 4] y) {
  y = Relu (x)
}
)";
  Graph g = oi::import_text(text);
  EXPECT_EQ(g.opset, 23);
  EXPECT_TRUE(g.warnings.empty());
  EXPECT_EQ(S(g, "y"), (std::vector<int64_t>{1, 4}));
  std::string newest = text;  // ONNX 1.21's opset, the newest released
  newest.replace(newest.find(": 23]"), 5, ": 26]");
  EXPECT_EQ(oi::import_text(newest).opset, 26);
  std::string newer = text;
  newer.replace(newer.find(": 23]"), 5, ": 27]");
  expect_input_error([&] { oi::import_text(newer); }, {"opset 27 is newer than perfpred imports", "opset_version=26"});
}

TEST(OnnxImporter, BadTextIsAnInputError) {
  expect_input_error([] { oi::import_text("<ir_version: 8> g (float[2] x) => (float[2] y) { y = Relu (x"); }, {"ONNX text"});
}

// Corrupted bytes (every truncation point, flipped bytes) give either a Graph or an InputError:
// never a crash, another exception type, or a sanitizer report.
TEST(OnnxImporter, CorruptedBytesNeverCrash) {
  pw::Graph pg;
  pg.inputs.push_back(pw::value_info("x", 1, {-1, 3, 8, 8}));
  pg.outputs.push_back(pw::value_info("y", 1, {}, false));
  pg.nodes.push_back(pw::node("Conv", {"x", "w"}, {"c"}, "conv"));
  pg.nodes.push_back(pw::node("Reshape", {"c", "shape"}, {"y"}, "reshape"));
  pg.initializers.push_back(pw::tensor("w", 1, {4, 3, 3, 3}, std::string(4 * 27 * 4, '\0')));
  pg.initializers.push_back(pw::tensor("shape", 7, {2}, pw::int64_raw({0, -1})));
  const std::string bytes = pw::model(pg);
  ASSERT_EQ(S(oi::import_bytes(bytes, "ok.onnx"), "y"), (std::vector<int64_t>{1, 144}));
  size_t ok = 0, rejected = 0;
  auto attempt = [&](const std::string& b) {
    try {
      oi::import_bytes(b, "fuzz.onnx");
      ++ok;
    } catch (const InputError&) {
      ++rejected;
    }
  };
  for (size_t cut = 0; cut < bytes.size(); ++cut) attempt(bytes.substr(0, cut));
  for (size_t i = 0; i < bytes.size(); ++i)
    for (unsigned char mask : {0x01, 0x80, 0xff}) {
      std::string b = bytes;
      b[i] = static_cast<char>(static_cast<unsigned char>(b[i]) ^ mask);
      attempt(b);
    }
  EXPECT_GT(rejected, bytes.size());  // every truncation at least is rejected
  EXPECT_GT(ok + rejected, 3 * bytes.size());
}

// --nms-candidates reaches the graph for the cost rule, and names only a NonMaxSuppression with a score threshold:
// an unknown name lists the nodes it could name, one without a threshold says that every box is a candidate.
TEST(OnnxImporter, NmsCandidatesNameANonMaxSuppressionWithAScoreThreshold) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 50, 4] boxes, float[1, 3, 50] scores) => (int64[M, 3] sel, int64[J, 3] all) {
  most = Constant <value = int64[1] {10}> ()
  iou = Constant <value = float[1] {0.5}> ()
  thr = Constant <value = float[1] {0.25}> ()
  sel = NonMaxSuppression (boxes, scores, most, iou, thr)
  all = NonMaxSuppression (boxes, scores, most)
}
)";
  oi::ImportOptions o;
  o.nms_candidates = {{"NonMaxSuppression_3", 20}};
  o.nms_candidates_all = 5;
  Graph g = oi::import_text(text, o);
  EXPECT_EQ(g.nms_candidates.at("NonMaxSuppression_3"), 20);
  EXPECT_EQ(g.nms_candidates_all, 5);
  o.nms_candidates = {{"nms", 20}};
  expect_input_error([&] { oi::import_text(text, o); },
                     {"--nms-candidates nms=20", "no NonMaxSuppression with a score_threshold input named 'nms'",
                      "such nodes: NonMaxSuppression_3"});
  o.nms_candidates = {{"NonMaxSuppression_4", 20}};
  expect_input_error([&] { oi::import_text(text, o); },
                     {"'NonMaxSuppression_4' has no score_threshold input", "every box is a candidate"});
  o.overrides_are_keys = true;  // a budget file's entry names its key
  expect_input_error([&] { oi::import_text(text, o); }, {"nms_candidates.NonMaxSuppression_4"});
}
