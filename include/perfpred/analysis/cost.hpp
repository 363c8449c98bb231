#pragma once
/// Per-node cost analysis: FLOPs, bytes, parameters, and the shape facts a kernel model needs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfpred/core/graph.hpp"

namespace perfpred {

/// Kernel family of an op: decides which kernel model and learned corrector apply.
enum class OpFamily {
  conv,            ///< Conv (1-D/2-D/3-D, grouped, depthwise, dilated)
  conv_transpose,  ///< ConvTranspose
  gemm,            ///< Gemm, MatMul, Einsum (batched), linear layers
  norm,            ///< BatchNorm, LayerNorm, InstanceNorm, GroupNorm, LRN
  elementwise,     ///< activations and broadcast arithmetic
  pool,            ///< Max/Average/Global pooling
  reduce,          ///< Reduce* ops
  softmax,         ///< Softmax, LogSoftmax
  data_movement,   ///< Concat, Split, Slice, Gather, Transpose, Pad, Resize, Tile, Cast, Expand, Where ...
  rnn,             ///< LSTM, GRU, RNN
  view,            ///< Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout (inference), Shape, Constant: no kernel
  unknown          ///< not known; bytes-only estimate under --allow-unknown
};

std::string to_string(OpFamily f);
/// Inverse of to_string; throws InputError for anything else.
OpFamily op_family_from_string(const std::string& s);

/// A (batched) matrix product view of a node: conv as implicit GEMM (M = N*out_spatial,
/// N = out_channels/groups, K = in_channels/groups * kernel volume, batch = groups).
struct GemmShape {
  int64_t batch = 1;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

/// Cost of one node for one forward execution.
struct NodeCost {
  int node_index = -1;       ///< index into Graph::nodes
  std::string name;
  std::string op;
  OpFamily family = OpFamily::unknown;
  double flops = 0;          ///< multiply-add counts 2
  int64_t params = 0;        ///< trainable parameter elements (initializers consumed as weights)
  int64_t bytes_read = 0;    ///< activations and weights read, at their dtypes
  int64_t bytes_written = 0; ///< outputs written
  int64_t weight_bytes = 0;  ///< part of bytes_read that is parameters
  std::optional<GemmShape> gemm;  ///< for conv/gemm/rnn families
  /// Extra numeric facts per family, e.g. conv: kernel_h, kernel_w, stride_h, groups, in_channels,
  /// out_channels, out_h, out_w; rnn: seq_len, hidden, layers, directions. Names are stable feature names.
  std::vector<std::pair<std::string, double>> attrs;
  bool estimated = false;    ///< unknown op costed as bytes only (--allow-unknown)
  std::vector<std::string> warnings;

  /// flops / (bytes_read + bytes_written); 0 when no bytes.
  double intensity() const;
};

/// Costs of a whole graph.
struct GraphCost {
  std::vector<NodeCost> nodes;  ///< one per Graph::nodes entry, same order
  double total_flops = 0;
  int64_t total_params = 0;
  int64_t total_bytes_read = 0;
  int64_t total_bytes_written = 0;
  int64_t unknown_shape_tensors = 0;  ///< tensors produced by nodes whose shape is still unknown
  /// Nodes that do work (not views or folded constants) with an input or output of unknown shape, in
  /// execution order: their FLOPs or bytes are missing from the totals, so a prediction is partial.
  std::vector<int> unshaped_nodes;
  /// NonMaxSuppression nodes with a score threshold and no candidate count (Graph::nms_candidates), in execution
  /// order: priced with every box a candidate, the most their data allows; a prediction's notes name them.
  std::vector<int> nms_every_box;
  /// Integer-arithmetic nodes of a quantised model (QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger), in
  /// execution order: a prediction at another precision than int8 says so in its notes.
  std::vector<int> integer_nodes;
  bool complete() const { return unshaped_nodes.empty(); }
};

/// One line naming the first unshaped working nodes (up to `max_named`), the tensor each lacks a shape
/// for, and the node where the unknown shapes begin with the runtime inputs it depends on. Empty when
/// the cost is complete.
std::string unshaped_summary(const Graph& g, const GraphCost& c, size_t max_named = 3);

struct AnalyzeOptions {
  bool allow_unknown = false;  ///< unknown ops become bytes-only estimates instead of an error
};

/// Analyse every node. Without allow_unknown, throws UnsupportedOpError listing every unknown op
/// by node name and op type.
GraphCost analyze(const Graph& g, const AnalyzeOptions& opts = {});

/// True when the analysis has rules for this op type (default ONNX domain or com.microsoft fused ops).
bool is_known_op(const std::string& op);

}  // namespace perfpred
