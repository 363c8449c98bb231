// Which kernels a runtime launches for a graph: fusion (TensorRT, onnxruntime), one kernel per op plus
// dispatch cost (PyTorch eager), the backward expansion, the loss and the optimizer update.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "model_constants.hpp"
#include "plan.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::detail {

namespace {

bool is_activation(std::string_view op) {
  static constexpr std::string_view k_ops[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Clip", "HardSigmoid",
                                               "HardSwish", "Elu", "Selu", "Softplus", "Gelu", "Mish", "PRelu",
                                               "ThresholdedRelu", "Celu", "FastGelu", "BiasGelu", "Swish"};
  return std::find(std::begin(k_ops), std::end(k_ops), op) != std::end(k_ops);
}

bool is_float(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64; }

/// Ops that are free in PyTorch eager (views) even though ONNX gives them a data-movement family.
bool is_torch_view(std::string_view op) {
  return op == "Slice" || op == "Split" || op == "Squeeze" || op == "Unsqueeze" || op == "Expand" ||
         op == "Reshape" || op == "Flatten";
}

/// Nodes that exist only in the exported graph (no host or GPU work at run time).
bool is_static(std::string_view op) {
  return op == "Constant" || op == "Identity" || op == "Shape" || op == "ConstantOfShape" || op == "Size";
}

/// A node whose every output was computed at import (shape arithmetic: Shape -> Gather -> Unsqueeze ->
/// Concat chains, Cast/Div/Mul on sizes): in the framework these are Python integers or folded by the
/// runtime's builder, so no dispatch and no kernel.
bool computes_constants(const Graph& g, const Node& n) {
  if (n.outputs.empty()) return false;
  for (int t : n.outputs) {
    if (t < 0 || t >= static_cast<int>(g.tensors.size())) return false;
    const Tensor& x = g.tensors[t];
    if (x.is_graph_output || !(x.int_values.has_value() || x.float_values.has_value())) return false;
  }
  return true;
}

double tensor_bytes(const Graph& g, int t) {
  if (t < 0 || t >= static_cast<int>(g.tensors.size())) return 0;
  auto b = g.tensors[t].bytes();
  return b ? static_cast<double>(*b) : 0.0;
}

bool is_weight(const Graph& g, int t) { return t >= 0 && g.tensors[t].is_initializer; }

/// Number of inputs that are data (not weights) and produced at run time or fed.
bool is_arith(const std::string& op) { return op == "Add" || op == "Sub" || op == "Mul" || op == "Div"; }

int first_output(const Node& n) { return n.outputs.empty() ? -1 : n.outputs[0]; }

bool is_constant_operand(const Graph& g, int t);

/// An op that only relabels a weight's layout or type when it reads one.
bool relabels(std::string_view op) { return op == "Transpose" || op == "Reshape" || op == "Cast" || op == "Identity"; }

/// The constant behind `t`: `t` itself when it is a constant operand, or the one a layout change of which it is
/// (torch.onnx writes F.linear's weight.t() as Transpose(W) when W is a graph input, as with
/// export_params=False); -1 when `t` is computed from data.
int weight_root(const Graph& g, int t, const std::vector<int>& producer) {
  for (int depth = 0; depth < 4; ++depth) {
    if (is_constant_operand(g, t)) return t;
    if (t < 0 || t >= static_cast<int>(producer.size()) || producer[t] < 0) return -1;
    const Node& n = g.nodes[producer[t]];
    if (n.inputs.empty() || !relabels(n.op)) return -1;
    t = n.inputs[0];
  }
  return -1;
}

/// A weight, or a layout change of one.
bool is_weight_derived(const Graph& g, int t, const std::vector<int>& producer) {
  return weight_root(g, t, producer) >= 0;
}

/// The bias Add of an nn.Linear on an N-D input, which torch.onnx writes as MatMul(x, W) -> Add(b): an Add of
/// a constant to the sole output of a MatMul by a constant weight. Eager PyTorch runs the pair as one
/// aten::linear call (matmul then an in-place add_, or one addmm with the bias): the Add is no Python
/// operator of its own.
bool is_linear_bias_add(const Graph& g, const Node& n, const std::vector<int>& producer,
                        const std::vector<int>& consumer_count) {
  if (n.op != "Add" || n.inputs.size() != 2) return false;
  for (int side = 0; side < 2; ++side) {
    const int y = n.inputs[side], b = n.inputs[1 - side];
    if (y < 0 || b < 0 || y >= static_cast<int>(producer.size()) || !is_constant_operand(g, b)) continue;
    if (consumer_count[y] != 1 || producer[y] < 0) continue;
    const Node& mm = g.nodes[producer[y]];
    if (mm.op == "MatMul" && mm.inputs.size() == 2 && is_weight_derived(g, mm.inputs[1], producer)) return true;
  }
  return false;
}

struct HostCosts {
  double op = 0;        ///< a forward op that launches kernels
  double arith = 0;     ///< a binary arithmetic op (Add/Sub/Mul/Div): a Python operator in eager PyTorch
  double matrix_extra = 0;
  double view = 0;
  double inner = 0;     ///< an extra kernel inside an op
  double backward = 0;
  double optimizer = 0;
  double kernel = 0;    ///< per kernel for runtimes without per-op dispatch
};

HostCosts host_costs(const GpuSpec& gpu, const PredictOptions& opts) {
  const double f = host_cpu_factor(gpu, opts);
  HostCosts h;
  switch (opts.runtime) {
    case Runtime::pytorch: {
      // The forward's dispatch: cheaper where autograd records nothing (inference under no_grad).
      const double fwd = f * (opts.mode == Mode::inference && !opts.grad_mode ? model::k_pytorch_no_grad_host_share : 1.0);
      h.op = model::k_pytorch_op_host_s * fwd;
      h.arith = model::k_pytorch_arith_host_s * fwd;
      h.matrix_extra = model::k_pytorch_conv_extra_host_s * fwd;
      h.view = model::k_pytorch_view_host_s * fwd;
      h.inner = model::k_pytorch_inner_kernel_host_s * fwd;
      h.backward = model::k_pytorch_backward_host_s * f;
      h.optimizer = model::k_pytorch_optimizer_host_s * f;
      h.kernel = model::k_pytorch_inner_kernel_host_s * fwd;
      break;
    }
    case Runtime::onnxruntime:
      h.op = h.arith = h.backward = h.optimizer = h.inner = h.kernel = model::k_onnxruntime_node_host_s * f;
      break;
    case Runtime::tensorrt:
      h.op = h.arith = h.backward = h.optimizer = h.inner = h.kernel = model::k_tensorrt_kernel_host_s * f;
      break;
    case Runtime::cudnn:
      h.op = h.arith = h.backward = h.optimizer = h.inner = h.kernel = model::k_cudnn_kernel_host_s * f;
      break;
  }
  return h;
}

/// Elements of a node's first output, 0 when its shape is not fully known.
double output_elements(const Graph& g, const Node& node) {
  const int y = first_output(node);
  if (y < 0 || g.tensors[y].shape.empty()) return 0;
  double n = 1;
  for (auto d : g.tensors[y].shape) {
    if (d <= 0) return 0;
    n *= static_cast<double>(d);
  }
  return std::isfinite(n) ? n : 0;
}

/// A Conv/ConvTranspose node's shape; outputs and the output map where its output shape is known.
ConvShape conv_shape(const Graph& g, const Node& n) {
  ConvShape c;
  c.groups = static_cast<double>(n.attr_int("group", 1));
  if (const Tensor* x = g.input(n, 0); x && x->shape.size() >= 2 && x->shape[1] > 0) c.cin = x->shape[1];
  if (const Tensor* w = g.input(n, 1); w && w->shape.size() >= 3) {
    c.cout = w->shape[0] > 0 ? static_cast<double>(w->shape[0]) : 0;
    if (n.op == "ConvTranspose" && w->shape[1] > 0) c.cout = w->shape[1] * c.groups;
    c.kh = w->shape[2] > 0 ? static_cast<double>(w->shape[2]) : 1;
    c.kw = w->shape.size() >= 4 && w->shape[3] > 0 ? static_cast<double>(w->shape[3]) : 1;
  }
  auto ks = n.attr_ints("kernel_shape");
  if (!ks.empty()) {
    c.kh = static_cast<double>(ks[0]);
    c.kw = ks.size() > 1 ? static_cast<double>(ks[1]) : 1;
  }
  auto st = n.attr_ints("strides");
  if (!st.empty()) {
    c.sh = static_cast<double>(st[0]);
    c.sw = st.size() > 1 ? static_cast<double>(st[1]) : 1;
  }
  auto dl = n.attr_ints("dilations");
  for (auto d : dl) c.dil = std::max(c.dil, static_cast<double>(d));
  c.outputs = output_elements(g, n);
  if (const Tensor* x = g.input(n, 0); x) {
    if (const auto e = x->numel(); e && *e > 0) c.inputs = static_cast<double>(*e);
  }
  if (const int y = first_output(n); y >= 0 && g.tensors[y].shape.size() == 4) {
    c.out_h = static_cast<double>(g.tensors[y].shape[2]);
    c.out_w = static_cast<double>(g.tensors[y].shape[3]);
  }
  return c;
}

/// Scale of bytes from the graph's float dtype to the run precision.
double activation_scale(const Graph& g, Precision p) {
  int64_t graph_size = 4;
  for (int t : g.inputs) {
    if (t >= 0 && is_float(g.tensors[t].dtype)) {
      graph_size = dtype_size(g.tensors[t].dtype);
      break;
    }
  }
  return static_cast<double>(element_bytes(p)) / static_cast<double>(std::max<int64_t>(1, graph_size));
}

/// Everything the planning steps share for one graph.
struct PlanContext {
  const Graph& g;
  const GraphCost& cost;
  const GpuSpec& gpu;
  const PredictOptions& opts;
  Plan& plan;
  bool training = false;
  bool fuse = false;   ///< TensorRT / onnxruntime inference: conv/GEMM + epilogue and elementwise chains fuse
  bool eager = false;  ///< PyTorch eager: one op per node, dispatch cost per op
  HostCosts host;
  double scale = 1;    ///< activation bytes at the run precision over the graph's
  bool has_tf32 = false;
  double embedded = 1;  ///< host cost factor: an embedded board's, times PredictOptions::host_factor
  int n_nodes = 0;
  int n_tensors = 0;
  std::vector<int> consumer_count, single_consumer;
  std::vector<int> producer;  ///< tensor -> the node that writes it, -1 for inputs and weights
  /// PyTorch eager: tensor -> 1 when a node that reads it needs contiguous memory (anything but a MatMul, binary
  /// arithmetic, a transpose or a reshape), so a transpose writing it must copy (eager_transpose_is_view).
  std::vector<char> needs_contiguous;
  std::vector<char> done;
  /// Activations written as several nodes (find_activation_patterns): for a pattern's first node the index
  /// of its last node, -1 elsewhere; members lists each pattern's nodes in order.
  std::vector<int> pattern_last;
  std::vector<std::vector<int>> pattern_members;
  std::vector<int> pattern_of;  ///< node -> index into pattern_members, -1 when in none
  std::vector<int> pattern_on;  ///< tensor -> the pattern that computes x * f(x) of it, -1 when none
  std::vector<int> pattern_input;  ///< pattern -> its input tensor x
  std::vector<char> pattern_norm;  ///< pattern -> 1 for a LayerNorm written as nodes (one norm kernel)
  /// PyTorch eager attention cores run as one scaled_dot_product_attention (find_attention_patterns): node ->
  /// index into attention_members, -1 when in none; each core's nodes in graph order, its last MatMul last.
  std::vector<int> attention_of;
  std::vector<std::vector<int>> attention_members;
  /// PyTorch eager training under torch.autocast (PredictOptions::autocast at fp16/bf16; amp(c)): amp_fp32 marks the
  /// tensors autocast leaves in fp32 (find_amp_dtypes), grad_tracked those autograd tracks (computed from a
  /// parameter). Empty otherwise.
  bool amp = false;
  std::vector<char> amp_fp32;
  std::vector<char> grad_tracked;
  double pending_host = 0;  ///< host time of view ops, charged to the next kernel
  bool noted_tf32 = false, noted_bias = false, noted_depthwise_l2 = false, noted_reorders = false, noted_tn = false;

  PlanContext(const Graph& g_, const GraphCost& c_, const GpuSpec& gpu_, const PredictOptions& o_, Plan& p_)
      : g(g_), cost(c_), gpu(gpu_), opts(o_), plan(p_) {}

  void note_tf32(const char* what) {
    if (noted_tf32) return;
    plan.notes.push_back(std::string("fp32 ") + what + " run on TF32 tensor cores (the runtime's default on sm_80+)" +
                         " or on FP32 kernels where those are faster");
    noted_tf32 = true;
  }
};

void find_activation_patterns(PlanContext& c);
void find_layer_norm_patterns(PlanContext& c);
void find_attention_patterns(PlanContext& c);
void find_amp_dtypes(PlanContext& c);

/// Ops that read a strided (transposed) tensor without a copy in eager PyTorch: matmul/bmm take the strides
/// (cuBLAS transposes), TensorIterator's binary arithmetic any layout; transposes and reshapes are views (a
/// reshape that cannot view copies: see contiguous_copy).
bool reads_strided(std::string_view op) {
  return op == "MatMul" || op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Transpose" ||
         op == "Reshape" || op == "Flatten";
}

void mark_contiguous_readers(PlanContext& c) {
  c.needs_contiguous.assign(c.n_tensors, 0);
  for (const Node& n : c.g.nodes) {
    if (is_static(n.op) || reads_strided(n.op)) continue;
    for (int t : n.inputs)
      if (t >= 0 && t < c.n_tensors) c.needs_contiguous[t] = 1;
  }
}

/// PyTorch eager: a Transpose (transpose/permute) is a view when nothing reading it needs contiguous memory.
bool eager_transpose_is_view(const PlanContext& c, const Node& n) {
  const int y = first_output(n);
  return c.eager && n.op == "Transpose" && y >= 0 && y < c.n_tensors && !c.needs_contiguous[y] &&
         !c.g.tensors[y].is_graph_output;
}

/// PyTorch eager: a Reshape/Flatten of a transposed view cannot stay a view (x.transpose(1, 2).reshape(...),
/// .contiguous().view(...)): it copies, one op and one kernel.
bool contiguous_copy(const PlanContext& c, const Node& n) {
  if (!c.eager || (n.op != "Reshape" && n.op != "Flatten") || n.inputs.empty()) return false;
  const int x = n.inputs[0];
  if (x < 0 || x >= c.n_tensors || c.producer[x] < 0) return false;
  const Node& t = c.g.nodes[c.producer[x]];
  return t.op == "Transpose" && eager_transpose_is_view(c, t) && !is_weight_derived(c.g, x, c.producer);
}

/// PyTorch eager training at fp16/bf16: under torch.autocast with a GradScaler (PlanContext::amp,
/// PredictOptions::autocast) or with the model itself in half precision (half_model, model.half()).
bool half_training(const PlanContext& c) {
  return c.training && c.eager && (c.opts.precision == Precision::fp16 || c.opts.precision == Precision::bf16);
}

void init_context(PlanContext& c) {
  const Graph& g = c.g;
  c.training = c.opts.mode == Mode::training;
  if (c.training && c.opts.runtime == Runtime::tensorrt)
    throw InputError("--runtime tensorrt runs inference only; use --mode inference or --runtime pytorch|onnxruntime|cudnn");
  if (c.opts.channels_last && c.opts.runtime != Runtime::pytorch && c.opts.runtime != Runtime::onnxruntime)
    throw InputError("--channels-last is PyTorch's memory format (and onnxruntime's NHWC layout); --runtime " +
                     to_string(c.opts.runtime) +
                     " picks its own layouts: drop --channels-last or use --runtime pytorch|onnxruntime");
  if (c.opts.grad_mode && c.training)
    throw InputError("--grad-mode: a training step always records autograd; it describes inference only (drop it)");
  if (c.opts.grad_mode && c.opts.runtime != Runtime::pytorch)
    throw InputError("--grad-mode is PyTorch eager's autograd recording; --runtime " + to_string(c.opts.runtime) +
                     " has none: drop it or use --runtime pytorch");
  c.fuse = !c.training && (c.opts.runtime == Runtime::tensorrt || c.opts.runtime == Runtime::onnxruntime);
  c.eager = c.opts.runtime == Runtime::pytorch;
  c.host = host_costs(c.gpu, c.opts);
  c.scale = activation_scale(g, c.opts.precision);
  c.plan.activation_scale = c.scale;
  c.has_tf32 = c.gpu.uses_tensor_cores(Precision::tf32);
  c.embedded = host_cpu_factor(c.gpu, c.opts);
  c.n_nodes = static_cast<int>(g.nodes.size());
  c.n_tensors = static_cast<int>(g.tensors.size());
  // consumers: count per tensor and the single consumer (or -1)
  c.consumer_count.assign(c.n_tensors, 0);
  c.single_consumer.assign(c.n_tensors, -1);
  for (int j = 0; j < c.n_nodes; ++j)
    for (int t : g.nodes[j].inputs)
      if (t >= 0 && t < c.n_tensors) {
        if (c.consumer_count[t]++ == 0) c.single_consumer[t] = j;
        else c.single_consumer[t] = -1;
      }
  c.producer.assign(c.n_tensors, -1);
  for (int j = 0; j < c.n_nodes; ++j)
    for (int t : g.nodes[j].outputs)
      if (t >= 0 && t < c.n_tensors) c.producer[t] = j;
  if (c.eager) mark_contiguous_readers(c);
  c.done.assign(c.n_nodes, 0);
  find_activation_patterns(c);
  find_layer_norm_patterns(c);
  find_attention_patterns(c);
  c.amp = half_training(c) && c.opts.autocast;
  if (c.amp) find_amp_dtypes(c);
  if (c.opts.runtime == Runtime::tensorrt) c.plan.host_pre_s = model::k_tensorrt_enqueue_s * c.embedded;
  c.plan.host_post_s = model::k_sync_s * c.embedded;
}

bool is_constant_operand(const Graph& g, int t) {
  return t >= 0 && (g.tensors[t].is_initializer || g.tensors[t].int_values.has_value() ||
                    g.tensors[t].float_values.has_value());
}

/// Activations that exporters write as several nodes and every runtime runs as one kernel: x * f(x), where
/// f is a chain of up to 5 elementwise nodes of x and constants (SiLU/Swish: Sigmoid, Mul; HardSwish:
/// HardSigmoid, Mul; GELU as torch exports it: Div, Erf, Add, Mul(x, .), then Mul by 0.5). PyTorch eager runs
/// nn.SiLU / F.gelu as one op and kernel, TensorRT fuses them into the producer, onnxruntime's optimizers
/// (QuickGelu, Gelu fusion) make one kernel.
void find_activation_patterns(PlanContext& c) {
  const Graph& g = c.g;
  c.pattern_last.assign(c.n_nodes, -1);
  c.pattern_of.assign(c.n_nodes, -1);
  c.pattern_on.assign(c.n_tensors, -1);
  c.pattern_members.clear();
  c.pattern_input.clear();
  c.pattern_norm.clear();
  const std::vector<int>& producer = c.producer;
  auto elementwise = [&](int j) { return j >= 0 && c.cost.nodes[j].family == OpFamily::elementwise; };
  for (int b = 0; b < c.n_nodes; ++b) {
    const Node& mul = g.nodes[b];
    if (mul.op != "Mul" || mul.inputs.size() != 2 || c.pattern_of[b] >= 0) continue;
    for (int side = 0; side < 2; ++side) {
      const int x = mul.inputs[side], u = mul.inputs[1 - side];
      if (x < 0 || u < 0 || x >= c.n_tensors || u >= c.n_tensors || c.consumer_count[x] != 2 ||
          c.consumer_count[u] != 1)
        continue;
      // Walk back from u to a node that reads x, through single-consumer elementwise nodes of constants.
      std::vector<int> chain;
      int cur = producer[u];
      bool ok = false;
      while (elementwise(cur) && chain.size() < 5 && c.pattern_of[cur] < 0) {
        chain.push_back(cur);
        const Node& n = g.nodes[cur];
        int data = -1, data_inputs = 0;
        for (int t : n.inputs)
          if (!is_constant_operand(g, t)) {
            data = t;
            ++data_inputs;
          }
        if (data_inputs != 1) break;
        if (data == x) {
          ok = true;
          break;
        }
        if (data < 0 || c.consumer_count[data] != 1) break;
        cur = producer[data];
      }
      if (!ok) continue;
      std::vector<int> members(chain.rbegin(), chain.rend());
      members.push_back(b);
      bool erf = false;
      for (int m : members) erf = erf || g.nodes[m].op == "Erf";
      // GELU's trailing "* 0.5".
      const int out = first_output(mul);
      if (erf && out >= 0 && c.consumer_count[out] == 1) {
        const int k = c.single_consumer[out];
        const Node& nk = g.nodes[k];
        if (k > b && (nk.op == "Mul" || nk.op == "Div") && nk.inputs.size() == 2 &&
            is_constant_operand(g, nk.inputs[0] == out ? nk.inputs[1] : nk.inputs[0]))
          members.push_back(k);
      }
      const int id = static_cast<int>(c.pattern_members.size());
      for (int m : members) c.pattern_of[m] = id;
      c.pattern_on[x] = id;
      c.pattern_input.push_back(x);
      c.pattern_norm.push_back(0);
      c.pattern_last[members.front()] = members.back();
      c.pattern_members.push_back(std::move(members));
      break;
    }
  }
}

/// LayerNorm as exporters write it below opset 17 (torch.onnx, tf2onnx): ReduceMean(x) -> Sub(x, mean) ->
/// Pow(d, 2) -> ReduceMean -> Add(eps) -> Sqrt -> Div(d, std) [-> Mul(gamma)] [-> Add(beta)]. PyTorch runs
/// nn.LayerNorm as one op and kernel, TensorRT and onnxruntime fuse it into one: the nodes become one norm
/// kernel that reads x and writes y, with one op's dispatch. Without this a ViT-B/16 costs 9 ops and 9 kernels
/// per LayerNorm (25 of them), and its eager batch-1 prediction was 3.3x the H200's measurement.
void find_layer_norm_patterns(PlanContext& c) {
  const Graph& g = c.g;
  // The single consumer of node j's output with this op (and not yet in a pattern), or -1.
  const auto next = [&](int j, const char* op) {
    const int out = first_output(g.nodes[j]);
    if (out < 0 || c.consumer_count[out] != 1) return -1;
    const int k = c.single_consumer[out];
    return k > j && g.nodes[k].op == op && c.pattern_of[k] < 0 ? k : -1;
  };
  // Consumers of each Sub's output (the centred x feeds the Pow and the Div), gathered in one pass.
  std::vector<std::vector<int>> sub_consumers(c.n_tensors);
  std::vector<char> sub_output(c.n_tensors, 0);
  for (int j = 0; j < c.n_nodes; ++j) {
    const int out = first_output(g.nodes[j]);
    if (g.nodes[j].op == "Sub" && out >= 0 && out < c.n_tensors) sub_output[out] = 1;
  }
  for (int j = 0; j < c.n_nodes; ++j)
    for (int t : g.nodes[j].inputs)
      if (t >= 0 && t < c.n_tensors && sub_output[t] && sub_consumers[t].size() < 3) sub_consumers[t].push_back(j);
  const auto constant_other = [&](int j, int t) {
    const Node& n = g.nodes[j];
    if (n.inputs.size() != 2 || (n.inputs[0] != t && n.inputs[1] != t)) return false;
    return is_constant_operand(g, n.inputs[0] == t ? n.inputs[1] : n.inputs[0]);
  };
  for (int r1 = 0; r1 < c.n_nodes; ++r1) {
    const Node& mean = g.nodes[r1];
    if (mean.op != "ReduceMean" || mean.inputs.empty() || c.pattern_of[r1] >= 0 || mean.attr_int("keepdims", 1) != 1)
      continue;
    const int x = mean.inputs[0];
    const int sub = next(r1, "Sub");
    if (x < 0 || sub < 0 || g.nodes[sub].inputs.size() != 2 || g.nodes[sub].inputs[0] != x) continue;
    const int d = first_output(g.nodes[sub]);
    if (d < 0 || c.consumer_count[d] != 2) continue;
    int pow = -1, div = -1;
    for (int j : sub_consumers[d]) (g.nodes[j].op == "Pow" ? pow : div) = j;
    if (pow < 0 || div < 0 || g.nodes[div].op != "Div" || g.nodes[div].inputs[0] != d || !constant_other(pow, d))
      continue;
    const int r2 = next(pow, "ReduceMean");
    const int add = r2 < 0 ? -1 : next(r2, "Add");
    const int sqrt = add < 0 ? -1 : next(add, "Sqrt");
    if (sqrt < 0 || next(sqrt, "Div") != div || !constant_other(add, first_output(g.nodes[r2]))) continue;
    std::vector<int> members = {r1, sub, pow, r2, add, sqrt, div};
    int last = div;
    const int mul = next(last, "Mul");
    if (mul >= 0 && constant_other(mul, first_output(g.nodes[last]))) last = mul, members.push_back(mul);
    const int beta = next(last, "Add");
    if (beta >= 0 && constant_other(beta, first_output(g.nodes[last]))) members.push_back(beta);
    const int id = static_cast<int>(c.pattern_members.size());
    for (int m : members) c.pattern_of[m] = id;
    c.pattern_input.push_back(x);
    c.pattern_norm.push_back(1);
    c.pattern_last[r1] = members.back();
    c.pattern_members.push_back(std::move(members));
  }
}

/// The node writing `t` when it is a Mul/Div of `t`'s single data input by a constant and `t` is read once
/// (the 1/sqrt(d) scale of an attention score or of Q or K), else -1.
int constant_scale_of(const PlanContext& c, int t) {
  if (t < 0 || t >= c.n_tensors || c.producer[t] < 0 || c.consumer_count[t] != 1) return -1;
  const int j = c.producer[t];
  const Node& n = c.g.nodes[j];
  if ((n.op != "Mul" && n.op != "Div") || n.inputs.size() != 2 || c.pattern_of[j] >= 0) return -1;
  return is_constant_operand(c.g, n.inputs[1]) && !is_constant_operand(c.g, n.inputs[0]) ? j : -1;
}

/// Attention as torch.onnx writes it: MatMul(Q, K^T) [-> Mul/Div by a constant] [-> Add(mask) or Where(mask,
/// constant, scores)] -> Softmax over the last axis -> MatMul(P, V), the scale sometimes on Q (and K) before
/// the first MatMul. PyTorch >= 2.0
/// runs it as one scaled_dot_product_attention op (PredictOptions::fused_attention): found only for PyTorch
/// eager with that option, every member read once, so no other node sees the scores.
void find_attention_patterns(PlanContext& c) {
  const Graph& g = c.g;
  c.attention_of.assign(c.n_nodes, -1);
  c.attention_members.clear();
  if (!c.eager || !c.opts.fused_attention) return;
  const auto single = [&](int t) { return t >= 0 && t < c.n_tensors && c.consumer_count[t] == 1; };
  for (int s = 0; s < c.n_nodes; ++s) {
    const Node& sm = g.nodes[s];
    if (sm.op != "Softmax" || sm.inputs.empty() || c.pattern_of[s] >= 0) continue;
    const int y = first_output(sm);
    if (y < 0 || !g.tensors[y].shape_known() || g.tensors[y].shape.size() < 2) continue;
    const int64_t rank = static_cast<int64_t>(g.tensors[y].shape.size());
    const int64_t axis = sm.attr_int("axis", -1);
    if (axis != -1 && axis != rank - 1) continue;
    std::vector<int> members;
    int x = sm.inputs[0];
    // Back from the softmax: an optional mask (an Add of it, or a Where filling the masked scores with a
    // constant, as masked_fill and SDPA's is_causal export), an optional scale, then the score MatMul.
    if (const int mask = single(x) ? c.producer[x] : -1;
        mask >= 0 && c.pattern_of[mask] < 0 && (g.nodes[mask].op == "Add" || g.nodes[mask].op == "Where")) {
      const Node& mn = g.nodes[mask];
      const bool where = mn.op == "Where";
      if (mn.inputs.size() != (where ? 3u : 2u)) continue;
      int scores = -1;
      for (size_t k = where ? 1 : 0; k < mn.inputs.size(); ++k) {
        const int t = mn.inputs[k];
        if (t >= 0 && c.producer[t] >= 0 && (g.nodes[c.producer[t]].op == "MatMul" || constant_scale_of(c, t) >= 0))
          scores = t;
      }
      if (scores < 0) continue;
      if (where && !is_constant_operand(g, mn.inputs[mn.inputs[1] == scores ? 2 : 1])) continue;  // the fill value
      members.push_back(mask);
      x = scores;
    }
    if (const int scale = constant_scale_of(c, x); scale >= 0) {
      members.push_back(scale);
      x = g.nodes[scale].inputs[0];
    }
    if (!single(x) || c.producer[x] < 0 || g.nodes[c.producer[x]].op != "MatMul") continue;
    const int m1 = c.producer[x];
    const Node& qk = g.nodes[m1];
    if (qk.inputs.size() != 2) continue;
    members.push_back(m1);
    for (int t : qk.inputs)  // Q / K scaled before the product
      if (const int scale = constant_scale_of(c, t); scale >= 0) members.push_back(scale);
    // Forward from the softmax: the product with V.
    if (!single(y) || c.single_consumer[y] < 0) continue;
    const int m2 = c.single_consumer[y];
    const Node& pv = g.nodes[m2];
    if (pv.op != "MatMul" || pv.inputs.size() != 2 || pv.inputs[0] != y) continue;
    const int o = first_output(pv);
    if (o < 0 || !g.tensors[o].shape_known() || g.tensors[o].shape.size() < 2) continue;
    members.push_back(s);
    members.push_back(m2);
    bool taken = false;
    for (int m : members) taken = taken || c.attention_of[m] >= 0 || c.pattern_of[m] >= 0;
    if (taken) continue;
    std::sort(members.begin(), members.end());
    const int id = static_cast<int>(c.attention_members.size());
    for (int m : members) c.attention_of[m] = id;
    c.attention_members.push_back(std::move(members));
  }
  if (!c.attention_members.empty())
    c.plan.notes.push_back(std::to_string(c.attention_members.size()) +
                           " attention cores (MatMul -> Softmax -> MatMul) costed as PyTorch's fused "
                           "scaled_dot_product_attention, one op and kernel each with no scores tensor; --attention "
                           "math runs them as written (PyTorch < 2.0, HF's eager attention)");
}

/// How torch.autocast (CUDA, fp16/bf16) sets an op's output dtype.
enum class AmpRule {
  half,        ///< its lower-precision list: convolutions, GEMMs and matmuls, RNNs, PReLU, attention; fp32 inputs cast
  fp32,        ///< its fp32 list (layer_norm, group_norm, pow, exp, log, reciprocal, softplus, norms); half inputs cast
  fp32_dtype,  ///< softmax, log_softmax, sum, cumsum, prod: called with dtype=float, they upcast as they read
  input,       ///< BatchNorm and InstanceNorm: cuDNN's kernel takes half data with fp32 statistics, writes half
  promote,     ///< everything else: PyTorch's type promotion, fp32 if any float operand is
};

AmpRule amp_rule(const PlanContext& c, int j) {
  const Node& n = c.g.nodes[j];
  const OpFamily f = c.cost.nodes[j].family;
  // The bias Add of an exported nn.Linear is part of its aten::linear (addmm, or matmul and add_ in half).
  if (c.attention_of[j] >= 0 || f == OpFamily::conv || f == OpFamily::conv_transpose || f == OpFamily::gemm ||
      f == OpFamily::rnn || n.op == "PRelu" || is_linear_bias_add(c.g, n, c.producer, c.consumer_count))
    return AmpRule::half;
  static constexpr std::string_view k_fp32[] = {"LayerNormalization", "GroupNormalization", "Pow", "Exp", "Log",
                                                "Reciprocal", "Softplus", "ReduceLogSumExp", "ReduceL1", "ReduceL2"};
  static constexpr std::string_view k_fp32_dtype[] = {"Softmax", "LogSoftmax", "ReduceSum", "CumSum", "ReduceProd"};
  if (std::find(std::begin(k_fp32), std::end(k_fp32), n.op) != std::end(k_fp32)) return AmpRule::fp32;
  if (std::find(std::begin(k_fp32_dtype), std::end(k_fp32_dtype), n.op) != std::end(k_fp32_dtype))
    return AmpRule::fp32_dtype;
  if (n.op == "BatchNormalization" || n.op == "InstanceNormalization") return AmpRule::input;
  return AmpRule::promote;
}

/// A float tensor whose dtype autocast can change: an activation, or a parameter or buffer of more than one
/// element (a scalar operand does not promote a tensor).
bool amp_float(const Graph& g, int t) {
  if (t < 0 || t >= static_cast<int>(g.tensors.size()) || !is_float(g.tensors[t].dtype)) return false;
  if (!is_constant_operand(g, t)) return true;
  const auto n = g.tensors[t].numel();
  return n && *n > 1;
}

/// The dtype of every tensor of an AMP training step, in graph order. The batch arrives in fp32 and parameters
/// and buffers stay fp32 (autocast casts weights for the ops on its half list, plan_autocast_casts); an
/// activation pattern (GELU, SiLU written as nodes) is one op keeping its input's dtype, a LayerNorm pattern one
/// layer_norm (fp32). So a transformer's residual stream runs in fp32 from the first fp32 position embedding
/// on (half + fp32 = fp32), its LayerNorms in fp32, and each Linear casts its fp32 input to half; a CNN's
/// activations stay half from its first convolution.
void find_amp_dtypes(PlanContext& c) {
  const Graph& g = c.g;
  c.amp_fp32.assign(c.n_tensors, 0);
  c.grad_tracked.assign(c.n_tensors, 0);
  for (int t = 0; t < c.n_tensors; ++t) {
    if (!amp_float(g, t) || (!g.tensors[t].is_graph_input && !is_constant_operand(g, t))) continue;
    c.amp_fp32[t] = 1;
    c.grad_tracked[t] = g.tensors[t].is_initializer;  // a parameter (a graph holds no requires_grad); not the batch
  }
  for (int j = 0; j < c.n_nodes; ++j) {
    const Node& n = g.nodes[j];
    bool fp32 = false, tracked = false;
    for (int t : n.inputs)
      if (t >= 0 && t < c.n_tensors) tracked = tracked || c.grad_tracked[t];
    if (const int p = c.pattern_of[j]; p >= 0) {
      fp32 = c.pattern_norm[p] || c.amp_fp32[c.pattern_input[p]];
    } else {
      switch (amp_rule(c, j)) {
        case AmpRule::half: fp32 = false; break;
        case AmpRule::fp32:
        case AmpRule::fp32_dtype: fp32 = true; break;
        case AmpRule::input: fp32 = !n.inputs.empty() && n.inputs[0] >= 0 && c.amp_fp32[n.inputs[0]]; break;
        case AmpRule::promote:
          for (int t : n.inputs) fp32 = fp32 || (amp_float(g, t) && c.amp_fp32[t]);
          break;
      }
    }
    for (int t : n.outputs)
      if (t >= 0 && t < c.n_tensors) {
        c.amp_fp32[t] = fp32 && is_float(g.tensors[t].dtype);
        c.grad_tracked[t] = tracked;
      }
  }
}

/// AMP: the casts autocast issues inside node `i`'s op before its kernel (draft `d`): each float activation
/// among `inputs` in the wrong dtype for the op's list (fp32 for a half op, half for an fp32 op; softmax-like
/// ops upcast as they read). One kernel each, reading one dtype and writing the other, and an ATen call inside
/// the op; a tracked tensor's gradient is cast back in the backward.
void plan_amp_casts(PlanContext& c, int i, const KernelDraft& d, const std::vector<int>& inputs) {
  if (!c.amp) return;
  const int p = c.pattern_of[i];
  const AmpRule rule = p >= 0 ? (c.pattern_norm[p] ? AmpRule::fp32 : AmpRule::promote) : amp_rule(c, i);
  if (rule != AmpRule::half && rule != AmpRule::fp32) return;
  const double up = 4.0 / element_bytes(c.opts.precision);  // fp32 bytes over half bytes
  for (int t : inputs) {
    if (!amp_float(c.g, t) || is_weight_derived(c.g, t, c.producer) || (c.amp_fp32[t] != 0) != (rule == AmpRule::half))
      continue;  // weights are cast once per step (plan_autocast_casts)
    KernelDraft k;
    k.node_index = i;
    k.group_begin = d.group_begin;
    k.group_end = d.group_end;
    k.family = OpFamily::elementwise;
    k.amp_cast = true;
    k.amp_cast_grad = c.grad_tracked[t] != 0;
    const double half_bytes = tensor_bytes(c.g, t) * c.scale;
    k.bytes = half_bytes * (1 + up);
    k.flops = half_bytes / element_bytes(c.opts.precision);
    k.host_s = c.host.inner;
    c.plan.kernels.push_back(k);
  }
}

/// AMP: a kernel's bytes with its fp32 tensors at 4 bytes an element, over the same at half (the plan's
/// scale). `inputs` and `outputs` are the tensors it reads and writes; a half-list op reads the half copies
/// its casts made. 1 outside AMP.
double amp_bytes_ratio(const PlanContext& c, int i, const std::vector<int>& inputs, const std::vector<int>& outputs) {
  if (!c.amp || (c.pattern_of[i] < 0 && amp_rule(c, i) == AmpRule::half)) return 1;
  const double up = 4.0 / element_bytes(c.opts.precision);
  double half = 0, amp = 0;
  const auto add = [&](int t) {
    if (!amp_float(c.g, t)) return;
    const double b = tensor_bytes(c.g, t);
    half += b;
    amp += c.amp_fp32[t] ? up * b : b;
  };
  for (int t : inputs) add(t);
  for (int t : outputs) add(t);
  return half > 0 ? amp / half : 1;
}

/// One scaled_dot_product_attention kernel for attention core `id` (at its last node): the two products'
/// FLOPs as one GEMM view [batch x heads, Sq, Dv, 2 Sk] on the matrix path, Q, K, V, the mask and the output
/// as its only DRAM traffic (the scores stay on chip), one operator's dispatch.
void plan_attention(PlanContext& c, int id) {
  const Graph& g = c.g;
  const auto& members = c.attention_members[id];
  const Node& pv = g.nodes[members.back()];
  int qk_index = -1, mask_index = -1;
  for (int m : members) {
    if (g.nodes[m].op == "MatMul" && m != members.back()) qk_index = m;
    if (g.nodes[m].op == "Add" || g.nodes[m].op == "Where") mask_index = m;
  }
  const Node& qk = g.nodes[qk_index];
  const auto source = [&](int t) {  // Q or K before its scale, if the scale is a member
    if (t >= 0 && c.producer[t] >= 0 && c.attention_of[c.producer[t]] == id) return g.nodes[c.producer[t]].inputs[0];
    return t;
  };
  const auto& out = g.tensors[first_output(pv)].shape;
  const auto& scores = g.tensors[first_output(qk)].shape;
  double heads = 1;
  for (size_t i = 0; i + 2 < out.size(); ++i) heads *= static_cast<double>(out[i]);
  const double sq = static_cast<double>(out[out.size() - 2]), dv = static_cast<double>(out.back());
  const double sk = scores.empty() ? sq : static_cast<double>(scores.back());
  KernelDraft d;
  d.node_index = qk_index;
  d.family = OpFamily::gemm;
  d.group_begin = static_cast<int>(c.plan.group_nodes.size());
  double bytes = tensor_bytes(g, source(qk.inputs[0])) + tensor_bytes(g, source(qk.inputs[1])) +
                 tensor_bytes(g, pv.inputs[1]) + tensor_bytes(g, first_output(pv));
  if (mask_index >= 0)
    for (int t : g.nodes[mask_index].inputs)
      if (t >= 0 && (c.producer[t] < 0 || c.attention_of[c.producer[t]] != id)) bytes += tensor_bytes(g, t);  // mask
  for (int m : members) {
    d.flops += c.cost.nodes[m].flops;
    c.done[m] = 1;
    c.plan.group_nodes.push_back(m);
  }
  d.group_end = static_cast<int>(c.plan.group_nodes.size());
  d.bytes = bytes * c.scale;
  d.matrix = true;
  d.tensor_ok = true;
  d.fused_attention = true;
  const auto dim = [](double v) {  // a GEMM extent; shapes from a hostile file may be huge
    return static_cast<int64_t>(std::clamp(v, 1.0, 1e15));
  };
  d.gemm = GemmShape{dim(heads), dim(sq), dim(dv), dim(2 * sk)};
  d.host_s = c.host.op + c.host.matrix_extra + c.pending_host;
  c.pending_host = 0;
  plan_amp_casts(c, qk_index, d, {source(qk.inputs[0]), source(qk.inputs[1]), pv.inputs[1]});
  c.plan.kernels.push_back(d);
}

/// Absorb activation pattern `id` (its input being the tensor `in` of `inter` bytes) into a kernel: its
/// intermediates are neither written nor read. Returns its output tensor.
int absorb_pattern(PlanContext& c, int id, double inter, KernelDraft& d, double& bytes) {
  const auto& members = c.pattern_members[id];
  const Graph& g = c.g;
  for (int m : members) {
    d.flops += c.cost.nodes[m].flops;
    c.done[m] = 1;
    c.plan.group_nodes.push_back(m);
  }
  const int out = first_output(g.nodes[members.back()]);
  bytes += tensor_bytes(g, out) - inter;
  return out;
}

/// Fusion (TensorRT, onnxruntime): absorb the single-consumer chain after node i into its kernel. TensorRT:
/// a conv/GEMM takes BatchNorm (folded at build time), activations, constant arithmetic and one residual Add;
/// an elementwise op takes the elementwise ops after it (pointwise fusion). onnxruntime (CUDA EP, default
/// graph optimizations, no transformer optimizer): a conv takes BatchNorm, its activation and a residual Add
/// (FusedConv with Z), a MatMul/Gemm takes only a constant bias (MatMulAddFusion), and elementwise chains fuse
/// only as GELU. Adjusts the draft's bytes and FLOPs.
void fuse_chain(PlanContext& c, int i, int last, KernelDraft& d, double& bytes, bool matrix_family) {
  const Graph& g = c.g;
  const bool ort = c.opts.runtime == Runtime::onnxruntime;
  if (ort && !matrix_family) return;  // no pointwise fusion beyond the activation patterns
  const bool ort_gemm = ort && d.family == OpFamily::gemm;
  bool residual_used = false;
  int cur = first_output(g.nodes[last]);
  while (cur >= 0 && cur < c.n_tensors && !g.tensors[cur].is_graph_output) {
    if (c.consumer_count[cur] == 2 && !ort) {  // an activation pattern x * f(x) reading this output
      const int id = c.pattern_on[cur];
      if (id < 0 || c.pattern_members[id].front() <= i || c.done[c.pattern_members[id].front()]) break;
      cur = absorb_pattern(c, id, tensor_bytes(g, cur), d, bytes);
      continue;
    }
    if (c.consumer_count[cur] != 1) break;
    int j = c.single_consumer[cur];
    if (j <= i || c.done[j]) break;
    const Node& nj = g.nodes[j];
    const NodeCost& cj = c.cost.nodes[j];
    const double inter = tensor_bytes(g, cur);
    bool take = false;
    if (matrix_family) {
      if (nj.op == "BatchNormalization") {  // folded into the weights at build time
        bytes += -inter + static_cast<double>(cj.bytes_written);
        take = true;
      } else if (ort_gemm) {
        // MatMul + constant bias only (Gemm / FusedMatMul); no activation or residual epilogue.
        const int other = nj.inputs.size() < 2 ? -1 : (nj.inputs[0] == cur ? nj.inputs[1] : nj.inputs[0]);
        if (nj.op == "Add" && nj.inputs.size() == 2 && is_weight(g, other)) {
          bytes += static_cast<double>(cj.bytes_read + cj.bytes_written) - 2 * inter;
          d.flops += cj.flops;
          take = true;
        }
      } else if (is_activation(nj.op) ||
                 ((nj.op == "Add" || nj.op == "Mul" || nj.op == "Sub" || nj.op == "Div") && nj.inputs.size() == 2)) {
        // An activation has one input: only a binary op has an `other` operand.
        const int other = nj.inputs.size() < 2 ? -1 : (nj.inputs[0] == cur ? nj.inputs[1] : nj.inputs[0]);
        const bool is_const = is_activation(nj.op) || is_weight(g, other) ||
                              (other >= 0 && g.tensors[other].int_values.has_value()) ||
                              (other >= 0 && g.tensors[other].float_values.has_value());
        if (is_const || (nj.op == "Add" && !residual_used)) {
          if (!is_const) residual_used = true;
          bytes += static_cast<double>(cj.bytes_read + cj.bytes_written) - 2 * inter;
          d.flops += cj.flops;
          take = true;
        }
      }
    } else if (cj.family == OpFamily::elementwise) {
      bytes += static_cast<double>(cj.bytes_read + cj.bytes_written) - 2 * inter;
      d.flops += cj.flops;
      take = true;
    }
    if (!take) break;
    c.done[j] = 1;
    c.plan.group_nodes.push_back(j);
    cur = first_output(nj);
  }
}

/// A product PyTorch runs as an nn.Linear forward, x W^T (cuBLAS TN): a Gemm that transposes its weight operand
/// only (torch.onnx's F.linear on a 2-D input), or a MatMul by a weight or a layout change of one (F.linear on an
/// N-D input, whose W^T torch.onnx folds into a constant or writes as Transpose(W)). HF GPT-2's Conv1D
/// (addmm(b, x, W)) exports as a Gemm without transB: NN.
bool is_linear_product(const PlanContext& c, const Node& node) {
  if (node.inputs.size() < 2) return false;
  if (node.op == "Gemm") return node.attr_int("transA", 0) == 0 && node.attr_int("transB", 0) == 1;
  return node.op == "MatMul" && is_weight_derived(c.g, node.inputs[1], c.producer);
}

/// Conv / GEMM facts: depthwise (and the taps PyTorch's own depthwise kernel loads), Winograd, TF32.
void set_matrix_facts(PlanContext& c, const Node& node, const NodeCost& nc, KernelDraft& d) {
  d.matrix = nc.gemm.has_value();
  if (nc.gemm) d.gemm = *nc.gemm;
  d.tensor_ok = true;
  if (d.family != OpFamily::gemm) {
    set_conv_facts(d, conv_shape(c.g, node), c.opts);
    if (!c.noted_depthwise_l2 && d.depthwise_tap_bytes > 0 && !l1_caches_global_loads(c.gpu)) {
      c.plan.notes.push_back("depthwise convolutions run PyTorch's own kernel, whose per-tap input loads SMs of "
                             "compute capability " + c.gpu.compute_capability + " serve from L2, not L1");
      c.noted_depthwise_l2 = true;
    }
    if (c.opts.precision == Precision::fp32 && c.opts.allow_tf32 && c.has_tf32 && !d.depthwise) {
      d.conv_tf32 = true;
      c.note_tf32("convolutions");
    }
    if (c.opts.precision == Precision::tf32 && c.has_tf32 && !d.depthwise) d.conv_tf32 = true;
    if (d.layout_reorder_bytes > 0 && !c.noted_reorders && c.gpu.uses_tensor_cores(c.opts.precision)) {
      c.plan.notes.push_back("cuDNN reorders NCHW tensors to NHWC and back around each " + to_string(c.opts.precision) +
                             " tensor-core convolution (three kernels each, costed); --channels-last for a model "
                             "run in torch.channels_last");
      c.noted_reorders = true;
    }
  } else {
    if (c.opts.precision == Precision::fp32 && c.opts.allow_tf32 && c.has_tf32 && c.opts.runtime == Runtime::tensorrt) {
      d.conv_tf32 = true;
      c.note_tf32("convolutions and GEMMs");
    }
    d.cublas_tn = c.opts.runtime == Runtime::pytorch && is_linear_product(c, node);
    if (d.cublas_tn && !c.noted_tn && sgemm_tn_small_tiles(c.gpu, c.opts.runtime) && c.opts.precision != Precision::int8) {
      c.plan.notes.push_back("nn.Linear forwards (x W^T, a TN product) run cuBLAS's small SGEMM tiles on compute "
                             "capability " + c.gpu.compute_capability + " (32x128, 64x64, 128x32; NeuSight's P100 and "
                             "P4 rows), slower than its NN products of the same size");
      c.noted_tn = true;
    }
  }
}

/// RNN: the input projection for all steps at once, then seq_len dependent steps of the recurrent GEMM.
void plan_rnn(PlanContext& c, const Node& node, const NodeCost& nc, KernelDraft d) {
  const Tensor* x = c.g.input(node, 0);
  const double seq = x && x->shape.size() >= 3 && x->shape[0] > 0 ? static_cast<double>(x->shape[0]) : 1;
  const double batch = x && x->shape.size() >= 3 && x->shape[1] > 0 ? static_cast<double>(x->shape[1]) : 1;
  const double hidden = static_cast<double>(node.attr_int("hidden_size", 1));
  const double gates = node.op == "LSTM" ? 4 : node.op == "GRU" ? 3 : 1;
  const double dirs = node.attr_string("direction", "forward") == "bidirectional" ? 2 : 1;
  KernelDraft rec = d;
  rec.matrix = true;
  rec.tensor_ok = true;
  rec.gemm = GemmShape{static_cast<int64_t>(dirs), static_cast<int64_t>(batch), static_cast<int64_t>(gates * hidden),
                       static_cast<int64_t>(hidden)};
  rec.serial_steps = static_cast<int>(seq);
  rec.launches = static_cast<int>(2 * seq);  // recurrent GEMM + gate pointwise per step
  rec.flops = std::min(nc.flops, 2.0 * dirs * batch * gates * hidden * hidden * seq);
  const double proj_flops = std::max(0.0, nc.flops - rec.flops);
  d.matrix = proj_flops > 0;
  d.tensor_ok = true;
  const double m = seq * batch, n = gates * hidden * dirs;
  d.gemm = GemmShape{1, static_cast<int64_t>(m), static_cast<int64_t>(n),
                     static_cast<int64_t>(std::max(1.0, std::round(proj_flops / (2 * m * n))))};
  d.flops = proj_flops;
  rec.bytes = d.bytes * 0.5;
  d.bytes *= 0.5;
  d.host_s = c.pending_host + (c.eager ? c.host.op + c.host.matrix_extra : c.host.kernel);
  c.pending_host = 0;
  rec.host_s = c.host.kernel * rec.launches * (c.eager ? 0.5 : 1.0);
  c.plan.kernels.push_back(d);
  c.plan.kernels.push_back(rec);
}

/// PyTorch eager / cuDNN: a conv bias is a separate per-channel kernel (cudnnAddTensor / add_). In graphs
/// exported with BatchNorm folded into the conv this stands for the BatchNorm kernel, which is what eager
/// runs; in training it is costed as BatchNorm (two passes).
void plan_conv_bias(PlanContext& c, int i, const KernelDraft& d) {
  const double out = tensor_bytes(c.g, first_output(c.g.nodes[i])) * c.scale;
  KernelDraft b;
  b.node_index = i;
  b.group_begin = d.group_begin;
  b.group_end = d.group_end;
  b.family = c.training ? OpFamily::norm : OpFamily::elementwise;
  b.conv_bias = true;
  b.bytes = (c.training ? 3.0 : 2.0) * out;
  b.flops = (c.training ? 4.0 : 2.0) * out / element_bytes(c.opts.precision);
  b.host_s = c.eager ? c.host.op : c.host.kernel;
  c.plan.kernels.push_back(b);
  if (!c.noted_bias && c.eager) {
    c.plan.notes.push_back("conv bias costed as a separate per-channel kernel and op (PyTorch eager: bias add, "
                           "or the BatchNorm a conv+bias in an exported graph usually stands for)");
    c.noted_bias = true;
  }
}

/// PyTorch's MaxPool on the GPU writes an int64 index per output element whatever the precision: ATen's
/// max_pool2d calls max_pool2d_with_indices on every device but the CPU, and returns the values only. An
/// exported graph that asks for the indices (MaxPool's second output) already counts them as an output.
void add_pool_indices(const Graph& g, const Node& node, KernelDraft& d) {
  if (node.outputs.size() >= 2 && node.outputs[1] >= 0) return;
  const int y = first_output(node);
  if (y < 0) return;
  const auto n = g.tensors[y].numel();
  if (!n || *n <= 0) return;
  d.pool_index_bytes = static_cast<double>(*n) * 8.0;
  d.bytes += d.pool_index_bytes;
}

/// The tensors pattern `id` reads from outside itself: its input and any other operand no member wrote.
std::vector<int> pattern_reads(const PlanContext& c, int id) {
  std::vector<int> out{c.pattern_input[id]};
  for (int m : c.pattern_members[id])
    for (int t : c.g.nodes[m].inputs)
      if (t >= 0 && (c.producer[t] < 0 || c.pattern_of[c.producer[t]] != id) &&
          std::find(out.begin(), out.end(), t) == out.end())
        out.push_back(t);
  return out;
}

/// cuDNN's BatchNorm inference kernel on NCHW tensors runs one block per (image, channel) plane
/// (set_bn_inference_planes): PyTorch's eval-mode BatchNorm where it runs on cuDNN (cudnn_eval_batch_norm) and a bare
/// cuDNN call, unless the tensors are channels_last (cuDNN's NHWC kernels). The training forward is another
/// kernel (batch statistics; not measured), left DRAM-bound: given the same walk over the planes, held-out training
/// went 17.8% -> 18.1% (Lambda's AMP and TF32 rows 1-6 points worse; docs/accuracy.md, Session 32). Walked instead
/// as the backward is, one block per channel (set_bn_backward_channels) for the statistics pass, or for it and
/// the normalisation: perfpred's H200 batch-128 training rows come closer (FP32 14.9% -> 14.0% / 11.5% mean APE,
/// AMP 24.1% -> 23.5% / 22.6%) and Lambda's batch 640-1280 rows go further off (H100 SXM AMP 6.1% -> 8.1% /
/// 12.8%, TF32 1.8% -> 2.6% / 5.4%): held-out training 16.07% -> 16.11% / 16.27% (Session 40). Which kernel cuDNN
/// runs for the statistics at those sizes is not measured here, so the forward stays DRAM-bound. Other runtimes
/// fold BatchNorm or run their own kernels.
void bn_inference_planes(const PlanContext& c, const Node& node, KernelDraft& d) {
  if (c.training || c.opts.channels_last || !cudnn_eval_batch_norm(c.opts)) return;
  if (node.inputs.empty() || node.inputs[0] < 0) return;
  const Tensor& t = c.g.tensors[node.inputs[0]];
  const auto n = t.numel();
  if (!n || *n <= 0 || t.shape.size() < 3 || t.shape[0] <= 0 || t.shape[1] <= 0) return;
  set_bn_inference_planes(d, static_cast<double>(*n), static_cast<double>(t.shape[0]), static_cast<double>(t.shape[1]));
}

/// The forward pass: one draft per kernel the runtime launches, in execution order.
void plan_forward(PlanContext& c) {
  const Graph& g = c.g;
  Plan& plan = c.plan;
  for (int i = 0; i < c.n_nodes; ++i) {
    if (c.done[i]) continue;
    if (const int a = c.attention_of[i]; a >= 0) {  // attention cores are issued at their last node
      if (c.attention_members[a].back() == i) plan_attention(c, a);
      continue;
    }
    const Node& node = g.nodes[i];
    const NodeCost& nc = c.cost.nodes[i];
    OpFamily fam = nc.family;
    const bool constant = is_static(node.op) || computes_constants(g, node);
    const bool copy = !constant && contiguous_copy(c, node);
    if (!copy && (constant || fam == OpFamily::view || eager_transpose_is_view(c, node) ||
                  (c.eager && fam == OpFamily::data_movement && is_torch_view(node.op)))) {
      if (c.eager && !constant) c.pending_host += c.host.view;
      continue;
    }
    if (copy) fam = OpFamily::data_movement;
    KernelDraft d;
    d.node_index = i;
    d.family = fam;
    d.group_begin = static_cast<int>(plan.group_nodes.size());
    plan.group_nodes.push_back(i);
    d.flops = nc.flops;
    double bytes = copy ? 2 * tensor_bytes(g, first_output(node)) : static_cast<double>(nc.bytes_read + nc.bytes_written);
    const bool matrix_family = fam == OpFamily::conv || fam == OpFamily::conv_transpose || fam == OpFamily::gemm;
    int last = i;  // the node whose output the kernel writes
    const bool pattern = c.pattern_last[i] >= 0;
    if (pattern) {  // one kernel for x * f(x): read x, write the result
      const int id = c.pattern_of[i];
      const double in = tensor_bytes(g, c.pattern_input[id]);
      plan.group_nodes.pop_back();  // absorb_pattern pushes every member, this node first
      d.flops = 0;
      bytes = 2 * in;  // read x; absorb_pattern adds the output and takes one x back
      last = c.pattern_members[id].back();
      absorb_pattern(c, id, in, d, bytes);
      if (c.pattern_norm[id]) d.family = fam = OpFamily::norm;
    }

    if (c.fuse && (matrix_family || fam == OpFamily::elementwise)) {
      fuse_chain(c, i, last, d, bytes, matrix_family);
      if (c.opts.runtime == Runtime::onnxruntime) d.host_s = c.host.op;  // one fused node
    }
    // BatchNorm in training mode computes the batch statistics first: one more read of its input.
    if (c.training && node.op == "BatchNormalization") bytes *= model::k_bn_train_forward_passes / 2.0;
    // PyTorch's LayerNorm kernel reads its input twice (statistics, then normalisation), in any mode.
    if (c.eager && fam == OpFamily::norm && (node.op == "LayerNormalization" || (pattern && c.pattern_norm[c.pattern_of[i]]))) {
      bytes *= model::k_ln_forward_passes / 2.0;
      d.layer_norm_stats_pass = true;
    }
    d.group_end = static_cast<int>(plan.group_nodes.size());
    std::vector<int> pattern_in;  // AMP only: what a pattern reads from outside itself
    if (c.amp && pattern) pattern_in = pattern_reads(c, c.pattern_of[i]);
    const std::vector<int>& reads = c.amp && pattern ? pattern_in : node.inputs;
    d.bytes = std::max(0.0, bytes) * c.scale * amp_bytes_ratio(c, i, reads, g.nodes[last].outputs);

    if (fam == OpFamily::pool && (node.op == "MaxPool" || node.op == "AveragePool")) {
      int64_t window = 1;
      for (auto k : node.attr_ints("kernel_shape")) window *= k;
      d.windowed_pool = window > 1;
      if (c.eager && node.op == "MaxPool") add_pool_indices(g, node, d);
    }
    if (matrix_family) set_matrix_facts(c, node, nc, d);
    if (node.op == "BatchNormalization") bn_inference_planes(c, node, d);
    plan_amp_casts(c, i, d, reads);
    if (fam == OpFamily::rnn) {
      plan_rnn(c, node, nc, d);
      continue;
    }

    if (!c.fuse || c.opts.runtime != Runtime::onnxruntime) {
      if (c.opts.runtime == Runtime::pytorch)
        d.host_s = is_linear_bias_add(g, node, c.producer, c.consumer_count) ? c.host.inner
                   : is_arith(node.op) && !pattern                           ? c.host.arith
                                                : c.host.op + (matrix_family ? c.host.matrix_extra : 0);
      else
        d.host_s = c.host.kernel;
    }
    if (c.fuse && c.opts.runtime == Runtime::onnxruntime && d.host_s == 0) d.host_s = c.host.op;
    d.host_s += c.pending_host;
    c.pending_host = 0;
    plan.kernels.push_back(d);

    if (!c.fuse && (fam == OpFamily::conv || fam == OpFamily::conv_transpose) && node.inputs.size() >= 3 &&
        node.inputs[2] >= 0)
      plan_conv_bias(c, i, d);
  }
  if (c.pending_host > 0 && !plan.kernels.empty()) plan.host_post_s += c.pending_host;

  if (c.opts.precision == Precision::fp16 || c.opts.precision == Precision::bf16) {
    if (!c.gpu.uses_tensor_cores(c.opts.precision))
      plan.notes.push_back(to_string(c.opts.precision) + " has no tensor-core path on " + c.gpu.id +
                           ": matrix math at max(packed " + to_string(c.opts.precision) + ", FP32) rate");
  }
}

/// Loss: log_softmax + nll_loss forward, one backward kernel.
void plan_loss(PlanContext& c) {
  double out_bytes = 0;
  for (int t : c.g.outputs) out_bytes += tensor_bytes(c.g, t) * c.scale;
  KernelDraft l;
  l.family = OpFamily::softmax;
  l.phase = Phase::loss;
  l.launches = 2;  // log_softmax + nll_loss
  l.bytes = 2.0 * out_bytes;
  l.flops = 5.0 * out_bytes / element_bytes(c.opts.precision);
  l.host_s = c.eager ? 2 * c.host.op : 2 * c.host.kernel;
  c.plan.kernels.push_back(l);
  KernelDraft lb = l;
  lb.launches = 1;
  lb.host_s = c.eager ? c.host.op + c.host.backward : c.host.kernel;  // loss.backward() call + first autograd node
  c.plan.kernels.push_back(lb);
}

/// PyTorch's own depthwise filter gradient runs one block per filter tap (set_depthwise_grad_weight_blocks): eager
/// PyTorch on NCHW tensors wherever ATen's _conv_depthwise2d takes the convolution (ConvParams::use_cudnn_depthwise):
/// FP32/TF32 on every GPU, FP16/BF16 before sm_70. From sm_70 a half-precision depthwise convolution may take cuDNN's
/// kernels (by a workload table in ATen, unmeasured here), and channels_last tensors always do: those keep their
/// DRAM-bound time, as other runtimes' depthwise kernels do.
void depthwise_grad_weight_blocks(const PlanContext& c, const Node& node, KernelDraft& dw) {
  if (!dw.depthwise || c.opts.runtime != Runtime::pytorch || c.opts.channels_last) return;
  const Precision p = c.opts.precision;
  const bool half = p == Precision::fp16 || p == Precision::bf16;
  const double cc = std::strtod(c.gpu.compute_capability.c_str(), nullptr);
  if (!(p == Precision::fp32 || p == Precision::tf32 || (half && cc > 0 && cc < 7.0))) return;
  const int y = first_output(node);
  if (node.inputs.size() < 2 || node.inputs[1] < 0 || y < 0) return;
  const auto& w = c.g.tensors[node.inputs[1]].shape;
  const auto& out = c.g.tensors[y].shape;
  if (w.size() != 4 || out.size() != 4 || out[0] <= 0 || out[2] <= 0 || out[3] <= 0 || w[0] <= 0 || w[2] <= 0 ||
      w[3] <= 0)
    return;
  const double batch = static_cast<double>(out[0]);
  set_depthwise_grad_weight_blocks(dw, static_cast<double>(w[0]), static_cast<double>(w[2] * w[3]), batch,
                                   batch * static_cast<double>(out[2] * out[3]));
}

/// Data and weight gradients of a conv/GEMM/RNN forward draft.
void plan_matrix_backward(PlanContext& c, const Node& node, const KernelDraft& f, KernelDraft b) {
  const Graph& g = c.g;
  if (f.family == OpFamily::rnn) {
    if (f.serial_steps <= 1) {  // the input projection: data and weight gradients of one big GEMM
      b.phase = Phase::backward;
      b.flops *= 2;
      b.bytes *= 2;
      c.plan.kernels.push_back(b);
      return;
    }
    // BPTT: the data gradients run the steps backwards, one dependent step at a time; the recurrent
    // weights' gradient needs no recurrence (every step's gate gradients are known by then), so it is one
    // GEMM with the steps in its reduction.
    KernelDraft dd = b;
    dd.phase = Phase::backward_data;
    dd.gemm = GemmShape{f.gemm.batch, f.gemm.m, f.gemm.k, f.gemm.n};  // dh_{t-1} = dgates_t R: N = hidden, K = gates x hidden
    c.plan.kernels.push_back(dd);
    KernelDraft dw = b;
    dw.phase = Phase::backward_weight;
    dw.serial_steps = 1;
    dw.launches = 1;
    dw.gemm = GemmShape{f.gemm.batch, f.gemm.n, f.gemm.k, f.gemm.m * f.serial_steps};
    dw.host_s = c.eager ? c.host.inner : c.host.kernel;
    c.plan.kernels.push_back(dw);
    return;
  }
  const bool data_is_input = !node.inputs.empty() && node.inputs[0] >= 0 && g.tensors[node.inputs[0]].is_graph_input;
  const GemmShape s = f.gemm;
  // cuDNN's convolution gradients are implicit GEMMs over the forward's view (output pixels x output channels x
  // filter taps), tiled and split along the pixels whatever the phase: a filter gradient is not the
  // few-tile, reduction-long GEMM its transpose would be (the 7x7 stem of ResNet-50 on a V100: 0.55 ms in
  // DeepBench at batch 16, 2.4 ms as that GEMM). Kernel rows are timed on that view too (estimate_kernel), so
  // the gradient slowdowns fitted on them apply to the same shape here. cuBLAS GEMMs keep their transposes.
  const bool conv = f.family == OpFamily::conv || f.family == OpFamily::conv_transpose;
  if (!data_is_input) {
    KernelDraft dd = b;
    dd.phase = Phase::backward_data;
    dd.gemm = conv ? s : GemmShape{s.batch, s.m, s.k, s.n};
    dd.winograd = f.winograd;
    if (c.eager) dd.host_s += c.host.matrix_extra;  // cuDNN descriptors and algorithm lookup, as in the forward
    c.plan.kernels.push_back(dd);
  }
  const bool has_weight_grad = f.family != OpFamily::gemm || node.inputs.size() < 2 || node.inputs[1] < 0 ||
                               !g.tensors[node.inputs[1]].is_graph_input;
  if (has_weight_grad) {
    KernelDraft dw = b;
    dw.phase = Phase::backward_weight;
    dw.gemm = conv ? s : GemmShape{s.batch, s.n, s.k, s.m};
    dw.winograd = f.winograd;  // cuDNN's WINOGRAD_NONFUSED computes 3x3 stride-1 filter gradients too
    dw.host_s = c.eager ? c.host.inner + c.host.matrix_extra : c.host.kernel;
    depthwise_grad_weight_blocks(c, node, dw);
    c.plan.kernels.push_back(dw);
  }
}

/// cuDNN's BatchNorm backward on NCHW tensors runs one block per channel (set_bn_backward_channels): PyTorch in
/// training and a bare cuDNN call, unless the tensors are channels_last (cuDNN's NHWC kernels spread a channel
/// over many blocks). `tensor`: the BatchNorm's input. A conv bias (which may stand for a folded BatchNorm) keeps
/// its DRAM-bound time: its gradient is ATen's sum over N, H and W, which spreads a channel over many blocks.
void bn_backward_channels(const PlanContext& c, int tensor, KernelDraft& b) {
  if (c.opts.channels_last || !(c.opts.runtime == Runtime::pytorch || c.opts.runtime == Runtime::cudnn)) return;
  if (tensor < 0) return;
  const Tensor& t = c.g.tensors[tensor];
  const auto n = t.numel();
  if (!n || *n <= 0 || t.shape.size() < 3 || t.shape[1] <= 0) return;
  set_bn_backward_channels(b, static_cast<double>(*n), static_cast<double>(t.shape[1]));
}

/// Backward in reverse order: gradient accumulation where an output fans out, then each node's gradient
/// kernels. Returns nothing; appends to the plan.
void plan_backward(PlanContext& c, int n_forward) {
  const Graph& g = c.g;
  const double bwd_host = c.eager ? c.host.backward : c.host.kernel;
  for (int idx = n_forward - 1; idx >= 0; --idx) {
    const KernelDraft f = c.plan.kernels[idx];  // copy: push_back may reallocate
    if (f.amp_cast) {  // ToCopyBackward: the gradient cast back to the tensor's dtype, an engine node
      if (!f.amp_cast_grad) continue;
      KernelDraft b = f;
      b.phase = Phase::backward;
      b.host_s = bwd_host;
      c.plan.kernels.push_back(b);
      continue;
    }
    const Node& node = g.nodes[f.node_index];
    const int out_t = first_output(node);
    // Gradient accumulation where the forward output fans out (residual branches).
    if (!f.conv_bias && out_t >= 0 && c.consumer_count[out_t] >= 2) {
      KernelDraft acc;
      acc.node_index = f.node_index;
      acc.group_begin = f.group_begin;
      acc.group_end = f.group_end;
      acc.family = OpFamily::elementwise;
      acc.phase = Phase::backward;
      acc.bytes = 3.0 * tensor_bytes(g, out_t) * c.scale * (c.consumer_count[out_t] - 1) *
                  (c.amp && c.amp_fp32[out_t] ? 4.0 / element_bytes(c.opts.precision) : 1.0);
      acc.flops = acc.bytes / (3.0 * element_bytes(c.opts.precision));
      acc.launches = c.consumer_count[out_t] - 1;
      acc.host_s = (c.eager ? c.host.inner : c.host.kernel) * acc.launches;
      c.plan.kernels.push_back(acc);
    }
    KernelDraft b = f;
    b.host_s = bwd_host;
    b.phase = Phase::backward;
    b.cublas_tn = false;  // an nn.Linear's gradients are NN (data) and NT (weight) products
    if (f.conv_bias) {
      c.plan.kernels.push_back(b);
      continue;
    }
    switch (f.family) {
      case OpFamily::conv:
      case OpFamily::conv_transpose:
      case OpFamily::gemm:
      case OpFamily::rnn: plan_matrix_backward(c, node, f, b); break;
      case OpFamily::elementwise:
        if (node.op == "Add" || node.op == "Sub" || node.op == "Sum") break;  // gradient passes through
        b.bytes = f.bytes * (node.inputs.size() >= 2 ? 2.0 : 1.5);
        b.flops = f.flops * 2;
        c.plan.kernels.push_back(b);
        break;
      case OpFamily::data_movement:
        if (node.op == "Concat" || node.op == "Split") break;  // views of the gradient
        c.plan.kernels.push_back(b);
        break;
      case OpFamily::norm:
        // BatchNorm backward: two reductions over (dy, x) and the input gradient, from the forward's
        // inference-sized traffic (its training forward already counts the statistics pass).
        b.bytes = node.op == "BatchNormalization"
                      ? f.bytes * model::k_bn_train_backward_passes / model::k_bn_train_forward_passes
                      : f.bytes * 2 / (f.layer_norm_stats_pass ? model::k_ln_forward_passes / 2.0 : 1.0);
        b.layer_norm_stats_pass = false;
        if (node.op == "BatchNormalization" && !node.inputs.empty()) bn_backward_channels(c, node.inputs[0], b);
        b.flops = f.flops * 2;
        c.plan.kernels.push_back(b);
        break;
      case OpFamily::pool:
      case OpFamily::unknown:
        // Read dy and the saved input (or the indices, read once), write dx.
        b.bytes = (f.bytes - f.pool_index_bytes) * 2 + f.pool_index_bytes;
        b.flops = f.flops * 2;
        c.plan.kernels.push_back(b);
        break;
      case OpFamily::softmax:
        b.bytes = f.bytes * 1.5;
        b.flops = f.flops * 2;
        c.plan.kernels.push_back(b);
        break;
      default: c.plan.kernels.push_back(b); break;
    }
  }
}

/// One trainable parameter tensor: the node that reads it (its first reader) and its element count.
struct ParamTensor {
  int node = -1;
  double elems = 0;
};

/// The trainable parameter tensors: float initializers consumed by nodes in weight slots (BatchNorm: scale and
/// bias only), each once.
std::vector<ParamTensor> parameter_tensors(const PlanContext& c) {
  const Graph& g = c.g;
  std::vector<ParamTensor> out;
  std::vector<char> seen(c.n_tensors, 0);
  for (int i = 0; i < c.n_nodes; ++i) {
    const Node& node = g.nodes[i];
    // A transposed weight (Transpose(W) -> MatMul) belongs to the node reading the transpose.
    if (relabels(node.op) && !node.inputs.empty() && is_weight_derived(g, node.inputs[0], c.producer)) continue;
    const size_t last = node.op == "BatchNormalization" ? 3 : node.inputs.size();
    const size_t first = node.op == "Gather" ? 0 : 1;  // an embedding's table is Gather's data operand
    for (size_t s = first; s < std::min(last, node.inputs.size()); ++s) {
      const int t = weight_root(g, node.inputs[s], c.producer);
      if (t < 0 || seen[t] || !g.tensors[t].is_initializer || !is_float(g.tensors[t].dtype)) continue;
      seen[t] = 1;
      auto ne = g.tensors[t].numel();
      if (ne && *ne > 0) out.push_back({i, static_cast<double>(*ne)});
    }
  }
  return out;
}

/// PyTorch eager updates parameters with PyTorch >= 2.0's defaults (PredictOptions::foreach_updates).
bool foreach_updates(const PlanContext& c) { return c.eager && c.opts.foreach_updates; }

bool amp(const PlanContext& c) { return c.amp; }
bool half_model(const PlanContext& c) { return half_training(c) && !c.opts.autocast; }

/// torch.autocast casts a weight to half each step where an op on its fp16 list reads it (convolutions, GEMMs,
/// matmuls, RNNs: cached_cast, once per autocast region); BatchNorm and LayerNorm read their fp32 parameters.
/// Forward (backward false): one cast kernel per weight (read fp32, write half) and an ATen call inside the
/// module's op. Backward: autograd's ToCopyBackward node casts each weight gradient back to fp32, one engine node
/// and one kernel each.
void plan_autocast_casts(PlanContext& c, const std::vector<ParamTensor>& params, bool backward) {
  for (const ParamTensor& p : params) {
    const OpFamily f = c.cost.nodes[p.node].family;
    if (f != OpFamily::conv && f != OpFamily::conv_transpose && f != OpFamily::gemm && f != OpFamily::rnn) continue;
    KernelDraft k;
    k.family = OpFamily::elementwise;
    k.phase = Phase::casts;
    k.backward_cast = backward;
    k.bytes = (4.0 + element_bytes(c.opts.precision)) * p.elems;
    k.flops = p.elems;
    k.host_s = backward ? c.host.backward : c.host.inner;
    c.plan.kernels.push_back(k);
  }
}

/// PyTorch >= 2.0 (foreach updates): zero_grad() left every .grad None, so AccumulateGrad hands each parameter's
/// new gradient over without a kernel; its engine node (and zero_grad's `p.grad = None`) costs host time only,
/// charged to the first backward record of the parameter's node, when autograd reaches it. A parameter whose node
/// has no backward record (a constant operand of a pass-through Add) is charged after the last kernel.
void hand_over_gradients(PlanContext& c, int first_backward, const std::vector<ParamTensor>& params) {
  std::vector<int> count(c.n_nodes, 0);
  for (const ParamTensor& p : params) ++count[p.node];
  const double per = model::k_pytorch_grad_handover_host_s * c.embedded;
  for (size_t i = first_backward; i < c.plan.kernels.size(); ++i) {
    KernelDraft& k = c.plan.kernels[i];
    if (k.node_index < 0 || k.node_index >= c.n_nodes || count[k.node_index] == 0) continue;
    k.host_s += per * count[k.node_index];
    count[k.node_index] = 0;
  }
  for (int n : count) c.plan.host_post_s += per * n;
}

/// Parameter gradients outside the layers' own kernels, PyTorch 1.x (--param-updates loop) and the other
/// runtimes. Eager: autograd's AccumulateGrad adds each new gradient into .grad (zero_grad() zeroed it rather
/// than freeing it), and zero_grad() clears every .grad for the next step, one kernel each; costed after the
/// backward pass (zero_grad of the next step); gradients are fp32 master copies under mixed precision too.
/// Foreach updates launch nothing here (hand_over_gradients).
void plan_gradients(PlanContext& c, const std::vector<ParamTensor>& params) {
  if (params.empty() || foreach_updates(c)) return;
  const double bytes_per = c.opts.precision == Precision::fp32 || amp(c) ? 4.0 : element_bytes(c.opts.precision);
  if (c.eager) {
    for (const ParamTensor& p : params) {
      KernelDraft k;
      k.family = OpFamily::elementwise;
      k.phase = Phase::gradients;
      k.launches = 2;  // grad += new; grad.zero_()
      k.bytes = (3.0 + 1.0) * bytes_per * p.elems;
      k.flops = p.elems;
      k.host_s = c.host.backward + model::k_pytorch_zero_grad_host_s * c.embedded;
      c.plan.kernels.push_back(k);
    }
    return;
  }
  double total = 0;
  for (const ParamTensor& p : params) total += p.elems;
  KernelDraft k;  // other runtimes: the gradient buffers are written by the weight-gradient kernels, one memset
  k.family = OpFamily::elementwise;
  k.phase = Phase::gradients;
  k.bytes = bytes_per * total;
  k.flops = 0;
  k.host_s = c.host.kernel;
  c.plan.kernels.push_back(k);
}

/// What one optimizer step runs per parameter tensor, from torch.optim's per-tensor loop (PyTorch 1.x;
/// torch/optim/_functional.py): SGD `p.add_(g, alpha=-lr)`; momentum `buf.mul_(m).add_(g)`, `p.add_(buf)`; Adam
/// `m.mul_(b1).add_(g)`, `v.mul_(b2).addcmul_(g, g)`, `denom = (v.sqrt() / bc2).add_(eps)`, `p.addcdiv_(m, denom)`.
/// The foreach implementation (PyTorch >= 2.0's default on CUDA; _multi_tensor_sgd / _multi_tensor_adam) runs the
/// same passes as one torch._foreach_* op each (Adam's two first mul/add pairs become _foreach_lerp_ and
/// _foreach_mul_ + _foreach_addcmul_). fp32 element passes (read or write) per step.
struct OptimizerWork {
  int kernels_per_tensor = 0;  ///< per-tensor loop: kernels per parameter tensor
  int foreach_ops = 0;         ///< foreach: torch._foreach_* ops per step
  int max_depth = 1;           ///< foreach: most tensor lists one op reads and writes
  int passes = 0;              ///< fp32 passes over every parameter element, per step
};

OptimizerWork optimizer_work(Optimizer o, bool foreach) {
  switch (o) {
    case Optimizer::sgd: return {1, 1, 2, 3};
    case Optimizer::momentum: return {3, 3, 2, 8};
    case Optimizer::adam: return {8, 7, 3, foreach ? 18 : 20};
    case Optimizer::none: break;
  }
  return {};
}

/// Launches of one foreach op over these tensors: multi_tensor_apply packs up to a depth-dependent number of
/// tensors (110, 64, 48, 36, 30 for 1-5 lists) and 320 blocks of 65,536 elements into one kernel
/// (ATen's MultiTensorApply.cuh), launching whenever either fills.
int foreach_launches(const std::vector<ParamTensor>& params, int depth) {
  static constexpr int max_tensors[] = {110, 64, 48, 36, 30};
  const int per_launch = max_tensors[std::clamp(depth, 1, 5) - 1];
  double chunks = 0;
  for (const ParamTensor& p : params) chunks += std::ceil(p.elems / 65536.0);
  const double by_tensors = std::ceil(static_cast<double>(params.size()) / per_launch);
  return static_cast<int>(std::max(1.0, std::max(by_tensors, std::ceil(chunks / 320.0))));
}

/// The optimizer step: a few kernels per parameter tensor (torch.optim's per-tensor loop, PyTorch 1.x), a few
/// multi-tensor kernels per foreach op (PyTorch >= 2.0), or one multi-tensor kernel per pass elsewhere.
void plan_optimizer(PlanContext& c, const std::vector<ParamTensor>& params) {
  Plan& plan = c.plan;
  if (c.opts.optimizer == Optimizer::none || params.empty()) return;
  const bool foreach = foreach_updates(c);
  const OptimizerWork w = optimizer_work(c.opts.optimizer, foreach);
  const double elem_bytes = half_model(c) ? element_bytes(c.opts.precision) : 4.0;  // model.half(): half state
  auto update = [&](double elems, int launches, double host_s) {  // the update passes over `elems` parameters
    KernelDraft o;
    o.family = OpFamily::elementwise;
    o.phase = Phase::optimizer;
    o.launches = launches;
    o.bytes = w.passes * elem_bytes * elems;
    o.flops = 2.0 * w.kernels_per_tensor * elems;
    o.host_s = host_s;
    plan.kernels.push_back(o);
  };
  double total_elems = 0;
  for (const ParamTensor& p : params) {
    total_elems += p.elems;
    if (c.eager && !foreach) update(p.elems, w.kernels_per_tensor, c.host.optimizer * w.kernels_per_tensor);
  }
  if (foreach) {
    const double n = static_cast<double>(params.size());
    const double host = (n * model::k_pytorch_optimizer_tensor_host_s +
                         w.foreach_ops * (model::k_pytorch_foreach_op_host_s + n * model::k_pytorch_foreach_tensor_host_s)) *
                        c.embedded;
    update(total_elems, w.foreach_ops * foreach_launches(params, w.max_depth), host);
  } else if (!c.eager) {
    update(total_elems, w.kernels_per_tensor, c.host.kernel * w.kernels_per_tensor);
  }
  if (amp(c)) {  // GradScaler: scale(loss), unscale_ (one foreach op over the fp32 gradients, in place), update()
    KernelDraft s;
    s.family = OpFamily::elementwise;
    s.phase = Phase::optimizer;
    s.launches = foreach_launches(params, 1) + 2;
    s.bytes = 8.0 * total_elems;
    s.flops = total_elems;
    s.host_s = 2 * c.host.arith + (model::k_pytorch_foreach_op_host_s +
                                   static_cast<double>(params.size()) * model::k_pytorch_foreach_tensor_host_s) * c.embedded;
    plan.kernels.push_back(s);
  }
}

/// A captured CUDA graph replays its kernels without the host: no dispatch, enqueue or launch per kernel, one
/// graph launch for the whole iteration (TensorRT's enqueue included), then the same stream sync.
void replay_as_graph(PlanContext& c) {
  for (auto& k : c.plan.kernels) k.host_s = 0;
  c.plan.host_pre_s = model::k_cuda_graph_launch_s * c.embedded;
}

/// A NonMaxSuppression with a score threshold and no candidate count is priced as if every box passed it
/// (cost_nms; the analysis lists such nodes once): the note names the first and how to say how many pass.
void note_nms_candidates(PlanContext& c) {
  if (c.cost.nms_every_box.empty()) return;
  const Node& first = c.g.nodes[static_cast<size_t>(c.cost.nms_every_box.front())];
  const size_t more = c.cost.nms_every_box.size() - 1;
  const Tensor* boxes = c.g.input(first, 0);
  const bool shaped = boxes && boxes->shape_known() && boxes->shape.size() == 3;
  const std::string n = shaped ? std::to_string(boxes->shape[1]) : "all";
  c.plan.notes.push_back("NonMaxSuppression '" + first.name + "'" +
                         (more ? " (and " + std::to_string(more) + " more)" : std::string()) + " priced as if all " +
                         n + " boxes of a class passed its score threshold, the most its data allows; " +
                         "--nms-candidates " + first.name + "=K says how many do");
}

/// A quantised model's integer nodes run INT8 kernels; predicted at another precision they are priced at that
/// precision's rates (on 8-bit tensors), so the note names the first and the option that prices them as INT8.
void note_integer_nodes(PlanContext& c) {
  if (c.cost.integer_nodes.empty() || c.opts.precision == Precision::int8) return;
  const Node& first = c.g.nodes[static_cast<size_t>(c.cost.integer_nodes.front())];
  const size_t more = c.cost.integer_nodes.size() - 1;
  c.plan.notes.push_back("quantised model: " + first.op + " '" + first.name + "'" +
                         (more ? " (and " + std::to_string(more) + " more integer node" + (more > 1 ? "s" : "") + ")"
                               : std::string()) +
                         " priced at " + to_string(c.opts.precision) + " rates; --precision int8 prices them as INT8");
}

}  // namespace

double host_cpu_factor(const GpuSpec& gpu, const PredictOptions& opts) {
  return (gpu.segment == "embedded" ? model::k_embedded_host_factor : 1.0) * opts.host_factor;
}

void build_plan(const Graph& g, const GraphCost& cost, const GpuSpec& gpu, const PredictOptions& opts, Plan& plan) {
  plan.kernels.clear();
  plan.group_nodes.clear();
  plan.notes.clear();
  plan.host_pre_s = plan.host_post_s = 0;
  if (cost.nodes.size() != g.nodes.size())
    throw InternalError("predict: the cost analysis has " + std::to_string(cost.nodes.size()) + " nodes, the graph " +
                        std::to_string(g.nodes.size()));
  PlanContext c(g, cost, gpu, opts, plan);
  init_context(c);
  plan_forward(c);
  note_nms_candidates(c);
  note_integer_nodes(c);
  if (c.training) {
    const int n_forward = static_cast<int>(plan.kernels.size());
    const std::vector<ParamTensor> params = parameter_tensors(c);
    if (amp(c)) plan_autocast_casts(c, params, false);
    plan_loss(c);
    const int first_backward = static_cast<int>(plan.kernels.size());
    plan_backward(c, n_forward);
    if (foreach_updates(c)) hand_over_gradients(c, first_backward, params);
    if (amp(c)) plan_autocast_casts(c, params, true);
    plan_gradients(c, params);
    plan_optimizer(c, params);
  }
  if (opts.cuda_graphs) replay_as_graph(c);
}

}  // namespace perfpred::detail
