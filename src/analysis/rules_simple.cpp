// Cost rules of the memory-bound families: norm, elementwise, pool, reduce, softmax, data_movement.
// FLOP conventions (the per-element figures live in rules_table.cpp, next to each op):
//   elementwise     per-element cost x output elements: 1 for arithmetic, comparison, logic, Relu, Abs, Neg,
//                   Sign, Floor, Ceil, Round, Reciprocal; 2 for LeakyRelu, PRelu, Clip, Shrink, ThresholdedRelu,
//                   Quantize/DequantizeLinear; 3 for HardSigmoid, Softsign; 4 for Exp, Log, Sqrt, Pow, Sin, Cos,
//                   Sigmoid, Tanh, Erf, Softplus, Elu, Selu, Celu, HardSwish; 6 for Swish (alpha x, the
//                   sigmoid, the product); 8 for Gelu and Mish.
//                   Variadic Sum/Max/Min: (inputs-1) per element; Mean: inputs per element.
//   norm            BatchNormalization (inference) 2 per element (scale and shift); LayerNormalization,
//                   InstanceNormalization, GroupNormalization, MeanVarianceNormalization 8 per element
//                   (mean, variance, normalise, scale, shift); SkipLayerNormalization 9 (+1 for the bias);
//                   LRN 2*size + 4 per element (window sum of squares, then scale, pow and divide).
//   softmax         Softmax and LogSoftmax 5 per element (max, subtract, exp, sum, divide); Hardmax 2.
//   pool            kernel volume per output element (LpPool 2x); global pooling: 1 per input element;
//                   MaxRoiPool: an upper bound of R*C*H*W (every RoI spanning the whole map).
//   reduce          1 per input element (ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSumExp: 2);
//                   CumSum 1 per element; TopK: input elements x ceil(log2(k)) comparisons (at least 1).
//   data_movement   0 FLOPs (Concat, Split, Slice, Gather*, Scatter*, Transpose, Pad, Tile, Expand, Cast, Where,
//                   ...), except Resize/Upsample: 2*2^r per output element for linear and 2*4^r for cubic
//                   interpolation over r resized axes, 0 for nearest.
// Attributes: elements (output elements; input elements for reduce), inner (size of the normalised or
// reduced extent; last output dim for elementwise), outer (elements / inner).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "perfpred/util/checked_math.hpp"
#include "rules.hpp"

namespace perfpred::analysis_detail {

namespace {

void set_shaped(RuleContext& ctx, OpFamily family, double elements, double inner) {
  double outer = inner > 0 ? elements / inner : 0;
  const std::array<double, 3> v{elements, inner, outer};
  ctx.set_attrs(family, v);
}

void set_pool_attrs(RuleContext& ctx, double batch, double channels, std::span<const int64_t> in_sp,
                    std::span<const int64_t> out_sp, std::span<const int64_t> kernel,
                    std::span<const int64_t> strides, std::span<const int64_t> pads, double out_elements) {
  Triple i = spatial(in_sp, 1), o = spatial(out_sp, 1), k = spatial(kernel, 1), s = spatial(strides, 1),
         p = spatial(pads, 0);
  const std::array<double, 18> v{batch, channels, i.d, i.h, i.w, o.d, o.h, o.w, k.d,
                                 k.h,   k.w,      s.d, s.h, s.w, p.d, p.h, p.w, out_elements};
  ctx.set_attrs(OpFamily::pool, v);
}

}  // namespace

void cost_none(RuleContext&, const OpRule&) {}

void cost_elementwise(RuleContext& ctx, const OpRule& rule) {
  const auto& y = ctx.out_shape(0);
  double elements = product(y);
  ctx.cost.flops = rule.per_element * elements;
  bool broadcast = false;
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i)
    if (ctx.has_input(i) && product(ctx.in_shape(i)) < elements) broadcast = true;
  double inner = y.empty() ? 1 : static_cast<double>(y.back());
  const std::array<double, 4> v{elements, inner, inner > 0 ? elements / inner : 0, broadcast ? 1.0 : 0.0};
  ctx.set_attrs(OpFamily::elementwise, v);
}

void cost_variadic(RuleContext& ctx, const OpRule& rule) {
  double n = static_cast<double>(ctx.present_inputs());
  OpRule per = rule;
  per.per_element = ctx.node.op == "Mean" ? (n > 1 ? n : 0) : std::max(n - 1, 0.0);
  cost_elementwise(ctx, per);
}

void cost_batchnorm(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  double elements = product(x);
  ctx.cost.flops = rule.per_element * elements;
  double channels = x.size() >= 2 ? static_cast<double>(x[1]) : 1;
  set_shaped(ctx, OpFamily::norm, elements, channels > 0 ? elements / channels : 0);
}

void cost_layernorm(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  double elements = product(x);
  ctx.cost.flops = rule.per_element * elements;
  int64_t axis = x.empty() ? 0 : normalize_axis(ctx, ctx.node.attr_int("axis", -1), x.size());
  set_shaped(ctx, OpFamily::norm, elements, product(std::span(x).subspan(static_cast<size_t>(axis))));
}

void cost_instancenorm(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  if (x.size() < 2) ctx.fail("input must have rank >= 2");
  double elements = product(x);
  ctx.cost.flops = rule.per_element * elements;
  set_shaped(ctx, OpFamily::norm, elements, product(std::span(x).subspan(2)));
}

void cost_groupnorm(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  if (x.size() < 2) ctx.fail("input must have rank >= 2");
  int64_t groups = ctx.node.attr_int("num_groups", 0);
  if (groups <= 0 || x[1] % groups != 0)
    ctx.fail("num_groups " + std::to_string(groups) + " does not divide the " + std::to_string(x[1]) + " channels");
  double elements = product(x);
  ctx.cost.flops = rule.per_element * elements;
  set_shaped(ctx, OpFamily::norm, elements, elements / (static_cast<double>(x[0]) * static_cast<double>(groups)));
}

void cost_groupnorm_nhwc(RuleContext& ctx, const OpRule& rule) {
  // com.microsoft GroupNorm: NHWC input, attribute `groups`.
  const auto& x = ctx.in_shape(0);
  if (x.size() < 2) ctx.fail("input must have rank >= 2");
  int64_t groups = ctx.node.attr_int("groups", 0);
  if (groups <= 0 || x.back() % groups != 0)
    ctx.fail("groups " + std::to_string(groups) + " does not divide the " + std::to_string(x.back()) + " channels");
  double elements = product(x);
  ctx.cost.flops = rule.per_element * elements;
  set_shaped(ctx, OpFamily::norm, elements, elements / (static_cast<double>(x[0]) * static_cast<double>(groups)));
}

void cost_skip_layernorm(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  if (x.empty()) ctx.fail("input must have rank >= 1");
  double elements = product(x);
  ctx.cost.flops = (rule.per_element + (ctx.has_input(4) ? 1 : 0)) * elements;
  set_shaped(ctx, OpFamily::norm, elements, static_cast<double>(x.back()));
}

// com.microsoft SkipSimplifiedLayerNormalization: input + skip (+ bias, input 3), then RMSNorm with gamma.
void cost_skip_simplified_layernorm(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  if (x.empty()) ctx.fail("input must have rank >= 1");
  double elements = product(x);
  ctx.cost.flops = (rule.per_element + (ctx.has_input(3) ? 1 : 0)) * elements;
  set_shaped(ctx, OpFamily::norm, elements, static_cast<double>(x.back()));
}

void cost_lrn(RuleContext& ctx, const OpRule&) {
  const auto& x = ctx.in_shape(0);
  if (x.size() < 2) ctx.fail("input must have rank >= 2");
  double size = static_cast<double>(ctx.node.attr_int("size", 1));
  double elements = product(x);
  ctx.cost.flops = (2 * size + 4) * elements;
  set_shaped(ctx, OpFamily::norm, elements, static_cast<double>(x[1]));
}

void cost_mvn(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  double elements = product(x);
  ctx.cost.flops = rule.per_element * elements;
  double inner = 1;
  for (int64_t a : ctx.node.attr_ints("axes", {0, 2, 3}))
    if (!x.empty()) inner *= static_cast<double>(x[static_cast<size_t>(normalize_axis(ctx, a, x.size()))]);
  set_shaped(ctx, OpFamily::norm, elements, inner);
}

void cost_pool(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  const auto& y = ctx.out_shape(0);
  if (x.size() < 3 || y.size() != x.size()) ctx.fail("input and output must have the same rank >= 3");
  size_t nsp = x.size() - 2;
  const auto* kernel = ints_attr(ctx.node, "kernel_shape");
  if (!kernel || kernel->size() != nsp) ctx.fail("kernel_shape must have " + std::to_string(nsp) + " values");
  if (nsp > k_max_spatial) ctx.fail("more than " + std::to_string(k_max_spatial) + " spatial dims");
  double out_elements = product(y);
  ctx.cost.flops = rule.per_element * product(*kernel) * out_elements;
  auto strides = ints_or_fill(ctx.node, "strides", nsp, 1);
  auto pads = leading_pads(ctx.node, nsp);
  set_pool_attrs(ctx, static_cast<double>(x[0]), static_cast<double>(x[1]), std::span(x).subspan(2),
                 std::span(y).subspan(2), *kernel, strides.span(), pads.span(), out_elements);
}

void cost_global_pool(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  const auto& y = ctx.out_shape(0);
  if (x.size() < 3 || y.size() != x.size()) ctx.fail("input and output must have the same rank >= 3");
  size_t nsp = x.size() - 2;
  ctx.cost.flops = rule.per_element * product(x);
  std::vector<int64_t> ones(nsp, 1), zeros(nsp, 0);
  std::span<const int64_t> in_sp = std::span(x).subspan(2);
  set_pool_attrs(ctx, static_cast<double>(x[0]), static_cast<double>(x[1]), in_sp, std::span(y).subspan(2), in_sp,
                 ones, zeros, product(y));
}

// com.microsoft QLinearAveragePool / QLinearGlobalAveragePool: the float pool's work on 8-bit data, laid out
// NCHW or, with channels_last = 1, NHWC (the channels last, the spatial dims from 1 on).
void cost_qlinear_pool(RuleContext& ctx, const OpRule& rule) {
  std::vector<int64_t> x = ctx.in_shape(0), y = ctx.out_shape(0);
  if (x.size() < 3 || y.size() != x.size()) ctx.fail("input and output must have the same rank >= 3");
  if (ctx.node.attr_int("channels_last", 0) != 0) {  // to NCHW order: the channels to dim 1
    std::rotate(x.begin() + 1, x.end() - 1, x.end());
    std::rotate(y.begin() + 1, y.end() - 1, y.end());
  }
  const size_t nsp = x.size() - 2;
  if (nsp > k_max_spatial) ctx.fail("more than " + std::to_string(k_max_spatial) + " spatial dims");
  std::span<const int64_t> in_sp = std::span(x).subspan(2), out_sp = std::span(y).subspan(2);
  if (ctx.node.op == "QLinearGlobalAveragePool") {
    ctx.cost.flops = rule.per_element * product(x);
    std::vector<int64_t> ones(nsp, 1), zeros(nsp, 0);
    set_pool_attrs(ctx, static_cast<double>(x[0]), static_cast<double>(x[1]), in_sp, out_sp, in_sp, ones, zeros,
                   product(y));
    return;
  }
  const auto* kernel = ints_attr(ctx.node, "kernel_shape");
  if (!kernel || kernel->size() != nsp) ctx.fail("kernel_shape must have " + std::to_string(nsp) + " values");
  ctx.cost.flops = rule.per_element * product(*kernel) * product(y);
  auto strides = ints_or_fill(ctx.node, "strides", nsp, 1);
  auto pads = leading_pads(ctx.node, nsp);
  set_pool_attrs(ctx, static_cast<double>(x[0]), static_cast<double>(x[1]), in_sp, out_sp, *kernel, strides.span(),
                 pads.span(), product(y));
}

void cost_roi_pool(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  const auto& rois = ctx.in_shape(1);
  const auto& y = ctx.out_shape(0);
  if (x.size() != 4 || rois.size() != 2 || y.size() != 4) ctx.fail("expects X [N,C,H,W], rois [R,5], Y 4-D");
  ctx.cost.flops = rule.per_element * static_cast<double>(rois[0]) * product(std::span(x).subspan(1));
  std::vector<int64_t> kernel{std::max<int64_t>(1, x[2] / std::max<int64_t>(1, y[2])),
                              std::max<int64_t>(1, x[3] / std::max<int64_t>(1, y[3]))};
  std::vector<int64_t> zeros(2, 0);
  set_pool_attrs(ctx, static_cast<double>(rois[0]), static_cast<double>(x[1]), std::span(x).subspan(2),
                 std::span(y).subspan(2), kernel, kernel, zeros, product(y));
}

void cost_roi_align(RuleContext& ctx, const OpRule& rule) {
  // RoiAlign: X [N, C, H, W], rois [R, 4], batch indices [R] -> Y [R, C, out_h, out_w]. Each output averages
  // sampling_ratio^2 bilinear samples (four loads and their weights, `per_element` FLOPs a sample); sampling_ratio
  // 0 (adaptive: ceil(roi size / output size), data) is costed as 2, torchvision's MultiScaleRoIAlign setting.
  const auto& x = ctx.in_shape(0);
  const auto& rois = ctx.in_shape(1);
  const auto& y = ctx.out_shape(0);
  if (x.size() != 4 || rois.size() != 2 || rois[1] != 4 || y.size() != 4)
    ctx.fail("expects X [N,C,H,W], rois [R,4] and a 4-D output");
  const int64_t ratio = ctx.node.attr_int("sampling_ratio", 0);
  const int64_t samples = ratio > 0 ? ratio : 2;
  ctx.cost.flops = rule.per_element * product(y) * static_cast<double>(samples * samples);
  std::vector<int64_t> kernel{samples, samples}, zeros(2, 0);
  set_pool_attrs(ctx, static_cast<double>(rois[0]), static_cast<double>(x[1]), std::span(x).subspan(2),
                 std::span(y).subspan(2), kernel, kernel, zeros, product(y));
}

void cost_softmax(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  double elements = product(x);
  ctx.cost.flops = rule.per_element * elements;
  if (x.empty()) {
    set_shaped(ctx, OpFamily::softmax, elements, 1);
    return;
  }
  // Opset 13 made the default axis -1 and the op per-axis; before, the input is coerced to 2-D at axis.
  bool old = ctx.graph.opset > 0 && ctx.graph.opset < 13;
  int64_t axis = normalize_axis(ctx, ctx.node.attr_int("axis", old ? 1 : -1), x.size());
  double inner = old ? product(std::span(x).subspan(static_cast<size_t>(axis))) : static_cast<double>(x[static_cast<size_t>(axis)]);
  set_shaped(ctx, OpFamily::softmax, elements, inner);
}

void cost_reduce(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  double in_elements = product(x);
  double out_elements = product(ctx.out_shape(0));
  ctx.cost.flops = rule.per_element * in_elements;
  set_shaped(ctx, OpFamily::reduce, in_elements, out_elements > 0 ? in_elements / out_elements : 0);
}

void cost_scan(RuleContext& ctx, const OpRule& rule) {
  // CumSum: axis is input 1 (a scalar constant).
  const auto& x = ctx.in_shape(0);
  double elements = product(x);
  ctx.cost.flops = rule.per_element * elements;
  double inner = elements;
  const Tensor* axis_t = ctx.input(1);
  if (!x.empty() && axis_t && axis_t->int_values && axis_t->int_values->size() == 1)
    inner = static_cast<double>(x[static_cast<size_t>(normalize_axis(ctx, axis_t->int_values->front(), x.size()))]);
  set_shaped(ctx, OpFamily::reduce, elements, inner);
}

// Unique: a sort of the input's elements (n log2 n compares), then a pass that marks the distinct ones.
void cost_unique(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  const double n = product(x);
  ctx.cost.flops = rule.per_element * n * (1 + std::max(1.0, std::ceil(std::log2(std::max(n, 1.0)))));
  set_shaped(ctx, OpFamily::reduce, n, n);
}

// Det: an LU factorisation of each n x n matrix, about 2/3 n^3 multiply-adds.
void cost_det(RuleContext& ctx, const OpRule&) {
  const auto& x = ctx.in_shape(0);
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2]) ctx.fail("input must be [..., n, n]");
  const double n = static_cast<double>(x.back());
  const double matrices = product(std::span(x).first(x.size() - 2));
  ctx.cost.flops = matrices * (2.0 / 3.0) * n * n * n * 2;
  set_shaped(ctx, OpFamily::reduce, product(x), n * n);
}

// Multinomial: [batch, classes] -> [batch, sample_size]: the cumulative distribution of each row (1 a class),
// then a binary search for each sample (log2(classes) compares).
void cost_multinomial(RuleContext& ctx, const OpRule&) {
  const auto& x = ctx.in_shape(0);
  if (x.size() != 2) ctx.fail("input must be [batch, classes]");
  const double batch = static_cast<double>(x[0]), classes = static_cast<double>(x[1]);
  const int64_t sample_size = ctx.node.attr_int("sample_size", 1);
  if (sample_size < 1) ctx.fail("sample_size must be >= 1 (got " + std::to_string(sample_size) + ")");
  const double samples = static_cast<double>(sample_size);
  ctx.cost.flops = batch * (classes + samples * std::max(1.0, std::ceil(std::log2(std::max(classes, 1.0)))));
  set_shaped(ctx, OpFamily::reduce, batch * classes, classes);
}

void cost_topk(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  double elements = product(x);
  double k = 1;
  const Tensor* k_t = ctx.input(1);
  if (k_t && k_t->int_values && k_t->int_values->size() == 1) k = static_cast<double>(k_t->int_values->front());
  else if (!ctx.out_shape(0).empty() && !x.empty()) {
    int64_t axis = normalize_axis(ctx, ctx.node.attr_int("axis", -1), x.size());
    k = static_cast<double>(ctx.out_shape(0)[static_cast<size_t>(axis)]);
  }
  ctx.cost.flops = rule.per_element * elements * std::max(1.0, std::ceil(std::log2(std::max(k, 1.0))));
  double inner = elements;
  if (!x.empty())
    inner = static_cast<double>(x[static_cast<size_t>(normalize_axis(ctx, ctx.node.attr_int("axis", -1), x.size()))]);
  set_shaped(ctx, OpFamily::reduce, elements, inner);
}

void cost_nms(RuleContext& ctx, const OpRule& rule) {
  // NonMaxSuppression: boxes [B, N, 4], scores [B, C, N]. What bounds its work is the overlap test of every pair
  // of a class's candidates, the bitmask kernels of ONNX Runtime's, TensorRT's and torchvision's NMS: K^2 / 2
  // IoUs per image and class at `per_element` FLOPs each (two intersections, two areas, a division, a compare).
  // The candidates K are all N boxes without a score threshold; with one, the kernels first drop the boxes
  // under it, and how many pass is data: the caller's count (--nms-candidates), else N, the upper bound. The
  // score filter's read is in the bytes; the sort by score and the serial walk over the mask are not counted.
  // How many boxes survive is data too, so the output stays unknown.
  const auto& boxes = ctx.in_shape(0);
  const auto& scores = ctx.in_shape(1);
  if (boxes.size() != 3 || scores.size() != 3 || boxes[2] != 4)
    ctx.fail("expects boxes [B, N, 4] and scores [B, C, N]");
  if (scores[2] != boxes[1] || scores[0] != boxes[0])
    ctx.fail("scores [B, C, N] must match boxes [B, N, 4] in B and N");
  const double images = static_cast<double>(boxes[0]), classes = static_cast<double>(scores[1]),
               k = static_cast<double>(nms_candidates(ctx.graph, ctx.node, boxes[1]));
  const double pairs = images * classes * k * k / 2;
  ctx.cost.flops = rule.per_element * pairs;
  set_shaped(ctx, OpFamily::reduce, pairs, k);
}

void cost_data_movement(RuleContext& ctx, const OpRule&) {
  double elements = 0;
  for (size_t i = 0; i < ctx.node.outputs.size(); ++i) {
    const Tensor* t = ctx.graph.output(ctx.node, i);
    if (t && t->shape_known()) elements += product(t->shape);
  }
  const std::array<double, 1> v{elements};
  ctx.set_attrs(OpFamily::data_movement, v);
}

// TensorScatter (opset 24) writes `update` into the KV cache at each row's write index; ONNX defines it as the
// functional form of an in-place update, the present cache being the past one's buffer, and it is costed as
// that: the update read and written, the rest of the cache neither read nor copied (a runtime that copies the
// whole cache would move twice its bytes more).
void cost_tensor_scatter(RuleContext& ctx, const OpRule&) {
  const Tensor* update = ctx.input(1);
  const double elements = update && update->shape_known() ? product(update->shape) : 0;
  ctx.input0_read_cap = 0;
  ctx.output0_write_cap = update ? update->bytes().value_or(0) : 0;
  const std::array<double, 1> v{elements};
  ctx.set_attrs(OpFamily::data_movement, v);
}

void cost_sequence(RuleContext& ctx, const OpRule&) {
  const std::string& op = ctx.node.op;
  // The elements a copy moves: the new tensor of an insert, the one an At reads, else everything written.
  double elements = 0;
  const auto count = [&](const Tensor* t) {
    if (!t) return;
    if (t->is_sequence && t->sequence_known()) {
      for (const auto& e : *t->elements) elements += product(e.shape);
    } else if (!t->is_sequence && t->shape_known()) {
      elements += product(t->shape);
    }
  };
  if (op == "SequenceInsert") {
    const Tensor* t = ctx.input(1);
    count(t);
    const auto b = t ? t->bytes() : std::nullopt;
    ctx.input0_read_cap = 0;
    ctx.output0_write_cap = b.value_or(0);
  } else if (op == "SequenceAt") {
    const Tensor* out = ctx.graph.output(ctx.node, 0);
    count(out);
    ctx.input0_read_cap = out ? out->bytes().value_or(0) : 0;
  } else {
    count(ctx.graph.output(ctx.node, 0));
  }
  const std::array<double, 1> v{elements};
  ctx.set_attrs(OpFamily::data_movement, v);
}

void cost_gather(RuleContext& ctx, const OpRule& rule) {
  // Gather, GatherElements, GatherND, Slice: the kernel reads only the selected part of the data input.
  const Tensor* data = ctx.input(0);
  const Tensor* out = ctx.graph.output(ctx.node, 0);
  if (data && out) {
    auto n = out->numel();
    auto cap = n ? checked_mul(*n, dtype_bits(data->dtype)) : std::nullopt;
    if (cap) *cap = *cap / 8 + (*cap % 8 != 0 ? 1 : 0);  // bits to bytes (4-bit types pack two a byte)
    if (cap) ctx.input0_read_cap = *cap;
  }
  cost_data_movement(ctx, rule);
}

void cost_resize(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  const auto& y = ctx.out_shape(0);
  cost_data_movement(ctx, rule);
  if (x.size() != y.size()) return;
  int resized = 0;
  for (size_t i = 0; i < x.size(); ++i) resized += x[i] != y[i] ? 1 : 0;
  const std::string* mode_attr = string_attr(ctx.node, "mode");
  std::string_view mode = mode_attr ? std::string_view(*mode_attr) : std::string_view("nearest");
  double per_output = 0;
  if (mode == "linear" || mode == "bilinear" || mode == "trilinear") per_output = 2 * std::pow(2.0, resized);
  else if (mode == "cubic") per_output = 2 * std::pow(4.0, resized);
  ctx.cost.flops = per_output * product(y);
}

void cost_dft(RuleContext& ctx, const OpRule& rule) {
  const auto& x = ctx.in_shape(0);
  if (x.size() < 2) ctx.fail("the signal needs a batch, a signal axis and a last dim of 1 or 2");
  // The transformed axis: the attribute before opset 20, the optional scalar input 2 (default -2) from 20.
  int64_t axis = ctx.graph.opset >= 20 ? -2 : 1;
  if (ctx.graph.opset < 20) {
    auto it = ctx.node.attrs.find("axis");
    if (it != ctx.node.attrs.end())
      if (const auto* v = std::get_if<int64_t>(&it->second)) axis = *v;
  } else if (const Tensor* a = ctx.input(2); a && a->int_values && a->int_values->size() == 1) {
    axis = (*a->int_values)[0];
  }
  axis = normalize_axis(ctx, axis, x.size());
  double len = static_cast<double>(x[static_cast<size_t>(axis)]);
  if (const Tensor* l = ctx.input(1); l && l->int_values && l->int_values->size() == 1)
    len = static_cast<double>((*l->int_values)[0]);
  OpRule per = rule;
  per.per_element = len > 1 ? 2.5 * std::log2(len) : 0;
  cost_elementwise(ctx, per);
}

// STFT: signal [B, L, 1 or 2] -> [B, frames, bins, 2]: a DFT of the frame length (input 3, else the window's
// length) per frame, 2.5 log2(length) a real output element as DFT's, plus the window's multiply (1 a frame sample).
void cost_stft(RuleContext& ctx, const OpRule& rule) {
  const auto& y = ctx.out_shape(0);
  if (y.size() != 4) ctx.fail("the output must be [batch, frames, bins, 2]");
  double len = 0;
  if (const Tensor* l = ctx.input(3); l && l->int_values && l->int_values->size() == 1)
    len = static_cast<double>(l->int_values->front());
  else if (ctx.has_input(2) && ctx.in_shape(2).size() == 1)
    len = static_cast<double>(ctx.in_shape(2)[0]);
  OpRule per = rule;
  per.per_element = len > 1 ? 2.5 * std::log2(len) : 0;
  cost_elementwise(ctx, per);
  ctx.cost.flops += static_cast<double>(y[0]) * static_cast<double>(y[1]) * std::max(len, 0.0);
}

}  // namespace perfpred::analysis_detail
