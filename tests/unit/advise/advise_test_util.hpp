#pragma once
// Test support: small ONNX models written inline as text, analysed at any batch.
#include <memory>
#include <string>

#include "perfpred/advise/model.hpp"
#include "perfpred/analysis/cost.hpp"
#include "perfpred/onnx/importer.hpp"
#include "../error_of.hpp"

namespace perfpred::test {

/// A small CNN (conv-relu-conv-relu-pool-gemm) with weights as graph inputs; `width` channels.
inline std::string cnn_text(int width = 32, int hw = 32, const std::string& extra_layer = "") {
  const std::string w = std::to_string(width), s = std::to_string(hw);
  std::string body = extra_layer.empty() ? "  c2 = Conv <pads = [1, 1, 1, 1]> (r1, w2)\n"
                                         : extra_layer;
  return "<ir_version: 8, opset_import: [\"\" : 13]>\n"
         "net (float[batch, 3, " + s + ", " + s + "] input, float[" + w + ", 3, 3, 3] w1, float[" + w + ", " + w +
         ", 3, 3] w2, float[" + w + ", " + w + ", 3, 3] w3, float[10, " + w + "] fw) => (float[batch, 10] output) {\n"
         "  c1 = Conv <pads = [1, 1, 1, 1]> (input, w1)\n"
         "  r1 = Relu (c1)\n" + body +
         "  r2 = Relu (c2)\n"
         "  p = GlobalAveragePool (r2)\n"
         "  f = Flatten (p)\n"
         "  output = Gemm <transB = 1> (f, fw)\n"
         "}\n";
}

inline std::shared_ptr<const advise::AnalyzedModel> analysed_text(const std::string& text, int64_t batch) {
  onnx_import::ImportOptions o;
  o.batch = batch;
  auto m = std::make_shared<advise::AnalyzedModel>();
  m->graph = onnx_import::import_text(text, o);
  m->cost = analyze(m->graph);
  m->batch = batch;
  return m;
}

/// A ModelAtBatch over an inline model (no caching: tests are small).
inline advise::ModelAtBatch text_model(const std::string& text) {
  return [text](int64_t batch) { return analysed_text(text, batch); };
}

}  // namespace perfpred::test
