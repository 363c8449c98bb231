// ONNX bytes -> Graph -> per-node cost -> prediction on a catalogued GPU, inference and training, the
// way `perfpred predict --allow-unknown` runs it. The first byte picks the batch, precision and mode, and
// whether data-dependent ops (NonZero, NonMaxSuppression, Compress) output 0, 5, 10 or 15 elements (--data-count);
// its top two bits also give a thresholded NonMaxSuppression every box or 6, 13 or 20 candidates (--nms-candidates).
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "perfpred/analysis/cost.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/predict/predictor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const perfpred::GpuSpec gpu = perfpred::resolve_gpu("a100-sxm4-40gb");
  const uint8_t knob = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  fuzz::expect_clean([&] {
    perfpred::onnx_import::ImportOptions io;
    io.max_unrolled_nodes = fuzz::k_max_unrolled_nodes;
    io.batch = 1 + (knob & 7);
    if (knob & 32) io.data_count_all = 5 * (knob >> 6);
    io.nms_candidates_all = 7 * (knob >> 6) - 1;
    perfpred::Graph g = perfpred::onnx_import::import_bytes(bytes, "fuzz.onnx", io);
    perfpred::AnalyzeOptions ao;
    ao.allow_unknown = true;
    perfpred::GraphCost cost = perfpred::analyze(g, ao);
    perfpred::PredictOptions po;
    po.batch = io.batch;
    po.precision = (knob & 8) ? perfpred::Precision::fp16 : perfpred::Precision::fp32;
    po.mode = (knob & 16) ? perfpred::Mode::training : perfpred::Mode::inference;
    (void)perfpred::predict(g, cost, gpu, po);
  });
  return 0;
}
