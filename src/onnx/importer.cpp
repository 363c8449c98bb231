// ONNX import: protobuf -> perfpred::Graph with every tensor shaped.
//
// Steps: parse the ModelProto (import_file reads only the small constants a model keeps in external data
// beside it, external_data.hpp; never the weights), classify graph inputs into runtime inputs and weights
// (export_params=False exports weights as inputs), resolve symbolic input dims from ImportOptions, sort
// nodes topologically, run ONNX shape inference with data propagation, then run
// perfpred's folding and shape rules (shape_rules.cpp) to close the gaps ONNX 1.12 leaves; when that
// made progress, the result is written back into the proto and ONNX inference runs again so ops
// perfpred has no rule for still get shapes from ONNX.
#include "perfpred/onnx/importer.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <onnx/defs/parser.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

// After the ONNX headers: <sys/mman.h> defines MAP_TYPE, an enumerator name in onnx/defs/parser.h.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfpred/util/checked_math.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"
#include "control_flow.hpp"
#include "external_data.hpp"
#include "limits.hpp"
#include "shape_rules.hpp"

namespace perfpred::onnx_import {

namespace {

using detail::is_integral;
using detail::k_max_fold_elems;
using detail::keeps_values;
using detail::load_small_external_data;
using Shape = std::vector<int64_t>;

using detail::k_max_opset;
constexpr int64_t k_min_opset = 7;

std::string dims_text(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16_to_float(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Element values of a small tensor as doubles (integers exact up to 2^53) or int64; nullopt when the
// data is absent, external or inconsistent.
bool read_values(const onnx::TensorProto& tp, DType dt, int64_t n, std::vector<int64_t>* iv, std::vector<double>* dv) {
  if (tp.data_location() == onnx::TensorProto::EXTERNAL) return false;
  const size_t cnt = static_cast<size_t>(n);
  const int64_t esize = dtype_size(dt);
  if (tp.has_raw_data()) {
    const std::string& raw = tp.raw_data();
    if (esize <= 0 || raw.size() != cnt * static_cast<size_t>(esize)) return false;
    const char* p = raw.data();
    for (size_t i = 0; i < cnt; ++i, p += esize) {
      switch (dt) {
        case DType::i64: iv->push_back(load_le<int64_t>(p)); break;
        case DType::u64: iv->push_back(static_cast<int64_t>(load_le<uint64_t>(p))); break;
        case DType::i32: iv->push_back(load_le<int32_t>(p)); break;
        case DType::u32: iv->push_back(load_le<uint32_t>(p)); break;
        case DType::i16: iv->push_back(load_le<int16_t>(p)); break;
        case DType::u16: iv->push_back(load_le<uint16_t>(p)); break;
        case DType::i8: iv->push_back(load_le<int8_t>(p)); break;
        case DType::u8: case DType::boolean: iv->push_back(load_le<uint8_t>(p)); break;
        case DType::f32: dv->push_back(load_le<float>(p)); break;
        case DType::f64: dv->push_back(load_le<double>(p)); break;
        case DType::f16: dv->push_back(half_to_float(load_le<uint16_t>(p))); break;
        case DType::bf16: dv->push_back(bf16_to_float(load_le<uint16_t>(p))); break;
        default: return false;
      }
    }
    return true;
  }
  switch (dt) {
    case DType::i64:
      if (static_cast<size_t>(tp.int64_data_size()) != cnt) return false;
      iv->assign(tp.int64_data().begin(), tp.int64_data().end());
      return true;
    case DType::u32: case DType::u64:
      if (static_cast<size_t>(tp.uint64_data_size()) != cnt) return false;
      for (auto v : tp.uint64_data()) iv->push_back(static_cast<int64_t>(v));
      return true;
    case DType::i32: case DType::i16: case DType::i8: case DType::u16: case DType::u8: case DType::boolean:
      if (static_cast<size_t>(tp.int32_data_size()) != cnt) return false;
      iv->assign(tp.int32_data().begin(), tp.int32_data().end());
      return true;
    case DType::f16: case DType::bf16:
      if (static_cast<size_t>(tp.int32_data_size()) != cnt) return false;
      for (auto v : tp.int32_data())
        dv->push_back(dt == DType::f16 ? half_to_float(static_cast<uint16_t>(v)) : bf16_to_float(static_cast<uint16_t>(v)));
      return true;
    case DType::f32:
      if (static_cast<size_t>(tp.float_data_size()) != cnt) return false;
      dv->assign(tp.float_data().begin(), tp.float_data().end());
      return true;
    case DType::f64:
      if (static_cast<size_t>(tp.double_data_size()) != cnt) return false;
      dv->assign(tp.double_data().begin(), tp.double_data().end());
      return true;
    default:
      return false;
  }
}

// The number of values a tensor's data fields hold (raw_data in element sizes, or the typed field its dtype
// uses), nullopt where that cannot be told here: data stored outside the file, or a dtype without a fixed size.
std::optional<int64_t> stored_values(const onnx::TensorProto& tp, DType dt) {
  if (tp.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  if (dt == DType::string) return tp.string_data_size();
  if (tp.has_raw_data()) {
    const int64_t esize = dtype_size(dt);
    if (esize <= 0) return std::nullopt;
    const auto bytes = static_cast<int64_t>(tp.raw_data().size());
    return bytes % esize == 0 ? std::optional<int64_t>(bytes / esize) : std::optional<int64_t>(-1);
  }
  switch (dt) {
    case DType::i64: return tp.int64_data_size();
    case DType::u32: case DType::u64: return tp.uint64_data_size();
    case DType::i32: case DType::i16: case DType::i8: case DType::u16: case DType::u8: case DType::boolean:
    case DType::f16: case DType::bf16: return tp.int32_data_size();
    case DType::f32: return tp.float_data_size();
    case DType::f64: return tp.double_data_size();
    default: return std::nullopt;
  }
}

// Fill a Tensor from a TensorProto: dtype, dims, and the values of small constants.
void tensor_from_proto(const onnx::TensorProto& tp, Tensor& t, const std::string& where) {
  t.dtype = dtype_from_onnx(tp.data_type());
  t.shape.assign(tp.dims().begin(), tp.dims().end());
  t.has_shape = true;
  for (int64_t d : t.shape)
    if (d < 0) throw InputError(where + ": negative dimension in dims " + dims_text(t.shape));
  auto n = checked_product(t.shape);
  if (!n) throw InputError(where + ": dims " + dims_text(t.shape) + " overflow int64 elements; the model is corrupt");
  if (!checked_mul(*n, std::max<int64_t>(dtype_size(t.dtype), 1)))
    throw InputError(where + ": dims " + dims_text(t.shape) + " overflow int64 bytes; the model is corrupt");
  const bool integral = is_integral(t.dtype);
  if (keeps_values(t.dtype, *n)) {
    std::vector<int64_t> iv;
    std::vector<double> dv;
    if (read_values(tp, t.dtype, *n, &iv, &dv)) {
      if (integral) t.int_values = std::move(iv);
      else if (t.dtype == DType::f32 || t.dtype == DType::f64 || t.dtype == DType::f16 || t.dtype == DType::bf16)
        t.float_values = std::move(dv);
    }
  }
}

// Shape of a value_info/input type: dims, with k_unknown_dim for symbolic or missing ones.
struct TypeShape {
  DType dtype = DType::unknown;
  bool has_shape = false;
  Shape dims;
  std::vector<std::string> dim_names;  // dim_param per dim ("" when none)
  int64_t negative_dim = -1;            // index of the first dim_value < 0 (dims holds it as unknown), or -1
  int64_t negative_value = 0;           // that dim_value
};

TypeShape type_shape(const onnx::TypeProto& tp) {
  TypeShape r;
  if (!tp.has_tensor_type()) return r;
  r.dtype = dtype_from_onnx(tp.tensor_type().elem_type());
  if (!tp.tensor_type().has_shape()) return r;
  r.has_shape = true;
  for (const auto& d : tp.tensor_type().shape().dim()) {
    r.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : k_unknown_dim);
    if (d.has_dim_value() && d.dim_value() < 0 && r.negative_dim < 0) {
      r.negative_dim = static_cast<int64_t>(r.dims.size() - 1);
      r.negative_value = d.dim_value();
    }
    r.dim_names.push_back(d.has_dim_param() ? d.dim_param() : "");
  }
  return r;
}

// Write dims into a type; an unknown dim keeps its symbolic name (names[i], when given) so ONNX's
// inference carries the symbol through.
void set_type_shape(onnx::TypeProto* tp, DType dtype_unused, const Shape& dims, const std::vector<std::string>& names = {}) {
  (void)dtype_unused;
  auto* shape = tp->mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* dim = shape->add_dim();
    if (dims[i] >= 0) dim->set_dim_value(dims[i]);
    else if (i < names.size() && !names[i].empty()) dim->set_dim_param(names[i]);
  }
}

AttrValue convert_attr(const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT: return static_cast<double>(a.f());
    case onnx::AttributeProto::INT: return static_cast<int64_t>(a.i());
    case onnx::AttributeProto::STRING: return a.s();
    case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case onnx::AttributeProto::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    case onnx::AttributeProto::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    default: return std::string();
  }
}

// Which input slots of an op hold weights (for export_params=False models whose weights are graph inputs).
// com.microsoft Attention takes its projection weights (1, 2); ONNX's opset-23 Attention takes K and V there.
bool is_weight_slot(const Node& n, size_t slot) {
  const std::string& op = n.op;
  if (op == "Attention") return n.domain == "com.microsoft" && (slot == 1 || slot == 2);
  if (op == "SimplifiedLayerNormalization" || op == "RMSNormalization") return slot == 1;
  if (op == "Conv" || op == "ConvTranspose" || op == "Gemm" || op == "LayerNormalization" || op == "FusedConv" ||
      op == "InstanceNormalization" || op == "GroupNormalization")
    return slot == 1 || slot == 2;
  if (op == "BatchNormalization") return slot >= 1 && slot <= 4;
  if (op == "LSTM" || op == "GRU" || op == "RNN") return slot >= 1 && slot <= 3;
  if (op == "MatMul" || op == "PRelu") return slot == 1;
  if (op == "Gather") return slot == 0;  // embedding table
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Concat") return true;
  return false;
}

// Slots that show a tensor is runtime data (activations, token ids).
bool is_data_slot(const std::string& op, size_t slot) {
  if (op == "Shape" || op == "Size") return true;
  if (op == "Gather") return slot == 1;
  if (slot != 0) return false;
  return op == "Conv" || op == "ConvTranspose" || op == "Gemm" || op == "LSTM" || op == "GRU" || op == "RNN" ||
         op == "BatchNormalization" || op == "LayerNormalization" || op == "InstanceNormalization" || op == "MatMul";
}

// Pass-through ops: a weight fed through them is still a weight (Identity ties, Expand of a class token).
bool is_pass_through(const std::string& op) {
  return op == "Identity" || op == "Expand" || op == "Unsqueeze" || op == "Squeeze" || op == "Cast" ||
         op == "Transpose" || op == "Reshape" || op == "Slice" || op == "Concat" || op == "Split" || op == "Flatten";
}

class Importer {
 public:
  Importer(onnx::ModelProto& model, std::string label, const ImportOptions& opts, bool probe = false)
      : m_model(model), m_label(std::move(label)), m_opts(opts), m_probe(probe) {}

  // Messages thrown below name the node, input or field; the model file is prefixed here, once, so
  // every error of an import (including the shape rules' and validate_node's) says which file failed.
  Graph run(const std::string& model_name) {
    try {
      steps(model_name);
    } catch (const UnsupportedOpError& e) {
      throw UnsupportedOpError(m_label + ": " + e.what());
    } catch (const InputError& e) {
      throw InputError(m_label + ": " + e.what());
    }
    return std::move(m_g);
  }

 private:
  onnx::ModelProto& m_model;
  std::string m_label;
  const ImportOptions& m_opts;
  const bool m_probe;  // an import of a working copy, run to read values that decide control flow
  Graph m_g;

  void steps(const std::string& model_name) {
    if (!m_model.has_graph()) throw InputError("not an ONNX model (no graph); is the file an .onnx ModelProto?");
    detail::check_model_limits(m_model);  // before anything walks the model, its subgraphs included
    if (!m_probe) expand_control_flow();
    read_header(model_name);
    if (!m_probe) check_subgraphs();
    read_initializers();
    read_inputs();
    read_nodes();
    detail::check_schemas(m_model.graph(), m_g);
    classify_inputs();
    resolve_inputs();
    sort_nodes();
    mark_outputs();
    infer();
    finish();
    if (!m_probe) check_data_counts();
    detail::check_tensor_limits(m_g);
  }

  // ---- control flow (control_flow.cpp rewrites the proto; the decisions are made here) ----------

  static bool is_control_flow(const onnx::NodeProto& n) {
    return (n.domain().empty() || n.domain() == "ai.onnx") &&
           (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan" || n.op_type() == "SequenceMap");
  }

  int64_t proto_opset() const {
    for (const auto& o : m_model.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
    return 0;
  }

  // Import a working copy to read values (conditions, trip counts, shapes). Control-flow nodes left in
  // it become opaque ops of a private domain, so neither ONNX's inference nor perfpred's rules look
  // into bodies not yet decided (ONNX 1.12 is not robust against malformed subgraphs).
  Graph probe_import(onnx::ModelProto& copy) const {
    for (auto& n : *copy.mutable_graph()->mutable_node())
      if (is_control_flow(n)) {
        n.set_domain("perfpred.unexpanded");
        n.clear_attribute();
      }
    Importer imp(copy, m_label, m_opts, true);
    imp.steps(m_model.graph().name());
    return std::move(imp.m_g);
  }

  static int find_node(const onnx::GraphProto& g, const std::string& name) {
    for (int i = 0; i < g.node_size(); ++i)
      if (g.node(i).name() == name) return i;
    return -1;
  }

  // Rough work of the nodes whose names start with `prefix`: output elements, and 2*M*N*K for products
  // and convolutions. Only compares two branches of one If, so it need not be the analysis' FLOPs.
  static double branch_work(const Graph& g, const std::string& prefix) {
    double w = 0;
    for (const auto& n : g.nodes) {
      if (n.name.rfind(prefix, 0) != 0) continue;
      const Tensor* o = g.output(n, 0);
      if (!o || !o->shape_known()) continue;
      const double out = static_cast<double>(o->numel().value_or(0));
      w += out;
      const Tensor* a = g.input(n, 0);
      const Tensor* b = g.input(n, 1);
      if ((n.op == "MatMul" || n.op == "Gemm" || n.op == "FusedMatMul") && a && a->shape_known() && !a->shape.empty())
        w += 2 * out * static_cast<double>(n.op == "Gemm" && n.attr_int("transA", 0) ? a->shape[0] : a->shape.back());
      if ((n.op == "Conv" || n.op == "FusedConv") && b && b->shape_known() && !b->shape.empty() && b->shape[0] > 0)
        w += 2 * out * static_cast<double>(b->numel().value_or(0) / b->shape[0]);
    }
    return w;
  }

  // Values a probe import found for a tensor (nullptr when it has none).
  static const Tensor* probe_tensor(const Graph& g, const std::string& name) {
    int id = name.empty() ? -1 : g.find_tensor(name);
    return id < 0 ? nullptr : &g.tensors[static_cast<size_t>(id)];
  }

  std::optional<int64_t> loop_trips(const Graph& probe, const onnx::NodeProto& n) const {
    auto opt = m_opts.loop_trips.find(n.name());
    if (opt != m_opts.loop_trips.end()) return opt->second;
    if (n.op_type() == "Loop") {
      const Tensor* m = probe_tensor(probe, n.input_size() > 0 ? n.input(0) : "");
      if (!m || !m->int_values || m->int_values->size() != 1) return std::nullopt;
      const int64_t v = (*m->int_values)[0];
      // torch exports a while loop as M = INT64_MAX with a condition: not a trip count.
      if (v < 0 || v > INT32_MAX) return std::nullopt;
      return v;
    }
    int64_t k_in = 0, axis = 0;
    for (const auto& a : n.attribute()) {
      if (a.name() == "num_scan_inputs") k_in = a.i();
      if (a.name() == "scan_input_axes" && a.ints_size() > 0) axis = a.ints(0);
    }
    const int first = n.input_size() - static_cast<int>(k_in);
    if (k_in <= 0 || first < 0) return std::nullopt;
    const Tensor* x = probe_tensor(probe, n.input(first));
    if (!x || !x->has_shape) return std::nullopt;
    const int64_t r = static_cast<int64_t>(x->shape.size());
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r || x->shape[static_cast<size_t>(axis)] < 0) return std::nullopt;
    return x->shape[static_cast<size_t>(axis)];
  }

  // A SequenceMap's length (its first input's) and which inputs are sequences, as the probe import knows them;
  // nullopt while an input is not yet known (made by control flow the probe left unexpanded, or a sequence of
  // unknown length). Sequences of different lengths are an error.
  std::optional<std::pair<int64_t, std::vector<bool>>> sequence_map_plan(const Graph& probe,
                                                                         const onnx::NodeProto& n) const {
    std::optional<int64_t> length;
    std::vector<bool> kinds;
    for (int k = 0; k < n.input_size(); ++k) {
      const std::string& name = n.input(k);
      if (name.empty()) throw InputError("node '" + n.name() + "' (SequenceMap): input " + std::to_string(k) + " is empty");
      for (const auto& p : probe.nodes)  // made by control flow the probe saw unexpanded: known next round
        if (p.domain == "perfpred.unexpanded")
          for (int o : p.outputs)
            if (o >= 0 && probe.tensors[static_cast<size_t>(o)].name == name) return std::nullopt;
      const Tensor* t = probe_tensor(probe, name);
      if (!t) return std::nullopt;
      if (k == 0 && !t->is_sequence)
        throw InputError("node '" + n.name() + "' (SequenceMap): input '" + printable(name, 80) +
                         "' is a tensor; the first input is the sequence it maps");
      if (t->is_sequence) {
        if (!t->sequence_known()) return std::nullopt;
        const int64_t len = static_cast<int64_t>(t->elements->size());
        if (length && *length != len)
          throw InputError("node '" + n.name() + "' (SequenceMap): input '" + printable(name, 80) + "' holds " +
                           std::to_string(len) + " tensors, the first input " + std::to_string(*length) +
                           "; the sequences it maps must be as long");
        length = len;
      }
      kinds.push_back(t->is_sequence);
    }
    if (!length) return std::nullopt;
    return std::pair{*length, kinds};
  }

  // The graphs and attributes an If, Loop, Scan or SequenceMap needs before anything reads its inputs.
  static void check_control_flow_node(const onnx::NodeProto& n) {
    auto has_graph = [&](const char* key) {
      return std::any_of(n.attribute().begin(), n.attribute().end(),
                         [&](const onnx::AttributeProto& a) { return a.name() == key && a.has_g(); });
    };
    const std::string where = "node '" + n.name() + "' (" + n.op_type() + "): ";
    if (n.op_type() == "If") {
      for (const char* key : {"then_branch", "else_branch"})
        if (!has_graph(key)) throw InputError(where + "has no " + key + " graph");
      if (n.input_size() < 1 || n.input(0).empty()) throw InputError(where + "has no condition input");
      return;
    }
    if (!has_graph("body")) throw InputError(where + "has no body graph");
    if (n.op_type() == "SequenceMap") {
      if (n.input_size() < 1) throw InputError(where + "has no input sequence");
      return;
    }
    if (n.op_type() == "Scan") {
      int64_t k = 0;
      for (const auto& a : n.attribute())
        if (a.name() == "num_scan_inputs") k = a.i();
      if (k < 1 || k > n.input_size())
        throw InputError(where + "num_scan_inputs is " + std::to_string(k) + "; it must be between 1 and the " +
                         std::to_string(n.input_size()) + " inputs");
    } else if (n.input_size() < 2) {
      throw InputError(where + "needs inputs M and cond (either may be empty) before the loop-carried values");
    }
  }

  // How a message names an override: the option, or the budget file's key.
  std::string dim_ref(const std::string& name, int64_t v) const {
    return m_opts.overrides_are_keys ? "dims." + printable(name, 80) + " (" + std::to_string(v) + ")"
                                     : "--dim " + printable(name, 80) + "=" + std::to_string(v);
  }
  std::string branch_ref(const std::string& name, const std::string& v) const {
    return m_opts.overrides_are_keys ? "branches." + name + " (\"" + v + "\")" : "--branch " + name + "=" + v;
  }
  std::string trips_ref(const std::string& name, int64_t v) const {
    return m_opts.overrides_are_keys ? "loop_trips." + name + " (" + std::to_string(v) + ")"
                                     : "--loop-trips " + name + "=" + std::to_string(v);
  }

  // An If whose condition did not fold: both branches are imported, and the more expensive one is kept.
  void take_costlier_branch(const std::string& name, int64_t opset) {
    double work[2];
    for (int b = 0; b < 2; ++b) {
      onnx::ModelProto copy = m_model;
      detail::inline_if(*copy.mutable_graph(), find_node(copy.graph(), name), b == 0, opset);
      work[b] = branch_work(probe_import(copy), name + (b == 0 ? "/then/" : "/else/"));
    }
    const bool then_branch = work[0] >= work[1];
    detail::inline_if(graph(), find_node(graph(), name), then_branch, opset);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g vs %.3g", work[then_branch ? 0 : 1], work[then_branch ? 1 : 0]);
    m_g.warnings.push_back("If '" + name + "': condition not known at import; costed the more expensive branch, " +
                           (then_branch ? "then" : "else") + " (work " + buf + "); " + branch_ref(name, then_branch ? "else" : "then") +
                           " takes the other");
  }

  // Decide and expand If/Loop/Scan nodes round by round (a body may hold more control flow, and a
  // condition may depend on a loop's outputs), each round reading values from a probe import.
  void expand_control_flow() {
    auto& g = graph();
    std::set<std::string> ifs, loops;
    const int64_t opset = proto_opset();
    for (int i = 0; i < g.node_size(); ++i)
      if (is_control_flow(g.node(i)) && g.node(i).name().empty()) g.mutable_node(i)->set_name(detail::node_display_name(g.node(i), i));
    for (int round = 0; round < 64 && detail::has_control_flow(g); ++round) {
      onnx::ModelProto copy = m_model;
      const Graph probe = probe_import(copy);
      bool progress = false;
      std::string open_if, open_loop, open_map;
      std::vector<std::string> names;
      for (const auto& n : g.node())
        if (is_control_flow(n)) names.push_back(n.name());
      for (const auto& name : names) {
        const int idx = find_node(g, name);
        const onnx::NodeProto& n = g.node(idx);
        check_control_flow_node(n);
        if (n.op_type() == "If") {
          ifs.insert(name);
          auto opt = m_opts.branches.find(name);
          const Tensor* c = probe_tensor(probe, n.input_size() > 0 ? n.input(0) : "");
          std::optional<bool> cond;
          if (opt != m_opts.branches.end()) cond = opt->second == "then";
          else if (c && c->int_values && c->int_values->size() == 1) cond = (*c->int_values)[0] != 0;
          else if (c && c->float_values && c->float_values->size() == 1) cond = (*c->float_values)[0] != 0;
          if (!cond) {
            if (open_if.empty()) open_if = name;
            continue;
          }
          detail::inline_if(g, idx, *cond, opset);
        } else if (n.op_type() == "SequenceMap") {
          auto plan = sequence_map_plan(probe, n);
          if (!plan) {
            if (open_map.empty()) open_map = name;
            continue;
          }
          detail::unroll_sequence_map(g, idx, plan->first, plan->second, m_opts.max_unrolled_nodes);
        } else {
          loops.insert(name);
          auto trips = loop_trips(probe, n);
          if (!trips) {
            if (open_loop.empty()) open_loop = name;
            continue;
          }
          if (n.op_type() == "Loop") detail::unroll_loop(g, idx, *trips, opset, m_opts.max_unrolled_nodes);
          else detail::unroll_scan(g, idx, *trips, opset, m_opts.max_unrolled_nodes);
        }
        progress = true;
      }
      if (progress) continue;
      if (!open_loop.empty()) {
        const onnx::NodeProto& n = g.node(find_node(g, open_loop));
        throw InputError("node '" + open_loop + "' (" + n.op_type() + "): trip count not known at import (" +
                         (n.op_type() == "Scan" ? "the scanned input's length is not known"
                                                : n.input_size() == 0 || n.input(0).empty() ? "no M input, only a condition"
                                                                                            : "M is computed at run time") +
                         "); " + (m_opts.overrides_are_keys ? "set loop_trips." + open_loop : "pass --loop-trips " + open_loop + "=N"));
      }
      if (open_if.empty() && !open_map.empty())
        throw InputError("node '" + open_map + "' (SequenceMap): the length of the sequences it maps is not known at " +
                         "import (a sequence whose length is computed at run time); perfpred follows sequences " +
                         "built from known shapes and counts");
      take_costlier_branch(open_if, opset);
    }
    if (detail::has_control_flow(g)) throw InputError("control flow nested more than 64 levels deep");
    for (const auto& [name, v] : m_opts.branches)
      if (!ifs.count(name))
        throw InputError(branch_ref(name, v) + ": the model has no If named '" + name + "'" +
                         (ifs.empty() ? "" : "; Ifs: " + join(std::vector<std::string>(ifs.begin(), ifs.end()), ", ")));
    for (const auto& [name, v] : m_opts.loop_trips)
      if (!loops.count(name))
        throw InputError(trips_ref(name, v) + ": the model has no Loop or Scan named '" + name + "'" +
                         (loops.empty() ? "" : "; loops: " + join(std::vector<std::string>(loops.begin(), loops.end()), ", ")));
  }
  std::unordered_map<std::string, TypeShape> m_input_types;  // non-initializer graph inputs
  std::vector<std::string> m_input_order;
  std::unordered_map<std::string, std::vector<std::pair<int, size_t>>> m_consumers;  // tensor -> (node, slot)

  onnx::GraphProto& graph() { return *m_model.mutable_graph(); }

  std::string node_label(const Node& n) const {
    return "node '" + printable(n.name, 120) + "' (" + printable(n.op, 120) + ")";
  }

  void read_header(const std::string& model_name) {
    m_g.model_name = model_name.empty() ? m_model.graph().name() : model_name;
    m_g.producer = m_model.producer_name();
    m_g.data_counts = m_opts.data_counts;
    m_g.data_count_all = m_opts.data_count_all;
    m_g.nms_candidates = m_opts.nms_candidates;
    m_g.nms_candidates_all = m_opts.nms_candidates_all;
    if (!m_model.producer_version().empty()) m_g.producer += " " + m_model.producer_version();
    bool found = false;
    for (const auto& o : m_model.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") {
        m_g.opset = o.version();
        found = true;
      }
    }
    if (!found) {
      if (m_model.opset_import_size() == 0 && m_model.ir_version() <= 0)
        throw InputError("not an ONNX model (no ir_version and no opset_import)");
      throw InputError("opset_import has no entry for the default ONNX domain; re-export with a standard opset");
    }
    if (m_g.opset > k_max_opset)
      throw InputError("opset " + std::to_string(m_g.opset) + " is newer than perfpred imports (opsets " +
                       std::to_string(k_min_opset) + "-" + std::to_string(k_max_opset) +
                       "; ops changed since have no shape rules here); export the model at opset " +
                       std::to_string(k_max_opset) + " or lower (torch.onnx.export(..., opset_version=" +
                       std::to_string(k_max_opset) + "))");
    if (m_g.opset < k_min_opset)
      m_g.warnings.push_back("opset " + std::to_string(m_g.opset) + " is older than the supported range " +
                             std::to_string(k_min_opset) + "-" + std::to_string(k_max_opset) + "; shapes are a best effort");
  }

  void check_subgraphs() {
    int idx = 0;
    for (const auto& n : m_model.graph().node()) {
      for (const auto& a : n.attribute())
        if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS || a.has_g() ||
            a.graphs_size() > 0) {
          std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(idx) : n.name();
          throw InputError("node '" + name + "' (" + n.op_type() + "): attribute '" + a.name() +
                           "' holds a subgraph; perfpred expands If, Loop, Scan and SequenceMap only, export the model "
                           "without this op");
        }
      ++idx;
    }
  }

  void read_initializers() {
    for (const auto& tp : m_model.graph().initializer()) {
      if (tp.name().empty()) throw InputError("an initializer has no name");
      if (m_g.find_tensor(tp.name()) >= 0) throw InputError("initializer '" + tp.name() + "' is defined twice");
      Tensor t;
      t.name = tp.name();
      t.is_initializer = true;
      tensor_from_proto(tp, t, "initializer '" + tp.name() + "'");
      m_g.add_tensor(std::move(t));
    }
    for (const auto& sp : m_model.graph().sparse_initializer()) {
      const auto& v = sp.values();
      if (v.name().empty() || m_g.find_tensor(v.name()) >= 0) continue;
      Tensor t;
      t.name = v.name();
      t.is_initializer = true;
      t.dtype = dtype_from_onnx(v.data_type());
      t.shape.assign(sp.dims().begin(), sp.dims().end());
      t.has_shape = true;
      if (!checked_product(t.shape)) throw InputError("sparse initializer '" + t.name + "': dims " + dims_text(t.shape) + " are negative or overflow int64");
      m_g.add_tensor(std::move(t));
    }
  }

  void read_inputs() {
    for (const auto& vi : m_model.graph().input()) {
      if (m_g.find_tensor(vi.name()) >= 0) continue;  // an initializer also listed as input (IR < 4)
      if (vi.name().empty()) throw InputError("a graph input has no name");
      if (vi.type().has_sequence_type() || vi.type().has_optional_type() || vi.type().has_map_type())
        throw InputError("input '" + printable(vi.name(), 80) + "' is " +
                         (vi.type().has_sequence_type() ? "a sequence of tensors"
                          : vi.type().has_optional_type() ? "an optional value" : "a map") +
                         "; perfpred sizes tensor inputs only (export the model with each tensor as an input of its own)");
      TypeShape ts = type_shape(vi.type());
      m_input_types[vi.name()] = ts;
      m_input_order.push_back(vi.name());
      Tensor t;
      t.name = vi.name();
      t.dtype = ts.dtype;
      m_g.add_tensor(std::move(t));
    }
  }

  void read_nodes() {
    int idx = 0;
    std::unordered_set<std::string> names;
    for (const auto& np : m_model.graph().node()) {
      Node n;
      n.op = np.op_type();
      n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
      n.name = np.name().empty() ? n.op + "_" + std::to_string(idx) : np.name();
      if (!names.insert(n.name).second) n.name += "#" + std::to_string(idx);
      ++idx;
      for (const auto& a : np.attribute()) {
        if (a.type() == onnx::AttributeProto::TENSOR || a.has_t()) {
          if (n.op == "ConstantOfShape" && a.name() == "value") {
            Tensor tmp;
            tensor_from_proto(a.t(), tmp, node_label(n) + " attribute 'value'");
            double v = 0;
            if (tmp.int_values && !tmp.int_values->empty()) v = static_cast<double>((*tmp.int_values)[0]);
            if (tmp.float_values && !tmp.float_values->empty()) v = (*tmp.float_values)[0];
            n.attrs["value"] = v;
            n.attrs["value.dtype"] = static_cast<int64_t>(a.t().data_type());
          }
          continue;
        }
        // An empty Optional names its tensor's element type in a TypeProto attribute.
        if (a.type() == onnx::AttributeProto::TYPE_PROTO && n.op == "Optional" && a.name() == "type" &&
            a.tp().has_tensor_type())
          n.attrs["type.elem_type"] = static_cast<int64_t>(a.tp().tensor_type().elem_type());
        n.attrs[a.name()] = convert_attr(a);
      }
      for (const auto& in : np.input()) {
        if (in.empty()) {
          n.inputs.push_back(-1);
          continue;
        }
        n.inputs.push_back(-2);  // resolved after all outputs are known
      }
      for (const auto& out : np.output()) {
        if (out.empty()) {
          n.outputs.push_back(-1);
          continue;
        }
        if (m_g.find_tensor(out) >= 0)
          throw InputError(node_label(n) + ": output '" + out + "' is already defined by another node, input or initializer");
        Tensor t;
        t.name = out;
        n.outputs.push_back(m_g.add_tensor(std::move(t)));
      }
      if (n.op == "Constant" && n.domain.empty()) read_constant(np, n);
      m_g.nodes.push_back(std::move(n));
    }
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
      Node& n = m_g.nodes[i];
      const auto& np = m_model.graph().node(static_cast<int>(i));
      for (int k = 0; k < np.input_size(); ++k) {
        if (n.inputs[static_cast<size_t>(k)] == -1) continue;
        int id = m_g.find_tensor(np.input(k));
        if (id < 0)
          throw InputError(node_label(n) + ": input '" + printable(np.input(k), 120) +
                           "' is not produced by any node and is neither a graph input nor an initializer");
        n.inputs[static_cast<size_t>(k)] = id;
        m_consumers[np.input(k)].push_back({static_cast<int>(i), static_cast<size_t>(k)});
      }
    }
  }

  void read_constant(const onnx::NodeProto& np, Node& n) {
    if (n.outputs.empty() || n.outputs[0] < 0) return;
    Tensor& t = m_g.tensors[static_cast<size_t>(n.outputs[0])];
    static const std::unordered_set<std::string> k_value_attrs = {
        "value", "value_float", "value_floats", "value_int", "value_ints", "value_string", "value_strings",
        "sparse_value"};
    if (std::none_of(np.attribute().begin(), np.attribute().end(),
                     [](const onnx::AttributeProto& a) { return k_value_attrs.count(a.name()) > 0; }))
      throw InputError(node_label(n) + ": a Constant needs one of the attributes value, value_float, value_floats, "
                       "value_int, value_ints, value_string, value_strings or sparse_value and has none; the model "
                       "is corrupt");
    for (const auto& a : np.attribute()) {
      const std::string& k = a.name();
      if (k == "value") {
        const std::string where = node_label(n) + " attribute 'value'";
        tensor_from_proto(a.t(), t, where);
        // A Constant carries its values in the node (the wire reader skips only initializers' payloads), so they
        // must match its dims: ONNX's data propagation reads a scalar that holds no value past its end (a crash).
        const auto want = checked_product(t.shape);
        if (const auto held = stored_values(a.t(), t.dtype); want && held && *held != *want)
          throw InputError(where + ": dims " + dims_text(t.shape) + " need " + std::to_string(*want) + " value" +
                           (*want == 1 ? "" : "s") + " but the tensor holds " +
                           (*held < 0 ? std::string("a raw_data length that is no multiple of its element size")
                                      : std::to_string(*held)) +
                           "; the model is corrupt");
      } else if (k == "value_float") {
        t.dtype = DType::f32, t.has_shape = true, t.shape = {}, t.float_values = std::vector<double>{a.f()};
      } else if (k == "value_floats") {
        t.dtype = DType::f32, t.has_shape = true, t.shape = {a.floats_size()};
        t.float_values = std::vector<double>(a.floats().begin(), a.floats().end());
      } else if (k == "value_int") {
        t.dtype = DType::i64, t.has_shape = true, t.shape = {}, t.int_values = std::vector<int64_t>{a.i()};
      } else if (k == "value_ints") {
        t.dtype = DType::i64, t.has_shape = true, t.shape = {a.ints_size()};
        t.int_values = std::vector<int64_t>(a.ints().begin(), a.ints().end());
      } else if (k == "value_string") {
        t.dtype = DType::string, t.has_shape = true, t.shape = {};
      } else if (k == "value_strings") {
        t.dtype = DType::string, t.has_shape = true, t.shape = {a.strings_size()};
      } else if (k == "sparse_value") {
        t.dtype = dtype_from_onnx(a.sparse_tensor().values().data_type());
        t.has_shape = true;
        t.shape.assign(a.sparse_tensor().dims().begin(), a.sparse_tensor().dims().end());
        if (!checked_product(t.shape)) throw InputError(node_label(n) + ": sparse_value dims " + dims_text(t.shape) + " are negative or overflow int64");
      }
    }
  }

  // export_params=False puts weights among the graph inputs: a fully static input consumed where a
  // weight goes (and never where data goes) is a weight; the rest are runtime inputs. A model that
  // keeps its weights as initializers (one feeds a weight slot of a Conv, Gemm, MatMul, norm or RNN)
  // is not such an export: its graph inputs are all runtime inputs (ONNX IR >= 4), however static
  // their shapes (a fixed attention mask, a second image).
  bool weights_are_initializers() const {
    for (const auto& [name, uses] : m_consumers) {
      const int ti = m_g.find_tensor(name);
      if (ti < 0 || !m_g.tensors[static_cast<size_t>(ti)].is_initializer) continue;
      for (auto [ni, slot] : uses) {
        const Node& node = m_g.nodes[static_cast<size_t>(ni)];
        const std::string& op = node.op;
        if (op != "Add" && op != "Sub" && op != "Mul" && op != "Div" && op != "Concat" && op != "Gather" &&
            is_weight_slot(node, slot))
          return true;
      }
    }
    return false;
  }

  void classify_inputs() {
    if (weights_are_initializers()) {
      for (const auto& name : m_input_order) m_g.tensors[static_cast<size_t>(m_g.find_tensor(name))].is_graph_input = true;
      return;
    }
    auto evidence = [&](const std::string& name, bool& weight, bool& data) {
      std::vector<std::pair<std::string, int>> todo{{name, 0}};
      while (!todo.empty()) {
        auto [t, depth] = todo.back();
        todo.pop_back();
        auto it = m_consumers.find(t);
        if (it == m_consumers.end()) continue;
        for (auto [ni, slot] : it->second) {
          const Node& n = m_g.nodes[static_cast<size_t>(ni)];
          if (is_data_slot(n.op, slot)) data = true;
          if (is_weight_slot(n, slot)) weight = true;
          if (is_pass_through(n.op) && (slot == 0 || n.op == "Concat") && depth < 6)
            for (int o : n.outputs)
              if (o >= 0) todo.push_back({m_g.tensors[static_cast<size_t>(o)].name, depth + 1});
        }
      }
    };
    for (const auto& name : m_input_order) {
      const TypeShape& ts = m_input_types[name];
      Tensor& t = m_g.tensors[static_cast<size_t>(m_g.find_tensor(name))];
      bool weight = false, data = false;
      bool symbolic = !ts.has_shape || std::any_of(ts.dims.begin(), ts.dims.end(), [](int64_t d) { return d < 0; });
      if (!symbolic && !m_opts.input_shapes.count(name)) evidence(name, weight, data);
      t.is_initializer = weight && !data;
      t.is_graph_input = !t.is_initializer;
    }
    bool any_runtime = std::any_of(m_input_order.begin(), m_input_order.end(), [&](const std::string& n) {
      return m_g.tensors[static_cast<size_t>(m_g.find_tensor(n))].is_graph_input;
    });
    if (!any_runtime && !m_input_order.empty()) {
      Tensor& t = m_g.tensors[static_cast<size_t>(m_g.find_tensor(m_input_order.front()))];
      t.is_initializer = false;
      t.is_graph_input = true;
    }
  }

  std::vector<std::string> runtime_input_names() const {
    std::vector<std::string> r;
    for (const auto& name : m_input_order)
      if (m_g.tensors[static_cast<size_t>(m_g.find_tensor(name))].is_graph_input) r.push_back(name);
    return r;
  }

  // --dim names: each must be a symbolic dim of some input (the message lists them).
  void check_dim_options() const {
    std::set<std::string> known;
    for (const auto& name : m_input_order)
      for (const auto& d : m_input_types.at(name).dim_names)
        if (!d.empty()) known.insert(d);
    for (const auto& [dim, v] : m_opts.dims) {
      if (v < 1) throw InputError(dim_ref(dim, v) + ": a dim must be >= 1");
      if (!known.count(dim))
        throw InputError(dim_ref(dim, v) + ": no input has a symbolic dim named '" +
                         printable(dim, 80) + "'; symbolic dims: " +
                         (known.empty() ? std::string("(none)") : join(std::vector<std::string>(known.begin(), known.end()), ", ")));
    }
  }

  // An input given by --input-shape: its rank checked, dims that differ from the declared ones noted,
  // and a --dim that names one of its dims must agree with it.
  Shape given_dims(const std::string& name, const TypeShape& ts, const Shape& dims) {
    if (ts.has_shape && ts.dims.size() != dims.size())
      throw InputError("--input-shape " + name + " gives " + std::to_string(dims.size()) +
                       " dims but the model declares rank " + std::to_string(ts.dims.size()));
    for (size_t i = 0; i < dims.size() && ts.has_shape; ++i) {
      if (ts.dims[i] >= 0 && ts.dims[i] != dims[i])
        m_g.warnings.push_back("input '" + name + "' dim " + std::to_string(i) + ": model declares " +
                               std::to_string(ts.dims[i]) + ", --input-shape gives " + std::to_string(dims[i]));
      auto d = ts.dims[i] < 0 ? m_opts.dims.find(ts.dim_names[i]) : m_opts.dims.end();
      if (d != m_opts.dims.end() && d->second != dims[i])
        throw InputError("--input-shape " + name + " gives dim " + std::to_string(i) + " ('" + d->first + "') = " +
                         std::to_string(dims[i]) + " but " + dim_ref(d->first, d->second) +
                         "; give one value (drop the --input-shape, or make them agree)");
    }
    return dims;
  }

  // An input's declared dims, symbolic ones set from --dim, the leading one of a runtime input from
  // --batch; any other is kept unknown and named (keep_symbolic) or refused naming the option that sets it.
  Shape declared_dims(const std::string& name, const TypeShape& ts, const Tensor& t, std::vector<std::string>& names) {
    if (!ts.has_shape)
      throw InputError("input '" + name + "' has no declared shape; pass --input-shape " + name + "=D0,D1,...");
    if (ts.negative_dim >= 0)
      throw InputError("input '" + name + "' declares dim " + std::to_string(ts.negative_dim) + " as " +
                       std::to_string(ts.negative_value) +
                       "; a dim must be >= 1 (or symbolic): fix the model or pass --input-shape " + name + "=D0,D1,...");
    Shape dims = ts.dims;
    names.assign(dims.size(), "");
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] >= 0) continue;
      auto d = m_opts.dims.find(ts.dim_names[i]);
      if (d != m_opts.dims.end() && !ts.dim_names[i].empty()) {
        dims[i] = d->second;
        continue;
      }
      if (i == 0 && t.is_graph_input) {
        dims[i] = m_opts.batch;
        continue;
      }
      if (m_opts.keep_symbolic && t.is_graph_input) {
        names[i] = ts.dim_names[i];
        continue;
      }
      std::string example;
      for (size_t k = 0; k < dims.size(); ++k)
        example += (k ? "," : "") + (k == i ? std::string("N") : std::to_string(dims[k] < 0 ? 1 : dims[k]));
      if (!ts.dim_names[i].empty())
        throw InputError("input '" + name + "' dim " + std::to_string(i) + " is the symbolic dim '" + ts.dim_names[i] +
                         "'; pass --dim " + ts.dim_names[i] + "=N (or --input-shape " + name + "=" + example + ")");
      throw InputError("input '" + name + "' dim " + std::to_string(i) + " is unknown; pass --input-shape " + name + "=" + example);
    }
    if (t.is_graph_input && m_opts.batch != 1 && !dims.empty() && ts.dims[0] >= 0 && ts.dims[0] != m_opts.batch)
      m_g.warnings.push_back("input '" + name + "' has a fixed leading dim " + std::to_string(ts.dims[0]) +
                             "; --batch " + std::to_string(m_opts.batch) + " is not applied (use --input-shape)");
    return dims;
  }

  void resolve_inputs() {
    auto valid = runtime_input_names();
    for (const auto& [name, dims] : m_opts.input_shapes) {
      if (!m_input_types.count(name))
        throw InputError("--input-shape names '" + name + "', which is not an input of the model; inputs: " +
                         (valid.empty() ? std::string("(none)") : join(valid, ", ")));
    }
    check_dim_options();
    // Input types in the proto, indexed by name, to write the resolved shapes back for ONNX inference.
    std::unordered_map<std::string, onnx::ValueInfoProto*> protos;
    for (auto& vi : *graph().mutable_input()) protos[vi.name()] = &vi;
    for (const auto& name : m_input_order) {
      const TypeShape& ts = m_input_types[name];
      Tensor& t = m_g.tensors[static_cast<size_t>(m_g.find_tensor(name))];
      std::vector<std::string> names;
      auto ov = m_opts.input_shapes.find(name);
      Shape dims = ov != m_opts.input_shapes.end() ? given_dims(name, ts, ov->second) : declared_dims(name, ts, t, names);
      Shape sized = dims;  // symbolic dims kept count as 1 for the overflow check
      for (auto& d : sized) d = d < 0 ? 1 : d;
      if (!checked_product(sized) ||
          !checked_mul(*checked_product(sized), std::max<int64_t>(dtype_size(t.dtype), 1)))
        throw InputError("input '" + name + "' shape " + dims_text(dims) +
                         " overflows int64 elements or bytes; pass smaller dims with --batch/--input-shape");
      if (t.is_graph_input)
        for (size_t i = 0; i < dims.size(); ++i)
          if (dims[i] == 0 || (dims[i] < 0 && !m_opts.keep_symbolic))
            throw InputError("input '" + name + "' shape " + dims_text(dims) + " has dim " + std::to_string(i) + " = " +
                             std::to_string(dims[i]) + "; runtime inputs need dims >= 1 (pass --input-shape " + name +
                             "=D0,D1,...)");
      t.shape = dims;
      t.has_shape = true;
      if (std::any_of(names.begin(), names.end(), [](const std::string& n) { return !n.empty(); })) {
        t.dim_names = names;
        for (const auto& n : names)
          if (!n.empty()) m_symbols.insert(n);
      }
      set_type_shape(protos[name]->mutable_type(), t.dtype, dims, names);
      if (t.is_graph_input) m_g.inputs.push_back(m_g.find_tensor(name));
    }
  }
  std::set<std::string> m_symbols;  // the symbolic input dims kept (keep_symbolic)

  // Kahn's algorithm, keeping the file order where it is already valid. The proto's node list is
  // reordered too, since ONNX shape inference walks it in order.
  void sort_nodes() {
    const size_t n = m_g.nodes.size();
    std::vector<int> producer(m_g.tensors.size(), -1);
    for (size_t i = 0; i < n; ++i)
      for (int o : m_g.nodes[i].outputs)
        if (o >= 0) producer[static_cast<size_t>(o)] = static_cast<int>(i);
    std::vector<int> indeg(n, 0);
    std::vector<std::vector<int>> succ(n);
    for (size_t i = 0; i < n; ++i)
      for (int in : m_g.nodes[i].inputs)
        if (in >= 0 && producer[static_cast<size_t>(in)] >= 0) {
          ++indeg[i];
          succ[static_cast<size_t>(producer[static_cast<size_t>(in)])].push_back(static_cast<int>(i));
        }
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (size_t i = 0; i < n; ++i)
      if (indeg[i] == 0) ready.push(static_cast<int>(i));
    std::vector<int> order;
    while (!ready.empty()) {
      int i = ready.top();
      ready.pop();
      order.push_back(i);
      for (int s : succ[static_cast<size_t>(i)])
        if (--indeg[static_cast<size_t>(s)] == 0) ready.push(s);
    }
    if (order.size() != n) {
      // Walk predecessors among the unsorted nodes until one repeats: that node lies on a cycle.
      int cur = -1;
      for (size_t i = 0; i < n; ++i)
        if (indeg[i] > 0) { cur = static_cast<int>(i); break; }
      std::vector<bool> seen(n, false);
      while (!seen[static_cast<size_t>(cur)]) {
        seen[static_cast<size_t>(cur)] = true;
        for (int in : m_g.nodes[static_cast<size_t>(cur)].inputs) {
          int p = in >= 0 ? producer[static_cast<size_t>(in)] : -1;
          if (p >= 0 && indeg[static_cast<size_t>(p)] > 0) { cur = p; break; }
        }
      }
      const Node& c = m_g.nodes[static_cast<size_t>(cur)];
      throw InputError(node_label(c) + ": the graph has a cycle through this node; an ONNX graph must be acyclic");
    }
    bool sorted = std::is_sorted(order.begin(), order.end());
    if (sorted) return;
    std::vector<Node> nodes;
    google::protobuf::RepeatedPtrField<onnx::NodeProto> protos;
    for (int i : order) {
      nodes.push_back(std::move(m_g.nodes[static_cast<size_t>(i)]));
      protos.Add()->Swap(graph().mutable_node(i));
    }
    m_g.nodes = std::move(nodes);
    graph().mutable_node()->Swap(&protos);
  }

  // Copy ONNX's inferred types into tensors that perfpred has not shaped yet.
  void take_onnx_shapes() {
    auto take = [&](const onnx::ValueInfoProto& vi) {
      int id = m_g.find_tensor(vi.name());
      if (id < 0) return;
      Tensor& t = m_g.tensors[static_cast<size_t>(id)];
      if (t.is_initializer || t.is_graph_input) return;
      TypeShape ts = type_shape(vi.type());
      if (t.dtype == DType::unknown) t.dtype = ts.dtype;
      if (!ts.has_shape) return;
      if (!t.has_shape) {
        t.has_shape = true;
        t.shape = ts.dims;
      } else if (t.shape.size() == ts.dims.size()) {
        for (size_t i = 0; i < ts.dims.size(); ++i)
          if (t.shape[i] < 0) t.shape[i] = ts.dims[i];
      }
      // A dim ONNX carried as one of the inputs' symbols (not one it made up, unk__N) is named by it.
      if (m_symbols.empty() || t.shape.size() != ts.dims.size()) return;
      for (size_t i = 0; i < ts.dims.size(); ++i)
        if (t.shape[i] < 0 && m_symbols.count(ts.dim_names[i])) {
          t.dim_names.resize(t.shape.size());
          t.dim_names[i] = ts.dim_names[i];
        }
    };
    for (const auto& vi : m_model.graph().value_info()) take(vi);
    for (const auto& vi : m_model.graph().output()) take(vi);
  }

  // ONNX 1.12's conv shape inference reads out of bounds when the weight's rank differs from the
  // input's (no kernel_shape attribute): reject such nodes before ONNX sees them.
  void check_conv_ranks() const {
    for (const auto& n : m_g.nodes) {
      if (!n.domain.empty()) continue;
      size_t wslot = n.op == "QLinearConv" ? 3 : 1;
      if (n.op != "Conv" && n.op != "ConvTranspose" && n.op != "ConvInteger" && n.op != "QLinearConv") continue;
      const Tensor* x = m_g.input(n, 0);
      const Tensor* w = m_g.input(n, wslot);
      if (!x || !w) throw InputError(node_label(n) + ": needs an input and a weight");
      if (x->has_shape && x->shape.size() < 3)
        throw InputError(node_label(n) + ": input '" + x->name + "' has rank " + std::to_string(x->shape.size()) +
                         "; a convolution needs N, C and at least one spatial dim");
      if (x->has_shape && w->has_shape && x->shape.size() != w->shape.size())
        throw InputError(node_label(n) + ": input '" + x->name + "' has rank " + std::to_string(x->shape.size()) +
                         " but weight '" + w->name + "' has rank " + std::to_string(w->shape.size()));
    }
  }

  // ONNX sees every Einsum equation in explicit form (detail::einsum_explicit), in subgraphs too: its
  // implicit-mode rank inference writes outside a stack array for any character but a-z. One it cannot
  // make explicit is blanked, which ONNX skips; validate_node reports it on the node itself.
  static void explicit_einsums(onnx::GraphProto& g) {
    for (auto& np : *g.mutable_node()) {
      const bool einsum = np.op_type() == "Einsum" && (np.domain().empty() || np.domain() == "ai.onnx");
      for (auto& a : *np.mutable_attribute()) {
        if (einsum && a.name() == "equation" && a.has_s()) a.set_s(detail::einsum_explicit(a.s()));
        if (a.has_g()) explicit_einsums(*a.mutable_g());
        for (auto& sg : *a.mutable_graphs()) explicit_einsums(sg);
      }
    }
  }

  void run_onnx_inference() {
    explicit_einsums(graph());  // idempotent; only where ONNX runs at all
    type_shape_inputs(graph(), nullptr);
    onnx::ShapeInferenceOptions options(false, 0, true);
    try {
      onnx::shape_inference::InferShapes(m_model, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      m_onnx_error = e.what();
    }
  }

  // ONNX 1.12's data propagation dereferences the type of a Shape's input unchecked, and a tensor can reach it
  // without one: the output of an op ONNX has no schema for (an unknown or custom op) or of a node whose own
  // inference fails (a Constant without a value). `Foo -> Shape` and `Constant (no value) -> Shape`, in the graph
  // or in a subgraph, crashed the importer (SIGSEGV in libonnx; found by fuzz_onnx_import and fuzz_onnx_predict).
  // Each untyped input of a Shape or Size gets a type without a shape before ONNX runs (perfpred's dtype where
  // known, else undefined), declared in the graph that produces it; ONNX's inference then fills in what it can.
  // Subgraphs reach ONNX only in the probe imports that decide control flow (the real import has inlined them).
  struct TypingScope {
    onnx::GraphProto* graph;
    std::unordered_set<std::string> typed, produced;
    TypingScope* parent;
  };

  void type_shape_inputs(onnx::GraphProto& g, TypingScope* parent) {
    TypingScope scope{&g, {}, {}, parent};
    for (const auto& vi : g.value_info()) scope.typed.insert(vi.name());
    for (const auto& vi : g.input()) scope.typed.insert(vi.name());
    for (const auto& vi : g.output()) scope.typed.insert(vi.name());
    for (const auto& tp : g.initializer()) scope.typed.insert(tp.name());
    for (const auto& sp : g.sparse_initializer()) scope.typed.insert(sp.values().name());
    for (const auto& n : g.node())
      for (const auto& out : n.output()) scope.produced.insert(out);
    for (auto& n : *g.mutable_node()) {
      const bool reads_type = (n.op_type() == "Shape" || n.op_type() == "Size") &&
                              (n.domain().empty() || n.domain() == "ai.onnx") && n.input_size() > 0;
      if (reads_type && !n.input(0).empty()) declare_untyped(n.input(0), scope);
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) type_shape_inputs(*a.mutable_g(), &scope);
        for (auto& sg : *a.mutable_graphs()) type_shape_inputs(sg, &scope);
      }
    }
  }

  /// `name` typed in the innermost scope that has it, or, where a scope produces it untyped, declared there.
  void declare_untyped(const std::string& name, TypingScope& innermost) {
    for (TypingScope* s = &innermost; s; s = s->parent) {
      if (s->typed.count(name)) return;
      if (!s->produced.count(name)) continue;
      s->typed.insert(name);
      const int id = m_g.find_tensor(name);
      const DType d = id >= 0 ? m_g.tensors[static_cast<size_t>(id)].dtype : DType::unknown;
      auto* vi = s->graph->add_value_info();
      vi->set_name(name);
      vi->mutable_type()->mutable_tensor_type()->set_elem_type(d == DType::unknown ? 0 : onnx_code(d));
      return;
    }
  }

  std::string m_onnx_error;

  bool all_typed_and_shaped() const {
    for (const auto& n : m_g.nodes)
      for (int o : n.outputs)
        if (o >= 0) {
          const Tensor& t = m_g.tensors[static_cast<size_t>(o)];
          if (t.dtype == DType::unknown || !(t.shape_known() || t.sequence_known())) return false;
        }
    return true;
  }

  size_t count_unknown() const {
    size_t c = 0;
    for (const auto& n : m_g.nodes)
      for (int o : n.outputs)
        if (o >= 0 && !m_g.tensors[static_cast<size_t>(o)].shape_known() &&
            !m_g.tensors[static_cast<size_t>(o)].sequence_known())
          ++c;
    return c;
  }

  // Write perfpred's shapes and folded constants into the proto so a second ONNX pass can use them.
  bool write_back() {
    std::unordered_set<std::string> have;
    for (const auto& vi : m_model.graph().value_info()) {
      TypeShape ts = type_shape(vi.type());
      if (ts.has_shape && std::all_of(ts.dims.begin(), ts.dims.end(), [](int64_t d) { return d >= 0; }))
        have.insert(vi.name());
    }
    bool wrote = false;
    std::unordered_set<std::string> outputs;
    for (const auto& vi : m_model.graph().output()) outputs.insert(vi.name());
    for (const auto& n : m_g.nodes)
      for (int o : n.outputs) {
        if (o < 0) continue;
        const Tensor& t = m_g.tensors[static_cast<size_t>(o)];
        if (!t.shape_known() || have.count(t.name) || outputs.count(t.name) || t.dtype == DType::unknown) continue;
        auto* vi = graph().add_value_info();
        vi->set_name(t.name);
        vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx_code(t.dtype));
        set_type_shape(vi->mutable_type(), t.dtype, t.shape);
        wrote = true;
      }
    // Folded integer tensors become initializers so ONNX's Reshape/Expand/... rules can read them;
    // their producing nodes (pure shape arithmetic) are dropped from this working copy.
    std::unordered_set<std::string> folded;
    for (const auto& n : m_g.nodes) {
      bool all = !n.outputs.empty();
      for (int o : n.outputs)
        if (o < 0 || !m_g.tensors[static_cast<size_t>(o)].int_values || m_g.tensors[static_cast<size_t>(o)].is_graph_output) all = false;
      if (all)
        for (int o : n.outputs) folded.insert(m_g.tensors[static_cast<size_t>(o)].name);
    }
    if (!folded.empty()) {
      std::unordered_set<std::string> existing;
      for (const auto& tp : m_model.graph().initializer()) existing.insert(tp.name());
      google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
      for (auto& np : *graph().mutable_node()) {
        bool drop = np.output_size() > 0 &&
                    std::all_of(np.output().begin(), np.output().end(), [&](const std::string& s) { return folded.count(s) > 0; });
        if (!drop) kept.Add()->Swap(&np);
      }
      graph().mutable_node()->Swap(&kept);
      for (const auto& name : folded) {
        if (existing.count(name)) continue;
        const Tensor& t = m_g.tensors[static_cast<size_t>(m_g.find_tensor(name))];
        auto* tp = graph().add_initializer();
        tp->set_name(name);
        tp->set_data_type(onnx_code(t.dtype == DType::unknown ? DType::i64 : t.dtype));
        for (int64_t d : t.shape) tp->add_dims(d);
        write_ints(*tp, t.dtype, *t.int_values);
        wrote = true;
      }
    }
    return wrote;
  }

  static int32_t onnx_code(DType d) {
    for (int32_t c = 1; c <= 16; ++c)
      if (dtype_from_onnx(c) == d) return c;
    return 1;
  }

  static void write_ints(onnx::TensorProto& tp, DType d, const std::vector<int64_t>& v) {
    switch (d) {
      case DType::i64: case DType::unknown:
        for (int64_t x : v) tp.add_int64_data(x);
        break;
      case DType::u32: case DType::u64:
        for (int64_t x : v) tp.add_uint64_data(static_cast<uint64_t>(x));
        break;
      default:
        for (int64_t x : v) tp.add_int32_data(static_cast<int32_t>(x));
    }
  }

  void infer() {
    // Stale intermediate shapes from the exporter (e.g. a fixed batch) would conflict with the resolved
    // inputs: drop them, keeping only output element types.
    graph().clear_value_info();
    for (auto& vi : *graph().mutable_output())
      if (vi.type().has_tensor_type()) vi.mutable_type()->mutable_tensor_type()->clear_shape();
    // Ops revised after the ONNX library's newest opset are shaped by perfpred alone: ONNX 1.12 would
    // apply the older semantics (ReduceMean-13 ignores an axes input). Its inference skips their domain.
    if (m_g.opset > detail::k_onnx_library_opset)
      for (auto& np : *graph().mutable_node())
        if ((np.domain().empty() || np.domain() == "ai.onnx") && detail::newer_than_onnx_library(np.op_type(), m_g.opset))
          np.set_domain("perfpred.newer");
    for (int round = 0; round < 4; ++round) {
      detail::propagate(m_g);
      check_conv_ranks();
      // perfpred's own rules shaped and typed every node output: ONNX could add nothing (take_onnx_shapes
      // fills only unknown dims and dtypes), so skip it, and with it the registration of every ONNX
      // schema, which was about a third of a CLI prediction's instructions.
      if (all_typed_and_shaped()) break;
      run_onnx_inference();
      take_onnx_shapes();
      detail::propagate(m_g);
      if (count_unknown() == 0) break;
      if (!write_back()) break;
    }
    if (!m_onnx_error.empty()) m_g.warnings.push_back("ONNX shape inference stopped early: " + one_line(m_onnx_error));
  }

  static std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    if (s.size() > 300) s = s.substr(0, 300) + "...";
    return s;
  }

  void mark_outputs() {
    for (const auto& vi : m_model.graph().output()) {
      int id = m_g.find_tensor(vi.name());
      if (id < 0) throw InputError("graph output '" + printable(vi.name(), 120) + "' is not produced by any node or input");
      m_g.tensors[static_cast<size_t>(id)].is_graph_output = true;
      m_g.outputs.push_back(id);
    }
  }

  /// The first name of `counts` that no node of the expanded graph passing `fits` has (inlined branches
  /// included), with its reference ("KEY.NAME" in a budget file, "FLAG NAME=N" on the command line) and the
  /// names that would do (up to 8); nullopt when every name fits.
  struct UnknownName {
    std::string raw;              ///< the name as given
    std::string name, ref, list;  ///< printable, for messages
    bool any = false;             ///< some node fits
  };
  template <class Fits>
  std::optional<UnknownName> unknown_name(const std::map<std::string, int64_t>& counts, const char* key,
                                          const char* flag, Fits fits) const {
    std::vector<std::string> have;
    for (const auto& n : m_g.nodes)
      if (fits(n)) have.push_back(n.name);
    for (const auto& [name, v] : counts) {
      if (std::find(have.begin(), have.end(), name) != have.end()) continue;
      UnknownName u;
      u.raw = name;
      u.name = printable(name, 80);
      u.ref = m_opts.overrides_are_keys ? std::string(key) + "." + u.name
                                        : std::string(flag) + " " + u.name + "=" + std::to_string(v);
      for (size_t i = 0; i < have.size() && i < 8; ++i) u.list += (i ? ", " : "") + printable(have[i], 80);
      if (have.size() > 8) u.list += ", ...";
      u.any = !have.empty();
      return u;
    }
    return std::nullopt;
  }

  // Every --data-count NAME names a data-dependent node, and every --nms-candidates NAME a NonMaxSuppression
  // that filters by score (a fifth input): without a threshold every box is a candidate, so a count there
  // would be ignored.
  void check_data_counts() const {
    if (const auto u = unknown_name(m_opts.data_counts, "data_counts", "--data-count",
                                    [](const Node& n) { return detail::is_data_dependent(n.op); }))
      throw InputError(u->ref + ": the model has no NonZero, NonMaxSuppression, Compress or Unique node named '" +
                       u->name +
                       "'" + (u->any ? "; data-dependent nodes: " + u->list : ""));
    if (const auto u = unknown_name(m_opts.nms_candidates, "nms_candidates", "--nms-candidates",
                                    [](const Node& n) { return nms_filters_by_score(n); })) {
      const bool unfiltered = std::any_of(m_g.nodes.begin(), m_g.nodes.end(), [&](const Node& n) {
        return n.op == "NonMaxSuppression" && n.name == u->raw;
      });
      if (unfiltered)
        throw InputError(u->ref + ": NonMaxSuppression '" + u->name +
                         "' has no score_threshold input, so every box is a candidate; drop the count");
      throw InputError(u->ref + ": the model has no NonMaxSuppression with a score_threshold input named '" + u->name +
                       "'" + (u->any ? "; such nodes: " + u->list : ""));
    }
  }

  void finish() {
    size_t unknown = 0;
    for (auto& n : m_g.nodes) {
      for (int o : n.outputs) {
        if (o < 0) continue;
        const Tensor& t = m_g.tensors[static_cast<size_t>(o)];
        if (t.is_sequence) {
          if (!t.sequence_known()) {
            ++unknown;
            n.warnings.push_back("output '" + t.name + "' is a sequence of unknown length or element shapes");
          } else if (!t.bytes()) {
            throw InputError(node_label(n) + ": output '" + t.name + "', a sequence of " +
                             std::to_string(t.elements->size()) + " tensors, overflows int64 bytes");
          }
          continue;
        }
        if (!t.shape_known()) {
          ++unknown;
          n.warnings.push_back("output '" + t.name + "' has unknown shape " + shape_to_string(t));
          continue;
        }
        auto cnt = checked_product(t.shape);
        if (!cnt || !checked_mul(*cnt, std::max<int64_t>(dtype_size(t.dtype), 1)))
          throw InputError(node_label(n) + ": output '" + t.name + "' shape " + dims_text(t.shape) +
                           " overflows int64 elements or bytes; use smaller --batch/--input-shape");
      }
    }
    if (unknown)
      m_g.warnings.push_back(std::to_string(unknown) + " node outputs still have unknown shapes (see the nodes' warnings)");
  }
};

// Minimal protobuf wire-format walker, used to parse a ModelProto without copying large weight payloads:
// the bytes of big data fields of initializers (raw_data, float_data, ...) are skipped, everything else
// is handed to protobuf unchanged. perfpred needs only the dims and dtypes of weights.
class WireReader {
 public:
  WireReader(const uint8_t* p, const uint8_t* end) : m_p(p), m_end(end) {}
  bool done() const { return m_p >= m_end; }

  struct Field {
    uint32_t number = 0;
    uint32_t wire_type = 0;
    const uint8_t* start = nullptr;    // first byte of the tag
    const uint8_t* payload = nullptr;  // length-delimited payload (wire type 2), else nullptr
    uint64_t len = 0;
    const uint8_t* end = nullptr;      // one past the field
  };

  // Reads one field; false on malformed or truncated input.
  bool next(Field& f) {
    f = Field{};
    f.start = m_p;
    uint64_t tag = 0;
    if (!varint(tag)) return false;
    f.number = static_cast<uint32_t>(tag >> 3);
    f.wire_type = static_cast<uint32_t>(tag & 7);
    if (f.number == 0) return false;
    bool ok = false;
    switch (f.wire_type) {
      case 0: { uint64_t v; ok = varint(v); break; }
      case 1: ok = advance(8); break;
      case 5: ok = advance(4); break;
      case 2:
        ok = varint(f.len) && f.len <= static_cast<uint64_t>(m_end - m_p);
        if (ok) {
          f.payload = m_p;
          m_p += f.len;
        }
        break;
      default: ok = false;  // groups (3/4) are not used by onnx.proto; 6/7 are invalid
    }
    f.end = m_p;
    return ok;
  }

 private:
  const uint8_t* m_p;
  const uint8_t* m_end;
  bool advance(size_t n) {
    if (static_cast<size_t>(m_end - m_p) < n) return false;
    m_p += n;
    return true;
  }
  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (m_p >= m_end) return false;
      uint8_t b = *m_p++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
};

// ModelProto.graph = 7; GraphProto.initializer = 5; TensorProto data fields: float_data 4, int32_data 5,
// int64_data 7, raw_data 9, double_data 10, uint64_data 11.
constexpr uint32_t k_model_graph = 7;
constexpr uint32_t k_graph_initializer = 5;
constexpr uint64_t k_keep_payload_bytes = static_cast<uint64_t>(k_max_fold_elems) * 8;

bool is_tensor_data_field(uint32_t f) { return f == 4 || f == 5 || f == 7 || f == 9 || f == 10 || f == 11; }

void append(std::string& s, const WireReader::Field& f) {
  s.append(reinterpret_cast<const char*>(f.start), static_cast<size_t>(f.end - f.start));
}

void parse_model(const void* data, size_t size, const std::string& label, onnx::ModelProto& model) {
  if (size == 0) throw InputError(label + ": empty file, not an ONNX model");
  const std::string bad = label + ": truncated or not an ONNX model (protobuf parse failed)";
  const auto* begin = static_cast<const uint8_t*>(data);
  std::string rest, graph_rest;
  std::vector<std::string> initializers;
  WireReader top(begin, begin + size);
  WireReader::Field f;
  while (!top.done()) {
    if (!top.next(f)) throw InputError(bad);
    if (f.number != k_model_graph || f.wire_type != 2) {
      append(rest, f);
      continue;
    }
    WireReader gr(f.payload, f.payload + f.len);
    WireReader::Field gf;
    while (!gr.done()) {
      if (!gr.next(gf)) throw InputError(bad);
      if (gf.number != k_graph_initializer || gf.wire_type != 2) {
        append(graph_rest, gf);
        continue;
      }
      std::string tensor;
      WireReader tr(gf.payload, gf.payload + gf.len);
      WireReader::Field tf;
      while (!tr.done()) {
        if (!tr.next(tf)) throw InputError(bad);
        if (tf.wire_type == 2 && is_tensor_data_field(tf.number) && tf.len > k_keep_payload_bytes) continue;
        append(tensor, tf);
      }
      initializers.push_back(std::move(tensor));
    }
  }
  if (!model.ParseFromString(rest)) throw InputError(bad);
  auto* g = model.mutable_graph();
  if (!g->MergeFromString(graph_rest)) throw InputError(bad);
  for (const auto& t : initializers)
    if (!g->add_initializer()->ParseFromString(t)) throw InputError(bad);
  if (model.ir_version() <= 0 || !model.has_graph() || model.graph().node_size() == 0)
    throw InputError(label + ": not an ONNX model (no ir_version or an empty graph)");
}

// The small constants load_small_external_data left unread: on the graph for cost.cpp's report of lost shapes,
// and one model-level warning naming them.
void note_unread_external(Graph& g, const std::map<std::string, std::string>& unread) {
  if (unread.empty()) return;
  std::string list;
  size_t k = 0;
  for (const auto& [name, why] : unread) {
    if (k++ == 3) {
      list += ", ...";
      break;
    }
    list += (list.empty() ? "'" : ", '") + name + "' (" + why + ")";
  }
  g.warnings.push_back(std::to_string(unread.size()) + " small constant(s) stored in external data were not read: " + list +
                       "; shapes computed from their values stay unknown (keep the data files beside the model, as "
                       "their locations name them)");
  g.unread_external.insert(unread.begin(), unread.end());
}

std::string stem_of(const std::string& label) {
  std::string s = std::filesystem::path(label).stem().string();
  return s.empty() ? label : s;
}

}  // namespace

Graph import_bytes(const std::string& bytes, const std::string& label, const ImportOptions& opts) {
  onnx::ModelProto model;
  parse_model(bytes.data(), bytes.size(), label, model);
  return Importer(model, label, opts).run(stem_of(label));
}

Graph import_file(const std::filesystem::path& path, const ImportOptions& opts) {
  const std::string label = path.string();
  int fd = ::open(label.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(label + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(label + ": not a regular file");
  }
  onnx::ModelProto model;
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    throw InputError(label + ": empty file, not an ONNX model");
  }
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (data == MAP_FAILED) throw InputError(label + ": cannot read (" + std::strerror(errno) + ")");
  try {
    parse_model(data, size, label, model);
  } catch (...) {
    ::munmap(data, size);
    throw;
  }
  ::munmap(data, size);
  const auto unread = load_small_external_data(model, path.parent_path());
  Graph g = Importer(model, label, opts).run(stem_of(label));
  note_unread_external(g, unread);
  return g;
}

Graph import_text(const std::string& text, const ImportOptions& opts) {
  onnx::ModelProto model;
  auto status = onnx::OnnxParser::Parse(model, text.c_str());
  if (!status.IsOK()) {
    std::string msg = status.ErrorMessage();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    throw InputError("ONNX text: " + msg);
  }
  if (model.ir_version() <= 0) model.set_ir_version(8);
  return Importer(model, "<text>", opts).run(model.graph().name());
}

}  // namespace perfpred::onnx_import
