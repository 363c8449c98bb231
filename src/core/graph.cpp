#include "perfpred/core/graph.hpp"

#include <algorithm>

#include "perfpred/util/checked_math.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {

bool Tensor::shape_known() const {
  if (!has_shape) return false;
  for (int64_t d : shape)
    if (d < 0) return false;
  return true;
}

std::optional<int64_t> Tensor::numel() const {
  if (!shape_known()) return std::nullopt;
  return checked_product(shape);
}

bool SequenceElement::shape_known() const {
  if (!has_shape) return false;
  for (int64_t d : shape)
    if (d < 0) return false;
  return true;
}

bool Tensor::sequence_known() const {
  if (!is_sequence || !elements) return false;
  for (const auto& e : *elements)
    if (!e.shape_known() || dtype_bits(e.dtype) == 0) return false;
  return true;
}

std::optional<int64_t> Tensor::bytes() const {
  if (is_optional && holds_element == false) return 0;
  if (is_sequence) {
    if (!sequence_known()) return std::nullopt;
    int64_t sum = 0;
    for (const auto& e : *elements) {
      const auto n = checked_product(e.shape);
      const auto bits = n ? checked_mul(*n, dtype_bits(e.dtype)) : std::nullopt;
      if (!bits) return std::nullopt;
      const auto total = checked_add(sum, *bits / 8 + (*bits % 8 != 0 ? 1 : 0));
      if (!total) return std::nullopt;
      sum = *total;
    }
    return sum;
  }
  auto n = numel();
  if (!n) return std::nullopt;
  // In bits, rounded up to whole bytes: the 4-bit types pack two elements to a byte.
  const auto bits = checked_mul(*n, dtype_bits(dtype));
  if (!bits) return std::nullopt;
  return *bits / 8 + (*bits % 8 != 0 ? 1 : 0);
}

int64_t Node::attr_int(const std::string& key, int64_t def) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return def;
  if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
  if (auto* d = std::get_if<double>(&it->second)) return static_cast<int64_t>(*d);
  return def;
}

double Node::attr_float(const std::string& key, double def) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return def;
  if (auto* d = std::get_if<double>(&it->second)) return *d;
  if (auto* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  return def;
}

std::string Node::attr_string(const std::string& key, const std::string& def) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return def;
  if (auto* s = std::get_if<std::string>(&it->second)) return *s;
  return def;
}

std::vector<int64_t> Node::attr_ints(const std::string& key, const std::vector<int64_t>& def) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return def;
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  if (auto* i = std::get_if<int64_t>(&it->second)) return {*i};
  return def;
}

int Graph::find_tensor(const std::string& name) const {
  auto it = m_index.find(name);
  return it == m_index.end() ? -1 : it->second;
}

int Graph::add_tensor(Tensor t) {
  if (m_index.count(t.name)) throw InternalError("duplicate tensor name '" + t.name + "'");
  int id = static_cast<int>(tensors.size());
  m_index.emplace(t.name, id);
  tensors.push_back(std::move(t));
  return id;
}

const Tensor* Graph::input(const Node& n, size_t i) const {
  if (i >= n.inputs.size() || n.inputs[i] < 0) return nullptr;
  return &tensors[static_cast<size_t>(n.inputs[i])];
}

const Tensor* Graph::output(const Node& n, size_t i) const {
  if (i >= n.outputs.size() || n.outputs[i] < 0) return nullptr;
  return &tensors[static_cast<size_t>(n.outputs[i])];
}

bool nms_filters_by_score(const Node& n) {
  return n.op == "NonMaxSuppression" && n.inputs.size() >= 5 && n.inputs[4] >= 0;
}

bool nms_candidates_given(const Graph& g, const Node& n) {
  return g.nms_candidates_all >= 0 || g.nms_candidates.count(n.name) > 0;
}

int64_t nms_candidates(const Graph& g, const Node& n, int64_t boxes) {
  if (!nms_filters_by_score(n)) return boxes;
  const auto it = g.nms_candidates.find(n.name);
  const int64_t k = it != g.nms_candidates.end() ? it->second : g.nms_candidates_all;
  return k < 0 ? boxes : std::min(k, boxes);
}

namespace {
std::string dims_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}
}  // namespace

std::string shape_to_string(const Tensor& t) {
  if (t.is_optional && t.holds_element == false) return "optional(none)";
  if (t.is_optional) {
    Tensor inner = t;
    inner.is_optional = false;
    return "optional(" + shape_to_string(inner) + ")";
  }
  if (t.is_sequence) {
    if (!t.elements) return "seq(?)";
    const auto& e = *t.elements;
    const std::string n = std::to_string(e.size());
    if (e.empty()) return "seq(0)";
    const bool same = std::all_of(e.begin(), e.end(), [&](const SequenceElement& x) { return x == e.front(); });
    if (!same) return "seq(" + n + ")";
    return "seq(" + n + " x " + (e.front().has_shape ? dims_string(e.front().shape) : std::string("?")) + ")";
  }
  if (!t.has_shape) return "?";
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (i) s += ", ";
    const bool named = t.shape[i] < 0 && i < t.dim_names.size() && !t.dim_names[i].empty();
    s += named ? t.dim_names[i] : t.shape[i] < 0 ? std::string("?") : std::to_string(t.shape[i]);
  }
  return s + "]";
}

}  // namespace perfpred
