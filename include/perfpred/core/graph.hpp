#pragma once
/// perfpred's one graph representation: what every importer produces and every analysis reads.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "perfpred/core/dtype.hpp"

namespace perfpred {

/// Dimension value meaning "not known".
inline constexpr int64_t k_unknown_dim = -1;

/// One tensor of a sequence value (SequenceElement of Tensor::elements): its type and shape.
struct SequenceElement {
  DType dtype = DType::unknown;
  std::vector<int64_t> shape;
  bool has_shape = false;
  bool operator==(const SequenceElement&) const = default;
  /// True when the rank and every dim are known.
  bool shape_known() const;
};

/// Most tensors a sequence value is tracked with (SplitToSequence of a long axis, a Loop appending every
/// iteration): a longer one is an error naming its node. A Loop that appends every iteration holds every
/// length up to this one, so time and memory grow with its square: 1,000 appends took 0.2 s and 78 MB to import.
inline constexpr size_t k_max_sequence_length = 1024;

/// A tensor's static description. `shape` is empty for a scalar; a dim of k_unknown_dim is unknown.
struct Tensor {
  std::string name;
  DType dtype = DType::unknown;
  std::vector<int64_t> shape;
  bool has_shape = false;        ///< false when even the rank is unknown
  /// For a dim still unknown after import: the input's symbolic dim it is ("seq"), else "". Empty, or
  /// one entry per dim. Set only where symbolic dims are kept (inspect; ImportOptions::keep_symbolic).
  std::vector<std::string> dim_names;
  bool is_initializer = false;   ///< a weight stored in the model (or fed as a graph input with export_params=False)
  bool is_graph_input = false;   ///< a runtime input of the graph (not a weight)
  bool is_graph_output = false;
  /// Integer contents when the tensor is a small constant (shape arithmetic); used by folding.
  std::optional<std::vector<int64_t>> int_values;
  /// Float contents when the tensor is a small float constant (e.g. Clip bounds, Pad values).
  std::optional<std::vector<double>> float_values;
  /// An ONNX sequence of tensors (SequenceConstruct, SplitToSequence, a Loop's appended list), not a tensor:
  /// `dtype` is its elements' type, `shape` stays empty and `has_shape` false, and `elements` lists them in
  /// order where the length is known.
  bool is_sequence = false;
  std::optional<std::vector<SequenceElement>> elements;
  /// An ONNX optional (Optional, as torch.jit.script exports an Optional[Tensor] argument): `dtype` and `shape`
  /// are its tensor's; `holds_element` says whether it has one, where known (an empty one has no bytes).
  bool is_optional = false;
  std::optional<bool> holds_element;

  /// True when the rank and every dim are known.
  bool shape_known() const;
  /// Product of dims; nullopt when unknown or overflowing.
  std::optional<int64_t> numel() const;
  /// numel * dtype size; nullopt when unknown. A sequence: its elements' bytes, when every one is known.
  std::optional<int64_t> bytes() const;
  /// A sequence whose length and every element's shape and type are known.
  bool sequence_known() const;
};

/// One ONNX attribute value.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                               std::vector<std::string>>;

/// One operator instance. Tensor references are indices into Graph::tensors; -1 marks an omitted optional input.
struct Node {
  std::string name;
  std::string op;      ///< ONNX op_type, e.g. "Conv"
  std::string domain;  ///< "" for the default ONNX domain
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::map<std::string, AttrValue> attrs;
  std::vector<std::string> warnings;

  /// Integer attribute or default.
  int64_t attr_int(const std::string& key, int64_t def) const;
  /// Float attribute or default.
  double attr_float(const std::string& key, double def) const;
  /// String attribute or default.
  std::string attr_string(const std::string& key, const std::string& def) const;
  /// Integer-list attribute or default.
  std::vector<int64_t> attr_ints(const std::string& key, const std::vector<int64_t>& def = {}) const;
  /// True when the attribute exists.
  bool has_attr(const std::string& key) const { return attrs.count(key) != 0; }
};

/// A whole model: tensors, nodes in a topological execution order, inputs and outputs.
struct Graph {
  std::string model_name;     ///< file stem or graph name
  std::string producer;       ///< producer_name/version from the model, e.g. "pytorch 1.13.1"
  int64_t opset = 0;          ///< default-domain opset
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;    ///< topologically sorted
  std::vector<int> inputs;    ///< runtime inputs (not weights)
  std::vector<int> outputs;
  std::vector<std::string> warnings;  ///< model-level warnings (newer opset, ...)
  /// Small constants (shape vectors, bounds) the model keeps in external data that the importer could not
  /// read, name -> why (the file missing beside the model, a location outside its folder, ...). Shapes folded
  /// from their values stay unknown; the report of lost shapes names them.
  std::map<std::string, std::string> unread_external;
  /// How many elements data-dependent ops output (NonZero's nonzeros, NonMaxSuppression's kept boxes, Compress's
  /// kept slices), which no shape decides: by node name, and `data_count_all` (>= 0) for every such node without
  /// one (onnx_import::ImportOptions::data_counts, --data-count). Each is capped at the op's upper bound.
  std::map<std::string, int64_t> data_counts;
  int64_t data_count_all = -1;
  /// Boxes per image and class that pass a NonMaxSuppression's score threshold, which only the data decides:
  /// by node name, and `nms_candidates_all` (>= 0) for every such node without one
  /// (onnx_import::ImportOptions::nms_candidates, --nms-candidates). Each is capped at the node's box count;
  /// without one every box is a candidate (the cost's upper bound, and exact for an NMS without a threshold).
  std::map<std::string, int64_t> nms_candidates;
  int64_t nms_candidates_all = -1;

  /// Index of a tensor by name, or -1.
  int find_tensor(const std::string& name) const;
  /// Add a tensor (name must be unique) and return its index.
  int add_tensor(Tensor t);
  /// Tensor of node input i, or nullptr when omitted / out of range.
  const Tensor* input(const Node& n, size_t i) const;
  /// Tensor of node output i, or nullptr.
  const Tensor* output(const Node& n, size_t i) const;

 private:
  std::unordered_map<std::string, int> m_index;
};

/// Shape as text "[1, 3, 224, 224]" with "?" for unknown dims; a sequence as "seq(4 x [2, 16])" (its length and
/// its elements' shape where they share one), "seq(4)" or "seq(?)".
std::string shape_to_string(const Tensor& t);

/// Whether a NonMaxSuppression node drops boxes under a score threshold (its fifth input is present).
bool nms_filters_by_score(const Node& n);
/// Whether the caller gave a NonMaxSuppression a candidate count (by its name or for every such node).
bool nms_candidates_given(const Graph& g, const Node& n);
/// Boxes per image and class a NonMaxSuppression pairs in its overlap tests: all `boxes` without a score
/// threshold; with one, the count Graph::nms_candidates gives the node (or nms_candidates_all), capped at
/// `boxes`, else all `boxes` (the most the data allows).
int64_t nms_candidates(const Graph& g, const Node& n, int64_t boxes);

}  // namespace perfpred
