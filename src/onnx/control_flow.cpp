#include "control_flow.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "perfpred/util/error.hpp"

namespace perfpred::onnx_import::detail {

namespace {

using Names = std::unordered_map<std::string, std::string>;
using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

const onnx::GraphProto* graph_attr(const onnx::NodeProto& n, const std::string& key) {
  for (const auto& a : n.attribute())
    if (a.name() == key && a.has_g()) return &a.g();
  return nullptr;
}

int64_t int_attr(const onnx::NodeProto& n, const std::string& key, int64_t def) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return a.i();
  return def;
}

std::vector<int64_t> ints_attr(const onnx::NodeProto& n, const std::string& key) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return {a.ints().begin(), a.ints().end()};
  return {};
}

std::string label(const onnx::NodeProto& n) { return "node '" + n.name() + "' (" + n.op_type() + ")"; }

// Names a subgraph defines itself: its inputs, initializers and node outputs.
std::unordered_set<std::string> local_names(const onnx::GraphProto& g) {
  std::unordered_set<std::string> s;
  for (const auto& i : g.input()) s.insert(i.name());
  for (const auto& t : g.initializer()) s.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (!o.empty()) s.insert(o);
  return s;
}

std::string mapped(const Names& m, const std::string& s) {
  auto it = m.find(s);
  return it == m.end() ? s : it->second;
}

// Rename references inside a nested subgraph (an If inside a Loop body) to values of the enclosing
// copy; names the nested graph defines itself shadow the outer ones.
void rename_nested(onnx::GraphProto& g, Names m) {
  for (const auto& s : local_names(g)) m.erase(s);
  if (m.empty()) return;
  for (auto& n : *g.mutable_node()) {
    for (auto& in : *n.mutable_input())
      if (!in.empty()) in = mapped(m, in);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rename_nested(*a.mutable_g(), m);
      for (auto& sg : *a.mutable_graphs()) rename_nested(sg, m);
    }
  }
  for (auto& o : *g.mutable_output()) o.set_name(mapped(m, o.name()));
}

// Append one copy of `body` to `out`: local names get `prefix`, `bound` maps body inputs to outer
// values. The body's initializers are the same in every copy: they move to `top` once, named with
// `init_prefix`. Returns the map of every local name to its copy's name.
Names copy_body(const onnx::GraphProto& body, const std::string& prefix, const std::string& init_prefix,
                const Names& bound, Nodes& out, onnx::GraphProto& top) {
  Names m = bound;
  for (const auto& s : local_names(body))
    if (!m.count(s)) m[s] = prefix + s;
  std::unordered_set<std::string> present;
  for (const auto& t : top.initializer()) present.insert(t.name());
  for (const auto& t : body.initializer()) {
    m[t.name()] = init_prefix + t.name();
    if (present.count(init_prefix + t.name())) continue;
    auto* c = top.add_initializer();
    *c = t;
    c->set_name(init_prefix + t.name());
  }
  int idx = 0;
  for (const auto& n : body.node()) {
    auto* c = out.Add();
    *c = n;
    c->set_name(prefix + (n.name().empty() ? n.op_type() + "_" + std::to_string(idx) : n.name()));
    ++idx;
    for (auto& in : *c->mutable_input())
      if (!in.empty()) in = mapped(m, in);
    for (auto& o : *c->mutable_output())
      if (!o.empty()) o = mapped(m, o);
    for (auto& a : *c->mutable_attribute()) {
      if (a.has_g()) rename_nested(*a.mutable_g(), m);
      for (auto& sg : *a.mutable_graphs()) rename_nested(sg, m);
    }
  }
  return m;
}

void add_identity(Nodes& out, const std::string& name, const std::string& from, const std::string& to) {
  auto* n = out.Add();
  n->set_op_type("Identity");
  n->set_name(name);
  n->add_input(from);
  n->add_output(to);
}

void add_constant(Nodes& out, const std::string& name, int32_t dtype, int64_t value, const std::vector<int64_t>& dims) {
  auto* n = out.Add();
  n->set_op_type("Constant");
  n->set_name(name);
  n->add_output(name);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(dtype);
  int64_t cnt = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    cnt *= d;
  }
  for (int64_t i = 0; i < cnt; ++i) {
    if (dtype == onnx::TensorProto::INT64) t->add_int64_data(value);
    else t->add_int32_data(static_cast<int32_t>(value));
  }
}

// Stack per-iteration values along `axis`: Unsqueeze each, then Concat (one Unsqueeze for one value).
void add_stack(Nodes& out, const std::string& base, const std::vector<std::string>& parts, const std::string& to,
               int64_t axis, int64_t opset) {
  const std::string axes = base + "/stack_axes";
  if (opset >= 13) add_constant(out, axes, onnx::TensorProto::INT64, axis, {1});
  std::vector<std::string> ups;
  for (size_t i = 0; i < parts.size(); ++i) {
    auto* n = out.Add();
    n->set_op_type("Unsqueeze");
    n->set_name(base + "/unsqueeze" + std::to_string(i));
    n->add_input(parts[i]);
    if (opset >= 13) {
      n->add_input(axes);
    } else {
      auto* a = n->add_attribute();
      a->set_name("axes");
      a->set_type(onnx::AttributeProto::INTS);
      a->add_ints(axis);
    }
    const std::string o = parts.size() == 1 ? to : n->name();
    n->add_output(o);
    ups.push_back(o);
  }
  if (parts.size() == 1) return;
  auto* c = out.Add();
  c->set_op_type("Concat");
  c->set_name(base + "/concat");
  for (const auto& u : ups) c->add_input(u);
  c->add_output(to);
  auto* a = c->add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(axis);
}

// Replace top-level node `idx` by what `emit` appends.
template <typename F>
void replace_node(onnx::GraphProto& g, int idx, F emit) {
  Nodes out;
  for (int i = 0; i < g.node_size(); ++i) {
    if (i == idx) emit(out);
    else out.Add()->Swap(g.mutable_node(i));
  }
  g.mutable_node()->Swap(&out);
}

// The unrolled copies' size against the budget: each copy is the body and the `extra` nodes that feed it (a Loop's
// iteration and condition constants, a Scan's Gather and index per scanned input, a SequenceMap's SequenceAt and
// position per mapped sequence). A Loop or Scan names --loop-trips; a SequenceMap's count is its sequence's.
void check_unroll_size(const onnx::NodeProto& n, const onnx::GraphProto& body, int64_t copies, int64_t extra,
                       int64_t max_nodes) {
  if (copies < 0) throw InputError(label(n) + ": trip count " + std::to_string(copies) + " is negative");
  const int64_t per_copy = body.node_size() + extra;
  if (per_copy <= 0 || copies <= max_nodes / per_copy) return;
  const bool map = n.op_type() == "SequenceMap";
  throw InputError(label(n) + ": " + std::to_string(copies) + (map ? " elements" : " iterations") + " through " +
                   std::to_string(per_copy) + " nodes each exceed " + std::to_string(max_nodes) + " unrolled nodes" +
                   (map ? std::string() : "; pass a smaller --loop-trips " + n.name() + "=N"));
}

std::string iter_prefix(const std::string& name, int64_t i) { return name + "/iter" + std::to_string(i) + "/"; }

}  // namespace

bool has_control_flow(const onnx::GraphProto& g) {
  for (const auto& n : g.node())
    if (n.domain().empty() || n.domain() == "ai.onnx")
      if (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan" || n.op_type() == "SequenceMap")
        return true;
  return false;
}

std::string node_display_name(const onnx::NodeProto& n, int idx) {
  return n.name().empty() ? n.op_type() + "_" + std::to_string(idx) : n.name();
}

void inline_if(onnx::GraphProto& g, int idx, bool then_branch, int64_t /*opset*/) {
  const onnx::NodeProto node = g.node(idx);
  const onnx::GraphProto* br = graph_attr(node, then_branch ? "then_branch" : "else_branch");
  if (!br) throw InputError(label(node) + ": has no " + (then_branch ? "then_branch" : "else_branch") + " graph");
  if (br->output_size() != node.output_size())
    throw InputError(label(node) + ": the " + (then_branch ? "then" : "else") + " branch has " +
                     std::to_string(br->output_size()) + " outputs, the If has " + std::to_string(node.output_size()));
  const std::string prefix = node.name() + (then_branch ? "/then/" : "/else/");
  replace_node(g, idx, [&](Nodes& out) {
    Names m = copy_body(*br, prefix, prefix, {}, out, g);
    for (int k = 0; k < node.output_size(); ++k)
      if (!node.output(k).empty())
        add_identity(out, prefix + "output" + std::to_string(k), mapped(m, br->output(k).name()), node.output(k));
  });
}

void unroll_loop(onnx::GraphProto& g, int idx, int64_t trips, int64_t opset, int64_t max_nodes) {
  const onnx::NodeProto node = g.node(idx);
  const onnx::GraphProto* body = graph_attr(node, "body");
  if (!body) throw InputError(label(node) + ": has no body graph");
  check_unroll_size(node, *body, trips, 2, max_nodes);
  const int carried = node.input_size() - 2;
  if (carried < 0 || body->input_size() != carried + 2 || body->output_size() < carried + 1)
    throw InputError(label(node) + ": body inputs/outputs do not match the Loop's " + std::to_string(node.input_size()) +
                     " inputs (M, cond, loop-carried values)");
  const int scans = body->output_size() - 1 - carried;
  if (trips == 0 && scans > 0)
    throw InputError(label(node) + ": runs 0 times but has scan outputs, whose shape the body does not define");
  replace_node(g, idx, [&](Nodes& out) {
    std::vector<std::string> state;
    for (int j = 0; j < carried; ++j) state.push_back(node.input(2 + j));
    std::vector<std::vector<std::string>> scan_parts(static_cast<size_t>(scans));
    for (int64_t i = 0; i < trips; ++i) {
      const std::string p = iter_prefix(node.name(), i);
      Names bound;
      add_constant(out, p + "iteration", onnx::TensorProto::INT64, i, {});
      add_constant(out, p + "cond", onnx::TensorProto::BOOL, 1, {});
      bound[body->input(0).name()] = p + "iteration";
      bound[body->input(1).name()] = p + "cond";
      for (int j = 0; j < carried; ++j) bound[body->input(2 + j).name()] = state[static_cast<size_t>(j)];
      Names m = copy_body(*body, p, node.name() + "/", bound, out, g);
      for (int j = 0; j < carried; ++j) state[static_cast<size_t>(j)] = mapped(m, body->output(1 + j).name());
      for (int k = 0; k < scans; ++k) scan_parts[static_cast<size_t>(k)].push_back(mapped(m, body->output(1 + carried + k).name()));
    }
    for (int j = 0; j < carried && j < node.output_size(); ++j)
      if (!node.output(j).empty())
        add_identity(out, node.name() + "/output" + std::to_string(j), state[static_cast<size_t>(j)], node.output(j));
    for (int k = 0; k < scans && carried + k < node.output_size(); ++k)
      if (!node.output(carried + k).empty())
        add_stack(out, node.name() + "/scan" + std::to_string(k), scan_parts[static_cast<size_t>(k)], node.output(carried + k), 0, opset);
  });
}

void unroll_scan(onnx::GraphProto& g, int idx, int64_t trips, int64_t opset, int64_t max_nodes) {
  const onnx::NodeProto node = g.node(idx);
  const onnx::GraphProto* body = graph_attr(node, "body");
  if (!body) throw InputError(label(node) + ": has no body graph");
  const int k_in = static_cast<int>(int_attr(node, "num_scan_inputs", 0));
  check_unroll_size(node, *body, trips, 2 * static_cast<int64_t>(std::max(k_in, 0)), max_nodes);
  const int states = node.input_size() - k_in;
  if (k_in <= 0 || states < 0 || body->input_size() != node.input_size() || body->output_size() < states)
    throw InputError(label(node) + ": num_scan_inputs and the body's inputs/outputs do not match the Scan's inputs");
  const int k_out = body->output_size() - states;
  if (trips == 0 && k_out > 0) throw InputError(label(node) + ": scans 0 slices but has scan outputs");
  std::vector<int64_t> in_axes = ints_attr(node, "scan_input_axes"), in_dirs = ints_attr(node, "scan_input_directions");
  std::vector<int64_t> out_axes = ints_attr(node, "scan_output_axes");
  replace_node(g, idx, [&](Nodes& out) {
    std::vector<std::string> state;
    for (int j = 0; j < states; ++j) state.push_back(node.input(j));
    std::vector<std::vector<std::string>> parts(static_cast<size_t>(k_out));
    for (int64_t i = 0; i < trips; ++i) {
      const std::string p = iter_prefix(node.name(), i);
      Names bound;
      for (int j = 0; j < states; ++j) bound[body->input(j).name()] = state[static_cast<size_t>(j)];
      for (int k = 0; k < k_in; ++k) {
        const size_t ku = static_cast<size_t>(k);
        const bool reverse = ku < in_dirs.size() && in_dirs[ku] != 0;
        const std::string index = p + "slice_index" + std::to_string(k);
        add_constant(out, index, onnx::TensorProto::INT64, reverse ? trips - 1 - i : i, {});
        auto* gn = out.Add();
        gn->set_op_type("Gather");
        gn->set_name(p + "slice" + std::to_string(k));
        gn->add_input(node.input(states + k));
        gn->add_input(index);
        gn->add_output(gn->name());
        auto* a = gn->add_attribute();
        a->set_name("axis");
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(ku < in_axes.size() ? in_axes[ku] : 0);
        bound[body->input(states + k).name()] = gn->name();
      }
      Names m = copy_body(*body, p, node.name() + "/", bound, out, g);
      for (int j = 0; j < states; ++j) state[static_cast<size_t>(j)] = mapped(m, body->output(j).name());
      for (int k = 0; k < k_out; ++k) parts[static_cast<size_t>(k)].push_back(mapped(m, body->output(states + k).name()));
    }
    for (int j = 0; j < states && j < node.output_size(); ++j)
      if (!node.output(j).empty())
        add_identity(out, node.name() + "/output" + std::to_string(j), state[static_cast<size_t>(j)], node.output(j));
    for (int k = 0; k < k_out && states + k < node.output_size(); ++k)
      if (!node.output(states + k).empty()) {
        const size_t ku = static_cast<size_t>(k);
        add_stack(out, node.name() + "/scan" + std::to_string(k), parts[ku], node.output(states + k),
                  ku < out_axes.size() ? out_axes[ku] : 0, opset);
      }
  });
}

void unroll_sequence_map(onnx::GraphProto& g, int idx, int64_t length, const std::vector<bool>& is_sequence,
                         int64_t max_nodes) {
  const onnx::NodeProto node = g.node(idx);
  const onnx::GraphProto* body = graph_attr(node, "body");
  if (!body) throw InputError(label(node) + ": has no body graph");
  const int64_t sequences = std::count(is_sequence.begin(), is_sequence.end(), true);
  check_unroll_size(node, *body, length, 2 * sequences, max_nodes);
  if (body->input_size() != node.input_size() || body->output_size() != node.output_size())
    throw InputError(label(node) + ": its body takes " + std::to_string(body->input_size()) + " inputs and gives " +
                     std::to_string(body->output_size()) + " outputs; the SequenceMap has " +
                     std::to_string(node.input_size()) + " and " + std::to_string(node.output_size()));
  replace_node(g, idx, [&](Nodes& out) {
    std::vector<std::vector<std::string>> parts(static_cast<size_t>(node.output_size()));
    for (int64_t i = 0; i < length; ++i) {
      const std::string p = iter_prefix(node.name(), i);
      Names bound;
      for (int k = 0; k < node.input_size(); ++k) {
        if (!is_sequence[static_cast<size_t>(k)]) {
          bound[body->input(k).name()] = node.input(k);
          continue;
        }
        const std::string position = p + "position" + std::to_string(k);
        add_constant(out, position, onnx::TensorProto::INT64, i, {});
        auto* at = out.Add();
        at->set_op_type("SequenceAt");
        at->set_name(p + "element" + std::to_string(k));
        at->add_input(node.input(k));
        at->add_input(position);
        at->add_output(at->name());
        bound[body->input(k).name()] = at->name();
      }
      Names m = copy_body(*body, p, node.name() + "/", bound, out, g);
      for (int j = 0; j < node.output_size(); ++j) parts[static_cast<size_t>(j)].push_back(mapped(m, body->output(j).name()));
    }
    for (int j = 0; j < node.output_size(); ++j) {
      if (node.output(j).empty()) continue;
      auto* n = out.Add();
      n->set_name(node.name() + "/output" + std::to_string(j));
      n->add_output(node.output(j));
      if (length > 0) {
        n->set_op_type("SequenceConstruct");
        for (const auto& e : parts[static_cast<size_t>(j)]) n->add_input(e);
        continue;
      }
      n->set_op_type("SequenceEmpty");
      const auto& type = body->output(j).type();
      auto* a = n->add_attribute();
      a->set_name("dtype");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(type.has_tensor_type() && type.tensor_type().elem_type() != 0 ? type.tensor_type().elem_type()
                                                                             : onnx::TensorProto::FLOAT);
    }
  });
}

}  // namespace perfpred::onnx_import::detail
