#pragma once
// What a model may ask for before perfpred (or ONNX's own shape inference, a vendor library that trusts
// its input) works on it: limits on size, and each node's arity and required attributes against its
// ONNX schema. Every error names the limit or the schema, so a user knows what to change.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "perfpred/core/graph.hpp"

namespace perfpred::onnx_import::detail {

/// Nodes in one graph. The largest exported LLMs have about 10^5.
inline constexpr int k_max_nodes = 1'000'000;
/// Rank of any tensor (ONNX runtimes stop at 8 to 12 dims).
inline constexpr int64_t k_max_rank = 64;
/// Elements of any one tensor once shaped: 2^48 (256 T), far past any GPU's memory.
inline constexpr int64_t k_max_tensor_elements = int64_t{1} << 48;
/// Values in one list attribute (kernel_shape, pads, value_ints, ...).
inline constexpr int k_max_attr_values = 1 << 20;
/// Nesting of graphs inside node attributes (If/Loop/Scan bodies).
inline constexpr int k_max_subgraph_depth = 16;

/// Node count, ranks of declared types and initializers, attribute sizes and subgraph depth of the
/// model, before any of it is read into a Graph. Throws InputError naming the limit.
void check_model_limits(const onnx::ModelProto& model);

/// Each node of the (not yet sorted) graph against the ONNX schema of its op at the model's opset: the
/// number of inputs and outputs, and the attributes it requires. com.microsoft ops that share a
/// default-domain name take the default shape rules, so their arity is checked the same way. Ops ONNX
/// does not know are left alone. `g.nodes[i]` must be the node read from `gp.node(i)`.
void check_schemas(const onnx::GraphProto& gp, const Graph& g);

/// One default-domain ONNX schema over a run of opsets [from, to]: what OpSchemaRegistry::Schema(op, opset, "")
/// returns for each of them (schema_table.cpp).
struct SchemaArity {
  const char* op;
  int from, to;       ///< opsets this row answers (to = k_schema_table_opset: every newer one too)
  int since;          ///< the schema's since version
  int min_in, max_in, min_out, max_out;
  const char* required;  ///< required attributes, comma-separated in name order ("" for none)
};
/// The last opset the table spells out; newer ones get its rows, as the registry gives its newest schema.
inline constexpr int64_t k_schema_table_opset = 21;
/// The schema of `op` at `opset` as ONNX's registry has it, without building the registry; null where ONNX
/// has none (an op it does not know, or one newer than `opset`).
const SchemaArity* schema_arity(std::string_view op, int64_t opset);
/// Every row, sorted by op and opset (for the test that checks them against the registry).
std::span<const SchemaArity> schema_arity_table();

/// The newest opset the linked ONNX library (1.12) has schemas for, and the newest perfpred imports:
/// the ops that changed in between are checked against perfpred's own table (limits.cpp) and shaped by
/// perfpred's rules alone. A model of a newer opset is refused.
inline constexpr int64_t k_onnx_library_opset = 17;
inline constexpr int64_t k_max_opset = 26;

/// True when `op` (default domain) at `opset` has a schema newer than the ONNX library's: ONNX 1.12's
/// inference would apply the older semantics (ReduceMean-13 ignores an axes input and reduces every
/// axis), so the importer keeps such nodes from it.
bool newer_than_onnx_library(const std::string& op, int64_t opset);

/// Rank and element count of every shaped tensor after inference, against k_max_rank and
/// k_max_tensor_elements.
void check_tensor_limits(const Graph& g);

}  // namespace perfpred::onnx_import::detail
