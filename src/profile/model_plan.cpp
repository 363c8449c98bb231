// Model sweeps: an ONNX model imported (onnx importer) and costed (analysis), every node mapped to
// layer entries in the per-op sweeps' vocabulary (conv, gemm, pool, batch_norm, layer_norm,
// activation, elementwise, softmax, lstm, bandwidth for data movement), so any backend executes
// them unchanged. Views cost nothing and are listed; nodes no backend op can express are listed by
// name and op (the network row is then partial), never dropped silently.
#include <algorithm>
#include <cctype>
#include <numeric>
#include <set>

#include <spdlog/spdlog.h>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/profile/plan.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"
#include "plan_build.hpp"

namespace perfpred {

namespace {

/// One kernel a node becomes: the per-op builder's parameters and the phases a training step runs.
struct LayerSpec {
  std::string op_kind;
  PlanRaw raw;
  std::string note;  ///< how the node is executed when the op differs ("executed as relu")
};

/// Why a node cannot be expressed (thrown inside the mapping, caught per node).
struct NotExpressible {
  std::string why;
};

int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

const std::vector<int64_t>& shape_of(const Graph& g, const Tensor* t, const std::string& what) {
  if (!t) throw NotExpressible{what + " is missing"};
  if (!t->shape_known()) throw NotExpressible{what + " '" + t->name + "' has an unknown shape"};
  return t->shape;
  (void)g;
}

/// Square, equal-stride, equal-dilation, symmetric-padding 2-D windows are what the harness's conv
/// and pool descriptors take; anything else is named.
struct Window {
  int64_t kernel = 1, stride = 1, pad = 0, dilation = 1;
};

Window window_of(const Node& n, int64_t kh, int64_t kw) {
  if (n.attr_string("auto_pad", "NOTSET") != "NOTSET" && n.attr_string("auto_pad", "NOTSET") != "VALID")
    throw NotExpressible{"auto_pad " + n.attr_string("auto_pad", "") + " is not mapped"};
  auto strides = n.attr_ints("strides", {1, 1});
  auto dil = n.attr_ints("dilations", {1, 1});
  auto pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (kh != kw) throw NotExpressible{"non-square kernel " + std::to_string(kh) + "x" + std::to_string(kw)};
  if (strides.size() != 2 || strides[0] != strides[1]) throw NotExpressible{"unequal strides"};
  if (dil.size() != 2 || dil[0] != dil[1]) throw NotExpressible{"unequal dilations"};
  if (pads.size() != 4 || std::adjacent_find(pads.begin(), pads.end(), std::not_equal_to<>()) != pads.end())
    throw NotExpressible{"asymmetric padding"};
  return {kh, strides[0], pads[0], dil[0]};
}

int64_t conv_out(int64_t in, const Window& w) { return (in + 2 * w.pad - w.dilation * (w.kernel - 1) - 1) / w.stride + 1; }

/// Activation function the harness runs for a unary op of similar cost; empty when none.
std::pair<std::string, std::string> unary_function(const std::string& op) {
  static const std::set<std::string> cheap = {"Relu", "Clip", "LeakyRelu", "Abs", "Neg", "Reciprocal", "Sign", "Floor",
                                              "Ceil", "Round", "HardSigmoid", "HardSwish", "PRelu", "Not", "ThresholdedRelu",
                                              "Shrink", "Softsign"};
  static const std::set<std::string> transcendental = {"Exp", "Log", "Sqrt", "Erf", "Pow", "Sin", "Cos", "Tan", "Softplus",
                                                       "Elu", "Selu", "Celu", "Mish", "Swish", "Atan", "Sinh", "Cosh", "Asin", "Acos"};
  if (op == "Sigmoid") return {"sigmoid", ""};
  if (op == "Tanh") return {"tanh", ""};
  if (op == "Gelu") return {"gelu", ""};
  if (op == "Relu") return {"relu", ""};
  if (cheap.count(op)) return {"relu", "executed as relu (one read, one write, cheap math)"};
  if (transcendental.count(op)) return {"tanh", "executed as tanh (one read, one write, transcendental math)"};
  return {"", ""};
}

/// Binary ops: add-class (one op per element) or mul-class.
std::string binary_function(const std::string& op) {
  static const std::set<std::string> add = {"Add", "Sub", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                            "And", "Or", "Xor", "Max", "Min", "Mod", "Where", "Sum", "Mean"};
  if (op == "Mul" || op == "Div") return "mul";
  if (add.count(op)) return "add";
  return "";
}

/// Data movement with no math: a device copy of the output's bytes.
bool is_copy_op(const std::string& op) {
  static const std::set<std::string> ops = {"Concat", "Transpose", "Slice", "Split", "Pad", "Gather", "GatherElements",
                                            "Expand", "Tile", "Cast", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth",
                                            "ConstantOfShape", "Trilu", "Range", "ScatterND", "ScatterElements", "GatherND",
                                            "OneHot", "CastLike"};
  return ops.count(op) != 0;
}

int64_t bytes_at(const Tensor& t, int64_t n, Precision pr) {
  bool floating = t.dtype == DType::f32 || t.dtype == DType::f16 || t.dtype == DType::bf16 || t.dtype == DType::unknown;
  return n * (floating ? element_bytes(pr) : std::max<int64_t>(dtype_size(t.dtype), 1));
}

/// The layer(s) one node's forward pass is. Throws NotExpressible.
std::vector<LayerSpec> map_node(const Graph& g, const Node& n, const NodeCost& c, Precision pr) {
  const std::string& op = n.op;
  auto in = [&](size_t i) { return g.input(n, i); };
  auto out = [&](size_t i) { return g.output(n, i); };
  if (!n.domain.empty() && n.domain != "ai.onnx") throw NotExpressible{"domain '" + n.domain + "' has no kernel here"};
  if (op == "Conv") {
    const auto& x = shape_of(g, in(0), "input");
    const auto& w = shape_of(g, in(1), "weight");
    if (x.size() != 4 || w.size() != 4) throw NotExpressible{"only 2-D convolutions are mapped"};
    Window win = window_of(n, w[2], w[3]);
    int64_t groups = n.attr_int("group", 1);
    const auto& y = shape_of(g, out(0), "output");
    if (conv_out(x[2], win) != y[2] || conv_out(x[3], win) != y[3]) throw NotExpressible{"output shape differs from the window arithmetic"};
    LayerSpec s{"conv", {{"batch", x[0]}, {"in_channels", x[1]}, {"out_channels", w[0]}, {"height", x[2]}, {"width", x[3]},
                         {"kernel", win.kernel}, {"stride", win.stride}, {"padding", win.pad}, {"dilation", win.dilation},
                         {"groups", groups}}, ""};
    if (in(2)) s.note = "bias add fused away (not measured)";
    return {s};
  }
  if (op == "Gemm") {
    const auto& a = shape_of(g, in(0), "A");
    const auto& y = shape_of(g, out(0), "output");
    if (a.size() != 2 || y.size() != 2) throw NotExpressible{"Gemm operands are not 2-D"};
    int64_t k = n.attr_int("transA", 0) ? a[0] : a[1];
    return {{"gemm", {{"m", y[0]}, {"n", y[1]}, {"k", k}}, in(2) ? "bias in the GEMM epilogue (beta) not measured" : ""}};
  }
  if (op == "MatMul") {
    const auto& a = shape_of(g, in(0), "A");
    const auto& b = shape_of(g, in(1), "B");
    const auto& y = shape_of(g, out(0), "output");
    if (a.size() < 2 || b.size() < 2) throw NotExpressible{"1-D MatMul operands are not mapped"};
    int64_t m = a[a.size() - 2], k = a.back(), nn = b.back();
    std::vector<int64_t> lead_a(a.begin(), a.end() - 2), lead_b(b.begin(), b.end() - 2), lead_y(y.begin(), y.end() - 2);
    int64_t la = numel(lead_a), lb = numel(lead_b), ly = numel(lead_y);
    if (lb == 1) return {{"gemm", {{"m", la * m}, {"n", nn}, {"k", k}}, la > 1 ? "leading dims folded into M" : ""}};
    if (la != ly || lb != ly) throw NotExpressible{"broadcast batched MatMul is not mapped"};
    PlanRaw raw{{"m", m}, {"n", nn}, {"k", k}};
    if (ly > 1) raw["batch"] = ly;
    return {{"gemm", raw, ""}};
  }
  if (op == "MaxPool" || op == "AveragePool") {
    const auto& x = shape_of(g, in(0), "input");
    const auto& y = shape_of(g, out(0), "output");
    auto ks = n.attr_ints("kernel_shape");
    if (x.size() != 4 || ks.size() != 2) throw NotExpressible{"only 2-D pooling is mapped"};
    if (x[2] != x[3]) throw NotExpressible{"non-square input " + std::to_string(x[2]) + "x" + std::to_string(x[3])};
    Window win = window_of(n, ks[0], ks[1]);
    if (win.dilation != 1) throw NotExpressible{"dilated pooling"};
    if (conv_out(x[2], win) != y[2]) throw NotExpressible{"ceil_mode output differs from the floor arithmetic"};
    return {{"pool", {{"batch", x[0]}, {"channels", x[1]}, {"size", x[2]}, {"kernel", win.kernel}, {"stride", win.stride},
                      {"padding", win.pad}, {"mode", op == "MaxPool" ? "max" : "avg"}}, ""}};
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    const auto& x = shape_of(g, in(0), "input");
    if (x.size() != 4) throw NotExpressible{"only 2-D pooling is mapped"};
    if (x[2] != x[3]) throw NotExpressible{"non-square input"};
    if (op == "GlobalMaxPool")
      return {{"pool", {{"batch", x[0]}, {"channels", x[1]}, {"size", x[2]}, {"kernel", x[2]}, {"stride", x[2]}, {"mode", "max"}}, ""}};
    return {{"pool", {{"batch", x[0]}, {"channels", x[1]}, {"size", x[2]}, {"mode", "global_avg"}}, ""}};
  }
  if (op == "BatchNormalization") {
    const auto& x = shape_of(g, in(0), "input");
    if (x.size() == 2) return {{"batch_norm", {{"batch", x[0]}, {"channels", x[1]}, {"size", 1}}, ""}};
    if (x.size() != 4 || x[2] != x[3]) throw NotExpressible{"only NCHW inputs with H == W are mapped"};
    return {{"batch_norm", {{"batch", x[0]}, {"channels", x[1]}, {"size", x[2]}}, ""}};
  }
  if (op == "LayerNormalization") {
    const auto& x = shape_of(g, in(0), "input");
    int64_t axis = n.attr_int("axis", -1);
    if (axis < 0) axis += static_cast<int64_t>(x.size());
    std::vector<int64_t> lead(x.begin(), x.begin() + axis), tail(x.begin() + axis, x.end());
    return {{"layer_norm", {{"rows", numel(lead)}, {"hidden", numel(tail)}}, ""}};
  }
  if (op == "Softmax" || op == "LogSoftmax") {
    const auto& x = shape_of(g, in(0), "input");
    int64_t axis = n.attr_int("axis", g.opset >= 13 ? -1 : 1);
    if (axis < 0) axis += static_cast<int64_t>(x.size());
    if (g.opset >= 13 && axis != static_cast<int64_t>(x.size()) - 1) throw NotExpressible{"softmax over a non-last axis"};
    std::vector<int64_t> lead(x.begin(), x.begin() + axis), tail(x.begin() + axis, x.end());
    return {{"softmax", {{"rows", numel(lead)}, {"cols", numel(tail)}}, op == "LogSoftmax" ? "executed as softmax" : ""}};
  }
  if (op == "LSTM") {
    const auto& x = shape_of(g, in(0), "input");
    if (x.size() != 3) throw NotExpressible{"LSTM input is not 3-D"};
    if (n.attr_string("direction", "forward") != "forward") throw NotExpressible{"bidirectional/reverse LSTM is not mapped"};
    if (n.attr_int("layout", 0) != 0) throw NotExpressible{"batch-major LSTM layout is not mapped"};
    int64_t hidden = n.attr_int("hidden_size", 0);
    if (hidden <= 0) throw NotExpressible{"hidden_size missing"};
    return {{"lstm", {{"batch", x[1]}, {"seq_len", x[0]}, {"input_size", x[2]}, {"hidden", hidden}, {"layers", 1}}, ""}};
  }
  const Tensor* y = out(0);
  if (auto [fn, note] = unary_function(op); !fn.empty()) {
    return {{"activation", {{"function", fn}, {"elements", numel(shape_of(g, y, "output"))}}, note}};
  }
  if (auto fn = binary_function(op); !fn.empty()) {
    const int64_t ny = numel(shape_of(g, y, "output"));
    std::string note = fn == "add" && op != "Add" ? "executed as add" : fn == "mul" && op != "Mul" ? "executed as mul" : "";
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (const Tensor* t = in(i); t && t->shape_known() && numel(t->shape) != ny) {
        note += std::string(note.empty() ? "" : "; ") + "broadcast input read at full size";
        break;
      }
    return {{"elementwise", {{"function", fn}, {"elements", ny}}, note}};
  }
  if (is_copy_op(op)) {
    int64_t bytes = 0;
    for (size_t i = 0; i < n.outputs.size(); ++i)
      if (const Tensor* t = out(i)) bytes += bytes_at(*t, numel(shape_of(g, t, "output")), pr);
    if (bytes <= 0) bytes = 1;
    return {{"bandwidth", {{"bytes", bytes}}, "data movement executed as a device copy of the output bytes"}};
  }
  if (c.family == OpFamily::reduce) throw NotExpressible{"no reduction kernel in the harness"};
  throw NotExpressible{"no harness kernel for this op"};
}

/// The phases a node's layer has in a training step's backward pass.
std::vector<std::string> backward_phases(const std::string& op_kind, bool data_grad, bool weight_grad) {
  if (op_kind == "conv" || op_kind == "gemm" || op_kind == "lstm") {
    std::vector<std::string> out;
    if (data_grad) out.push_back("backward_data");
    if (weight_grad) out.push_back("backward_weight");
    return out;
  }
  if (op_kind == "pool" || op_kind == "batch_norm" || op_kind == "layer_norm" || op_kind == "activation" ||
      op_kind == "softmax")
    return {"backward"};
  if (op_kind == "bandwidth") return {"backward"};
  return {};
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char ch : s) out += (ch == '|' || ch == ';' || ch == '=' || ch == ',' || ch == '\n' || ch == '"') ? '_' : ch;
  return out;
}

std::string family_of(const std::filesystem::path& p) {
  std::string stem = p.stem().string(), out;
  for (char ch : stem) {
    if (!std::isalpha(static_cast<unsigned char>(ch))) break;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out.empty() ? stem : out;
}

}  // namespace

ModelRun expand_model(const ModelExpandOptions& o) {
  onnx_import::ImportOptions io;
  io.batch = o.batch;
  return expand_graph(onnx_import::import_file(o.model_path, io), o);
}

ModelRun expand_graph(const Graph& g, const ModelExpandOptions& o) {
  AnalyzeOptions ao;
  ao.allow_unknown = true;
  GraphCost cost = analyze(g, ao);

  ModelRun run;
  run.model = o.model;
  run.model_path = o.model_path;
  run.model_family = family_of(o.model_path);
  run.batch = o.batch;
  run.precision = o.precision;
  run.mode = o.mode;
  run.nodes = static_cast<int64_t>(g.nodes.size());
  run.parameters = cost.total_params;
  run.forward_flops = cost.total_flops;
  const bool training = o.mode == "training";
  const std::string where = o.model_path.string();

  auto make = [&](const LayerSpec& s, const std::string& phase, const std::string& node, const std::string& op,
                  const std::string& extra_note) {
    PlanEntry e;
    e.sweep = o.sweep;
    e.kind = EntryKind::kernel;
    e.op_kind = s.op_kind;
    e.phase = phase;
    e.precision = o.precision;
    e.has_precision = true;
    std::string why;
    if (!build_plan_entry(e, s.raw, where + ": node '" + node + "'", why)) throw NotExpressible{why};
    e.op = op;
    e.model = o.model;
    e.node = node;
    e.layer_index = static_cast<int64_t>(run.layers.size());
    if (!s.note.empty()) e.notes.push_back(s.note);
    if (!extra_note.empty()) e.notes.push_back(extra_note);
    e.id = plan_entry_id(e) + "|model=" + o.model + ";batch=" + std::to_string(o.batch) + ";layer=" +
           std::to_string(e.layer_index) + ";node=" + sanitize(node);
    run.layers.push_back(std::move(e));
  };

  // Which tensors carry a gradient: outputs of nodes with parameters, and everything downstream.
  std::vector<bool> grad(g.tensors.size(), false);
  std::vector<std::vector<LayerSpec>> specs(g.nodes.size());
  std::vector<bool> mapped(g.nodes.size(), false);
  std::vector<int> consumers(g.tensors.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const NodeCost& c = cost.nodes[i];
    bool any = c.params > 0;
    for (int t : n.inputs)
      if (t >= 0 && grad[static_cast<size_t>(t)]) any = true;
    if (any) {
      for (int t : n.outputs)
        if (t >= 0) grad[static_cast<size_t>(t)] = true;
      for (int t : n.inputs)
        if (t >= 0 && grad[static_cast<size_t>(t)]) ++consumers[static_cast<size_t>(t)];
    }
    const std::string label = n.name + " (" + n.op + ")";
    if (c.family == OpFamily::view) {
      run.views.push_back(label);
      continue;
    }
    try {
      if (c.estimated) throw NotExpressible{"op unknown to the analysis"};
      specs[i] = map_node(g, n, c, o.precision);
      for (const auto& s : specs[i]) make(s, "forward", n.name, n.op, "");
      mapped[i] = true;
    } catch (const NotExpressible& ne) {
      run.unsupported.push_back(label + ": " + ne.why);
    }
  }
  if (training) {
    for (size_t ri = g.nodes.size(); ri-- > 0;) {
      const Node& n = g.nodes[ri];
      const NodeCost& c = cost.nodes[ri];
      // Gradient accumulation where an output fans out (residual connections): consumers - 1 adds.
      for (int t : n.outputs) {
        if (t < 0 || consumers[static_cast<size_t>(t)] < 2) continue;
        const Tensor& tt = g.tensors[static_cast<size_t>(t)];
        if (!tt.shape_known()) continue;
        LayerSpec acc{"elementwise", {{"function", "add"}, {"elements", numel(tt.shape)}}, ""};
        for (int k = 1; k < consumers[static_cast<size_t>(t)]; ++k)
          make(acc, "backward", n.name, "Add", "gradient accumulation of " + tt.name + " (fan-out " +
                                                    std::to_string(consumers[static_cast<size_t>(t)]) + ")");
      }
      if (!mapped[ri]) continue;
      bool out_grad = false;
      for (int t : n.outputs)
        if (t >= 0 && grad[static_cast<size_t>(t)]) out_grad = true;
      if (!out_grad) continue;
      bool data_grad = n.inputs.size() > 0 && n.inputs[0] >= 0 && grad[static_cast<size_t>(n.inputs[0])];
      const bool weight_grad = c.params > 0;
      const std::string label = n.name + " (" + n.op + ")";
      for (const auto& s : specs[ri]) {
        if (s.op_kind == "elementwise") {
          // Add/Sub pass the gradient through (no kernel); Mul/Div multiply it by the other operand.
          if (s.raw.at("function") != "mul") continue;
          const int64_t ny = s.raw.at("elements").get<int64_t>();
          for (size_t k = 0; k < n.inputs.size() && k < 2; ++k) {
            int t = n.inputs[k];
            if (t < 0 || !grad[static_cast<size_t>(t)]) continue;
            const Tensor& tt = g.tensors[static_cast<size_t>(t)];
            make(s, "backward", n.name, n.op, "gradient of input " + std::to_string(k));
            if (tt.shape_known() && numel(tt.shape) != ny)
              run.not_measured.push_back(label + " backward: reduction of the broadcast gradient of " + tt.name);
          }
          continue;
        }
        bool dg = data_grad;
        if (s.op_kind == "gemm" && n.op == "MatMul" && !weight_grad && n.inputs.size() > 1 && n.inputs[1] >= 0 &&
            grad[static_cast<size_t>(n.inputs[1])])
          // A product of two activations (attention): both operands get gradients.
          for (const auto& ph : std::vector<std::string>{"backward_data", "backward_weight"}) {
            if (ph == "backward_data" && !dg) continue;
            make(s, ph, n.name, n.op, "");
          }
        else
          for (const auto& ph : backward_phases(s.op_kind, dg, weight_grad))
            make(s, ph, n.name, n.op,
                 s.op_kind == "bandwidth" && n.op == "Gather" ? "embedding gradient (scatter-add) executed as a copy" : "");
      }
    }
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (!mapped[i] && cost.nodes[i].family != OpFamily::view) {
        bool out_grad = false;
        for (int t : g.nodes[i].outputs)
          if (t >= 0 && grad[static_cast<size_t>(t)]) out_grad = true;
        if (out_grad) run.not_measured.push_back(g.nodes[i].name + " (" + g.nodes[i].op + ") backward: the forward is not executable");
      }
    if (run.parameters > 0) {
      LayerSpec sgd{"elementwise", {{"function", "add"}, {"elements", run.parameters}}, ""};
      make(sgd, "optimizer", "sgd_update", "SGD",
           "optimizer=sgd: param -= lr * grad over all " + std::to_string(run.parameters) + " parameters (read param and grad, write param)");
    }
  }
  if (run.layers.empty())
    throw InputError(where + ": no node of the model maps to a profiled op (" + std::to_string(run.unsupported.size()) +
                     " not executable, " + std::to_string(run.views.size()) + " views)");
  spdlog::debug("{}: batch {} {} {}: {} layers, {} views, {} not executable", o.model, o.batch, to_string(o.precision),
                o.mode, run.layers.size(), run.views.size(), run.unsupported.size());
  return run;
}

}  // namespace perfpred
