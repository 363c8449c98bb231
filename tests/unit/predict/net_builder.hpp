#pragma once
// Test support: build small graphs together with their cost analysis by hand, so the predictor's
// tests do not depend on the importer or the analysis module.
#include <cstdint>
#include <string>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/core/graph.hpp"

namespace perfpred::test {

class NetBuilder {
 public:
  Graph g;
  GraphCost c;

  int input(const std::string& name, std::vector<int64_t> shape) {
    Tensor t;
    t.name = name;
    t.dtype = DType::f32;
    t.shape = std::move(shape);
    t.has_shape = true;
    t.is_graph_input = true;
    int id = g.add_tensor(t);
    g.inputs.push_back(id);
    return id;
  }
  void output(int t) {
    g.tensors[t].is_graph_output = true;
    g.outputs.push_back(t);
  }
  int weight(std::vector<int64_t> shape) {
    Tensor t;
    t.name = "w" + std::to_string(g.tensors.size());
    t.dtype = DType::f32;
    t.shape = std::move(shape);
    t.has_shape = true;
    t.is_initializer = true;
    return g.add_tensor(t);
  }
  const std::vector<int64_t>& shape(int t) const { return g.tensors[t].shape; }
  int64_t numel(int t) const { return *g.tensors[t].numel(); }

  int conv(int x, int64_t cout, int64_t k, int64_t stride = 1, bool bias = false, int64_t groups = 1) {
    auto s = shape(x);
    const int64_t n = s[0], cin = s[1], h = s[2], w = s[3];
    const int64_t oh = (h + 2 * (k / 2) - k) / stride + 1, ow = (w + 2 * (k / 2) - k) / stride + 1;
    int wt = weight({cout, cin / groups, k, k});
    std::vector<int> ins{x, wt};
    if (bias) ins.push_back(weight({cout}));
    int y = tensor({n, cout, oh, ow});
    Node& nd = node("Conv", ins, y);
    nd.attrs["group"] = groups;
    nd.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
    nd.attrs["strides"] = std::vector<int64_t>{stride, stride};
    NodeCost& nc = cost(OpFamily::conv);
    const int64_t kk = cin / groups * k * k;
    nc.gemm = GemmShape{groups, n * oh * ow, cout / groups, kk};
    nc.flops = 2.0 * n * oh * ow * cout * kk;
    nc.params = numel(wt) + (bias ? cout : 0);
    nc.weight_bytes = nc.params * 4;
    nc.bytes_read = numel(x) * 4 + nc.weight_bytes;
    nc.bytes_written = numel(y) * 4;
    nc.attrs = {{"kernel_h", double(k)}, {"kernel_w", double(k)}, {"stride_h", double(stride)},
                {"groups", double(groups)}, {"in_channels", double(cin)}, {"out_channels", double(cout)}};
    return y;
  }
  int bn(int x) {
    auto s = shape(x);
    std::vector<int> ins{x};
    for (int i = 0; i < 4; ++i) ins.push_back(weight({s[1]}));
    int y = tensor(s);
    node("BatchNormalization", ins, y);
    NodeCost& nc = cost(OpFamily::norm);
    nc.flops = 2.0 * numel(x);
    nc.params = 2 * s[1];
    nc.weight_bytes = 16 * s[1];
    nc.bytes_read = numel(x) * 4 + nc.weight_bytes;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  int unary(const std::string& op, int x, OpFamily fam = OpFamily::elementwise) {
    int y = tensor(shape(x));
    node(op, {x}, y);
    NodeCost& nc = cost(fam);
    nc.flops = fam == OpFamily::view ? 0 : double(numel(x));
    nc.bytes_read = fam == OpFamily::view ? 0 : numel(x) * 4;
    nc.bytes_written = fam == OpFamily::view ? 0 : numel(y) * 4;
    return y;
  }
  int relu(int x) { return unary("Relu", x); }
  /// Unidirectional LSTM over x [seq, batch, in] with `hidden` units: Y [seq, 1, batch, hidden].
  int lstm(int x, int64_t hidden) {
    auto s = shape(x);
    const int64_t seq = s[0], batch = s[1], in = s[2];
    int w = weight({1, 4 * hidden, in}), r = weight({1, 4 * hidden, hidden});
    int y = tensor({seq, 1, batch, hidden});
    Node& nd = node("LSTM", {x, w, r}, y);
    nd.attrs["hidden_size"] = hidden;
    NodeCost& nc = cost(OpFamily::rnn);
    nc.flops = 2.0 * seq * batch * 4 * hidden * (in + hidden);
    nc.params = numel(w) + numel(r);
    nc.weight_bytes = nc.params * 4;
    nc.bytes_read = numel(x) * 4 + nc.weight_bytes;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  /// A shape-arithmetic node (Shape, Gather, Unsqueeze, Div on sizes) whose int64 output is known at import.
  int shape_value(const std::string& op, int x, std::vector<int64_t> values, OpFamily fam) {
    int y = tensor({static_cast<int64_t>(values.size())});
    g.tensors[y].dtype = DType::i64;
    g.tensors[y].int_values = std::move(values);
    node(op, {x}, y);
    cost(fam);
    return y;
  }
  int add(int a, int b) {
    int y = tensor(shape(a));
    node("Add", {a, b}, y);
    NodeCost& nc = cost(OpFamily::elementwise);
    nc.flops = double(numel(a));
    nc.bytes_read = 2 * numel(a) * 4;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  int pool(const std::string& op, int x, int64_t k, int64_t stride) {
    auto s = shape(x);
    std::vector<int64_t> o{s[0], s[1], op == "GlobalAveragePool" ? 1 : (s[2] - k) / stride + 1,
                           op == "GlobalAveragePool" ? 1 : (s[3] - k) / stride + 1};
    int y = tensor(o);
    node(op, {x}, y);
    NodeCost& nc = cost(OpFamily::pool);
    nc.flops = double(numel(x));
    nc.bytes_read = numel(x) * 4;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  int flatten(int x) {
    auto s = shape(x);
    int64_t rest = 1;
    for (size_t i = 1; i < s.size(); ++i) rest *= s[i];
    int y = tensor({s[0], rest});
    node("Flatten", {x}, y);
    cost(OpFamily::view);
    return y;
  }
  /// Linear layer (Gemm with weight [n_out, k] and bias) or a plain MatMul of [m,k] x [k,n] weights.
  int gemm(int x, int64_t n_out, bool bias = true) {
    auto s = shape(x);
    const int64_t m = s[0], k = s[1];
    int wt = weight({n_out, k});
    std::vector<int> ins{x, wt};
    if (bias) ins.push_back(weight({n_out}));
    int y = tensor({m, n_out});
    node("Gemm", ins, y).attrs["transB"] = int64_t{1};  // x W^T, as torch.onnx writes F.linear on a 2-D input
    NodeCost& nc = cost(OpFamily::gemm);
    nc.gemm = GemmShape{1, m, n_out, k};
    nc.flops = 2.0 * m * n_out * k;
    nc.params = n_out * k + (bias ? n_out : 0);
    nc.weight_bytes = nc.params * 4;
    nc.bytes_read = numel(x) * 4 + nc.weight_bytes;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  /// MatMul of an N-D activation [..., k] by a [k, n_out] weight, as torch.onnx writes nn.Linear on N-D input
  /// (its bias is a following add(y, weight({n_out}))).
  int matmul(int x, int64_t n_out) { return matmul_by(x, weight({shape(x).back(), n_out}), n_out); }
  /// MatMul of an N-D activation [..., k] by the [k, n_out] tensor `wt` (a weight, or a layout change of one).
  int matmul_by(int x, int wt, int64_t n_out) {
    auto s = shape(x);
    const int64_t k = s.back();
    int64_t m = 1;
    for (size_t i = 0; i + 1 < s.size(); ++i) m *= s[i];
    s.back() = n_out;
    int y = tensor(s);
    node("MatMul", {x, wt}, y);
    NodeCost& nc = cost(OpFamily::gemm);
    nc.gemm = GemmShape{1, m, n_out, k};
    nc.flops = 2.0 * m * n_out * k;
    nc.params = k * n_out;
    nc.weight_bytes = nc.params * 4;
    nc.bytes_read = numel(x) * 4 + nc.weight_bytes;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  /// nn.LayerNorm over the last dim as one LayerNormalization node (opset 17), with its scale and bias.
  int layer_norm(int x) {
    const int64_t d = shape(x).back();
    int y = tensor(shape(x));
    node("LayerNormalization", {x, weight({d}), weight({d})}, y);
    NodeCost& nc = cost(OpFamily::norm);
    nc.flops = 5.0 * numel(x);
    nc.params = 2 * d;
    nc.weight_bytes = 8 * d;
    nc.bytes_read = numel(x) * 4 + nc.weight_bytes;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  /// nn.Linear without bias as export_params=False writes it: MatMul(x, Transpose(W)) with W [n_out, k].
  int transposed_linear(int x, int64_t n_out) {
    const int64_t k = shape(x).back();
    int w = weight({n_out, k});
    int wt = tensor({k, n_out});
    node("Transpose", {w}, wt).attrs["perm"] = std::vector<int64_t>{1, 0};
    cost(OpFamily::data_movement);
    return matmul_by(x, wt, n_out);
  }
  /// nn.Embedding: Gather(table [vocab, dim], ids) with int64 ids [batch, seq].
  int embedding(int ids, int64_t vocab, int64_t dim) {
    int table = weight({vocab, dim});
    auto s = shape(ids);
    s.push_back(dim);
    int y = tensor(s);
    node("Gather", {table, ids}, y);
    NodeCost& nc = cost(OpFamily::data_movement);
    nc.bytes_read = numel(y) * 4 + numel(ids) * 8;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  /// MatMul of two activations [..., m, k] x [..., k, n] (attention's Q K^T and P V).
  int bmm(int a, int b) {
    auto sa = shape(a), sb = shape(b);
    int64_t batch = 1;
    for (size_t i = 0; i + 2 < sa.size(); ++i) batch *= sa[i];
    const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
    auto so = sa;
    so.back() = n;
    int y = tensor(so);
    node("MatMul", {a, b}, y);
    NodeCost& nc = cost(OpFamily::gemm);
    nc.gemm = GemmShape{batch, m, n, k};
    nc.flops = 2.0 * batch * m * n * k;
    nc.bytes_read = (numel(a) + numel(b)) * 4;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  /// A binary elementwise op of an activation and a constant (a scale).
  int scale(const std::string& op, int x) {
    int y = tensor(shape(x));
    node(op, {x, weight({1})}, y);
    NodeCost& nc = cost(OpFamily::elementwise);
    nc.flops = double(numel(x));
    nc.bytes_read = numel(x) * 4;
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  /// Where(cond, fill constant, x): masked_fill as torch.onnx writes it (the causal mask of attention).
  int masked_fill(int cond, int x) {
    int y = tensor(shape(x));
    node("Where", {cond, weight({1}), x}, y);
    NodeCost& nc = cost(OpFamily::elementwise);
    nc.flops = double(numel(x));
    nc.bytes_read = numel(x) * 4 + numel(cond);
    nc.bytes_written = numel(y) * 4;
    return y;
  }
  void finish() {
    c.total_flops = 0;
    c.total_params = 0;
    for (auto& n : c.nodes) {
      c.total_flops += n.flops;
      c.total_params += n.params;
      c.total_bytes_read += n.bytes_read;
      c.total_bytes_written += n.bytes_written;
    }
  }

 private:
  int tensor(std::vector<int64_t> shape) {
    Tensor t;
    t.name = "t" + std::to_string(g.tensors.size());
    t.dtype = DType::f32;
    t.shape = std::move(shape);
    t.has_shape = true;
    return g.add_tensor(t);
  }
  Node& node(const std::string& op, std::vector<int> ins, int out) {
    Node n;
    n.name = op + "_" + std::to_string(g.nodes.size());
    n.op = op;
    n.inputs = std::move(ins);
    n.outputs = {out};
    g.nodes.push_back(std::move(n));
    return g.nodes.back();
  }
  NodeCost& cost(OpFamily f) {
    NodeCost nc;
    nc.node_index = static_cast<int>(g.nodes.size()) - 1;
    nc.name = g.nodes.back().name;
    nc.op = g.nodes.back().op;
    nc.family = f;
    c.nodes.push_back(std::move(nc));
    return c.nodes.back();
  }
};

/// A ResNet-ish CNN: stem, `blocks` residual basic blocks per stage over 3 stages, classifier.
inline NetBuilder resnet_like(int64_t batch, int64_t width = 64, int blocks = 2, int64_t image = 224) {
  NetBuilder b;
  int x = b.input("input", {batch, 3, image, image});
  x = b.relu(b.bn(b.conv(x, width, 7, 2)));
  x = b.pool("MaxPool", x, 3, 2);
  int64_t c = width;
  for (int stage = 0; stage < 3; ++stage) {
    for (int i = 0; i < blocks; ++i) {
      const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      const int64_t cout = (stage > 0 && i == 0) ? c * 2 : c;
      int y = b.relu(b.bn(b.conv(x, cout, 3, stride)));
      y = b.bn(b.conv(y, cout, 3, 1));
      int skip = (stride != 1 || cout != c) ? b.bn(b.conv(x, cout, 1, stride)) : x;
      x = b.relu(b.add(y, skip));
      c = cout;
    }
  }
  x = b.flatten(b.pool("GlobalAveragePool", x, 0, 1));
  x = b.gemm(x, 1000);
  b.output(x);
  b.finish();
  return b;
}

/// A NAS-Bench-201-sized cell network at 32x32: 3 stages x `cells` cells x 6 ReLU-Conv-BN edges.
inline NetBuilder nb201_like(int64_t batch, int cells = 5, int64_t width = 16) {
  NetBuilder b;
  int x = b.input("input", {batch, 3, 32, 32});
  x = b.bn(b.conv(x, width, 3, 1));
  int64_t c = width;
  for (int stage = 0; stage < 3; ++stage) {
    if (stage > 0) {
      c *= 2;
      int y = b.bn(b.conv(b.relu(x), c, 3, 2));
      y = b.bn(b.conv(b.relu(y), c, 3, 1));
      int s = b.conv(b.pool("AveragePool", x, 2, 2), c, 1, 1);
      x = b.add(y, s);
    }
    for (int cell = 0; cell < cells; ++cell) {
      std::vector<int> nodes{x};
      for (int to = 1; to < 4; ++to) {
        int sum = -1;
        for (int from = 0; from < to; ++from) {
          int e = b.bn(b.conv(b.relu(nodes[from]), c, 3, 1));
          sum = sum < 0 ? e : b.add(sum, e);
        }
        nodes.push_back(sum);
      }
      x = nodes.back();
    }
  }
  x = b.relu(b.bn(x));
  x = b.flatten(b.pool("GlobalAveragePool", x, 0, 1));
  x = b.gemm(x, 10);
  b.output(x);
  b.finish();
  return b;
}

/// One big MatMul-like linear layer without bias: [m,k] x [k,n].
inline NetBuilder big_gemm(int64_t m, int64_t n, int64_t k) {
  NetBuilder b;
  int x = b.input("input", {m, k});
  x = b.gemm(x, n, false);
  b.output(x);
  b.finish();
  return b;
}

}  // namespace perfpred::test
