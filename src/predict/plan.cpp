// Which kernels a runtime launches for a graph: fusion (TensorRT, onnxruntime), one kernel per op plus
// dispatch cost (PyTorch eager), the backward expansion, the loss and the optimizer update.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "model_constants.hpp"
#include "plan.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::detail {

namespace {

bool is_activation(std::string_view op) {
  static constexpr std::string_view k_ops[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Clip", "HardSigmoid",
                                               "HardSwish", "Elu", "Selu", "Softplus", "Gelu", "Mish", "PRelu",
                                               "ThresholdedRelu", "Celu", "FastGelu", "BiasGelu"};
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

double tensor_bytes(const Graph& g, int t) {
  if (t < 0 || t >= static_cast<int>(g.tensors.size())) return 0;
  auto b = g.tensors[t].bytes();
  return b ? static_cast<double>(*b) : 0.0;
}

bool is_weight(const Graph& g, int t) { return t >= 0 && g.tensors[t].is_initializer; }

/// Number of inputs that are data (not weights) and produced at run time or fed.
bool is_arith(const std::string& op) { return op == "Add" || op == "Sub" || op == "Mul" || op == "Div"; }

int first_output(const Node& n) { return n.outputs.empty() ? -1 : n.outputs[0]; }

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

HostCosts host_costs(const GpuSpec& gpu, Runtime rt) {
  const double f = gpu.segment == "embedded" ? model::k_embedded_host_factor : 1.0;
  HostCosts h;
  switch (rt) {
    case Runtime::pytorch:
      h.op = model::k_pytorch_op_host_s * f;
      h.arith = model::k_pytorch_arith_host_s * f;
      h.matrix_extra = model::k_pytorch_conv_extra_host_s * f;
      h.view = model::k_pytorch_view_host_s * f;
      h.inner = model::k_pytorch_inner_kernel_host_s * f;
      h.backward = model::k_pytorch_backward_host_s * f;
      h.optimizer = model::k_pytorch_optimizer_host_s * f;
      h.kernel = model::k_pytorch_inner_kernel_host_s * f;
      break;
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

struct ConvFacts {
  double groups = 1, cin = 0, cout = 0, kh = 1, kw = 1, sh = 1, sw = 1, dil = 1;
};

ConvFacts conv_facts(const Graph& g, const Node& n) {
  ConvFacts c;
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

}  // namespace

void build_plan(const Graph& g, const GraphCost& cost, const GpuSpec& gpu, const PredictOptions& opts, Plan& plan) {
  plan.kernels.clear();
  plan.group_nodes.clear();
  plan.notes.clear();
  plan.host_pre_s = plan.host_post_s = 0;
  plan.optimizer_first = -1;
  if (cost.nodes.size() != g.nodes.size())
    throw InternalError("predict: the cost analysis has " + std::to_string(cost.nodes.size()) + " nodes, the graph " +
                        std::to_string(g.nodes.size()));
  const bool training = opts.mode == Mode::training;
  if (training && opts.runtime == Runtime::tensorrt)
    throw InputError("--runtime tensorrt runs inference only; use --mode inference or --runtime pytorch|onnxruntime|cudnn");
  const bool fuse = !training && (opts.runtime == Runtime::tensorrt || opts.runtime == Runtime::onnxruntime);
  const bool eager = opts.runtime == Runtime::pytorch;
  const HostCosts host = host_costs(gpu, opts.runtime);
  const double scale = activation_scale(g, opts.precision);
  plan.activation_scale = scale;
  const bool has_tf32 = gpu.uses_tensor_cores(Precision::tf32);
  const double embedded = gpu.segment == "embedded" ? model::k_embedded_host_factor : 1.0;

  const int n_nodes = static_cast<int>(g.nodes.size());
  const int n_tensors = static_cast<int>(g.tensors.size());
  // consumers: count per tensor and the single consumer (or -1)
  std::vector<int> consumer_count(n_tensors, 0), single_consumer(n_tensors, -1);
  for (int j = 0; j < n_nodes; ++j)
    for (int t : g.nodes[j].inputs)
      if (t >= 0 && t < n_tensors) {
        if (consumer_count[t]++ == 0) single_consumer[t] = j;
        else single_consumer[t] = -1;
      }
  std::vector<char> done(n_nodes, 0);
  double pending_host = 0;
  bool noted_tf32 = false, noted_bias = false, noted_fp16 = false;

  if (opts.runtime == Runtime::tensorrt) plan.host_pre_s = model::k_tensorrt_enqueue_s * embedded;
  plan.host_post_s = model::k_sync_s * embedded;

  auto add_tf32_note = [&](const char* what) {
    if (!noted_tf32) {
      plan.notes.push_back(std::string("fp32 ") + what + " run on TF32 tensor cores (the runtime's default on sm_80+)");
      noted_tf32 = true;
    }
  };

  for (int i = 0; i < n_nodes; ++i) {
    if (done[i]) continue;
    const Node& node = g.nodes[i];
    const NodeCost& nc = cost.nodes[i];
    OpFamily fam = nc.family;
    if (fam == OpFamily::view || is_static(node.op) || (eager && fam == OpFamily::data_movement && is_torch_view(node.op))) {
      if (eager && !is_static(node.op)) pending_host += host.view;
      continue;
    }
    KernelDraft d;
    d.node_index = i;
    d.family = fam;
    d.group_begin = static_cast<int>(plan.group_nodes.size());
    plan.group_nodes.push_back(i);
    d.flops = nc.flops;
    double bytes = static_cast<double>(nc.bytes_read + nc.bytes_written);
    const bool matrix_family =
        fam == OpFamily::conv || fam == OpFamily::conv_transpose || fam == OpFamily::gemm;

    if (fuse && (matrix_family || fam == OpFamily::elementwise)) {
      bool residual_used = false;
      int cur = first_output(node);
      int nodes_in_group = 1;
      while (cur >= 0 && cur < n_tensors && !g.tensors[cur].is_graph_output && consumer_count[cur] == 1) {
        int j = single_consumer[cur];
        if (j <= i || done[j]) break;
        const Node& nj = g.nodes[j];
        const NodeCost& cj = cost.nodes[j];
        const double inter = tensor_bytes(g, cur);
        bool take = false;
        if (matrix_family) {
          if (nj.op == "BatchNormalization") {  // folded into the weights at build time
            bytes += -inter + static_cast<double>(cj.bytes_written);
            take = true;
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
        done[j] = 1;
        plan.group_nodes.push_back(j);
        ++nodes_in_group;
        cur = first_output(nj);
      }
      if (opts.runtime == Runtime::onnxruntime) d.host_s = host.op;  // one fused node
    }
    d.bytes = std::max(0.0, bytes) * scale;
    d.group_end = static_cast<int>(plan.group_nodes.size());

    if (fam == OpFamily::pool && (node.op == "MaxPool" || node.op == "AveragePool")) {
      int64_t window = 1;
      for (auto k : node.attr_ints("kernel_shape")) window *= k;
      d.windowed_pool = window > 1;
    }
    if (matrix_family) {
      d.matrix = nc.gemm.has_value();
      if (nc.gemm) d.gemm = *nc.gemm;
      d.tensor_ok = true;
      if (fam != OpFamily::gemm) {
        ConvFacts c = conv_facts(g, node);
        const double cin_g = c.cin > 0 ? c.cin / c.groups : 0;
        d.depthwise = c.groups > 1 && cin_g > 0 && cin_g <= 4;
        d.winograd = c.groups == 1 && c.kh == 3 && c.kw == 3 && c.sh == 1 && c.sw == 1 && c.dil == 1 &&
                     c.cin >= model::k_winograd_min_channels && c.cout >= model::k_winograd_min_channels;
        if (opts.precision == Precision::fp32 && has_tf32 && !d.depthwise) {
          d.conv_tf32 = true;
          add_tf32_note("convolutions");
        }
      } else if (opts.precision == Precision::fp32 && has_tf32 && opts.runtime == Runtime::tensorrt) {
        d.conv_tf32 = true;
        add_tf32_note("convolutions and GEMMs");
      }
    }

    if (fam == OpFamily::rnn) {
      // Input projection for all steps at once, then seq_len dependent steps of the recurrent GEMM.
      const Tensor* x = g.input(node, 0);
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
      d.host_s = pending_host + (eager ? host.op + host.matrix_extra : host.kernel);
      pending_host = 0;
      rec.host_s = host.kernel * rec.launches * (eager ? 0.5 : 1.0);
      plan.kernels.push_back(d);
      plan.kernels.push_back(rec);
      continue;
    }

    if (!fuse || opts.runtime != Runtime::onnxruntime) {
      switch (opts.runtime) {
        case Runtime::pytorch:
          d.host_s = is_arith(node.op) ? host.arith : host.op + (matrix_family ? host.matrix_extra : 0);
          break;
        default: d.host_s = host.kernel; break;
      }
    }
    if (fuse && opts.runtime == Runtime::onnxruntime && d.host_s == 0) d.host_s = host.op;
    d.host_s += pending_host;
    pending_host = 0;
    plan.kernels.push_back(d);

    // PyTorch eager / cuDNN: a conv bias is a separate per-channel kernel (cudnnAddTensor / add_). In graphs
    // exported with BatchNorm folded into the conv this stands for the BatchNorm kernel, which is what
    // eager runs; in training it is costed as BatchNorm (two passes).
    if (!fuse && (fam == OpFamily::conv || fam == OpFamily::conv_transpose) && node.inputs.size() >= 3 &&
        node.inputs[2] >= 0) {
      const double out = tensor_bytes(g, first_output(node)) * scale;
      KernelDraft b;
      b.node_index = i;
      b.group_begin = d.group_begin;
      b.group_end = d.group_end;
      b.family = training ? OpFamily::norm : OpFamily::elementwise;
      b.conv_bias = true;
      b.bytes = (training ? 3.0 : 2.0) * out;
      b.flops = (training ? 4.0 : 2.0) * out / element_bytes(opts.precision);
      b.host_s = eager ? host.op : host.kernel;
      plan.kernels.push_back(b);
      if (!noted_bias && eager) {
        plan.notes.push_back("conv bias costed as a separate per-channel kernel and op (PyTorch eager: bias add, "
                             "or the BatchNorm a conv+bias in an exported graph usually stands for)");
        noted_bias = true;
      }
    }
  }
  if (pending_host > 0 && !plan.kernels.empty()) plan.host_post_s += pending_host;

  if (opts.precision == Precision::fp16 || opts.precision == Precision::bf16) {
    if (!gpu.uses_tensor_cores(opts.precision) && !noted_fp16) {
      plan.notes.push_back(to_string(opts.precision) + " has no tensor-core path on " + gpu.id +
                           ": matrix math at max(packed " + to_string(opts.precision) + ", FP32) rate");
      noted_fp16 = true;
    }
  }

  if (!training) return;

  // ---- training: loss, backward, optimizer ------------------------------------------------------
  const int n_forward = static_cast<int>(plan.kernels.size());
  double out_bytes = 0;
  for (int t : g.outputs) out_bytes += tensor_bytes(g, t) * scale;
  const double bwd_host = eager ? host.backward : host.kernel;
  {
    KernelDraft l;
    l.family = OpFamily::softmax;
    l.phase = Phase::loss;
    l.launches = 2;  // log_softmax + nll_loss
    l.bytes = 2.0 * out_bytes;
    l.flops = 5.0 * out_bytes / element_bytes(opts.precision);
    l.host_s = eager ? 2 * host.op : 2 * host.kernel;
    plan.kernels.push_back(l);
    KernelDraft lb = l;
    lb.launches = 1;
    lb.host_s = eager ? host.op + bwd_host : host.kernel;  // loss.backward() call + first autograd node
    plan.kernels.push_back(lb);
  }
  for (int idx = n_forward - 1; idx >= 0; --idx) {
    const KernelDraft f = plan.kernels[idx];  // copy: push_back may reallocate
    const Node& node = g.nodes[f.node_index];
    const int out_t = first_output(node);
    // Gradient accumulation where the forward output fans out (residual branches).
    if (!f.conv_bias && out_t >= 0 && consumer_count[out_t] >= 2) {
      KernelDraft acc;
      acc.node_index = f.node_index;
      acc.group_begin = f.group_begin;
      acc.group_end = f.group_end;
      acc.family = OpFamily::elementwise;
      acc.phase = Phase::backward;
      acc.bytes = 3.0 * tensor_bytes(g, out_t) * scale * (consumer_count[out_t] - 1);
      acc.flops = acc.bytes / (3.0 * element_bytes(opts.precision));
      acc.launches = consumer_count[out_t] - 1;
      acc.host_s = bwd_host * acc.launches;
      plan.kernels.push_back(acc);
    }
    KernelDraft b = f;
    b.host_s = bwd_host;
    if (f.conv_bias) {
      b.phase = Phase::backward;
      plan.kernels.push_back(b);
      continue;
    }
    switch (f.family) {
      case OpFamily::conv:
      case OpFamily::conv_transpose:
      case OpFamily::gemm:
      case OpFamily::rnn: {
        const bool data_is_input = !node.inputs.empty() && node.inputs[0] >= 0 && g.tensors[node.inputs[0]].is_graph_input;
        if (f.family == OpFamily::rnn) {  // BPTT: the same steps twice (data and weight gradients)
          b.phase = Phase::backward;
          b.flops *= 2;
          b.bytes *= 2;
          if (f.serial_steps > 1) b.launches = f.launches * 2;
          plan.kernels.push_back(b);
          break;
        }
        const GemmShape s = f.gemm;
        if (!data_is_input) {
          KernelDraft dd = b;
          dd.phase = Phase::backward_data;
          dd.gemm = GemmShape{s.batch, s.m, s.k, s.n};
          dd.winograd = f.winograd;
          plan.kernels.push_back(dd);
        }
        const bool has_weight_grad = f.family != OpFamily::gemm || node.inputs.size() < 2 || node.inputs[1] < 0 ||
                                     !g.tensors[node.inputs[1]].is_graph_input;
        if (has_weight_grad) {
          KernelDraft dw = b;
          dw.phase = Phase::backward_weight;
          dw.gemm = GemmShape{s.batch, s.n, s.k, s.m};
          dw.winograd = false;  // weight gradients use implicit GEMM
          dw.host_s = eager ? host.inner : host.kernel;
          plan.kernels.push_back(dw);
        }
        break;
      }
      case OpFamily::elementwise: {
        if (node.op == "Add" || node.op == "Sub" || node.op == "Sum") break;  // gradient passes through
        b.phase = Phase::backward;
        b.bytes = f.bytes * (node.inputs.size() >= 2 ? 2.0 : 1.5);
        b.flops = f.flops * 2;
        plan.kernels.push_back(b);
        break;
      }
      case OpFamily::data_movement:
        if (node.op == "Concat" || node.op == "Split") break;  // views of the gradient
        b.phase = Phase::backward;
        plan.kernels.push_back(b);
        break;
      case OpFamily::norm:
      case OpFamily::pool:
      case OpFamily::unknown:
        b.phase = Phase::backward;
        b.bytes = f.bytes * 2;
        b.flops = f.flops * 2;
        plan.kernels.push_back(b);
        break;
      case OpFamily::softmax:
        b.phase = Phase::backward;
        b.bytes = f.bytes * 1.5;
        b.flops = f.flops * 2;
        plan.kernels.push_back(b);
        break;
      default:
        b.phase = Phase::backward;
        plan.kernels.push_back(b);
        break;
    }
  }

  if (opts.optimizer == Optimizer::none) return;
  // Parameter tensors: float weights consumed by nodes (BatchNorm: scale and bias only).
  int passes_rw = 0, kernels_per_tensor = 1;
  switch (opts.optimizer) {
    case Optimizer::sgd: passes_rw = 3; kernels_per_tensor = 1; break;        // read w, g; write w
    case Optimizer::momentum: passes_rw = 5; kernels_per_tensor = 2; break;   // + read/write buffer
    case Optimizer::adam: passes_rw = 7; kernels_per_tensor = 5; break;       // w, g, m, v read; w, m, v write
    case Optimizer::none: break;
  }
  plan.optimizer_first = static_cast<int>(plan.kernels.size());
  std::vector<char> seen(n_tensors, 0);
  double total_elems = 0;
  int tensors = 0;
  for (int i = 0; i < n_nodes; ++i) {
    const Node& node = g.nodes[i];
    const size_t last = node.op == "BatchNormalization" ? 3 : node.inputs.size();
    for (size_t s = 1; s < std::min(last, node.inputs.size()); ++s) {
      const int t = node.inputs[s];
      if (t < 0 || seen[t] || !g.tensors[t].is_initializer || !is_float(g.tensors[t].dtype)) continue;
      seen[t] = 1;
      auto ne = g.tensors[t].numel();
      if (!ne || *ne <= 0) continue;
      const double elems = static_cast<double>(*ne);
      total_elems += elems;
      ++tensors;
      if (eager) {  // torch.optim in torch 1.x: a Python loop with a few kernels per parameter tensor
        KernelDraft o;
        o.family = OpFamily::elementwise;
        o.phase = Phase::optimizer;
        o.launches = kernels_per_tensor;
        o.bytes = passes_rw * 4.0 * elems;
        o.flops = 2.0 * kernels_per_tensor * elems;
        o.host_s = host.optimizer * kernels_per_tensor;
        plan.kernels.push_back(o);
      }
    }
  }
  if (!eager && total_elems > 0) {  // one multi-tensor kernel per pass
    KernelDraft o;
    o.family = OpFamily::elementwise;
    o.phase = Phase::optimizer;
    o.launches = kernels_per_tensor;
    o.bytes = passes_rw * 4.0 * total_elems;
    o.flops = 2.0 * kernels_per_tensor * total_elems;
    o.host_s = host.kernel * kernels_per_tensor;
    plan.kernels.push_back(o);
  }
  if (plan.optimizer_first == static_cast<int>(plan.kernels.size())) plan.optimizer_first = -1;
  (void)tensors;
}

}  // namespace perfpred::detail
