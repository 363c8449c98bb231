#pragma once
// Helpers for the analysis tests: small graphs written as ONNX text (shapes from the importer) or built
// by hand when a test needs exact control over tensor flags, unknown shapes or ops ONNX 1.12 lacks.
#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/analysis/features.hpp"
#include "perfpred/core/graph.hpp"
#include "perfpred/onnx/importer.hpp"

namespace perfpred::test {

/// A model in ONNX text: `body` is the graph (`g (float[2,3] x) => (float[2,3] y) { y = Relu(x) }`).
inline Graph text_graph(const std::string& body, int opset = 17) {
  std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + body;
  return onnx_import::import_text(text);
}

/// The analysis of an ONNX-text model with its graph kept alive.
struct Analysed {
  Graph graph;
  GraphCost cost;

  /// The only node of type `op`; fails the test when there is not exactly one.
  const NodeCost& node(const std::string& op) const {
    const NodeCost* found = nullptr;
    int count = 0;
    for (const auto& n : cost.nodes)
      if (n.op == op) {
        found = &n;
        ++count;
      }
    EXPECT_EQ(count, 1) << "nodes of type " << op;
    if (!found) throw std::runtime_error("no node of type " + op);
    return *found;
  }
};

inline Analysed analyse_text(const std::string& body, int opset = 17, AnalyzeOptions opts = {}) {
  Analysed a{text_graph(body, opset), {}};
  a.cost = analyze(a.graph, opts);
  return a;
}

inline double attr(const NodeCost& c, std::string_view key) {
  double missing = -12345;
  double v = feature::value_or(c, key, missing);
  EXPECT_NE(v, missing) << c.op << " has no attribute " << key;
  return v;
}

/// Builds a Graph by hand.
class GraphBuilder {
 public:
  /// A tensor with a known shape. kind: 'x' runtime input, 'w' initializer, 't' intermediate.
  GraphBuilder& tensor(const std::string& name, DType dtype, std::vector<int64_t> shape, char kind = 't') {
    Tensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.has_shape = true;
    t.is_initializer = kind == 'w';
    t.is_graph_input = kind == 'x';
    int id = m_g.add_tensor(std::move(t));
    if (kind == 'x') m_g.inputs.push_back(id);
    return *this;
  }
  /// A float32 tensor.
  GraphBuilder& f32(const std::string& name, std::vector<int64_t> shape, char kind = 't') {
    return tensor(name, DType::f32, std::move(shape), kind);
  }
  /// An int64 constant with folded values.
  GraphBuilder& ints(const std::string& name, std::vector<int64_t> values, bool initializer = true) {
    tensor(name, DType::i64, {static_cast<int64_t>(values.size())}, initializer ? 'w' : 't');
    m_g.tensors.back().int_values = std::move(values);
    return *this;
  }
  /// A tensor whose rank is unknown.
  GraphBuilder& unshaped(const std::string& name, DType dtype = DType::f32) {
    Tensor t;
    t.name = name;
    t.dtype = dtype;
    m_g.add_tensor(std::move(t));
    return *this;
  }
  /// A node; an empty input name marks an omitted optional input.
  GraphBuilder& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                     std::map<std::string, AttrValue> attrs = {}, const std::string& domain = "") {
    Node n;
    n.name = op + "_" + std::to_string(m_g.nodes.size());
    n.op = op;
    n.domain = domain;
    for (const auto& i : inputs) n.inputs.push_back(i.empty() ? -1 : id(i));
    for (const auto& o : outputs) n.outputs.push_back(id(o));
    n.attrs = std::move(attrs);
    m_g.nodes.push_back(std::move(n));
    return *this;
  }
  Graph build() const { return m_g; }
  Graph& graph() { return m_g; }

 private:
  int id(const std::string& name) const {
    int i = m_g.find_tensor(name);
    if (i < 0) throw std::runtime_error("test graph: no tensor " + name);
    return i;
  }
  Graph m_g;
};

}  // namespace perfpred::test
