// The op table: every op perfpred knows, with its family, cost function, per-element FLOPs and weight
// slots, defined here once. The FLOP conventions are documented in rules_compute.cpp and rules_simple.cpp.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <variant>

#include "perfpred/util/error.hpp"
#include "rules.hpp"

namespace perfpred::analysis_detail {

namespace {

using Table = std::unordered_map<std::string, OpRule>;

constexpr uint32_t slots(std::initializer_list<int> list) {
  uint32_t m = 0;
  for (int i : list) m |= 1u << i;
  return m;
}

OpRule rule(OpFamily f, CostFn fn, double per_element = 0, ParamSlots p = ParamSlots::none, uint32_t mask = 0) {
  // These rules read only input shapes, so an output ONNX left unshaped does not cost their FLOPs.
  bool from_inputs = fn == cost_gemm || fn == cost_matmul || fn == cost_qlinear_matmul || fn == cost_einsum ||
                     fn == cost_rnn ||
                     fn == cost_batchnorm || fn == cost_layernorm || fn == cost_instancenorm ||
                     fn == cost_groupnorm || fn == cost_groupnorm_nhwc || fn == cost_skip_layernorm ||
                     fn == cost_skip_simplified_layernorm || fn == cost_head_attention || fn == cost_matmul_nbits ||
                     fn == cost_lrn || fn == cost_mvn || fn == cost_softmax || fn == cost_scan || fn == cost_nms ||
                     fn == cost_unique || fn == cost_det || fn == cost_multinomial ||
                     fn == cost_none;
  return OpRule{f, fn, per_element, p, mask, !from_inputs};
}
OpRule ew(double per_element) { return rule(OpFamily::elementwise, cost_elementwise, per_element); }
// Elementwise arithmetic whose non-scalar float initializers are weights (position embeddings, GroupNorm gamma).
OpRule ew_weighted(double per_element) {
  return rule(OpFamily::elementwise, cost_elementwise, per_element, ParamSlots::listed_multi, k_all_slots);
}
OpRule data(uint32_t weight_mask = 0) {
  return rule(OpFamily::data_movement, cost_data_movement, 0,
              weight_mask ? ParamSlots::listed_multi : ParamSlots::none, weight_mask);
}
OpRule view() { return rule(OpFamily::view, cost_none); }
OpRule reduce(double per_element) { return rule(OpFamily::reduce, cost_reduce, per_element); }

const Table& default_table() {
  static const Table table{
        // conv / gemm / rnn
        {"Conv", rule(OpFamily::conv, cost_conv, 0, ParamSlots::listed, slots({1, 2}))},
        {"ConvTranspose", rule(OpFamily::conv_transpose, cost_conv_transpose, 0, ParamSlots::listed, slots({1, 2}))},
        {"DeformConv", rule(OpFamily::conv, cost_deform_conv, 0, ParamSlots::listed, slots({1, 3}))},
        {"Gemm", rule(OpFamily::gemm, cost_gemm, 0, ParamSlots::listed, k_all_slots)},
        {"MatMul", rule(OpFamily::gemm, cost_matmul, 0, ParamSlots::listed, k_all_slots)},
        // Integer and quantised-linear forms (ONNX Runtime's QOperator quantisation): the same work on 8-bit
        // tensors; --precision int8 prices their kernels. Weights: the 8-bit filter or B, QLinearConv's bias.
        {"ConvInteger", rule(OpFamily::conv, cost_conv_integer, 0, ParamSlots::listed_quantized, slots({1}))},
        {"QLinearConv", rule(OpFamily::conv, cost_qlinear_conv, 0, ParamSlots::listed_quantized, slots({3, 8}))},
        {"MatMulInteger", rule(OpFamily::gemm, cost_matmul, 0, ParamSlots::listed_quantized, slots({1}))},
        {"QLinearMatMul", rule(OpFamily::gemm, cost_qlinear_matmul, 0, ParamSlots::listed_quantized, slots({3}))},
        {"Einsum", rule(OpFamily::gemm, cost_einsum, 0, ParamSlots::listed, k_all_slots)},
        {"LSTM", rule(OpFamily::rnn, cost_rnn, 0, ParamSlots::listed, slots({1, 2, 3, 7}))},
        {"GRU", rule(OpFamily::rnn, cost_rnn, 0, ParamSlots::listed, slots({1, 2, 3}))},
        {"RNN", rule(OpFamily::rnn, cost_rnn, 0, ParamSlots::listed, slots({1, 2, 3}))},
        // norm
        {"BatchNormalization", rule(OpFamily::norm, cost_batchnorm, 2, ParamSlots::listed, slots({1, 2}))},
        {"LayerNormalization", rule(OpFamily::norm, cost_layernorm, 8, ParamSlots::listed, slots({1, 2}))},
        // Lp norm along an axis (p = 2: square, sum, divide; 3 an element).
        {"LpNormalization", rule(OpFamily::norm, cost_layernorm, 3)},
        // RMSNorm as ONNX Runtime registers it in the default domain (its GenAI models): square, mean,
        // rsqrt, normalise and scale, 5 an element.
        {"SimplifiedLayerNormalization", rule(OpFamily::norm, cost_layernorm, 5, ParamSlots::listed, slots({1}))},
        // Opset 23: RMSNorm as ONNX defines it, rotary embedding (3 an element), attention over heads with a
        // KV cache (rules_compute.cpp, cost_head_attention).
        {"RMSNormalization", rule(OpFamily::norm, cost_layernorm, 5, ParamSlots::listed, slots({1}))},
        {"RotaryEmbedding", ew(3)},
        {"Attention", rule(OpFamily::gemm, cost_head_attention)},
        {"InstanceNormalization", rule(OpFamily::norm, cost_instancenorm, 8, ParamSlots::listed, slots({1, 2}))},
        {"GroupNormalization", rule(OpFamily::norm, cost_groupnorm, 8, ParamSlots::listed, slots({1, 2}))},
        {"MeanVarianceNormalization", rule(OpFamily::norm, cost_mvn, 8)},
        {"LRN", rule(OpFamily::norm, cost_lrn)},
        // softmax
        {"Softmax", rule(OpFamily::softmax, cost_softmax, 5)},
        {"LogSoftmax", rule(OpFamily::softmax, cost_softmax, 5)},
        {"Hardmax", rule(OpFamily::softmax, cost_softmax, 2)},
        // pool
        {"MaxPool", rule(OpFamily::pool, cost_pool, 1)},
        {"AveragePool", rule(OpFamily::pool, cost_pool, 1)},
        {"LpPool", rule(OpFamily::pool, cost_pool, 2)},
        {"GlobalMaxPool", rule(OpFamily::pool, cost_global_pool, 1)},
        {"GlobalAveragePool", rule(OpFamily::pool, cost_global_pool, 1)},
        {"GlobalLpPool", rule(OpFamily::pool, cost_global_pool, 2)},
        {"MaxRoiPool", rule(OpFamily::pool, cost_roi_pool, 1)},
        {"RoiAlign", rule(OpFamily::pool, cost_roi_align, 10)},
        // reduce
        {"ReduceMean", reduce(1)},
        {"ReduceSum", reduce(1)},
        {"ReduceMax", reduce(1)},
        {"ReduceMin", reduce(1)},
        {"ReduceProd", reduce(1)},
        {"ReduceLogSum", reduce(1)},
        {"ReduceL1", reduce(2)},
        {"ReduceL2", reduce(2)},
        {"ReduceSumSquare", reduce(2)},
        {"ReduceLogSumExp", reduce(2)},
        {"ArgMax", reduce(1)},
        {"ArgMin", reduce(1)},
        {"CumSum", rule(OpFamily::reduce, cost_scan, 1)},
        {"CumProd", rule(OpFamily::reduce, cost_scan, 1)},  // opset 26
        {"TopK", rule(OpFamily::reduce, cost_topk, 1)},
        {"NonMaxSuppression", rule(OpFamily::reduce, cost_nms, 8)},
        // elementwise: arithmetic with broadcasting
        {"Add", ew_weighted(1)},
        {"Sub", ew_weighted(1)},
        {"Mul", ew_weighted(1)},
        {"Div", ew_weighted(1)},
        {"Sum", rule(OpFamily::elementwise, cost_variadic, 0, ParamSlots::listed_multi, k_all_slots)},
        {"Mean", rule(OpFamily::elementwise, cost_variadic, 0, ParamSlots::listed_multi, k_all_slots)},
        {"Max", rule(OpFamily::elementwise, cost_variadic, 0, ParamSlots::listed_multi, k_all_slots)},
        {"Min", rule(OpFamily::elementwise, cost_variadic, 0, ParamSlots::listed_multi, k_all_slots)},
        {"Mod", ew(1)},
        {"Pow", ew(4)},
        {"Equal", ew(1)},
        {"Less", ew(1)},
        {"Greater", ew(1)},
        {"LessOrEqual", ew(1)},
        {"GreaterOrEqual", ew(1)},
        {"And", ew(1)},
        {"Or", ew(1)},
        {"Xor", ew(1)},
        {"Not", ew(1)},
        {"BitShift", ew(1)},
        {"IsNaN", ew(1)},
        {"IsInf", ew(1)},
        // elementwise: activations and unary math
        {"Relu", ew(1)},
        {"Abs", ew(1)},
        {"Neg", ew(1)},
        {"Sign", ew(1)},
        {"Floor", ew(1)},
        {"Ceil", ew(1)},
        {"Round", ew(1)},
        {"Reciprocal", ew(1)},
        {"LeakyRelu", ew(2)},
        {"PRelu", rule(OpFamily::elementwise, cost_elementwise, 2, ParamSlots::listed, slots({1}))},
        {"Clip", ew(2)},
        {"Shrink", ew(2)},
        {"ThresholdedRelu", ew(2)},
        {"QuantizeLinear", ew(2)},
        {"DequantizeLinear", ew(2)},
        {"DynamicQuantizeLinear", ew(4)},
        {"HardSigmoid", ew(3)},
        {"Softsign", ew(3)},
        {"Exp", ew(4)},
        {"Log", ew(4)},
        {"Sqrt", ew(4)},
        {"Sin", ew(4)},
        {"Cos", ew(4)},
        {"Tan", ew(4)},
        {"Asin", ew(4)},
        {"Acos", ew(4)},
        {"Atan", ew(4)},
        {"Sinh", ew(4)},
        {"Cosh", ew(4)},
        {"Asinh", ew(4)},
        {"Acosh", ew(4)},
        {"Atanh", ew(4)},
        {"Sigmoid", ew(4)},
        {"Tanh", ew(4)},
        {"Erf", ew(4)},
        {"Softplus", ew(4)},
        {"Elu", ew(4)},
        {"Selu", ew(4)},
        {"Celu", ew(4)},
        {"HardSwish", ew(4)},
        {"Gelu", ew(8)},
        {"Mish", ew(8)},
        {"Swish", ew(6)},  // opset 24: x sigmoid(alpha x)
        // data movement
        {"Concat", data(k_all_slots)},
        {"Split", data()},
        {"Transpose", data()},
        {"Pad", data()},
        {"Tile", data(slots({0}))},
        {"Expand", data(slots({0}))},
        {"Where", data(slots({1, 2}))},
        {"Cast", data()},
        {"CastLike", data()},
        {"ScatterND", data()},
        {"ScatterElements", data()},
        {"Scatter", data()},
        {"DepthToSpace", data()},
        {"SpaceToDepth", data()},
        {"NonZero", data()},
        {"OneHot", data()},
        {"Trilu", data()},
        {"Range", data()},
        {"Compress", data()},
        {"Unique", rule(OpFamily::reduce, cost_unique, 1)},
        {"Det", rule(OpFamily::reduce, cost_det)},
        {"Multinomial", rule(OpFamily::reduce, cost_multinomial)},
        {"ReverseSequence", data()},
        {"TensorScatter", rule(OpFamily::data_movement, cost_tensor_scatter)},  // opset 24: a KV-cache write
        // Tensor sequences (TorchScript's lists): building, reading and joining them copies tensors; their length
        // and an erase move none.
        {"SequenceConstruct", rule(OpFamily::data_movement, cost_sequence)},
        {"SequenceInsert", rule(OpFamily::data_movement, cost_sequence)},
        {"SequenceAt", rule(OpFamily::data_movement, cost_sequence)},
        {"SplitToSequence", rule(OpFamily::data_movement, cost_sequence)},
        {"ConcatFromSequence", rule(OpFamily::data_movement, cost_sequence)},
        {"SequenceEmpty", view()},
        {"SequenceLength", view()},
        {"SequenceErase", view()},
        // Optionals (TorchScript's Optional[Tensor]): a wrapper, a flag and an unwrap; no kernel.
        {"Optional", view()},
        {"OptionalHasElement", view()},
        {"OptionalGetElement", view()},
        {"EyeLike", data()},
        {"ConstantOfShape", data()},
        {"Gather", rule(OpFamily::data_movement, cost_gather, 0, ParamSlots::listed, slots({0}))},
        {"GatherElements", rule(OpFamily::data_movement, cost_gather, 0, ParamSlots::listed, slots({0}))},
        {"GatherND", rule(OpFamily::data_movement, cost_gather, 0, ParamSlots::listed, slots({0}))},
        {"Slice", rule(OpFamily::data_movement, cost_gather)},
        {"Resize", rule(OpFamily::data_movement, cost_resize)},
        {"Upsample", rule(OpFamily::data_movement, cost_resize)},
        // opsets 18-20: a crop/pad, a scatter-add of patches, a sampling grid and its interpolation, an FFT
        {"CenterCropPad", data()},
        {"Col2Im", data()},
        {"AffineGrid", ew(6)},
        {"GridSample", rule(OpFamily::data_movement, cost_resize)},
        {"DFT", rule(OpFamily::elementwise, cost_dft)},
        // Audio front ends (opset 17): STFT as DFTs of its frames; the windows (cos terms: Hann and Hamming 3 an
        // element, Blackman 5) and the mel filter bank (6) are tables a runtime computes once when their sizes are
        // constants (then folded at load like any constant).
        {"STFT", rule(OpFamily::elementwise, cost_stft)},
        {"HannWindow", ew(3)},
        {"HammingWindow", ew(3)},
        {"BlackmanWindow", ew(5)},
        {"MelWeightMatrix", ew(6)},
        // Bitwise integer ops (opset 18), random tensors (a counter-based generator: about 4 an element; Bernoulli
        // adds the comparison), MaxUnpool's zero fill and scatter, the training losses (SoftmaxCrossEntropyLoss:
        // the log-softmax and the pick, 7 a score; NegativeLogLikelihoodLoss: the pick and the weight, 2 a target).
        {"BitwiseAnd", ew(1)},
        {"BitwiseOr", ew(1)},
        {"BitwiseXor", ew(1)},
        {"BitwiseNot", ew(1)},
        {"RandomNormal", ew(4)},
        {"RandomUniform", ew(4)},
        {"RandomNormalLike", ew(4)},
        {"RandomUniformLike", ew(4)},
        {"Bernoulli", ew(5)},
        {"MaxUnpool", data()},
        {"SoftmaxCrossEntropyLoss", rule(OpFamily::softmax, cost_softmax, 7)},
        {"NegativeLogLikelihoodLoss", ew(2)},
        // view: no kernel
        {"Reshape", view()},
        {"Flatten", view()},
        {"Squeeze", view()},
        {"Unsqueeze", view()},
        {"Identity", view()},
        {"BitCast", view()},  // opset 26: the same bytes read as another type of the same width
        {"Dropout", view()},
        {"Shape", view()},
        {"Size", view()},
        {"Constant", view()},
  };
  return table;
}

// com.microsoft contrib ops whose cost is that of a default op (plus a fused activation or bias).
const Table& microsoft_table() {
  static const Table table{
      {"FusedConv", rule(OpFamily::conv, cost_conv, 0, ParamSlots::listed, slots({1, 2}))},
      {"FusedMatMul", rule(OpFamily::gemm, cost_matmul, 0, ParamSlots::listed, k_all_slots)},
      {"Attention", rule(OpFamily::gemm, cost_ms_attention, 0, ParamSlots::listed, slots({1, 2}))},
      {"Gelu", ew(8)},
      {"FastGelu", rule(OpFamily::elementwise, cost_elementwise, 8, ParamSlots::listed, slots({1}))},
      {"BiasGelu", rule(OpFamily::elementwise, cost_elementwise, 9, ParamSlots::listed, slots({1}))},
      {"QuickGelu", ew(5)},
      {"GroupNorm", rule(OpFamily::norm, cost_groupnorm_nhwc, 8, ParamSlots::listed, slots({1, 2}))},
      {"SkipLayerNormalization", rule(OpFamily::norm, cost_skip_layernorm, 9, ParamSlots::listed, slots({2, 3, 4}))},
      // The decoder ops of ONNX Runtime GenAI's models: the residual add and RMSNorm (6), rotary embedding
      // (x cos + rotate(x) sin: 3 an element), attention with a KV cache, 4-bit weight GEMMs whose logical
      // N x K weights are the parameters (cost.cpp counts the packed bytes at 8 / bits weights each).
      {"SkipSimplifiedLayerNormalization",
       rule(OpFamily::norm, cost_skip_simplified_layernorm, 6, ParamSlots::listed, slots({2, 3}))},
      {"RotaryEmbedding", ew(3)},
      {"MultiHeadAttention", rule(OpFamily::gemm, cost_head_attention)},
      {"GroupQueryAttention", rule(OpFamily::gemm, cost_head_attention)},
      {"MatMulNBits", rule(OpFamily::gemm, cost_matmul_nbits, 0, ParamSlots::listed_quantized, slots({1, 5}))},
      // QOperator quantisation's 8-bit elementwise ops: dequantise both operands, the op, requantise (Add, Mul:
      // 5 a element); Sigmoid and LeakyRelu are a 256-entry table lookup in ONNX Runtime (1); Softmax a table
      // of exponentials, the sum and the scaling (as the float op's 5); the pools subtract the zero point and add
      // (2 a window element).
      {"QLinearAdd", rule(OpFamily::elementwise, cost_elementwise, 5, ParamSlots::listed_multi_quantized, slots({3}))},
      {"QLinearMul", rule(OpFamily::elementwise, cost_elementwise, 5, ParamSlots::listed_multi_quantized, slots({3}))},
      {"QLinearSigmoid", ew(1)},
      {"QLinearLeakyRelu", ew(1)},
      {"QLinearSoftmax", rule(OpFamily::softmax, cost_softmax, 5)},
      {"QLinearAveragePool", rule(OpFamily::pool, cost_qlinear_pool, 2)},
      {"QLinearGlobalAveragePool", rule(OpFamily::pool, cost_qlinear_pool, 2)},
      {"QLinearConcat", data()},
  };
  return table;
}

}  // namespace

const OpRule* find_rule(const Node& node) {
  const Table* table = nullptr;
  if (node.domain.empty() || node.domain == "ai.onnx") table = &default_table();
  else if (node.domain == "com.microsoft") table = &microsoft_table();
  else return nullptr;
  auto it = table->find(node.op);
  return it == table->end() ? nullptr : &it->second;
}

const OpRule* find_rule_any_domain(const std::string& op) {
  for (const Table* table : {&default_table(), &microsoft_table()}) {
    auto it = table->find(op);
    if (it != table->end()) return &it->second;
  }
  return nullptr;
}

const std::vector<int64_t>& RuleContext::in_shape(size_t i) const {
  const Tensor* t = graph.input(node, i);
  if (!t) fail("input " + std::to_string(i) + " is missing");
  if (!t->shape_known()) fail("input " + t->name + " has an unknown shape");
  return t->shape;
}

const std::vector<int64_t>& RuleContext::out_shape(size_t i) const {
  const Tensor* t = graph.output(node, i);
  if (!t) fail("output " + std::to_string(i) + " is missing");
  if (!t->shape_known()) fail("output " + t->name + " has an unknown shape");
  return t->shape;
}

size_t RuleContext::present_inputs() const {
  size_t n = 0;
  for (int t : node.inputs) n += t >= 0 ? 1 : 0;
  return n;
}

void RuleContext::fail(const std::string& msg) const {
  throw InputError("node '" + node.name + "' (" + node.op + "): " + msg);
}

void RuleContext::set_attrs(OpFamily family, std::span<const double> values) const {
  // One prebuilt (name, 0) list per family: copying it costs one allocation and no string building.
  using Attrs = std::vector<std::pair<std::string, double>>;
  static const std::array<Attrs, static_cast<size_t>(OpFamily::unknown) + 1> templates = [] {
    std::array<Attrs, static_cast<size_t>(OpFamily::unknown) + 1> t;
    for (size_t f = 0; f < t.size(); ++f)
      for (std::string_view name : feature::names(static_cast<OpFamily>(f))) t[f].emplace_back(std::string(name), 0.0);
    return t;
  }();
  const Attrs& tmpl = templates[static_cast<size_t>(family)];
  if (tmpl.size() != values.size())
    throw InternalError("attrs of family " + to_string(family) + ": " + std::to_string(values.size()) +
                        " values for " + std::to_string(tmpl.size()) + " names");
  cost.attrs = tmpl;
  for (size_t i = 0; i < values.size(); ++i) cost.attrs[i].second = values[i];
}

SmallInts ints_or_fill(const Node& node, const std::string& key, size_t n, int64_t def) {
  SmallInts r;
  r.n = std::min(n, k_max_spatial);
  const auto* v = ints_attr(node, key);
  for (size_t i = 0; i < r.n; ++i) r.v[i] = v && v->size() == n ? (*v)[i] : def;
  return r;
}

SmallInts leading_pads(const Node& node, size_t n) {
  SmallInts r;
  r.n = std::min(n, k_max_spatial);
  const auto* p = ints_attr(node, "pads");
  if (p && p->size() == 2 * n)
    for (size_t i = 0; i < r.n; ++i) r.v[i] = (*p)[i];
  return r;
}

const std::vector<int64_t>* ints_attr(const Node& node, const std::string& key) {
  auto it = node.attrs.find(key);
  return it == node.attrs.end() ? nullptr : std::get_if<std::vector<int64_t>>(&it->second);
}

const std::string* string_attr(const Node& node, const std::string& key) {
  auto it = node.attrs.find(key);
  return it == node.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
}

Triple spatial(std::span<const int64_t> v, double def) {
  Triple t{def, def, def};
  size_t n = v.size();
  if (n >= 1) t.w = static_cast<double>(v[n - 1]);
  if (n >= 2) t.h = static_cast<double>(v[n - 2]);
  if (n >= 3) t.d = product(v.first(n - 2));
  return t;
}

double product(std::span<const int64_t> dims) {
  double p = 1;
  for (int64_t d : dims) p *= static_cast<double>(d);
  return p;
}

int64_t normalize_axis(const RuleContext& ctx, int64_t axis, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r) ctx.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return a;
}

}  // namespace perfpred::analysis_detail
