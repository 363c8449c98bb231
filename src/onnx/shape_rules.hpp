#pragma once
// perfpred's own shape inference and constant folding over a Graph (no protobuf here). It closes the
// gaps ONNX's shape inference leaves: shape subgraphs (Shape -> Gather -> Concat -> Reshape ...) are
// evaluated on small integer constants, and per-op rules derive output shapes from them.
#include <cstdint>

#include "perfpred/core/graph.hpp"

namespace perfpred::onnx_import::detail {

/// Constants with more elements than this are not folded (shape arithmetic is tiny).
inline constexpr int64_t k_max_fold_elems = 4096;
/// Float initializers up to this many elements keep their values (Clip bounds, Pad values, scales).
inline constexpr int64_t k_max_float_values = 64;

/// Apply the folding and shape rules of one node. Returns true when any output tensor gained
/// shape, dtype or values. Unsupported ops simply infer nothing; a node that breaks its op's spec
/// (validate_node) throws InputError.
bool infer_node(Graph& g, Node& n);

/// Check one default-domain node's attributes and the known parts of its input shapes against the ONNX
/// spec (axes in range, positive strides and kernels, broadcastable shapes, matching element counts, ...).
/// Throws InputError "node 'NAME' (OP): ..." without the file, which the importer adds once. Unknown
/// dims never fail, so it is safe on partially shaped graphs. validate.cpp.
void validate_node(const Graph& g, const Node& n);

/// Run infer_node over the (topologically sorted) nodes until nothing changes. Returns the number
/// of passes that changed something.
int propagate(Graph& g);

/// True for integer and bool dtypes (whose small constants are kept in int_values).
bool is_integral(DType t);

}  // namespace perfpred::onnx_import::detail
