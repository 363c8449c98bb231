// Ops measured with the harness's own kernels (kernels.cu): activations, elementwise, softmax and
// layer norm, the ops frameworks implement outside cuDNN.
#include "check.hpp"
#include "context.hpp"

namespace perfpred::cuda {

namespace {

Activation activation_of(const std::string& f) {
  if (f == "relu") return Activation::relu;
  if (f == "sigmoid") return Activation::sigmoid;
  if (f == "tanh") return Activation::tanh;
  if (f == "gelu") return Activation::gelu;
  throw Unsupported("activation '" + f + "' has no kernel");
}

}  // namespace

Prepared prepare_kernels(Context& c, const PlanEntry& e) {
  Prepared p;
  p.runtime = "cuda";
  p.runtime_version = c.cuda_version;
  const ElemType et = elem_type(e.precision);
  cudaStream_t s = c.stream;
  if (e.op_kind == "activation") {
    const int64_t n = e.param("elements");
    Activation f = activation_of(e.label("function"));
    void* x = alloc_filled(p, et, n, 1, s);
    void* y = alloc(p, n * elem_size(et));
    if (e.phase == "forward") {
      p.run = [=] { launch_activation_forward(f, et, x, y, n, s); };
    } else {
      void* dy = alloc_filled(p, et, n, 2, s);
      p.run = [=] { launch_activation_backward(f, et, x, dy, y, n, s); };
    }
    return p;
  }
  if (e.op_kind == "elementwise") {
    const int64_t n = e.param("elements");
    Binary op = e.label("function") == "add" ? Binary::add : Binary::mul;
    void* a = alloc_filled(p, et, n, 1, s);
    void* b = alloc_filled(p, et, n, 2, s);
    void* out = alloc(p, n * elem_size(et));
    p.run = [=] { launch_binary(op, et, a, b, out, n, s); };
    return p;
  }
  if (e.op_kind == "softmax") {
    const int64_t rows = e.param("rows"), cols = e.param("cols");
    void* x = alloc_filled(p, et, rows * cols, 1, s);
    void* y = alloc(p, rows * cols * elem_size(et));
    if (e.phase == "forward") {
      p.run = [=] { launch_softmax_forward(et, x, y, rows, cols, s); };
    } else {
      launch_softmax_forward(et, x, y, rows, cols, s);
      void* dy = alloc_filled(p, et, rows * cols, 2, s);
      p.run = [=] { launch_softmax_backward(et, y, dy, x, rows, cols, s); };
    }
    return p;
  }
  if (e.op_kind == "layer_norm") {
    const int64_t rows = e.param("rows"), cols = e.param("hidden");
    void* x = alloc_filled(p, et, rows * cols, 1, s);
    void* gamma = alloc_filled(p, et, cols, 2, s);
    void* beta = alloc_filled(p, et, cols, 3, s);
    void* y = alloc(p, rows * cols * elem_size(et));
    auto* mean = static_cast<float*>(alloc(p, rows * 4));
    auto* rstd = static_cast<float*>(alloc(p, rows * 4));
    if (e.phase == "forward") {
      p.run = [=] { launch_layer_norm_forward(et, x, gamma, beta, y, mean, rstd, rows, cols, s); };
    } else {
      launch_layer_norm_forward(et, x, gamma, beta, y, mean, rstd, rows, cols, s);
      void* dy = alloc_filled(p, et, rows * cols, 4, s);
      auto* dgamma = static_cast<float*>(alloc(p, cols * 4));
      auto* dbeta = static_cast<float*>(alloc(p, cols * 4));
      p.notes.push_back("two kernels: dx (row-wise), dgamma/dbeta (column reduction)");
      p.run = [=] { launch_layer_norm_backward(et, x, dy, gamma, mean, rstd, y, dgamma, dbeta, rows, cols, s); };
    }
    return p;
  }
  throw Unsupported("no kernel for op kind '" + e.op_kind + "'");
}

}  // namespace perfpred::cuda
