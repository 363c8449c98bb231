// Inputs found by fuzzing the importer (../shared/reliability/fuzz-findings), rebuilt here so the tests
// need nothing outside the repository: each crashed perfpred (a signal inside our shape rules or inside
// ONNX's shape inference) and must now be one InputError line naming the model and the fault. Also the
// limits on what a model may ask for (limits.hpp).
#include <gtest/gtest.h>

#include <functional>

#include "perfpred/onnx/importer.hpp"
#include "perfpred/util/error.hpp"
#include "proto_writer.hpp"

using perfpred::Graph;
using perfpred::InputError;
namespace oi = perfpred::onnx_import;

namespace {

void expect_one_line_error(const std::function<void()>& f, std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const auto& frag : fragments) EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in: " << msg;
  }
}

void expect_bad_text(const std::string& header, const std::string& sig, const std::string& body,
                     std::initializer_list<std::string> fragments) {
  const std::string text = header + "\ng " + sig + " {\n" + body + "\n}\n";
  expect_one_line_error([&] { oi::import_text(text); }, fragments);
}

const char* k_ms = "<ir_version: 8, opset_import: [\"\" : 13, \"com.microsoft\" : 1]>";
const char* k_x4 = "(float[1, 8, 4, 4] x) => (float[?] y)";

}  // namespace

// com.microsoft ops that share a default-domain name took its shape rules without its attribute checks:
// SIGSEGV, SIGFPE, heap corruption or a vector of 2^31 elements.
TEST(OnnxLimits, MicrosoftDomainOpsGetTheDefaultChecks) {
  expect_bad_text(k_ms, k_x4, "y = com.microsoft.Flatten <axis = 9> (x)", {"<text>", "(Flatten)", "'axis' = 9"});
  expect_bad_text(k_ms, k_x4, "y = com.microsoft.Flatten <axis = 2147483648> (x)", {"(Flatten)", "2147483648"});
  expect_bad_text(k_ms, "(float x) => (float[?] y)", "y = com.microsoft.Flatten <axis = 1> (x)", {"(Flatten)", "rank-0"});
  expect_bad_text(k_ms, k_x4, "y = com.microsoft.LayerNormalization <axis = -9> (x)",
                  {"(LayerNormalization)", "'axis' = -9"});
  expect_bad_text(k_ms, k_x4, "y = com.microsoft.LayerNormalization <axis = -9223372036854775807> (x)",
                  {"(LayerNormalization)", "out of range"});
  expect_bad_text(k_ms, k_x4, "y = com.microsoft.DepthToSpace <blocksize = 0> (x)", {"(DepthToSpace)", "'blocksize' = 0"});
  expect_bad_text(k_ms, k_x4, "y = com.microsoft.SpaceToDepth <blocksize = 0> (x)", {"(SpaceToDepth)", "'blocksize' = 0"});
}

// A node with fewer inputs than its schema takes (Where with none: SIGSEGV in infer_node), or without a
// required attribute (Scan without a body: SIGSEGV inside ONNX's shape inference).
TEST(OnnxLimits, ArityAndRequiredAttributesFollowTheSchema) {
  pw::Graph where;
  where.nodes = {pw::node("Where", {}, {"y"}, "w")};
  where.outputs = {pw::value_info("y", 1, {2})};
  expect_one_line_error([&] { oi::import_bytes(pw::model(where), "where0.onnx"); },
                        {"where0.onnx: node 'w' (Where)", "0 inputs", "takes 3"});
  for (int64_t opset : {9, 13}) {
    pw::Graph scan;
    scan.inputs = {pw::value_info("x", 1, {2, 3})};
    scan.nodes = {pw::node("Scan", {"x"}, {"y"}, "s", pw::f_bytes(5, pw::f_bytes(1, "num_scan_inputs") + pw::f_int(3, 1) + pw::f_int(20, 2)))};
    scan.outputs = {pw::value_info("y", 1, {2, 3})};
    expect_one_line_error([&] { oi::import_bytes(pw::model(scan, opset), "scan.onnx"); },
                          {"scan.onnx: node 's' (Scan)", "body"});
  }
}

// ONNX's STFT inference reads element 0 of frame_step without checking there is one (SIGSEGV).
TEST(OnnxLimits, StftFrameStepMustBeAScalar) {
  pw::Graph g;
  g.inputs = {pw::value_info("sig", 1, {1, 64, 1})};
  g.initializers = {pw::tensor("step", 7, {0}, "")};
  g.nodes = {pw::node("STFT", {"sig", "step"}, {"y"}, "stft")};
  g.outputs = {pw::value_info("y", 1, {1, 1, 1, 2}, false)};
  expect_one_line_error([&] { oi::import_bytes(pw::model(g, 17), "stft.onnx"); },
                        {"stft.onnx: node 'stft' (STFT)", "'step'", "must be a scalar"});
}

// Names with newlines are quoted printably and a long name is cut; a name that is not UTF-8 is refused.
TEST(OnnxLimits, NamesInErrorsArePrintableAndShort) {
  pw::Graph g;
  g.inputs = {pw::value_info("x", 1, {2})};
  g.nodes = {pw::node("Add", {"x", "a\nb" + std::string(5000, 'z')}, {"y"}, "n\nm")};
  g.outputs = {pw::value_info("y", 1, {2})};
  try {
    oi::import_bytes(pw::model(g), "nl.onnx");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("node 'n\\nm'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("input 'a\\nbzzz"), std::string::npos) << msg;
    EXPECT_LT(msg.size(), 600u) << msg;
  }
  pw::Graph u;
  u.inputs = {pw::value_info("x\xff", 1, {2})};
  u.nodes = {pw::node("Relu", {"x\xff"}, {"y"}, "r")};
  u.outputs = {pw::value_info("y", 1, {2})};
  expect_one_line_error([&] { oi::import_bytes(pw::model(u), "u.onnx"); }, {"u.onnx", "'x\\xff'", "not valid UTF-8"});
}

// Found by fuzz_onnx_import: an input named with a newline and a NUL and no declared shape reached the
// "has no declared shape" error raw (two lines, cut at the NUL). Every InputError is printable now.
TEST(OnnxLimits, InputNameWithControlBytesGivesOneLineError) {
  pw::Graph g;
  const std::string name = std::string("x\x06\n\x04", 4) + std::string(1, '\0') + "z";
  g.inputs = {pw::value_info(name, 1, {}, false)};
  g.nodes = {pw::node("Relu", {name}, {"y"}, "r")};
  g.outputs = {pw::value_info("y", 1, {2})};
  expect_one_line_error([&] { oi::import_bytes(pw::model(g), "ctl.onnx"); }, {"ctl.onnx", "x\\x06\\n\\x04\\x00z"});
}

TEST(OnnxLimits, RankAndElementLimitsAreNamed) {
  pw::Graph g;
  g.inputs = {pw::value_info("x", 1, std::vector<int64_t>(65, 1))};
  g.nodes = {pw::node("Relu", {"x"}, {"y"}, "r")};
  g.outputs = {pw::value_info("y", 1, {1})};
  expect_one_line_error([&] { oi::import_bytes(pw::model(g), "rank.onnx"); }, {"rank.onnx", "rank 65", "limit of 64"});
  pw::Graph big;
  big.inputs = {pw::value_info("x", 1, {1 << 20, 1 << 20, 1 << 10})};
  big.nodes = {pw::node("Relu", {"x"}, {"y"}, "r")};
  big.outputs = {pw::value_info("y", 1, {1 << 20, 1 << 20, 1 << 10})};
  expect_one_line_error([&] { oi::import_bytes(pw::model(big), "big.onnx"); }, {"big.onnx", "limit of 2^48"});
}

// Found by scripts/fuzz.sh: STFT whose frame_step is a graph input (no value) crashed ONNX's inference.
TEST(OnnxLimits, StftFrameStepMustBeAConstant) {
  const auto path = std::string(PERFPRED_SOURCE_ROOT) + "/tests/data/fuzz/stft-runtime-frame-step.onnx";
  expect_one_line_error([&] { oi::import_file(path); }, {"stft-runtime-frame-step.onnx: node 'n0' (STFT)", "frame_step", "constant"});
}

// Found by scripts/fuzz.sh (CI seed): a Where with one input whose values fold (opset 0, so no schema
// applies) indexed past its inputs in the value folding and crashed the import.
TEST(OnnxLimits, WhereWithMissingInputsDoesNotFold) {
  const auto path = std::string(PERFPRED_SOURCE_ROOT) + "/tests/data/fuzz/where-one-input-folded.onnx";
  try {
    const auto g = oi::import_file(path);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op, "Where");
  } catch (const perfpred::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("where-one-input-folded.onnx"), std::string::npos) << e.what();
  }
}

// Found by scripts/fuzz.sh (fuzz_onnx_import, session 33): a Constant whose INT64 scalar value holds no value (its
// raw_data mutated into the tensor's name) multiplied with a shape dim; ONNX's data propagation read the scalar's
// missing value and crashed (SIGSEGV inside MathOpDataPropagator). A Constant's values must match its dims.
TEST(OnnxLimits, AShapeOfAnUnknownOpsOutputImports) {
  // ONNX 1.12's data propagation read the type of a Shape's input unchecked, and an op ONNX has no schema for leaves
  // none: fuzz_onnx_import's mutant of a detector's postprocessing (an NMS renamed "N/nMaxSuppression", then Shape)
  // and any custom op before a Shape crashed the import (SIGSEGV). It imports, the unknown op's output unshaped.
  const auto path = std::string(PERFPRED_SOURCE_ROOT) + "/tests/data/fuzz/unknown-op-into-shape.onnx";
  perfpred::Graph g;
  ASSERT_NO_THROW(g = oi::import_file(path));
  const int sel = g.find_tensor("sel");
  ASSERT_GE(sel, 0);
  EXPECT_FALSE(g.tensors[static_cast<size_t>(sel)].shape_known());
  for (const char* domain : {"", "com.example"}) {
    const std::string hdr = std::string("<ir_version: 8, opset_import: [\"\" : 16") +
                            (*domain ? ", \"com.example\" : 1" : "") + "]>";
    const std::string op = *domain ? "com.example.Foo" : "Foo";
    perfpred::Graph h;
    ASSERT_NO_THROW(h = oi::import_text(hdr + "\ng (float[2, 3] x) => (int64[R] y) {\n  u = " + op +
                                        " (x)\n  y = Shape (u)\n}\n"))
        << domain;
    EXPECT_EQ(h.nodes.size(), 2u) << domain;
  }
}

TEST(OnnxLimits, AnUntypedTensorIntoAShapeImportsOrNamesItsNode) {
  // Besides an unknown op's output (above), a node whose own ONNX inference fails leaves its output untyped, and
  // ONNX 1.12's data propagation read a Shape's input type unchecked: fuzz_onnx_predict's mutant of the detector
  // seed (a Constant whose 'value' attribute lost its name, into a Shape) and a Cast to a type code ONNX does not
  // have crashed the import (SIGSEGV). Both are one-line errors naming the node; a Size of an unknown op imports.
  const auto path = std::string(PERFPRED_SOURCE_ROOT) + "/tests/data/fuzz/malformed-constant-into-shape.onnx";
  expect_one_line_error([&] { oi::import_file(path); },
                        {"malformed-constant-into-shape.onnx: node 'Constant_0' (Constant)", "and has none"});
  const std::string hdr = "<ir_version: 8, opset_import: [\"\" : 16]>";
  expect_bad_text(hdr, "(float[2, 3] x) => (int64[R] y)", "  c = Constant <vXlue = int64 {0}> ()\n  y = Shape (c)",
                  {"(Constant): a Constant needs one of the attributes value,", "and has none"});
  expect_bad_text(hdr, "(float[2, 3] x) => (int64[R] y)", "  c = Cast <to = 999> (x)\n  y = Shape (c)",
                  {"(Cast): attribute 'to' = 999 is not an ONNX data type"});
  perfpred::Graph g;
  ASSERT_NO_THROW(g = oi::import_text(hdr + "\ng (float[2, 3] x) => (int64 y) {\n  u = Foo (x)\n  y = Size (u)\n}\n"));
  EXPECT_EQ(g.nodes.size(), 2u);
  // Cast-1..5 name the type as a string: not an integer code, so not refused.
  EXPECT_NO_THROW(oi::import_text("<ir_version: 3, opset_import: [\"\" : 5]>\ng (float[2, 3] x) => (float16[2, 3] y) {\n"
                                  "  y = Cast <to = \"FLOAT16\"> (x)\n}\n"));
}

TEST(OnnxLimits, ConstantValuesMustMatchTheirDims) {
  const auto path = std::string(PERFPRED_SOURCE_ROOT) + "/tests/data/fuzz/constant-scalar-without-value.onnx";
  expect_one_line_error([&] { oi::import_file(path); },
                        {"constant-scalar-without-value.onnx: node '/attn/Constant_11' (Constant) attribute 'value'",
                         "dims [] need 1 value but the tensor holds 0"});
  // Consistent values import: a vector, a scalar and an empty tensor (which holds none and needs none).
  const char* k_hdr = "<ir_version: 8, opset_import: [\"\" : 14]>";
  EXPECT_NO_THROW(oi::import_text(std::string(k_hdr) +
                                  "\ng (float[2, 3] x) => (float[2, 3] y) {\n  v = Constant <value = float[2] {1.0, 2.0}> ()\n"
                                  "  s = Constant <value = int64 {4}> ()\n  y = Add(x, x)\n}\n"));
  EXPECT_NO_THROW(oi::import_text(std::string(k_hdr) +
                                  "\ng (float[2, 3] x) => (float[2, 3] y) {\n  e = Constant <value = float[0] {}> ()\n"
                                  "  y = Add(x, x)\n}\n"));
}
