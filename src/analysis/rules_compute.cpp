// Cost rules of the compute-heavy families: conv, conv_transpose, gemm (Gemm, MatMul, Einsum), rnn.
// Conventions (a multiply-add counts 2 FLOPs):
//   Conv          2 * N * K * prod(out_spatial) * C/groups * prod(kernel)  (+ N*K*prod(out_spatial) with a bias)
//                 implicit GEMM: batch = groups, m = N*prod(out_spatial), n = K/groups, k = C/groups*prod(kernel)
//   ConvTranspose 2 * N * C * prod(in_spatial) * K/groups * prod(kernel)   (+ N*K*prod(out_spatial) with a bias)
//                 GEMM + col2im: batch = groups, m = N*prod(in_spatial), n = K/groups*prod(kernel), k = C/groups
//   Gemm          2*M*N*K (+ M*N when C is given); MatMul 2*batch*M*N*K with numpy broadcasting of batch dims
//   Einsum        two operands: 2 * product of the sizes of all distinct indices (ellipsis dims included;
//                 GEMM view: batch = indices in both operands and the output, and kept ellipsis dims);
//                 more operands: contracted left to right, each step costed the same way; one operand:
//                 product of all index sizes when it reduces (family reduce), 0 for a pure permutation
//                 (family data_movement)
//   LSTM/GRU/RNN  per step, direction and batch row: 2*gates*H*(I+H) for the two matrix products,
//                 2*gates*H for the two bias vectors when B is given, and the gate elementwise work:
//                 LSTM 24*H (3 sigmoids and 1 tanh on the gates, 4 each; c = f*c + i*g 3; h = o*tanh(c) 5),
//                 GRU 16*H (2 sigmoids 8, tanh 4, reset product 1, blend 3), RNN 4*H (tanh).
//                 GEMM view per step: batch 1, m = batch, n = gates*H, k = I+H.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "perfpred/util/checked_math.hpp"
#include "perfpred/util/strings.hpp"
#include "rules.hpp"

namespace perfpred::analysis_detail {

namespace {

// Leading pads per spatial dim, honouring auto_pad SAME_UPPER / SAME_LOWER.
SmallInts conv_pads(const Node& node, std::span<const int64_t> in, std::span<const int64_t> out,
                    std::span<const int64_t> kernel, std::span<const int64_t> strides,
                    std::span<const int64_t> dilations) {
  size_t n = in.size();
  const std::string* auto_pad = string_attr(node, "auto_pad");
  if (!auto_pad || *auto_pad == "NOTSET") return leading_pads(node, n);
  SmallInts pads;
  pads.n = n;
  if (*auto_pad == "SAME_UPPER" || *auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      // In double: attribute values come from the file and must not overflow.
      double total = static_cast<double>(out[i] - 1) * static_cast<double>(strides[i]) +
                     static_cast<double>(kernel[i] - 1) * static_cast<double>(dilations[i]) + 1 -
                     static_cast<double>(in[i]);
      total = std::clamp(total, 0.0, 9.0e18);
      double lead = *auto_pad == "SAME_UPPER" ? std::floor(total / 2) : std::ceil(total / 2);
      pads.v[i] = static_cast<int64_t>(lead);
    }
  }
  return pads;
}

void set_conv_attrs(RuleContext& ctx, OpFamily family, double batch, double cin, double cout, double groups,
                    std::span<const int64_t> in_sp, std::span<const int64_t> out_sp, std::span<const int64_t> kernel,
                    std::span<const int64_t> strides, std::span<const int64_t> dilations,
                    std::span<const int64_t> pads, bool bias) {
  Triple i = spatial(in_sp, 1), o = spatial(out_sp, 1), k = spatial(kernel, 1), s = spatial(strides, 1),
         d = spatial(dilations, 1), p = spatial(pads, 0);
  const std::array<double, 23> v{batch, cin, cout, groups, i.d, i.h, i.w, o.d, o.h, o.w, k.d, k.h,
                                 k.w,   s.d, s.h,  s.w,    d.d, d.h, d.w, p.d, p.h, p.w, bias ? 1.0 : 0.0};
  ctx.set_attrs(family, v);
}

std::optional<GemmShape> make_gemm(int64_t batch, std::optional<int64_t> m, std::optional<int64_t> n,
                                   std::optional<int64_t> k) {
  if (!m || !n || !k) return std::nullopt;
  return GemmShape{batch, *m, *n, *k};
}

}  // namespace

namespace {

// Conv and its integer forms: the weight is input `wslot` (3 for QLinearConv), the bias input `bslot` (-1: none;
// ConvInteger's inputs 2 and 3 are zero points). `per_output` FLOPs follow each output element: a fused
// activation (FusedConv), or QLinearConv's requantisation (scale, zero point, saturate).
void conv_cost(RuleContext& ctx, size_t wslot, int bslot, double per_output) {
  const auto& x = ctx.in_shape(0);
  const auto& w = ctx.in_shape(wslot);
  const auto& y = ctx.out_shape(0);
  // com.microsoft NhwcConv and friends are not covered; Conv and FusedConv are NCHW.
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    ctx.fail("input, weight and output must have the same rank >= 3 (got " + std::to_string(x.size()) + ", " +
             std::to_string(w.size()) + ", " + std::to_string(y.size()) + ")");
  size_t nsp = x.size() - 2;
  if (nsp > k_max_spatial) ctx.fail("more than " + std::to_string(k_max_spatial) + " spatial dims");
  int64_t groups = ctx.node.attr_int("group", 1);
  if (groups < 1 || checked_mul(w[1], groups) != x[1] || w[0] % groups != 0)
    ctx.fail("channels do not match: input has " + std::to_string(x[1]) + ", weight " + std::to_string(w[1]) +
             " per group with group=" + std::to_string(groups));
  std::span<const int64_t> in_sp(x.data() + 2, nsp), out_sp(y.data() + 2, nsp), kernel(w.data() + 2, nsp);
  bool bias = bslot >= 0 && ctx.has_input(static_cast<size_t>(bslot));
  double out_elems = product(y);  // N * K * prod(out_spatial)
  double macs = out_elems * static_cast<double>(w[1]) * product(kernel);
  ctx.cost.flops = 2 * macs + (bias ? out_elems : 0) + per_output * out_elems;

  auto m = checked_mul(x[0], checked_product(out_sp).value_or(-1));
  auto k = checked_mul(w[1], checked_product(kernel).value_or(-1));
  if (m && *m < 0) m.reset();
  if (k && *k < 0) k.reset();
  ctx.cost.gemm = make_gemm(groups, m, w[0] / groups, k);

  auto strides = ints_or_fill(ctx.node, "strides", nsp, 1);
  auto dilations = ints_or_fill(ctx.node, "dilations", nsp, 1);
  auto pads = conv_pads(ctx.node, in_sp, out_sp, kernel, strides.span(), dilations.span());
  set_conv_attrs(ctx, OpFamily::conv, static_cast<double>(x[0]), static_cast<double>(x[1]),
                 static_cast<double>(w[0]), static_cast<double>(groups), in_sp, out_sp, kernel, strides.span(),
                 dilations.span(), pads.span(), bias);
}

}  // namespace

// FusedConv (com.microsoft) adds an activation: 1 per output element.
void cost_conv(RuleContext& ctx, const OpRule&) { conv_cost(ctx, 1, 2, ctx.node.op == "FusedConv" ? 1 : 0); }

// ConvInteger: (x, w, x_zero_point, w_zero_point) -> the int32 accumulators, no bias.
void cost_conv_integer(RuleContext& ctx, const OpRule&) { conv_cost(ctx, 1, -1, 0); }

// QLinearConv: (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B) -> 8-bit y;
// the requantisation of each output counts 2 (scale and round, zero point and saturate).
void cost_qlinear_conv(RuleContext& ctx, const OpRule&) { conv_cost(ctx, 3, 8, 2); }

// DeformConv (opset 19): X, W, offset [N, 2 offset_group kH kW, oH, oW], B (input 3), mask (input 4): the conv's
// MACs and bias, plus the bilinear sampling of every tap of every input channel at its learned offset (8 a sample:
// four weighted loads, and the mask's multiply).
void cost_deform_conv(RuleContext& ctx, const OpRule&) {
  conv_cost(ctx, 1, 3, 0);
  const auto& x = ctx.in_shape(0);
  const auto& w = ctx.in_shape(1);
  const auto& y = ctx.out_shape(0);
  const double samples = static_cast<double>(x[0]) * static_cast<double>(x[1]) * product(std::span(y).subspan(2)) *
                         product(std::span(w).subspan(2));
  ctx.cost.flops += 8 * samples;
}

void cost_conv_transpose(RuleContext& ctx, const OpRule&) {
  const auto& x = ctx.in_shape(0);
  const auto& w = ctx.in_shape(1);
  const auto& y = ctx.out_shape(0);
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    ctx.fail("input, weight and output must have the same rank >= 3");
  size_t nsp = x.size() - 2;
  if (nsp > k_max_spatial) ctx.fail("more than " + std::to_string(k_max_spatial) + " spatial dims");
  int64_t groups = ctx.node.attr_int("group", 1);
  if (groups < 1 || x[1] != w[0] || x[1] % groups != 0)
    ctx.fail("channels do not match: input has " + std::to_string(x[1]) + ", weight " + std::to_string(w[0]) +
             " with group=" + std::to_string(groups));
  std::span<const int64_t> in_sp(x.data() + 2, nsp), out_sp(y.data() + 2, nsp), kernel(w.data() + 2, nsp);
  bool bias = ctx.has_input(2);
  auto out_channels_checked = checked_mul(w[1], groups);
  if (!out_channels_checked) ctx.fail("output channels overflow int64");
  int64_t out_channels = *out_channels_checked;
  double macs = product(x) * static_cast<double>(w[1]) * product(kernel);  // N*C*prod(in) * K/g * prod(kernel)
  double out_elems = product(y);
  ctx.cost.flops = 2 * macs + (bias ? out_elems : 0);

  auto m = checked_mul(x[0], checked_product(in_sp).value_or(-1));
  auto n = checked_mul(w[1], checked_product(kernel).value_or(-1));
  if (m && *m < 0) m.reset();
  if (n && *n < 0) n.reset();
  ctx.cost.gemm = make_gemm(groups, m, n, x[1] / groups);

  auto strides = ints_or_fill(ctx.node, "strides", nsp, 1);
  auto dilations = ints_or_fill(ctx.node, "dilations", nsp, 1);
  auto pads = leading_pads(ctx.node, nsp);
  set_conv_attrs(ctx, OpFamily::conv_transpose, static_cast<double>(x[0]), static_cast<double>(x[1]),
                 static_cast<double>(out_channels), static_cast<double>(groups), in_sp, out_sp, kernel,
                 strides.span(), dilations.span(), pads.span(), bias);
}

void cost_gemm(RuleContext& ctx, const OpRule&) {
  const auto& a = ctx.in_shape(0);
  const auto& b = ctx.in_shape(1);
  if (a.size() != 2 || b.size() != 2) ctx.fail("Gemm inputs must be 2-D");
  bool ta = ctx.node.attr_int("transA", 0) != 0, tb = ctx.node.attr_int("transB", 0) != 0;
  int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (k != kb) ctx.fail("inner dimensions differ (" + std::to_string(k) + " vs " + std::to_string(kb) + ")");
  double mn = static_cast<double>(m) * static_cast<double>(n);
  ctx.cost.flops = 2 * mn * static_cast<double>(k) + (ctx.has_input(2) ? mn : 0);
  ctx.cost.gemm = GemmShape{1, m, n, k};
  const std::array<double, 4> v{1, static_cast<double>(m), static_cast<double>(n), static_cast<double>(k)};
  ctx.set_attrs(OpFamily::gemm, v);
}

namespace {

// MatMul and its integer forms: B is input `bslot` (3 for QLinearMatMul); `per_output` as in conv_cost.
void matmul_cost(RuleContext& ctx, size_t bslot, double per_output) {
  std::vector<int64_t> a = ctx.in_shape(0);
  std::vector<int64_t> b = ctx.in_shape(bslot);
  if (a.empty() || b.empty()) ctx.fail("MatMul inputs must have rank >= 1");
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  // com.microsoft FusedMatMul: transBatchA/B read [M, batch..., K] as [batch..., M, K], then transA / transB
  // swap the last two dims.
  auto batch_first = [](std::vector<int64_t>& v) {
    if (v.size() >= 3) std::rotate(v.begin(), v.begin() + 1, v.end() - 1);
  };
  if (ctx.node.attr_int("transBatchA", 0)) batch_first(a);
  if (ctx.node.attr_int("transBatchB", 0)) batch_first(b);
  if (ctx.node.attr_int("transA", 0)) std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (ctx.node.attr_int("transB", 0)) std::swap(b[b.size() - 1], b[b.size() - 2]);
  int64_t m = a[a.size() - 2], k = a[a.size() - 1], kb = b[b.size() - 2], n = b[b.size() - 1];
  if (k != kb) ctx.fail("inner dimensions differ (" + std::to_string(k) + " vs " + std::to_string(kb) + ")");
  // Broadcast the batch dims.
  size_t ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb);
  int64_t batch = 1;
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - ra ? 1 : a[i - (r - ra)];
    int64_t db = i < r - rb ? 1 : b[i - (r - rb)];
    if (da != db && da != 1 && db != 1)
      ctx.fail("batch dimensions do not broadcast (" + std::to_string(da) + " vs " + std::to_string(db) + ")");
    auto next = checked_mul(batch, std::max(da, db));
    if (!next) ctx.fail("batch size overflows int64");
    batch = *next;
  }
  ctx.cost.flops = (2 * static_cast<double>(k) + per_output) * static_cast<double>(batch) * static_cast<double>(m) *
                   static_cast<double>(n);
  // An N-D activation times a matrix (B without batch dims of its own) is one GEMM: cuBLAS (and PyTorch's
  // matmul) fold A's leading dims into M, since A's rows are contiguous. Not with transA, whose rows are not.
  bool b_batched = false;
  for (size_t i = 0; i < rb; ++i) b_batched = b_batched || b[i] != 1;
  if (!b_batched && batch > 1 && !ctx.node.attr_int("transA", 0)) {
    auto folded = checked_mul(batch, m);
    if (!folded) ctx.fail("rows of the folded product overflow int64");
    m = *folded;
    batch = 1;
  }
  ctx.cost.gemm = GemmShape{batch, m, n, k};
  const std::array<double, 4> v{static_cast<double>(batch), static_cast<double>(m), static_cast<double>(n),
                                static_cast<double>(k)};
  ctx.set_attrs(OpFamily::gemm, v);
}

}  // namespace

// MatMul, FusedMatMul (com.microsoft) and MatMulInteger (a, b, a_zero_point, b_zero_point -> int32).
void cost_matmul(RuleContext& ctx, const OpRule&) { matmul_cost(ctx, 1, 0); }

// QLinearMatMul: (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point) -> 8-bit y, each
// output requantised (2, as QLinearConv's).
void cost_qlinear_matmul(RuleContext& ctx, const OpRule&) { matmul_cost(ctx, 3, 2); }

// The GEMM view is the projection [B*S, in] x [in, q+k+v] with N widened so that 2*M*N*K equals every
// FLOP of the node (the attention products are GEMMs of the same kernel family).
void cost_ms_attention(RuleContext& ctx, const OpRule&) {
  const std::vector<int64_t>& x = ctx.in_shape(0);
  const std::vector<int64_t>& w = ctx.in_shape(1);
  if (x.size() != 3 || w.size() != 2) ctx.fail("Attention needs input [B, S, hidden] and weights [hidden, q+k+v]");
  const int64_t heads = ctx.node.attr_int("num_heads", 0);
  if (heads <= 0) ctx.fail("Attention needs num_heads >= 1");
  std::vector<int64_t> qkv = ctx.node.attr_ints("qkv_hidden_sizes");
  if (qkv.size() != 3) qkv.assign(3, w[1] / 3);
  int64_t past = 0;
  if (ctx.has_input(4)) {
    const std::vector<int64_t>& p = ctx.in_shape(4);
    if (p.size() == 5) past = p[3];
  }
  const double b = static_cast<double>(x[0]), s = static_cast<double>(x[1]), in = static_cast<double>(x[2]);
  const double t = static_cast<double>(past) + s;
  const double qk_head = static_cast<double>(qkv[0]) / static_cast<double>(heads);
  const double v_head = static_cast<double>(qkv[2]) / static_cast<double>(heads);
  const double hd = static_cast<double>(heads);
  const double proj = 2 * b * s * in * static_cast<double>(w[1]) + b * s * static_cast<double>(w[1]);
  const double scores = 2 * b * hd * s * t * qk_head;
  const double softmax = 5 * b * hd * s * t;
  const double mix = 2 * b * hd * s * t * v_head;
  ctx.cost.flops = proj + scores + softmax + mix;
  const int64_t m = x[0] * x[1], k = x[2];
  const int64_t n = m > 0 && k > 0 ? static_cast<int64_t>(ctx.cost.flops / (2.0 * static_cast<double>(m) * static_cast<double>(k)) + 0.5) : 0;
  ctx.cost.gemm = GemmShape{1, m, n, k};
  const std::array<double, 4> v{1, static_cast<double>(m), static_cast<double>(n), static_cast<double>(k)};
  ctx.set_attrs(OpFamily::gemm, v);
}

namespace {

// Attention over heads as the three ops that take it whole present it: B sequences of S queries in `heads`
// heads, each scoring T keys (past + new) with head size hk and mixing values of head size hv; `extra` FLOPs
// outside the scores (biases, a mask, rotation).
struct HeadAttention {
  double b = 0, heads = 0, s = 0, t = 0, hk = 0, hv = 0, extra = 0;
};

// com.microsoft GroupQueryAttention: query [B, S, N * H] with key/value [B, S, kvN * H] (or one packed query of
// (N + 2 kvN) heads), past [B, kvN, P, H] (input 3), the total length as input 6, do_rotary: the rotation of the
// new queries and keys (3 an element). The heads share kv_num_heads key/value heads: no less work a query head.
HeadAttention gqa_shape(RuleContext& ctx, const std::vector<int64_t>& q, int64_t heads) {
  const int64_t kv_heads = ctx.node.attr_int("kv_num_heads", 0);
  if (kv_heads < 1 || heads % kv_heads != 0)
    ctx.fail("needs kv_num_heads >= 1 dividing num_heads (got " + std::to_string(kv_heads) + " and " +
             std::to_string(heads) + ")");
  const bool packed = !ctx.has_input(1);
  const int64_t split_into = packed ? heads + 2 * kv_heads : heads;
  if (q[2] % split_into != 0)
    ctx.fail("query width " + std::to_string(q[2]) + " does not split into " + std::to_string(split_into) +
             (packed ? " packed query, key and value heads" : " heads"));
  HeadAttention a{static_cast<double>(q[0]), static_cast<double>(heads), static_cast<double>(q[1])};
  a.hk = a.hv = static_cast<double>(q[2] / split_into);
  const bool has_past = ctx.has_input(3) && ctx.in_shape(3).size() == 4;
  const double past = has_past ? static_cast<double>(ctx.in_shape(3)[2]) : 0;
  const Tensor* total = ctx.input(6);
  const bool known = total && total->int_values && total->int_values->size() == 1;
  a.t = known ? static_cast<double>(total->int_values->front()) : past + a.s;
  if (ctx.node.attr_int("do_rotary", 0)) a.extra = 3 * a.b * a.s * (a.heads + static_cast<double>(kv_heads)) * a.hk;
  return a;
}

// com.microsoft MultiHeadAttention: key/value [B, L, N * H] after their past (inputs 6, 7), or already split into
// heads [B, N, L, H] (no past joins them); the bias input adds Q's, K's and V's biases.
HeadAttention mha_shape(RuleContext& ctx, const std::vector<int64_t>& q, int64_t heads) {
  const std::vector<int64_t>& k = ctx.in_shape(1);
  const std::vector<int64_t>& v = ctx.in_shape(2);
  const bool split = k.size() == 4;
  if ((k.size() != 3 && !split) || v.size() != k.size())
    ctx.fail("needs key and value [B, L, hidden] or [B, N, L, head size]");
  if (!split && (k[2] % heads != 0 || v[2] % heads != 0))
    ctx.fail("key and value widths (" + std::to_string(k[2]) + ", " + std::to_string(v[2]) +
             ") do not split into num_heads = " + std::to_string(heads));
  HeadAttention a{static_cast<double>(q[0]), static_cast<double>(heads), static_cast<double>(q[1])};
  a.hk = split ? static_cast<double>(k[3]) : static_cast<double>(k[2] / heads);
  a.hv = split ? static_cast<double>(v[3]) : static_cast<double>(v[2] / heads);
  const bool has_past = !split && ctx.has_input(6) && ctx.in_shape(6).size() == 4;
  const double past = has_past ? static_cast<double>(ctx.in_shape(6)[2]) : 0;
  a.t = past + static_cast<double>(split ? k[2] : k[1]);
  if (ctx.has_input(3)) a.extra = a.b * a.s * a.heads * a.hk + a.b * (a.t - past) * a.heads * (a.hk + a.hv);
  return a;
}

// ONNX Attention (opset 23): Q [B, S, q_num_heads * H] or [B, qN, S, H]; K and V [B, L, kv_num_heads * H] or
// [B, kvN, L, H] after their past (inputs 4, 5, [B, kvN, P, H]); an attn_mask (input 3) is added to the scores.
HeadAttention onnx_attention_shape(RuleContext& ctx) {
  const std::vector<int64_t>& q = ctx.in_shape(0);
  const std::vector<int64_t>& k = ctx.in_shape(1);
  const std::vector<int64_t>& v = ctx.in_shape(2);
  if ((q.size() != 3 && q.size() != 4) || (k.size() != 3 && k.size() != 4) || v.size() != k.size())
    ctx.fail("needs Q, K and V of rank 3 [B, S, hidden] or 4 [B, heads, S, head size], K and V of one rank");
  auto split = [&](const std::vector<int64_t>& x, const char* attr, const char* what, int64_t& heads, int64_t& len,
                   int64_t& size) {
    if (x.size() == 4) {
      heads = x[1], len = x[2], size = x[3];
      return;
    }
    heads = ctx.node.attr_int(attr, 0);
    if (heads < 1 || x[2] % heads != 0)
      ctx.fail(std::string(what) + " [B, S, " + std::to_string(x[2]) + "] needs " + attr +
               " >= 1 dividing its width (got " + std::to_string(heads) + ")");
    len = x[1], size = x[2] / heads;
  };
  int64_t qn = 0, s = 0, hk = 0, kvn = 0, l = 0, hq = 0, vn = 0, lv = 0, hv = 0;
  split(q, "q_num_heads", "Q", qn, s, hq);
  split(k, "kv_num_heads", "K", kvn, l, hk);
  split(v, "kv_num_heads", "V", vn, lv, hv);
  if (hq != hk) ctx.fail("Q's head size " + std::to_string(hq) + " is not K's " + std::to_string(hk));
  if (kvn < 1 || qn % kvn != 0)
    ctx.fail("the " + std::to_string(kvn) + " key/value heads do not divide the " + std::to_string(qn) +
             " query heads");
  HeadAttention a{static_cast<double>(q[0]), static_cast<double>(qn), static_cast<double>(s)};
  a.hk = static_cast<double>(hk);
  a.hv = static_cast<double>(hv);
  const bool has_past = ctx.has_input(4) && ctx.in_shape(4).size() == 4;
  a.t = (has_past ? static_cast<double>(ctx.in_shape(4)[2]) : 0) + static_cast<double>(l);
  if (ctx.has_input(3)) a.extra = a.b * a.heads * a.s * a.t;
  return a;
}

}  // namespace

// The scores Q.K^T over the T keys, the softmax (5 a score) and the product with V, per query head, plus the op's
// extra work. The GEMM view is the batched scores product [B * N] x [S, T] x [H], T widened so that it carries
// every FLOP of the node.
void cost_head_attention(RuleContext& ctx, const OpRule&) {
  HeadAttention a;
  if (ctx.node.op == "Attention") {
    a = onnx_attention_shape(ctx);
  } else {
    const std::vector<int64_t>& q = ctx.in_shape(0);
    const int64_t heads = ctx.node.attr_int("num_heads", 0);
    if (q.size() != 3 || heads < 1) ctx.fail("needs query [B, S, hidden] and num_heads >= 1");
    a = ctx.node.op == "GroupQueryAttention" ? gqa_shape(ctx, q, heads) : mha_shape(ctx, q, heads);
  }
  if (a.hk <= 0 || a.t <= 0) ctx.fail("head size and key length must be positive");
  const double scores = a.b * a.heads * a.s * a.t;
  ctx.cost.flops = 2 * scores * a.hk + 5 * scores + 2 * scores * a.hv + a.extra;
  const int64_t batch = static_cast<int64_t>(a.b * a.heads), k_dim = static_cast<int64_t>(a.hk);
  const int64_t n_eff = static_cast<int64_t>(ctx.cost.flops / (2.0 * a.b * a.heads * a.s * a.hk) + 0.5);
  ctx.cost.gemm = GemmShape{batch, static_cast<int64_t>(a.s), n_eff, k_dim};
  const std::array<double, 4> attrs{static_cast<double>(batch), a.s, static_cast<double>(n_eff), a.hk};
  ctx.set_attrs(OpFamily::gemm, attrs);
}

// com.microsoft MatMulNBits: A [..., K] times N x K weights stored in `bits`-bit blocks of block_size with a
// scale (and zero point) a block, B input 1 packed [N, K / block_size, block_size * bits / 8]: the GEMM's FLOPs,
// each weight's dequantisation (2: zero point and scale) and the optional bias (input 5).
void cost_matmul_nbits(RuleContext& ctx, const OpRule&) {
  const std::vector<int64_t>& a = ctx.in_shape(0);
  const int64_t k = ctx.node.attr_int("K", 0), n = ctx.node.attr_int("N", 0);
  if (a.empty() || k < 1 || n < 1) ctx.fail("needs A [..., K] and attributes K and N >= 1");
  if (a.back() != k)
    ctx.fail("A's last dim " + std::to_string(a.back()) + " is not the attribute K = " + std::to_string(k));
  const double m = product(std::span(a).first(a.size() - 1));
  const double mn = m * static_cast<double>(n);
  ctx.cost.flops = 2 * mn * static_cast<double>(k) + 2 * static_cast<double>(n) * static_cast<double>(k) +
                   (ctx.has_input(5) ? mn : 0);
  const int64_t rows = static_cast<int64_t>(m);
  ctx.cost.gemm = GemmShape{1, rows, n, k};
  const std::array<double, 4> v{1, m, static_cast<double>(n), static_cast<double>(k)};
  ctx.set_attrs(OpFamily::gemm, v);
}

namespace {

// Labels: 'a'..'z' -> 0..25, 'A'..'Z' -> 26..51, ellipsis dims -> 52.. (rightmost ellipsis dim last).
constexpr int k_letters = 52;

struct EinsumTerm {
  std::vector<int> labels;  // after expanding "..." into ellipsis labels
};

int letter_label(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

// Parses one term; `ell_rank` is how many dims "..." stands for (for the output: the broadcast rank).
EinsumTerm parse_term(const RuleContext& ctx, const std::string& term, size_t ell_rank, int max_ell_rank,
                      bool* has_ellipsis) {
  EinsumTerm t;
  bool seen = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (seen || term.compare(i, 3, "...") != 0) ctx.fail("bad ellipsis in Einsum equation term '" + term + "'");
      seen = true;
      for (size_t j = 0; j < ell_rank; ++j)
        t.labels.push_back(k_letters + max_ell_rank - static_cast<int>(ell_rank) + static_cast<int>(j));
      i += 2;
      continue;
    }
    int l = letter_label(term[i]);
    if (l < 0) ctx.fail("bad character '" + std::string(1, term[i]) + "' in Einsum equation");
    t.labels.push_back(l);
  }
  if (has_ellipsis) *has_ellipsis = seen;
  return t;
}

size_t count_letters(const std::string& term) {
  return static_cast<size_t>(std::count_if(term.begin(), term.end(), [](char c) { return c != '.'; }));
}

}  // namespace

void cost_einsum(RuleContext& ctx, const OpRule&) {
  std::string eq;
  if (const std::string* e = string_attr(ctx.node, "equation"))
    for (char c : *e)
      if (c != ' ') eq += c;
  if (eq.empty()) ctx.fail("Einsum without an equation attribute");
  std::string lhs = eq, rhs;
  bool explicit_out = false;
  if (auto arrow = eq.find("->"); arrow != std::string::npos) {
    lhs = eq.substr(0, arrow);
    rhs = eq.substr(arrow + 2);
    explicit_out = true;
  }
  const std::vector<std::string> terms = split(lhs, ',');
  size_t n_ops = ctx.present_inputs();
  if (terms.size() != n_ops)
    ctx.fail("Einsum equation has " + std::to_string(terms.size()) + " operands but the node has " +
             std::to_string(n_ops) + " inputs");

  // Ellipsis ranks per operand, and the broadcast ellipsis rank.
  std::vector<size_t> ell_ranks(n_ops, 0);
  size_t max_ell = 0;
  for (size_t i = 0; i < n_ops; ++i) {
    size_t rank = ctx.in_shape(i).size();
    size_t letters = count_letters(terms[i]);
    bool has_ell = terms[i].find("...") != std::string::npos;
    if ((!has_ell && letters != rank) || letters > rank)
      ctx.fail("Einsum term '" + terms[i] + "' does not match input rank " + std::to_string(rank));
    ell_ranks[i] = has_ell ? rank - letters : 0;
    max_ell = std::max(max_ell, ell_ranks[i]);
  }
  std::vector<int64_t> size(k_letters + max_ell, -1);
  std::vector<EinsumTerm> ops;
  for (size_t i = 0; i < n_ops; ++i) {
    ops.push_back(parse_term(ctx, terms[i], ell_ranks[i], static_cast<int>(max_ell), nullptr));
    const auto& shape = ctx.in_shape(i);
    for (size_t j = 0; j < shape.size(); ++j) {
      int l = ops.back().labels[j];
      int64_t& s = size[static_cast<size_t>(l)];
      if (s < 0 || s == 1) s = shape[j];
      else if (shape[j] != s && !(l >= k_letters && shape[j] == 1))
        ctx.fail("Einsum index sizes disagree (" + std::to_string(s) + " vs " + std::to_string(shape[j]) + ")");
    }
  }
  std::vector<int> count(size.size(), 0);
  for (const auto& op : ops)
    for (int l : op.labels) ++count[static_cast<size_t>(l)];
  EinsumTerm out;
  if (explicit_out) {
    out = parse_term(ctx, rhs, max_ell, static_cast<int>(max_ell), nullptr);
  } else {
    for (size_t j = 0; j < max_ell; ++j) out.labels.push_back(k_letters + static_cast<int>(j));
    // Letters used once in ASCII order, 'A'-'Z' (labels 26..51) before 'a'-'z', as numpy and torch.einsum order them.
    for (int i = 0; i < k_letters; ++i) {
      const int l = (i + 26) % k_letters;
      if (count[static_cast<size_t>(l)] == 1) out.labels.push_back(l);
    }
  }
  for (int l : out.labels)
    if (size[static_cast<size_t>(l)] < 0) ctx.fail("Einsum output index not found in any input");
  auto contains = [](const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); };
  auto unique = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  auto size_product = [&](const std::vector<int>& labels) {
    double p = 1;
    for (int l : labels) p *= static_cast<double>(size[static_cast<size_t>(l)]);
    return p;
  };
  std::vector<double> attrs_gemm{1, 0, 0, 0};

  if (n_ops == 1) {
    std::vector<int> in = unique(ops[0].labels);
    bool reduces = in.size() != out.labels.size() || in.size() != ops[0].labels.size();
    if (reduces) {
      ctx.cost.family = OpFamily::reduce;
      ctx.cost.flops = size_product(in);
      double outer = size_product(out.labels);
      const std::array<double, 3> v{product(ctx.in_shape(0)), outer > 0 ? size_product(in) / outer : 0, outer};
      ctx.set_attrs(OpFamily::reduce, v);
    } else {
      ctx.cost.family = OpFamily::data_movement;
      const std::array<double, 1> v{product(ctx.in_shape(0))};
      ctx.set_attrs(OpFamily::data_movement, v);
    }
    return;
  }

  // Contract left to right; keep an index while a later operand or the output needs it.
  std::vector<int> cur = unique(ops[0].labels);
  double flops = 0;
  for (size_t j = 1; j < n_ops; ++j) {
    std::vector<int> rhs_labels = unique(ops[j].labels);
    std::vector<int> all = cur;
    all.insert(all.end(), rhs_labels.begin(), rhs_labels.end());
    all = unique(all);
    flops += 2 * size_product(all);
    std::vector<int> keep;
    for (int l : all) {
      bool needed = contains(out.labels, l);
      for (size_t r = j + 1; r < n_ops && !needed; ++r) needed = contains(ops[r].labels, l);
      if (needed) keep.push_back(l);
    }
    if (n_ops == 2) {
      // GEMM view: batch = in both and the output, m = only A's kept, n = only B's kept, k = the rest.
      int64_t b = 1, m = 1, n = 1, k = 1;
      bool overflow = false;
      auto mul = [&](int64_t& acc, int l) {
        auto r = checked_mul(acc, size[static_cast<size_t>(l)]);
        if (!r) overflow = true;
        else acc = *r;
      };
      for (int l : all) {
        bool in_a = contains(cur, l), in_b = contains(rhs_labels, l), in_out = contains(out.labels, l);
        // Ellipsis dims kept in the output are broadcast batch dims, as in MatMul.
        if ((in_a && in_b && in_out) || (l >= k_letters && in_out)) mul(b, l);
        else if (in_a && !in_b && in_out) mul(m, l);
        else if (!in_a && in_b && in_out) mul(n, l);
        else mul(k, l);
      }
      if (!overflow) {
        ctx.cost.gemm = GemmShape{b, m, n, k};
        attrs_gemm = {static_cast<double>(b), static_cast<double>(m), static_cast<double>(n), static_cast<double>(k)};
      }
    }
    cur = keep;
  }
  ctx.cost.flops = flops;
  ctx.set_attrs(OpFamily::gemm, attrs_gemm);
}

void cost_rnn(RuleContext& ctx, const OpRule&) {
  const std::string& op = ctx.node.op;
  int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  double elementwise_per_h = op == "LSTM" ? 24 : op == "GRU" ? 16 : 4;
  const auto& x = ctx.in_shape(0);
  const auto& w = ctx.in_shape(1);
  if (x.size() != 3 || w.size() != 3) ctx.fail("X and W must be 3-D");
  bool batch_first = ctx.node.attr_int("layout", 0) == 1;
  int64_t seq = batch_first ? x[1] : x[0];
  int64_t batch = batch_first ? x[0] : x[1];
  int64_t input = x[2];
  int64_t dirs = w[0];
  int64_t hidden = ctx.node.attr_int("hidden_size", w[1] / gates);
  if (hidden <= 0 || w[1] % gates != 0 || w[1] / gates != hidden || w[2] != input)
    ctx.fail("W shape does not match " + std::to_string(gates) + " gates x hidden_size " + std::to_string(hidden) +
             " and input size " + std::to_string(input));
  double gate_rows = static_cast<double>(w[1]);  // gates * hidden
  double per_row = 2.0 * gate_rows * (static_cast<double>(input) + static_cast<double>(hidden)) +
                   (ctx.has_input(3) ? 2.0 * gate_rows : 0.0) +
                   elementwise_per_h * static_cast<double>(hidden);
  ctx.cost.flops = static_cast<double>(seq) * static_cast<double>(dirs) * static_cast<double>(batch) * per_row;
  if (auto k = checked_add(input, hidden)) ctx.cost.gemm = GemmShape{1, batch, w[1], *k};
  const std::array<double, 6> v{static_cast<double>(batch), static_cast<double>(seq), static_cast<double>(hidden),
                                static_cast<double>(input), static_cast<double>(dirs), static_cast<double>(gates)};
  ctx.set_attrs(OpFamily::rnn, v);
}

}  // namespace perfpred::analysis_detail
