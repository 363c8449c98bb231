// Every model of models/zoo imports with every tensor shaped, at batch 1 and 32.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "perfpred/onnx/importer.hpp"

namespace fs = std::filesystem;
namespace oi = perfpred::onnx_import;

TEST(OnnxZoo, EveryModelHasNoUnknownShapesAtBatch1And32) {
  fs::path zoo = fs::path(PERFPRED_SOURCE_ROOT) / "models" / "zoo";
  std::vector<fs::path> models;
  if (fs::is_directory(zoo))
    for (const auto& e : fs::directory_iterator(zoo))
      if (e.path().extension() == ".onnx") models.push_back(e.path());
  if (models.empty()) GTEST_SKIP() << "no models in " << zoo;
  std::sort(models.begin(), models.end());
  for (const auto& m : models) {
    for (int64_t batch : {1, 32}) {
      SCOPED_TRACE(m.filename().string() + " batch " + std::to_string(batch));
      oi::ImportOptions o;
      o.batch = batch;
      perfpred::Graph g = oi::import_file(m, o);
      ASSERT_FALSE(g.nodes.empty());
      ASSERT_FALSE(g.inputs.empty());
      size_t unknown = 0;
      for (const auto& n : g.nodes)
        for (int out : n.outputs)
          if (out >= 0 && !g.tensors[static_cast<size_t>(out)].shape_known()) {
            ++unknown;
            ADD_FAILURE() << n.name << " (" << n.op << ") output " << g.tensors[static_cast<size_t>(out)].name;
          }
      EXPECT_EQ(unknown, 0u);
      for (int in : g.inputs) {
        const auto& t = g.tensors[static_cast<size_t>(in)];
        ASSERT_FALSE(t.shape.empty());
        EXPECT_EQ(t.shape[0], batch) << t.name;
      }
      for (int out : g.outputs) EXPECT_EQ(g.tensors[static_cast<size_t>(out)].shape[0], batch);
    }
  }
}
