#pragma once
// perfpred's own shape inference and constant folding over a Graph (no protobuf here). It closes the
// gaps ONNX's shape inference leaves: shape subgraphs (Shape -> Gather -> Concat -> Reshape ...) are
// evaluated on small integer constants, and per-op rules derive output shapes from them.
#include <cstdint>
#include <string>

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

/// An Einsum equation in explicit form with its spaces removed: "ij, jk" -> "ij,jk->ik". The implicit
/// output is the broadcast "..." (when any term has one), then every letter used exactly once in ASCII
/// order (A-Z before a-z), as numpy and torch.einsum order it (ONNX Runtime 1.2x refuses implicit
/// equations with uppercase letters; the ONNX spec allows only a-z). Empty when the equation is empty or has
/// a character other than letters, ',', "..." and one "->": ONNX 1.12's implicit-mode rank inference
/// counts letters in a 26-entry stack array indexed by `c - 'a'`, so an uppercase letter or a digit
/// there writes outside it; the importer hands ONNX only this form.
std::string einsum_explicit(const std::string& equation);

/// Ops whose output size depends on their input's values, not its shape (NonZero, NonMaxSuppression, Compress):
/// Graph::data_counts sets it.
bool is_data_dependent(const std::string& op);
/// The ONNX sequence ops (SequenceEmpty/Construct/Insert/Erase/At/Length, SplitToSequence, ConcatFromSequence).
bool is_sequence_op(const std::string& op);
/// Optional, OptionalHasElement, OptionalGetElement.
bool is_optional_op(const std::string& op);

/// True for integer and bool dtypes (whose small constants are kept in int_values).
bool is_integral(DType t);

}  // namespace perfpred::onnx_import::detail
