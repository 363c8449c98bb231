#pragma once
// Control flow as plain nodes: an If replaced by the nodes of one branch, a Loop or Scan unrolled into
// one copy of its body per iteration, a SequenceMap into one copy per element. Subgraph-local names get the
// prefix "NODE/then/", "NODE/else/" or "NODE/iterI/" (so per-layer output names the branch or iteration); names
// from the outer scope stay as they are, which is how a body sees outer values. Works on the ModelProto before
// import.
#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace perfpred::onnx_import::detail {

/// True when a top-level node of `g` is an If, Loop, Scan or SequenceMap.
bool has_control_flow(const onnx::GraphProto& g);

/// Replace the If at top-level index `idx` with the nodes of its then (or else) branch; the If's
/// outputs become Identity nodes of the branch outputs.
void inline_if(onnx::GraphProto& g, int idx, bool then_branch, int64_t opset);

/// Replace the Loop at `idx` with `trips` copies of its body: loop-carried values chain from one copy
/// to the next, scan outputs are Unsqueeze'd and Concat'ed along axis 0. Throws InputError when a
/// zero-trip loop has scan outputs (their shape is not defined by the body), or when the copies would exceed
/// `max_nodes` nodes.
void unroll_loop(onnx::GraphProto& g, int idx, int64_t trips, int64_t opset, int64_t max_nodes);

/// Replace the Scan (opset >= 9) at `idx` with `trips` copies of its body: each copy reads slice i of
/// every scan input (Gather along its axis, reversed by scan_input_directions) and its scan outputs are
/// stacked along scan_output_axes. At most `max_nodes` nodes, as unroll_loop.
void unroll_scan(onnx::GraphProto& g, int idx, int64_t trips, int64_t opset, int64_t max_nodes);

/// Replace the SequenceMap at `idx` with `length` copies of its body: copy i reads element i of each input that
/// is a sequence (`is_sequence`, one flag an input; a SequenceAt each) and the other inputs whole, and output j
/// is the SequenceConstruct of the copies' output j (a SequenceEmpty of the body output's type when `length` is
/// 0). At most `max_nodes` nodes, as unroll_loop.
void unroll_sequence_map(onnx::GraphProto& g, int idx, int64_t length, const std::vector<bool>& is_sequence,
                         int64_t max_nodes);

/// Name of a top-level node as the importer shows it: its name, or OP_INDEX when it has none.
std::string node_display_name(const onnx::NodeProto& n, int idx);

}  // namespace perfpred::onnx_import::detail
