#pragma once
/// A model analysed at one batch size, and the callback through which advice code asks for one. The
/// advise module does not import ONNX itself (it may not depend on the importer); the caller supplies
/// the callback, so a search over batch sizes re-imports the graph at every batch it tries.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/core/graph.hpp"

namespace perfpred::advise {

/// A graph shaped at `batch` and its cost analysis.
struct AnalyzedModel {
  Graph graph;
  GraphCost cost;
  int64_t batch = 1;
};

/// Returns the model shaped at a batch size; may cache. Throws InputError for a bad model.
using ModelAtBatch = std::function<std::shared_ptr<const AnalyzedModel>(int64_t batch)>;

}  // namespace perfpred::advise
