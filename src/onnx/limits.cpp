#include "limits.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <onnx/defs/schema.h>

#include "perfpred/util/checked_math.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::onnx_import::detail {

namespace {

constexpr size_t k_name_bytes = 120;  // of a name quoted in an error

std::string quoted(const std::string& s) { return "'" + printable(s, k_name_bytes) + "'"; }

void check_rank(int rank, const std::string& what) {
  if (rank > k_max_rank)
    throw InputError(what + " has rank " + std::to_string(rank) + ", over the limit of " + std::to_string(k_max_rank) +
                     " dims per tensor");
}

void check_value_infos(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& vis, const char* kind) {
  for (const auto& vi : vis)
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
      check_rank(vi.type().tensor_type().shape().dim_size(), std::string(kind) + " " + quoted(vi.name()));
}

// ONNX names are UTF-8 strings; one that is not would reach JSON output and terminals as garbage.
void check_name(const std::string& name, const std::string& what) {
  if (!is_utf8(name))
    throw InputError(what + " " + quoted(name) + " is not valid UTF-8; ONNX names and strings are UTF-8 (re-export it)");
}

void check_graph_names(const onnx::GraphProto& g) {
  check_name(g.name(), "graph name");
  for (const auto* vis : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& vi : *vis) check_name(vi.name(), "tensor name");
  for (const auto& t : g.initializer()) check_name(t.name(), "initializer name");
  for (const auto& n : g.node()) {
    check_name(n.name(), "node name");
    check_name(n.op_type(), "op type");
    check_name(n.domain(), "op domain");
    for (const auto& s : n.input()) check_name(s, "input name");
    for (const auto& s : n.output()) check_name(s, "output name");
  }
}

void check_graph_limits(const onnx::GraphProto& g, int depth) {
  if (depth > k_max_subgraph_depth)
    throw InputError("graph " + quoted(g.name()) + " is nested " + std::to_string(depth) +
                     " subgraphs deep, over the limit of " + std::to_string(k_max_subgraph_depth));
  if (g.node_size() > k_max_nodes)
    throw InputError("graph " + quoted(g.name()) + " has " + std::to_string(g.node_size()) + " nodes, over the limit of " +
                     std::to_string(k_max_nodes));
  check_graph_names(g);
  check_value_infos(g.input(), "graph input");
  check_value_infos(g.output(), "graph output");
  check_value_infos(g.value_info(), "value_info");
  for (const auto& t : g.initializer()) check_rank(t.dims_size(), "initializer " + quoted(t.name()));
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      const int values = a.ints_size() + a.floats_size() + a.strings_size() + a.tensors_size() + a.graphs_size();
      if (values > k_max_attr_values)
        throw InputError("node " + quoted(n.name()) + " (" + printable(n.op_type(), k_name_bytes) + "): attribute " +
                         quoted(a.name()) + " has " + std::to_string(values) + " values, over the limit of " +
                         std::to_string(k_max_attr_values));
      if (a.has_t()) check_rank(a.t().dims_size(), "node " + quoted(n.name()) + " attribute " + quoted(a.name()));
      if (a.has_g()) check_graph_limits(a.g(), depth + 1);
      for (const auto& sub : a.graphs()) check_graph_limits(sub, depth + 1);
    }
}

std::string count_range(int lo, int hi) {
  if (lo == hi) return std::to_string(lo);
  if (hi == std::numeric_limits<int>::max()) return "at least " + std::to_string(lo);
  return std::to_string(lo) + " to " + std::to_string(hi);
}

// Default-domain ops whose schema changed after opset 17 (the ONNX changelog, opsets 18-26), with the
// arity of the newer version; only changes that matter for shapes or arity are listed (the type-only
// revisions of 19, 21-26 keep their earlier schemas: 24 adds float8e8m0, 25 and 26 the 2-bit types), and the
// ops opsets 23 (Attention, RMSNormalization, RotaryEmbedding), 24 (Swish, TensorScatter; Attention-24 takes
// nonpad_kv_seqlen as a seventh input) and 26 (CumProd, BitCast) added.
struct NewerSchema {
  const char* op;
  int64_t since;
  int min_in, max_in, min_out, max_out;
  const char* required;  // a required attribute, or nullptr
};
constexpr int k_any = std::numeric_limits<int>::max();
const NewerSchema k_newer_schemas[] = {
    {"ReduceL1", 18, 1, 2, 1, 1, nullptr},        {"ReduceL2", 18, 1, 2, 1, 1, nullptr},
    {"ReduceLogSum", 18, 1, 2, 1, 1, nullptr},    {"ReduceLogSumExp", 18, 1, 2, 1, 1, nullptr},
    {"ReduceMax", 18, 1, 2, 1, 1, nullptr},       {"ReduceMean", 18, 1, 2, 1, 1, nullptr},
    {"ReduceMin", 18, 1, 2, 1, 1, nullptr},       {"ReduceProd", 18, 1, 2, 1, 1, nullptr},
    {"ReduceSumSquare", 18, 1, 2, 1, 1, nullptr}, {"Split", 18, 1, 2, 1, k_any, nullptr},
    {"Pad", 18, 2, 4, 1, 1, nullptr},             {"Resize", 18, 1, 4, 1, 1, nullptr},
    {"LpPool", 18, 1, 1, 1, 1, nullptr},          {"CenterCropPad", 18, 2, 2, 1, 1, nullptr},
    {"Col2Im", 18, 3, 3, 1, 1, nullptr},          {"GroupNormalization", 18, 3, 3, 1, 1, "num_groups"},
    {"Mish", 18, 1, 1, 1, 1, nullptr},            {"BitwiseAnd", 18, 2, 2, 1, 1, nullptr},
    {"BitwiseOr", 18, 2, 2, 1, 1, nullptr},       {"BitwiseXor", 18, 2, 2, 1, 1, nullptr},
    {"BitwiseNot", 18, 1, 1, 1, 1, nullptr},      {"ScatterElements", 18, 3, 3, 1, 1, nullptr},
    {"ScatterND", 18, 3, 3, 1, 1, nullptr},       {"AveragePool", 19, 1, 1, 1, 1, nullptr},
    {"DeformConv", 19, 3, 5, 1, 1, nullptr},      {"AffineGrid", 20, 2, 2, 1, 1, nullptr},
    {"DFT", 20, 1, 3, 1, 1, nullptr},             {"Gelu", 20, 1, 1, 1, 1, nullptr},
    {"GridSample", 20, 2, 2, 1, 1, nullptr},         {"Attention", 23, 3, 6, 1, 4, nullptr},
    {"RMSNormalization", 23, 2, 2, 1, 1, nullptr},   {"RotaryEmbedding", 23, 3, 4, 1, 1, nullptr},
    {"Attention", 24, 3, 7, 1, 4, nullptr},          {"Swish", 24, 1, 1, 1, 1, nullptr},
    {"TensorScatter", 24, 2, 3, 1, 1, nullptr},      {"CumProd", 26, 2, 2, 1, 1, nullptr},
    {"BitCast", 26, 1, 1, 1, 1, "to"},
};

// The newest entry for `op` at `opset`, or nullptr (then ONNX's own schema applies).
const NewerSchema* newer_schema(const std::string& op, int64_t opset) {
  const NewerSchema* best = nullptr;
  if (opset <= k_onnx_library_opset) return nullptr;
  for (const auto& s : k_newer_schemas)
    if (op == s.op && s.since <= opset && (!best || s.since > best->since)) best = &s;
  return best;
}

}  // namespace

bool newer_than_onnx_library(const std::string& op, int64_t opset) { return newer_schema(op, opset) != nullptr; }

void check_model_limits(const onnx::ModelProto& model) {
  check_name(model.producer_name(), "producer_name");
  check_name(model.producer_version(), "producer_version");
  check_graph_limits(model.graph(), 0);
}

void check_schemas(const onnx::GraphProto& gp, const Graph& g) {
  for (int i = 0; i < gp.node_size() && static_cast<size_t>(i) < g.nodes.size(); ++i) {
    const onnx::NodeProto& np = gp.node(i);
    const Node& n = g.nodes[static_cast<size_t>(i)];
    const bool ms = n.domain == "com.microsoft";
    if (!n.domain.empty() && !ms) continue;
    const std::string label = "node " + quoted(n.name) + " (" + printable(n.op, k_name_bytes) + ")";
    if (const NewerSchema* ns = ms ? nullptr : newer_schema(n.op, g.opset)) {
      const std::string schema = " (ONNX " + n.op + "-" + std::to_string(ns->since) + " schema, opset " +
                                 std::to_string(g.opset) + ")";
      if (np.input_size() < ns->min_in || np.input_size() > ns->max_in)
        throw InputError(label + ": has " + std::to_string(np.input_size()) + " inputs; it takes " +
                         count_range(ns->min_in, ns->max_in) + schema);
      if (np.output_size() < ns->min_out || np.output_size() > ns->max_out)
        throw InputError(label + ": has " + std::to_string(np.output_size()) + " outputs; it gives " +
                         count_range(ns->min_out, ns->max_out) + schema);
      bool found = !ns->required;
      for (const auto& a : np.attribute()) found = found || a.name() == ns->required;
      if (!found) throw InputError(label + ": attribute '" + std::string(ns->required) + "' is required" + schema);
      continue;
    }
    // ONNX's registry as a table (schema_table.cpp): the registry builds every schema on its first lookup.
    const SchemaArity* s = schema_arity(n.op, g.opset);
    if (!s) continue;
    const std::string schema = " (ONNX " + n.op + "-" + std::to_string(s->since) + " schema, opset " +
                               std::to_string(g.opset) + ")";
    const int ins = np.input_size(), outs = np.output_size();
    if (ins < s->min_in || ins > s->max_in)
      throw InputError(label + ": has " + std::to_string(ins) + " inputs; it takes " +
                       count_range(s->min_in, s->max_in) + schema);
    if (outs < s->min_out || outs > s->max_out)
      throw InputError(label + ": has " + std::to_string(outs) + " outputs; it gives " +
                       count_range(s->min_out, s->max_out) + schema);
    if (ms) continue;  // contrib variants may name their attributes differently
    for (std::string_view rest = s->required; !rest.empty();) {
      const size_t comma = rest.find(',');
      const std::string name(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      bool found = false;
      for (const auto& a : np.attribute()) found = found || a.name() == name;
      if (!found) throw InputError(label + ": attribute '" + name + "' is required" + schema);
    }
  }
}

void check_tensor_limits(const Graph& g) {
  for (const Tensor& t : g.tensors) {
    if (!t.has_shape) continue;
    check_rank(static_cast<int>(std::min<size_t>(t.shape.size(), 1u << 30)), "tensor " + quoted(t.name));
    int64_t elems = 1;  // of the known dims
    for (int64_t d : t.shape) {
      if (d < 0) continue;
      auto p = checked_mul(elems, d);
      elems = p ? *p : std::numeric_limits<int64_t>::max();
    }
    if (elems > k_max_tensor_elements)
      throw InputError("tensor " + quoted(t.name) + " would hold " +
                       (elems == std::numeric_limits<int64_t>::max() ? std::string("over 2^63") : std::to_string(elems)) +
                       " elements, over the limit of 2^48 per tensor; check its dims and the ops that produce them");
  }
}

}  // namespace perfpred::onnx_import::detail
