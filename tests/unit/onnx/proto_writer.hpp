#pragma once
// A tiny protobuf wire-format writer for building ONNX ModelProto bytes in tests, including malformed
// ones (cycles, external data, overflowing dims) that the ONNX text parser cannot express. Tests do
// not link protobuf: only the onnx module does.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pw {

inline void varint(std::string& s, uint64_t v) {
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
}
inline void tag(std::string& s, uint32_t field, uint32_t wt) { varint(s, (static_cast<uint64_t>(field) << 3) | wt); }
inline std::string f_int(uint32_t field, int64_t v) {
  std::string s;
  tag(s, field, 0);
  varint(s, static_cast<uint64_t>(v));
  return s;
}
inline std::string f_bytes(uint32_t field, const std::string& v) {
  std::string s;
  tag(s, field, 2);
  varint(s, v.size());
  return s + v;
}

// onnx.proto field numbers.
inline std::string dim_value(int64_t d) { return f_bytes(1, f_int(1, d)); }     // TensorShapeProto.dim
inline std::string dim_param(const std::string& p) { return f_bytes(1, f_bytes(2, p)); }
/// ValueInfoProto of a tensor; each dim is a value (>=0) or, when negative, the symbol "N<i>".
inline std::string value_info(const std::string& name, int elem_type, const std::vector<int64_t>& dims, bool has_shape = true) {
  std::string shape;
  for (size_t i = 0; i < dims.size(); ++i) shape += dims[i] >= 0 ? dim_value(dims[i]) : dim_param("N" + std::to_string(i));
  std::string tensor_type = f_int(1, elem_type) + (has_shape ? f_bytes(2, shape) : "");
  return f_bytes(1, name) + f_bytes(2, f_bytes(1, tensor_type));
}
/// ValueInfoProto of a sequence of tensors of `elem_type` (TypeProto.sequence_type).
inline std::string seq_value_info(const std::string& name, int elem_type) {
  const std::string tensor_type = f_bytes(1, f_int(1, elem_type));  // TypeProto.tensor_type
  return f_bytes(1, name) + f_bytes(2, f_bytes(4, f_bytes(1, tensor_type)));
}
/// AttributeProto of one integer (type INT = 2).
inline std::string int_attr(const std::string& name, int64_t v) {
  return f_bytes(5, f_bytes(1, name) + f_int(3, v) + f_int(20, 2));
}
inline std::string node(const std::string& op, const std::vector<std::string>& ins, const std::vector<std::string>& outs,
                        const std::string& name, const std::string& attrs = "") {
  std::string s;
  for (const auto& i : ins) s += f_bytes(1, i);
  for (const auto& o : outs) s += f_bytes(2, o);
  return s + f_bytes(3, name) + f_bytes(4, op) + attrs;
}
/// AttributeProto holding a subgraph (type GRAPH = 5).
inline std::string graph_attr(const std::string& name, const std::string& graph) {
  return f_bytes(5, f_bytes(1, name) + f_int(20, 5) + f_bytes(6, graph));
}
/// TensorProto; `raw` is raw_data; `external` adds data_location=EXTERNAL with that location.
inline std::string tensor(const std::string& name, int elem_type, const std::vector<int64_t>& dims, const std::string& raw,
                          const std::string& external = "") {
  std::string s;
  for (int64_t d : dims) s += f_int(1, d);
  s += f_int(2, elem_type) + f_bytes(8, name);
  if (!raw.empty()) s += f_bytes(9, raw);
  if (!external.empty())
    s += f_bytes(13, f_bytes(1, "location") + f_bytes(2, external)) + f_bytes(13, f_bytes(1, "length") + f_bytes(2, "1024")) +
         f_int(14, 1);
  return s;
}
/// TensorProto stored in external data: data_location=EXTERNAL and one external_data entry per (key, value).
inline std::string external_tensor(const std::string& name, int elem_type, const std::vector<int64_t>& dims,
                                   const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string s;
  for (int64_t d : dims) s += f_int(1, d);
  s += f_int(2, elem_type) + f_bytes(8, name);
  for (const auto& [k, v] : entries) s += f_bytes(13, f_bytes(1, k) + f_bytes(2, v));
  return s + f_int(14, 1);
}
struct Graph {
  std::vector<std::string> nodes, initializers, inputs, outputs;
  std::string bytes(const std::string& name = "g") const {
    std::string s;
    for (const auto& n : nodes) s += f_bytes(1, n);
    s += f_bytes(2, name);
    for (const auto& t : initializers) s += f_bytes(5, t);
    for (const auto& i : inputs) s += f_bytes(11, i);
    for (const auto& o : outputs) s += f_bytes(12, o);
    return s;
  }
};
inline std::string model(const Graph& g, int64_t opset = 13) {
  return f_int(1, 8) + f_bytes(2, "test") + f_bytes(7, g.bytes()) + f_bytes(8, f_bytes(1, "") + f_int(2, opset));
}
inline std::string int64_raw(const std::vector<int64_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t));
}

}  // namespace pw
