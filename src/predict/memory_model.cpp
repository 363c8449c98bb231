// Peak device memory: weights, gradients and optimizer state, peak live activations from tensor
// liveness over the execution order, cuDNN/cuBLAS workspace, and the runtime's context.
#include <algorithm>
#include <cmath>

#include "memory_model.hpp"
#include "model_constants.hpp"

namespace perfpred::detail {

namespace {

bool is_float(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64; }

/// Ops whose output aliases their first input (no new storage).
bool aliases_input(const Node& n, OpFamily f) {
  return f == OpFamily::view || n.op == "Reshape" || n.op == "Flatten" || n.op == "Squeeze" ||
         n.op == "Unsqueeze" || n.op == "Identity" || n.op == "Dropout";
}

/// Which inputs (bit i) and whether the output (bit 30) PyTorch autograd saves for backward.
unsigned saved_mask(const Node& n, OpFamily f, bool conv_bias) {
  constexpr unsigned k_out = 1u << 30;
  switch (f) {
    case OpFamily::conv:
    case OpFamily::conv_transpose: return 1u | (conv_bias ? k_out : 0u);  // input; BN after it saves its input
    case OpFamily::gemm: return 1u | 2u;
    case OpFamily::norm: return 1u;
    case OpFamily::pool: return (n.op == "MaxPool") ? (1u | k_out) : 1u;
    case OpFamily::softmax: return k_out;
    case OpFamily::rnn: return 1u | k_out;
    case OpFamily::elementwise:
      if (n.op == "Add" || n.op == "Sub" || n.op == "Sum") return 0;
      if (n.op == "Mul" || n.op == "Div" || n.op == "Pow" || n.op == "MatMul") return 1u | 2u;
      return k_out;  // activations save their output (or input: same size)
    case OpFamily::reduce: return 1u;
    default: return 0;
  }
}

}  // namespace

MemoryBreakdown estimate_memory(const Graph& g, const GraphCost& cost, const Plan& plan, const GpuSpec& gpu,
                                const PredictOptions& opts) {
  MemoryBreakdown m;
  const bool training = opts.mode == Mode::training;
  const bool mixed = opts.precision == Precision::fp16 || opts.precision == Precision::bf16;
  const int n_tensors = static_cast<int>(g.tensors.size());
  const int n_nodes = static_cast<int>(g.nodes.size());

  // ---- weights and optimizer state ------------------------------------------------------------
  double float_param_elems = 0, other_weight_bytes = 0;
  for (const auto& t : g.tensors) {
    if (!t.is_initializer) continue;
    auto ne = t.numel();
    if (!ne || *ne <= 0) continue;
    if (is_float(t.dtype)) float_param_elems += static_cast<double>(*ne);
    else other_weight_bytes += static_cast<double>(*ne) * static_cast<double>(dtype_bits(t.dtype)) / 8;
  }
  if (training) {
    // fp32 master weights; autocast keeps fp16/bf16 copies of the weights for the step. A half model
    // (model.half(), --mixed-precision half) keeps weights, gradients and optimizer state in half.
    const bool half_model = mixed && opts.runtime == Runtime::pytorch && !opts.autocast;
    const double state_bytes = half_model ? element_bytes(opts.precision) : 4.0;
    m.weights_bytes = float_param_elems * (half_model ? state_bytes : 4.0 + (mixed ? 2.0 : 0.0)) + other_weight_bytes;
    double state_per_elem = state_bytes;  // gradients
    if (opts.optimizer == Optimizer::momentum) state_per_elem += state_bytes;
    if (opts.optimizer == Optimizer::adam) state_per_elem += 2 * state_bytes;
    m.optimizer_state_bytes = float_param_elems * state_per_elem;
  } else {
    m.weights_bytes = float_param_elems * element_bytes(opts.precision) + other_weight_bytes;
  }

  // ---- activations: liveness over the execution order ------------------------------------------
  const double scale = plan.activation_scale;
  std::vector<int> root(n_tensors);
  for (int t = 0; t < n_tensors; ++t) root[t] = t;
  std::vector<double> size(n_tensors, 0);
  for (int t = 0; t < n_tensors; ++t) {
    const Tensor& tt = g.tensors[t];
    if (tt.is_initializer) continue;
    auto b = tt.bytes();
    if (!b) continue;
    size[t] = static_cast<double>(*b) * (is_float(tt.dtype) ? scale : 1.0);
  }
  // Fused intermediates never materialise.
  std::vector<char> internal(n_tensors, 0);
  for (const auto& k : plan.kernels) {
    if (k.phase != Phase::forward || k.group_end - k.group_begin < 2) continue;
    for (int p = k.group_begin; p + 1 < k.group_end; ++p)
      for (int t : g.nodes[plan.group_nodes[p]].outputs)
        if (t >= 0) internal[t] = 1;
  }
  std::vector<char> conv_bias_node(n_nodes, 0);
  // PyTorch's MaxPool indices (int64, one per output): no graph tensor holds them. Inference drops them as the
  // op returns; training saves them for the backward, as it does the pool's input.
  std::vector<double> index_bytes(n_nodes, 0);
  for (const auto& k : plan.kernels) {
    if (k.node_index < 0 || k.node_index >= n_nodes) continue;
    if (k.conv_bias) conv_bias_node[k.node_index] = 1;
    if (k.phase == Phase::forward) index_bytes[k.node_index] += k.pool_index_bytes;
  }

  std::vector<int> last_use(n_tensors, -1);
  for (int i = 0; i < n_nodes; ++i) {
    const Node& n = g.nodes[i];
    if (aliases_input(n, cost.nodes[i].family) && !n.inputs.empty() && n.inputs[0] >= 0)
      for (int t : n.outputs)
        if (t >= 0) root[t] = root[n.inputs[0]];
    for (int t : n.inputs)
      if (t >= 0) last_use[root[t]] = std::max(last_use[root[t]], i);
  }
  for (int t : g.outputs)
    if (t >= 0) last_use[root[t]] = n_nodes;  // kept until returned

  std::vector<char> saved(n_tensors, 0);
  std::vector<int> free_after_bwd(n_tensors, n_nodes);  // earliest saver: freed after its backward
  if (training) {
    for (int i = 0; i < n_nodes; ++i) {
      const Node& n = g.nodes[i];
      const unsigned mask = saved_mask(n, cost.nodes[i].family, conv_bias_node[i] != 0);
      for (size_t s = 0; s < n.inputs.size() && s < 30; ++s) {
        const int t = n.inputs[s];
        // A fused kernel's intermediates (attention scores, an activation's inner terms) are never stored: the
        // fused op saves its own inputs and output instead.
        if ((mask >> s & 1u) && t >= 0 && !g.tensors[t].is_initializer && !g.tensors[t].is_graph_input &&
            !internal[root[t]]) {
          saved[root[t]] = 1;
          free_after_bwd[root[t]] = std::min(free_after_bwd[root[t]], i);
        }
      }
      if (mask & (1u << 30))
        for (int t : n.outputs)
          if (t >= 0 && !internal[root[t]]) {
            saved[root[t]] = 1;
            free_after_bwd[root[t]] = std::min(free_after_bwd[root[t]], i);
          }
    }
  }

  double live = 0, peak = 0;
  for (int t : g.inputs)
    if (t >= 0) live += size[t];
  peak = live;
  std::vector<char> allocated(n_tensors, 0);
  for (int i = 0; i < n_nodes; ++i) {
    const Node& n = g.nodes[i];
    for (int t : n.outputs)
      if (t >= 0 && root[t] == t && !internal[t] && !allocated[t]) {
        allocated[t] = 1;
        live += size[t];
      }
    live += index_bytes[i];
    peak = std::max(peak, live);
    if (!training) live -= index_bytes[i];
    for (int t : n.inputs) {
      if (t < 0) continue;
      const int r = root[t];
      if (last_use[r] == i && !saved[r] && !g.tensors[r].is_initializer && (allocated[r] || g.tensors[r].is_graph_input)) {
        live -= size[r];
        last_use[r] = -2;  // freed
      }
    }
    for (int t : n.outputs)  // outputs nobody reads
      if (t >= 0 && root[t] == t && allocated[t] && last_use[t] == -1 && !saved[t]) {
        live -= size[t];
        last_use[t] = -2;
      }
  }
  if (training) {
    // Backward in reverse: gradients of a node's inputs appear at its backward; gradients of its
    // outputs and the activations it saved are freed after it.
    std::vector<char> grad_live(n_tensors, 0);
    for (int t : g.outputs)
      if (t >= 0) {
        grad_live[root[t]] = 1;
        live += size[root[t]];
      }
    peak = std::max(peak, live);
    for (int i = n_nodes - 1; i >= 0; --i) {
      const Node& n = g.nodes[i];
      if (aliases_input(n, cost.nodes[i].family)) continue;
      for (int t : n.inputs) {
        if (t < 0) continue;
        const int r = root[t];
        if (g.tensors[r].is_initializer || g.tensors[r].is_graph_input || grad_live[r] || internal[r]) continue;
        grad_live[r] = 1;
        live += size[r];
      }
      peak = std::max(peak, live);
      for (int t : n.outputs) {
        if (t < 0) continue;
        const int r = root[t];
        if (grad_live[r] == 1) {
          grad_live[r] = 2;
          live -= size[r];
        }
      }
      for (int t : n.inputs) {
        if (t < 0) continue;
        const int r = root[t];
        if (saved[r] && free_after_bwd[r] == i) {
          saved[r] = 0;
          live -= size[r];
        }
      }
      for (int t : n.outputs)
        if (t >= 0 && saved[root[t]] && free_after_bwd[root[t]] == i) {
          saved[root[t]] = 0;
          live -= size[root[t]];
        }
      live -= index_bytes[i];
    }
    peak *= model::k_allocator_slack;
  }
  m.activations_bytes = std::max(0.0, peak);

  // ---- workspace ------------------------------------------------------------------------------
  double ws = 0;
  bool any_gemm = false, any_conv = false;
  for (int i = 0; i < n_nodes; ++i) {
    const OpFamily f = cost.nodes[i].family;
    if (f == OpFamily::conv || f == OpFamily::conv_transpose) {
      any_conv = true;
      const NodeCost& c = cost.nodes[i];
      const double io = static_cast<double>(c.bytes_read - c.weight_bytes + c.bytes_written) * scale;
      ws = std::max(ws, std::min(model::k_conv_workspace_cap_bytes, model::k_conv_workspace_share * io));
    } else if (f == OpFamily::gemm || f == OpFamily::rnn) {
      any_gemm = true;
    }
  }
  if (any_gemm) ws += model::k_cublas_workspace_bytes;
  m.workspace_bytes = ws;

  // ---- context --------------------------------------------------------------------------------
  if (gpu.segment == "embedded") m.context_bytes = model::k_context_embedded_bytes;
  else switch (opts.runtime) {
      case Runtime::pytorch:
        m.context_bytes = model::k_context_pytorch_bytes + (any_conv ? model::k_context_pytorch_cudnn_conv_bytes : 0.0);
        break;
      case Runtime::onnxruntime: m.context_bytes = model::k_context_onnxruntime_bytes; break;
      case Runtime::tensorrt: m.context_bytes = model::k_context_tensorrt_bytes; break;
      case Runtime::cudnn: m.context_bytes = model::k_context_cudnn_bytes; break;
    }
  return m;
}

}  // namespace perfpred::detail
