// analyze(): walks the graph once, applies each node's rule (rules_table.cpp) and adds bytes and
// parameters, which follow the same logic for every op:
//
// - bytes_read: every distinct input tensor once, at its dtype (activations and weights); a gather or
//   slice reads at most what it selects from its data input. bytes_written: every output.
// - weight_bytes: the part of bytes_read that comes from initializers (or from tensors computed only
//   from initializers, e.g. a Transpose of a weight left in a model exported with export_params=False).
// - params: elements of floating-point initializers in an op's weight slots (Conv/Gemm/MatMul weights
//   and biases, norm scale and bias, PRelu slope, embedding tables, RNN W/R/B, and tensors of more than
//   one element added or multiplied into activations such as position embeddings or exported GroupNorm
//   gamma/beta), and the 8-bit weights and int32 biases of quantised ops (QLinearConv, QLinearMatMul,
//   ConvInteger, MatMulInteger) and of QDQ models (the integer data behind a weight's DequantizeLinear, not its
//   scale or zero point). Never BN running mean/var, other integer tensors (shapes, indices) or scalar constants. Each
//   initializer counts once per graph, at its first consumer, also when it reaches the consumer through
//   constant-foldable nodes.
// - Constant folding: a node of family view, data_movement or elementwise whose inputs are all
//   constants (initializers, tensors with folded values, outputs of other folded nodes) runs at load
//   time in every runtime, so it is reported as family view with zero cost. This is what removes the
//   shape subgraphs (Shape -> Gather -> Concat -> Reshape) and weight preprocessing from the totals.
// - view ops (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, Shape, Size, Constant) launch no
//   kernel: 0 bytes, 0 FLOPs.
// - A tensor whose shape or dtype is unknown contributes no bytes, and the node says so in a warning;
//   the FLOPs of a node whose inputs or first output are unshaped are not counted, with a warning.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/analysis/features.hpp"
#include "perfpred/util/checked_math.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"
#include "rules.hpp"

namespace perfpred {

namespace {

using analysis_detail::OpRule;
using analysis_detail::ParamSlots;
using analysis_detail::RuleContext;

constexpr std::array<std::pair<OpFamily, std::string_view>, 12> k_family_names{{
    {OpFamily::conv, "conv"},
    {OpFamily::conv_transpose, "conv_transpose"},
    {OpFamily::gemm, "gemm"},
    {OpFamily::norm, "norm"},
    {OpFamily::elementwise, "elementwise"},
    {OpFamily::pool, "pool"},
    {OpFamily::reduce, "reduce"},
    {OpFamily::softmax, "softmax"},
    {OpFamily::data_movement, "data_movement"},
    {OpFamily::rnn, "rnn"},
    {OpFamily::view, "view"},
    {OpFamily::unknown, "unknown"},
}};

// Per-tensor flags of one analyze() run.
enum : uint8_t {
  k_const = 1,          // known before the graph runs
  k_weight = 2,         // an initializer or computed only from constants that include one
  k_param_counted = 4,  // already counted in some node's params
  k_shape_known = 8,    // rank and every dim known
};

constexpr int64_t k_bytes_unset = -2;

bool is_float(DType t) {
  return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64 || t == DType::f8 ||
         t == DType::f4;
}

bool foldable_family(OpFamily f) {
  return f == OpFamily::view || f == OpFamily::data_movement || f == OpFamily::elementwise;
}

std::string node_label(const Node& n, size_t index) {
  std::string name = n.name.empty() ? "#" + std::to_string(index) : n.name;
  return name + " (" + (n.domain.empty() || n.domain == "ai.onnx" ? n.op : n.domain + "." + n.op) + ")";
}

[[noreturn]] void throw_overflow(const Node& n, const char* what) {
  throw InputError("node '" + n.name + "' (" + n.op + "): " + what + " overflows int64");
}

inline int64_t add_or_throw(int64_t a, int64_t b, const Node& n, const char* what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]] throw_overflow(n, what);
  return r;
}

class Analyzer {
 public:
  Analyzer(const Graph& g, const AnalyzeOptions& opts) : m_g(g), m_opts(opts), m_flags(g.tensors.size(), 0), m_bytes(g.tensors.size(), k_bytes_unset) {
    for (size_t i = 0; i < g.tensors.size(); ++i) {
      const Tensor& t = g.tensors[i];
      if (t.is_initializer) m_flags[i] = k_const | k_weight;
      else if (t.int_values || t.float_values) m_flags[i] = k_const;
      if (t.shape_known() || t.sequence_known()) m_flags[i] |= k_shape_known;
    }
  }

  GraphCost run() {
    GraphCost gc;
    gc.nodes.resize(m_g.nodes.size());
    std::vector<size_t> unknown;
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
      const Node& node = m_g.nodes[i];
      NodeCost& c = gc.nodes[i];
      c.node_index = static_cast<int>(i);
      c.name = node.name;
      c.op = node.op;
      const OpRule* rule = analysis_detail::find_rule(node);
      if (!rule) {
        unknown.push_back(i);
        if (!m_opts.allow_unknown) continue;
        c.family = OpFamily::unknown;
        c.estimated = true;
        c.warnings.push_back("op " + node_label(node, i) +
                             " is not known to perfpred: bytes-only estimate, FLOPs not counted");
        if (!all_shapes_known(node)) gc.unshaped_nodes.push_back(c.node_index);
        add_bytes(node, c, -1, -1, gc);
        continue;
      }
      analyze_node(node, *rule, c, gc);
    }
    if (!unknown.empty() && !m_opts.allow_unknown) {
      std::string msg = std::to_string(unknown.size()) + " node(s) with an op perfpred does not know: ";
      for (size_t j = 0; j < unknown.size(); ++j) {
        if (j) msg += ", ";
        msg += node_label(m_g.nodes[unknown[j]], unknown[j]);
      }
      msg += "; --allow-unknown gives a bytes-only estimate for them";
      throw UnsupportedOpError(msg);
    }
    for (const NodeCost& c : gc.nodes) {
      gc.total_flops += c.flops;
      gc.total_params += c.params;
      const Node& n = m_g.nodes[static_cast<size_t>(c.node_index)];
      gc.total_bytes_read = add_or_throw(gc.total_bytes_read, c.bytes_read, n, "total bytes read");
      gc.total_bytes_written = add_or_throw(gc.total_bytes_written, c.bytes_written, n, "total bytes written");
    }
    return gc;
  }

 private:
  void analyze_node(const Node& node, const OpRule& rule, NodeCost& c, GraphCost& gc) {
    c.family = rule.family;
    // Constant folding (see the comment at the top).
    bool all_const = true;
    bool any_weight = false;
    for (int t : node.inputs) {
      if (t < 0) continue;
      uint8_t f = m_flags[static_cast<size_t>(t)];
      if (!(f & k_const)) all_const = false;
      // A folded tensor is a weight when a float weight flows into it (Transpose(W), Reshape(W, shape)),
      // not when only integer initializers do (ConstantOfShape(shape)).
      if ((f & k_weight) && is_float(m_g.tensors[static_cast<size_t>(t)].dtype)) any_weight = true;
    }
    bool shape_op = rule.family == OpFamily::view && (node.op == "Shape" || node.op == "Size");
    if (shape_op || (all_const && foldable_family(rule.family))) {
      for (int t : node.outputs)
        if (t >= 0) m_flags[static_cast<size_t>(t)] |= k_const | (any_weight && !shape_op ? k_weight : 0);
      if (rule.family != OpFamily::view) c.family = OpFamily::view;
      note_unknown_outputs(node, c, gc);
      return;
    }
    if (rule.family == OpFamily::view) {
      note_unknown_outputs(node, c, gc);
      return;
    }
    // An output with values folded by the importer (e.g. a ConstantOfShape feeding a shape) costs nothing.
    bool all_out_folded = !node.outputs.empty();
    for (int t : node.outputs)
      if (t < 0 || !(m_g.tensors[static_cast<size_t>(t)].int_values || m_g.tensors[static_cast<size_t>(t)].float_values))
        all_out_folded = false;
    if (all_out_folded && foldable_family(rule.family)) {
      for (int t : node.outputs) m_flags[static_cast<size_t>(t)] |= k_const;
      c.family = OpFamily::view;
      return;
    }

    RuleContext ctx{m_g, node, c};
    if (node.op == "QLinearConv" || node.op == "ConvInteger" || node.op == "QLinearMatMul" ||
        node.op == "MatMulInteger")
      gc.integer_nodes.push_back(c.node_index);
    if (!all_shapes_known(node)) gc.unshaped_nodes.push_back(c.node_index);
    if (shapes_known_for_flops(node, rule.needs_output_shape)) {
      rule.cost(ctx, rule);
      if (nms_filters_by_score(node) && !nms_candidates_given(m_g, node)) gc.nms_every_box.push_back(c.node_index);
    } else {
      c.warnings.push_back(rule.needs_output_shape ? "FLOPs not counted: an input or the first output has an unknown shape" : "FLOPs not counted: an input has an unknown shape");
    }
    add_bytes(node, c, ctx.input0_read_cap, ctx.output0_write_cap, gc);
    add_params(node, rule, c);
  }

  bool all_shapes_known(const Node& node) const {
    for (int t : node.inputs)
      if (t >= 0 && !shape_known(t)) return false;
    for (int t : node.outputs)
      if (t >= 0 && !shape_known(t)) return false;
    return true;
  }

  bool shapes_known_for_flops(const Node& node, bool needs_output) const {
    for (int t : node.inputs)
      if (t >= 0 && !shape_known(t)) return false;
    int out = node.outputs.empty() ? -1 : node.outputs[0];
    return !needs_output || out < 0 || shape_known(out);
  }

  void note_unknown_outputs(const Node& node, NodeCost& c, GraphCost& gc) {
    std::string names;
    for (int t : node.outputs) {
      if (t < 0) continue;
      if (shape_known(t)) continue;
      const Tensor& tensor = m_g.tensors[static_cast<size_t>(t)];
      ++gc.unknown_shape_tensors;
      names += names.empty() ? tensor.name : ", " + tensor.name;
    }
    if (!names.empty()) c.warnings.push_back("shape unknown for " + names);
  }

  // Bytes of every distinct input and every output; warns about tensors whose size is unknown.
  void add_bytes(const Node& node, NodeCost& c, int64_t input0_cap, int64_t output0_cap, GraphCost& gc) {
    std::string unknown_names;
    auto size_of = [&](int t) -> std::optional<int64_t> {
      int64_t b = tensor_bytes(t);
      if (b < 0) {
        const std::string& name = m_g.tensors[static_cast<size_t>(t)].name;
        unknown_names += unknown_names.empty() ? name : ", " + name;
        return std::nullopt;
      }
      return b;
    };
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      int t = node.inputs[i];
      if (t < 0) continue;
      bool seen = false;
      for (size_t j = 0; j < i; ++j) seen = seen || node.inputs[j] == t;
      if (seen) continue;
      const bool weight = m_flags[static_cast<size_t>(t)] & k_weight;
      auto b = weight ? quantized_weight_bytes(t) : std::nullopt;
      if (!b) b = size_of(t);
      if (!b) continue;
      int64_t bytes = *b;
      if (i == 0 && input0_cap >= 0) bytes = std::min(bytes, input0_cap);
      c.bytes_read = add_or_throw(c.bytes_read, bytes, node, "bytes read");
      if (weight) c.weight_bytes = add_or_throw(c.weight_bytes, bytes, node, "weight bytes");
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const int t = node.outputs[i];
      if (t < 0) continue;
      if (!shape_known(t)) ++gc.unknown_shape_tensors;
      auto b = size_of(t);
      if (b && i == 0 && output0_cap >= 0) b = std::min(*b, output0_cap);
      if (b) c.bytes_written = add_or_throw(c.bytes_written, *b, node, "bytes written");
    }
    if (!unknown_names.empty())
      c.warnings.push_back("size unknown (shape or dtype not resolved) for " + unknown_names +
                           ": bytes counted for the known tensors only");
  }

  // A QDQ model's weight: the folded DequantizeLinear of an initializer. Runtimes that take QDQ models fuse the
  // dequantisation into the consumer (TensorRT's INT8 kernels, ONNX Runtime's MatMulNBits for 4-bit weights), which
  // reads the stored integers, scales and zero points rather than the float weights; nullopt for any other tensor.
  std::optional<int64_t> quantized_weight_bytes(int t) {
    const int p = producer_of(t);
    if (p < 0) return std::nullopt;
    const Node& dq = m_g.nodes[static_cast<size_t>(p)];
    if (dq.op != "DequantizeLinear" || dq.inputs.empty() || dq.inputs[0] < 0 ||
        !m_g.tensors[static_cast<size_t>(dq.inputs[0])].is_initializer)
      return std::nullopt;
    int64_t sum = 0;
    for (size_t i = 0; i < dq.inputs.size(); ++i) {
      const int in = dq.inputs[i];
      if (in < 0 || std::find(dq.inputs.begin(), dq.inputs.begin() + static_cast<std::ptrdiff_t>(i), in) !=
                        dq.inputs.begin() + static_cast<std::ptrdiff_t>(i))
        continue;
      const int64_t b = tensor_bytes(in);
      if (b < 0) return std::nullopt;
      sum += b;  // three tensors of at most 2^48 elements each (limits.hpp): no overflow
    }
    return sum;
  }

  int producer_of(int t) {
    if (m_producer.empty()) {
      m_producer.assign(m_g.tensors.size(), -1);
      for (size_t i = 0; i < m_g.nodes.size(); ++i)
        for (int o : m_g.nodes[i].outputs)
          if (o >= 0) m_producer[static_cast<size_t>(o)] = static_cast<int>(i);
    }
    return m_producer[static_cast<size_t>(t)];
  }

  bool shape_known(int t) const { return m_flags[static_cast<size_t>(t)] & k_shape_known; }

  // Bytes of a tensor, -1 when its shape or dtype is unknown or the size overflows; computed once per run.
  int64_t tensor_bytes(int t) {
    int64_t& cached = m_bytes[static_cast<size_t>(t)];
    if (cached == k_bytes_unset) {
      const Tensor& tensor = m_g.tensors[static_cast<size_t>(t)];
      auto b = tensor.bytes();
      cached = !b || (dtype_bits(tensor.dtype) == 0 && tensor.dtype != DType::string) ? -1 : *b;
    }
    return cached;
  }

  std::optional<int64_t> param_elements(int t, bool multi_only, bool quantized) const {
    const Tensor& tensor = m_g.tensors[static_cast<size_t>(t)];
    const bool integer = tensor.dtype == DType::i8 || tensor.dtype == DType::u8 || tensor.dtype == DType::i32 ||
                         tensor.dtype == DType::i4 || tensor.dtype == DType::u4 ||
                         tensor.dtype == DType::i2 || tensor.dtype == DType::u2;
    if (!is_float(tensor.dtype) && !(quantized && integer)) return std::nullopt;
    auto n = tensor.numel();
    if (!n || (multi_only && *n <= 1)) return std::nullopt;
    return n;
  }

  void add_params(const Node& node, const OpRule& rule, NodeCost& c) {
    if (rule.params == ParamSlots::none) return;
    const bool multi_only =
        rule.params == ParamSlots::listed_multi || rule.params == ParamSlots::listed_multi_quantized;
    const bool quantized =
        rule.params == ParamSlots::listed_quantized || rule.params == ParamSlots::listed_multi_quantized;
    for (size_t i = 0; i < node.inputs.size() && i < 32; ++i) {
      int t = node.inputs[i];
      if (t < 0 || !(rule.param_mask & (1u << i))) continue;
      uint8_t f = m_flags[static_cast<size_t>(t)];
      if (!(f & k_weight) || (f & k_param_counted)) continue;
      if (m_g.tensors[static_cast<size_t>(t)].is_initializer) {
        if (auto n = param_elements(t, multi_only, quantized)) {
          // MatMulNBits packs 8 / bits weights into each byte of B (input 1).
          if (node.op == "MatMulNBits" && i == 1) {
            const int64_t bits = node.attr_int("bits", 4);
            if (bits >= 1 && bits <= 8) *n = *n * 8 / bits;
          }
          c.params += *n;
          m_flags[static_cast<size_t>(t)] |= k_param_counted;
        }
      } else {
        trace_params(t, multi_only, quantized, c);
      }
    }
  }

  // A weight slot fed by a folded node (e.g. MatMul(x, Transpose(W))): count the initializers behind it. Behind a
  // DequantizeLinear (a QDQ model's weight) only its quantised data counts, integer as it is; its scale and zero
  // point are not parameters.
  void trace_params(int start, bool multi_only, bool quantized, NodeCost& c) {
    std::vector<std::pair<int, bool>> stack{{start, quantized}};
    while (!stack.empty()) {
      auto [t, q] = stack.back();
      stack.pop_back();
      uint8_t& f = m_flags[static_cast<size_t>(t)];
      if (!(f & k_weight) || (f & k_param_counted)) continue;
      f |= k_param_counted;
      if (m_g.tensors[static_cast<size_t>(t)].is_initializer) {
        if (auto n = param_elements(t, multi_only, q)) c.params += *n;
        continue;
      }
      int p = producer_of(t);
      if (p < 0) continue;
      const Node& producer = m_g.nodes[static_cast<size_t>(p)];
      if (producer.op == "DequantizeLinear") {
        if (!producer.inputs.empty() && producer.inputs[0] >= 0) stack.push_back({producer.inputs[0], true});
        continue;
      }
      for (int in : producer.inputs)
        if (in >= 0) stack.push_back({in, q});
    }
  }

  const Graph& m_g;
  const AnalyzeOptions& m_opts;
  std::vector<uint8_t> m_flags;
  std::vector<int64_t> m_bytes;
  std::vector<int> m_producer;
};

}  // namespace

std::string to_string(OpFamily f) {
  for (const auto& [fam, name] : k_family_names)
    if (fam == f) return std::string(name);
  return "unknown";
}

OpFamily op_family_from_string(const std::string& s) {
  for (const auto& [fam, name] : k_family_names)
    if (name == s) return fam;
  std::string accepted;
  for (const auto& [fam, name] : k_family_names) accepted += (accepted.empty() ? "" : ", ") + std::string(name);
  throw InputError("unknown op family '" + s + "' (accepted: " + accepted + ")");
}

double NodeCost::intensity() const {
  double bytes = static_cast<double>(bytes_read) + static_cast<double>(bytes_written);
  return bytes > 0 ? flops / bytes : 0.0;
}

GraphCost analyze(const Graph& g, const AnalyzeOptions& opts) { return Analyzer(g, opts).run(); }

namespace {

std::string first_unknown_tensor(const Graph& g, const Node& n) {
  for (int t : n.outputs)
    if (t >= 0 && !g.tensors[static_cast<size_t>(t)].shape_known())
      return "output '" + g.tensors[static_cast<size_t>(t)].name + "' " + shape_to_string(g.tensors[static_cast<size_t>(t)]);
  for (int t : n.inputs)
    if (t >= 0 && !g.tensors[static_cast<size_t>(t)].shape_known())
      return "input '" + g.tensors[static_cast<size_t>(t)].name + "' " + shape_to_string(g.tensors[static_cast<size_t>(t)]);
  return "a tensor";
}

// Where the unknown shapes of node `start` begin: walking producers back while a producer has an input
// of unknown shape, the first node whose inputs are all shaped but an output is not.
int unknown_origin(const Graph& g, const std::vector<int>& producer, int start) {
  int cur = start;
  for (size_t guard = 0; guard < g.nodes.size(); ++guard) {
    int next = -1;
    for (int t : g.nodes[static_cast<size_t>(cur)].inputs)
      if (t >= 0 && !g.tensors[static_cast<size_t>(t)].shape_known() && producer[static_cast<size_t>(t)] >= 0) {
        next = producer[static_cast<size_t>(t)];
        break;
      }
    if (next < 0) return cur;
    cur = next;
  }
  return cur;
}

// Runtime inputs that node `ni` depends on, as "'name' [dims]".
// The graph inputs node `ni` depends on ("'x' [1, seq, 64]"); their symbolic dims kept by name go to `dims`,
// and the first constant behind it that the importer could not read from external data to `unread`
// ("'name' (why)"; left empty when there is none).
std::vector<std::string> inputs_behind(const Graph& g, const std::vector<int>& producer, int ni,
                                       std::vector<std::string>& dims, bool& all_shaped, std::string& unread) {
  all_shaped = true;
  std::vector<char> seen(g.nodes.size(), 0), tseen(g.tensors.size(), 0);
  std::vector<int> todo{ni};
  std::vector<std::string> r;
  while (!todo.empty()) {
    int cur = todo.back();
    todo.pop_back();
    if (seen[static_cast<size_t>(cur)]) continue;
    seen[static_cast<size_t>(cur)] = 1;
    for (int t : g.nodes[static_cast<size_t>(cur)].inputs) {
      if (t < 0 || tseen[static_cast<size_t>(t)]) continue;
      tseen[static_cast<size_t>(t)] = 1;
      const Tensor& tt = g.tensors[static_cast<size_t>(t)];
      if (auto it = g.unread_external.find(tt.name); unread.empty() && it != g.unread_external.end())
        unread = "'" + tt.name + "' (" + it->second + ")";
      if (tt.is_graph_input) {
        r.push_back("'" + tt.name + "' " + shape_to_string(tt));
        all_shaped = all_shaped && tt.shape_known();
        for (size_t i = 0; i < tt.dim_names.size() && i < tt.shape.size(); ++i)
          if (tt.shape[i] < 0 && !tt.dim_names[i].empty() &&
              std::find(dims.begin(), dims.end(), tt.dim_names[i]) == dims.end())
            dims.push_back(tt.dim_names[i]);
      }
      else if (producer[static_cast<size_t>(t)] >= 0) todo.push_back(producer[static_cast<size_t>(t)]);
    }
  }
  std::sort(r.begin(), r.end());
  return r;
}

}  // namespace

std::string unshaped_summary(const Graph& g, const GraphCost& c, size_t max_named) {
  if (c.unshaped_nodes.empty()) return "";
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int o : g.nodes[i].outputs)
      if (o >= 0) producer[static_cast<size_t>(o)] = static_cast<int>(i);
  std::string msg = std::to_string(c.unshaped_nodes.size()) + " node(s) that do work have unknown shapes, so their cost is not known: ";
  for (size_t k = 0; k < c.unshaped_nodes.size() && k < max_named; ++k) {
    const Node& n = g.nodes[static_cast<size_t>(c.unshaped_nodes[k])];
    msg += (k ? ", " : "") + node_label(n, static_cast<size_t>(c.unshaped_nodes[k])) + " " + first_unknown_tensor(g, n);
  }
  if (c.unshaped_nodes.size() > max_named) msg += ", ...";
  const int origin = unknown_origin(g, producer, c.unshaped_nodes.front());
  const Node& o = g.nodes[static_cast<size_t>(origin)];
  msg += "; shapes are lost at " + node_label(o, static_cast<size_t>(origin));
  static const char* const data_dependent[] = {"NonZero", "Compress", "Unique", "NonMaxSuppression", "StringSplit"};
  const bool data_dependent_origin =
      std::find(std::begin(data_dependent), std::end(data_dependent), o.op) != std::end(data_dependent);
  if (data_dependent_origin) {
    msg += ", whose output size depends on the values of its input, not on shapes";
    // Its own inputs are shaped (else the loss would begin earlier): no input shape would help.
    if (o.op == "NonZero" || o.op == "NonMaxSuppression" || o.op == "Compress")
      return msg + (o.name.empty() ? " (--data-count N sets every such node's)"
                                   : " (--data-count " + o.name + "=N sets it, --data-count N every such node's)");
  }
  std::vector<std::string> dims;
  bool all_shaped = true;
  std::string unread;
  auto ins = inputs_behind(g, producer, origin, dims, all_shaped, unread);
  if (!unread.empty())
    return msg + ", which folds a constant kept in external data that was not read: " + unread +
           "; keep the data file beside the model, as the constant's location names it";
  if (!ins.empty() && all_shaped && !data_dependent_origin) {
    // Every input behind it has its exact shape: the size comes from values computed at run time (a Resize to
    // a detected box's size, a Reshape to a count read from the data), which no shape option sets.
    return msg + ", whose output size is not fixed by the input shapes (every input behind it is fully shaped: " +
           ins.front() + (ins.size() > 1 ? ", ..." : "") +
           "): it follows values the model computes at run time, such as a detected box's size";
  }
  if (!ins.empty()) {
    msg += ", which depends on input";
    msg += ins.size() > 1 ? "s " : " ";
    for (size_t k = 0; k < ins.size() && k < 3; ++k) msg += (k ? ", " : "") + ins[k];
    if (!dims.empty()) {
      std::sort(dims.begin(), dims.end());
      msg += " (--dim " + dims.front() + "=N" + (dims.size() > 1 ? ", ..." : "") + " sets a symbolic dim: " + join(dims, ", ") + ")";
    } else {
      msg += " (--input-shape NAME=D0,D1,... sets an input's exact shape)";
    }
  }
  return msg;
}

bool is_known_op(const std::string& op) { return analysis_detail::find_rule_any_domain(op) != nullptr; }

}  // namespace perfpred
