// The model zoo (models/zoo, exported by tools/export_zoo.py) against independently published figures:
// torchvision's model cards and the original papers. Published "GFLOPS" of torchvision count one
// multiply-add as 1, and only the conv and linear layers; perfpred counts a multiply-add as 2 and every
// op, so the comparison takes the conv + gemm families' FLOPs / 2 and then checks that the remaining
// (memory-bound) ops add only a few percent. A test skips itself when its file is absent.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis_test_util.hpp"

using namespace perfpred;

namespace {

std::filesystem::path zoo_file(const std::string& name) {
  return std::filesystem::path(PERFPRED_SOURCE_ROOT) / "models" / "zoo" / (name + ".onnx");
}

struct Published {
  const char* file;
  double gmacs;     // conv + linear multiply-adds at 224x224 (seq 128 / 64 for the language models)
  double mparams;   // millions of parameters
};

struct Measured {
  double conv_gemm_macs = 0;
  double total_flops = 0;
  double params = 0;
  int64_t unknown_shapes = 0;
  size_t warned_nodes = 0;
};

Measured measure(const std::filesystem::path& path, int64_t batch) {
  onnx_import::ImportOptions io;
  io.batch = batch;
  Graph g = onnx_import::import_file(path, io);
  GraphCost c = analyze(g);  // no --allow-unknown: every zoo op must be known
  Measured m;
  for (const auto& n : c.nodes) {
    if (n.family == OpFamily::conv || n.family == OpFamily::gemm) m.conv_gemm_macs += n.flops / 2;
    if (!n.warnings.empty()) ++m.warned_nodes;
  }
  m.total_flops = c.total_flops;
  m.params = static_cast<double>(c.total_params);
  m.unknown_shapes = c.unknown_shape_tensors;
  return m;
}

class ZooPublished : public ::testing::TestWithParam<Published> {};

}  // namespace

TEST_P(ZooPublished, MacsAndParamsWithinTwoPercent) {
  const Published& p = GetParam();
  auto path = zoo_file(p.file);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent (tools/export_zoo.py makes it)";
  Measured m = measure(path, 1);
  EXPECT_EQ(m.unknown_shapes, 0);
  EXPECT_EQ(m.warned_nodes, 0u);
  EXPECT_NEAR(m.conv_gemm_macs / 1e9, p.gmacs, 0.02 * p.gmacs) << p.file;
  EXPECT_NEAR(m.params / 1e6, p.mparams, 0.02 * p.mparams) << p.file;
  // The totals include norm, activation, pooling and softmax work: more than conv + gemm, but by little.
  EXPECT_GT(m.total_flops, 2 * m.conv_gemm_macs);
  EXPECT_LT(m.total_flops, 2 * m.conv_gemm_macs * 1.05) << p.file;
}

INSTANTIATE_TEST_SUITE_P(Analysis, ZooPublished,
                         ::testing::Values(Published{"resnet50", 4.1, 25.6}, Published{"vgg16", 15.5, 138.0},
                                           Published{"alexnet", 0.71, 61.0}, Published{"mobilenet_v2", 0.30, 3.5},
                                           Published{"vit_b_16", 17.6, 86.0}, Published{"resnet18", 1.81, 11.7},
                                           Published{"googlenet", 1.50, 6.6}, Published{"densenet121", 2.83, 8.0},
                                           Published{"squeezenet1_0", 0.82, 1.248}),
                         [](const auto& info) { return std::string(info.param.file); });

// Every zoo model: known ops, complete shapes, no warnings; FLOPs scale with the batch, parameters do not.
class ZooBatch : public ::testing::TestWithParam<const char*> {};

TEST_P(ZooBatch, ScalesWithBatch) {
  auto path = zoo_file(GetParam());
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  Measured b1 = measure(path, 1);
  Measured b32 = measure(path, 32);
  EXPECT_EQ(b1.unknown_shapes, 0);
  EXPECT_EQ(b32.unknown_shapes, 0);
  EXPECT_EQ(b1.warned_nodes, 0u);
  EXPECT_EQ(b32.warned_nodes, 0u);
  EXPECT_GT(b1.total_flops, 0);
  EXPECT_NEAR(b32.total_flops, 32 * b1.total_flops, 1e-9 * b32.total_flops);
  EXPECT_EQ(b32.params, b1.params);
}

INSTANTIATE_TEST_SUITE_P(Analysis, ZooBatch,
                         ::testing::Values("lenet5", "alexnet", "vgg16", "resnet18", "resnet50", "mobilenet_v2",
                                           "googlenet", "densenet121", "squeezenet1_0", "efficientnet_b0",
                                           "vit_b_16", "bert_base_like", "gpt2_small_like", "lstm_model"));

// Exact parameter counts: the sum of each model's parameter tensors (torch's numel over parameters()).
TEST(Zoo, ExactParameterCounts) {
  const std::vector<std::pair<const char*, int64_t>> exact{
      {"lenet5", 61706},          {"alexnet", 61100840},     {"vgg16", 138357544},      {"resnet18", 11689512},
      {"resnet50", 25557032},     {"mobilenet_v2", 3504872}, {"googlenet", 6624904},    {"densenet121", 7978856},
      {"squeezenet1_0", 1248424}, {"efficientnet_b0", 5288548}, {"vit_b_16", 86567656}, {"bert_base_like", 108595200},
      {"gpt2_small_like", 123751680}};
  int found = 0;
  for (const auto& [name, params] : exact) {
    auto path = zoo_file(name);
    if (!std::filesystem::exists(path)) continue;
    ++found;
    EXPECT_EQ(static_cast<int64_t>(measure(path, 1).params), params) << name;
  }
  if (found == 0) GTEST_SKIP() << "models/zoo is absent";
}

// Language models: the multiply-adds of their matrix products follow from the architecture. Tolerance
// 1e-4: bias additions folded into Gemm nodes (M*N FLOPs each) count in the gemm family too.
TEST(Zoo, TransformerAndLstmMacs) {
  auto bert = zoo_file("bert_base_like");
  if (std::filesystem::exists(bert)) {
    // 12 layers x seq 128 x (4*768*768 + 2*768*3072) + attention 12 x 2 x 128*128*768 = 11.17 G.
    double expected = 12 * 128 * (4.0 * 768 * 768 + 2.0 * 768 * 3072) + 12 * 2 * 128.0 * 128 * 768;
    EXPECT_NEAR(measure(bert, 1).conv_gemm_macs, expected, 1e-4 * expected);
  }
  auto gpt = zoo_file("gpt2_small_like");
  if (std::filesystem::exists(gpt)) {
    // The same blocks plus the tied LM head 128 x 768 x 50257.
    double expected = 12 * 128 * (4.0 * 768 * 768 + 2.0 * 768 * 3072) + 12 * 2 * 128.0 * 128 * 768 + 128.0 * 768 * 50257;
    EXPECT_NEAR(measure(gpt, 1).conv_gemm_macs, expected, 1e-4 * expected);
  }
  auto lstm = zoo_file("lstm_model");
  if (std::filesystem::exists(lstm)) {
    onnx_import::ImportOptions io;
    Graph g = onnx_import::import_file(lstm, io);
    GraphCost c = analyze(g);
    double rnn = 0;
    for (const auto& n : c.nodes)
      if (n.family == OpFamily::rnn) rnn += n.flops;
    // 64 steps: layer 1 2*2048*(256+512) + 2*2048 + 24*512, layer 2 2*2048*(512+512) + 2*2048 + 24*512.
    double expected = 64 * ((2.0 * 2048 * 768 + 4096 + 24 * 512) + (2.0 * 2048 * 1024 + 4096 + 24 * 512));
    EXPECT_DOUBLE_EQ(rnn, expected);
  }
}
