#pragma once
// Test support of the ONNX import tests: a graph's tensor by name, or a test failure naming it.
#include <stdexcept>
#include <string>

#include "perfpred/core/graph.hpp"

namespace perfpred::test {

/// The tensor `name` of `g`; throws (failing the test) when the graph has none.
inline const Tensor& tensor_named(const Graph& g, const std::string& name) {
  const int id = g.find_tensor(name);
  if (id < 0) throw std::runtime_error("no tensor " + name);
  return g.tensors[static_cast<size_t>(id)];
}

}  // namespace perfpred::test
