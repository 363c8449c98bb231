#pragma once
/// The self-contained HTML report: inline CSS and SVG only, no scripts, no fonts or images from
/// elsewhere, so it opens offline and can be attached to a CI job or an e-mail.
#include <cstdint>
#include <string>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/core/graph.hpp"
#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::report {

/// Live activation bytes after each node runs, in execution order.
struct MemoryTimelinePoint {
  int node_index = -1;
  std::string name;
  std::string op;
  double live_bytes = 0;  ///< activations alive after this node ran (weights excluded)
};

/// Liveness over the execution order (inference view): a runtime input is live from the start, a
/// node's outputs from that node, and a tensor is freed after its last consumer; graph outputs stay
/// live to the end. Initializers (weights) are excluded: they are resident all along and reported
/// separately. Floating-point tensors are counted at the element size of `precision` (fp16 halves
/// fp32 activations), other tensors at their own dtype.
std::vector<MemoryTimelinePoint> memory_timeline(const Graph& g, Precision precision);
/// Bytes of all initializers at `precision` (float weights at its element size).
double weight_bytes(const Graph& g, Precision precision);

/// One device's column in the report.
struct ReportDevice {
  GpuSpec gpu;
  Prediction prediction;
  /// Where measurements on machines left out of the fit fell (predict's latency_range_ms and energy_range_mj),
  /// where the analytical model predicted and the shipped table has a range for it; shown beside the values.
  std::optional<PredictionRange> latency_range;
  std::optional<PredictionRange> energy_range;
};

/// Everything the page shows.
struct ReportInput {
  std::string title;           ///< usually the model file name
  std::string model_path;      ///< shown as given
  const Graph* graph = nullptr;
  const GraphCost* cost = nullptr;
  PredictOptions options;      ///< batch, precision, mode, runtime of every prediction
  std::vector<ReportDevice> devices;  ///< at least one
  size_t max_layer_bars = 60;  ///< slowest layers drawn as bars; the rest are summed into one bar
};

/// Render the page. Deterministic for the same input (no timestamps).
std::string render_html_report(const ReportInput& in);

}  // namespace perfpred::report
