#pragma once
// Internal to the analysis module: the op rule table and the context a cost function works in.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/analysis/features.hpp"
#include "perfpred/core/graph.hpp"

namespace perfpred::analysis_detail {

struct RuleContext;
struct OpRule;

/// Computes flops, gemm shape and attrs of one node whose inputs and first output have known shapes.
/// Throws InputError (through RuleContext::fail) when the node is malformed.
using CostFn = void (*)(RuleContext& ctx, const OpRule& rule);

/// Input slots whose initializers are trainable parameters.
enum class ParamSlots : uint8_t {
  none,
  listed,        ///< the slots in OpRule::param_mask
  listed_multi,  ///< the listed slots, only tensors of more than one element (constants like eps are scalars)
  /// The listed slots of a quantised op (QLinearConv, MatMulInteger, ...), whose weights are 8-bit (and biases
  /// int32) integers: integer initializers count there, where elsewhere they are shapes and indices.
  listed_quantized,
  listed_multi_quantized,  ///< listed_quantized, only tensors of more than one element
};

/// One op: family, cost function and which inputs are trainable weights. Defined once, in rules_table.cpp.
struct OpRule {
  OpFamily family = OpFamily::unknown;
  CostFn cost = nullptr;
  double per_element = 0;     ///< flops per element for the generic elementwise/norm/reduce/pool rules
  ParamSlots params = ParamSlots::none;
  uint32_t param_mask = 0;    ///< bit i = input slot i
  bool needs_output_shape = true;  ///< false when the cost follows from the input shapes alone
};

inline constexpr uint32_t k_all_slots = 0xFFFFFFFFu;

/// Rule for a node (default domain "" / "ai.onnx", or com.microsoft), or nullptr when unknown.
const OpRule* find_rule(const Node& node);
/// Rule for an op type of the default domain, else of com.microsoft; nullptr when neither has it.
const OpRule* find_rule_any_domain(const std::string& op);

/// What a cost function sees.
struct RuleContext {
  const Graph& graph;
  const Node& node;
  NodeCost& cost;
  /// When >= 0, bytes read from input 0 are capped at this value (a gather reads only what it selects).
  int64_t input0_read_cap = -1;
  /// When >= 0, bytes written to output 0 are capped at this value (SequenceInsert writes the one new tensor).
  int64_t output0_write_cap = -1;

  /// Shape of input i (known: the driver checked). Fails when the input is absent.
  const std::vector<int64_t>& in_shape(size_t i) const;
  /// Shape of output i (known for output 0).
  const std::vector<int64_t>& out_shape(size_t i) const;
  /// True when input i is present.
  bool has_input(size_t i) const { return graph.input(node, i) != nullptr; }
  /// Input i tensor or nullptr.
  const Tensor* input(size_t i) const { return graph.input(node, i); }
  /// Number of present inputs.
  size_t present_inputs() const;

  /// Throws InputError "node 'NAME' (OP): MSG".
  [[noreturn]] void fail(const std::string& msg) const;
  /// Adds a warning to the node.
  void warn(std::string msg) const { cost.warnings.push_back(std::move(msg)); }

  /// Writes the family's attributes in features::names(family) order; values.size() must match.
  void set_attrs(OpFamily family, std::span<const double> values) const;
};

/// Up to 8 integers without allocating (per-spatial-dim attributes: strides, pads, dilations, kernel).
struct SmallInts {
  std::array<int64_t, 8> v{};
  size_t n = 0;
  std::span<const int64_t> span() const { return {v.data(), n}; }
};
inline constexpr size_t k_max_spatial = 8;

/// The int-list attribute `key` when it has exactly n values, else n copies of def (n <= k_max_spatial).
SmallInts ints_or_fill(const Node& node, const std::string& key, size_t n, int64_t def);
/// The leading (begin) values of a `pads` attribute of 2n values, else zeros.
SmallInts leading_pads(const Node& node, size_t n);
/// The attribute's value when present with this type, else nullptr (no copy).
const std::vector<int64_t>* ints_attr(const Node& node, const std::string& key);
const std::string* string_attr(const Node& node, const std::string& key);

/// Spatial values mapped onto (d, h, w): 1-D -> w, 2-D -> h, w, 3-D -> d, h, w; more dims fold into d.
struct Triple {
  double d = 1, h = 1, w = 1;
};
Triple spatial(std::span<const int64_t> v, double def);

/// Product of dims as double (no overflow concerns; exact below 2^53).
double product(std::span<const int64_t> dims);
/// Normalises a possibly negative axis against a rank; fails through ctx when out of range.
int64_t normalize_axis(const RuleContext& ctx, int64_t axis, size_t rank);

// Cost functions (rules_compute.cpp: conv, gemm, einsum, rnn; rules_simple.cpp: the rest).
void cost_conv(RuleContext& ctx, const OpRule& rule);
/// ConvInteger: a Conv without bias (inputs 2 and 3 are zero points), int32 out.
void cost_conv_integer(RuleContext& ctx, const OpRule& rule);
/// QLinearConv: weight input 3, bias input 8, each output requantised.
void cost_qlinear_conv(RuleContext& ctx, const OpRule& rule);
/// DeformConv: the conv's work plus the bilinear sampling at the offsets.
void cost_deform_conv(RuleContext& ctx, const OpRule& rule);
void cost_conv_transpose(RuleContext& ctx, const OpRule& rule);
void cost_gemm(RuleContext& ctx, const OpRule& rule);
void cost_matmul(RuleContext& ctx, const OpRule& rule);
/// QLinearMatMul: B is input 3, each output requantised.
void cost_qlinear_matmul(RuleContext& ctx, const OpRule& rule);
/// com.microsoft Attention: QKV projection, Q.K^T over past + new keys, softmax and the product with V.
void cost_ms_attention(RuleContext& ctx, const OpRule& rule);
/// com.microsoft MultiHeadAttention and GroupQueryAttention, ONNX Attention (opset 23): scores, softmax and the
/// product with V over past + new keys.
void cost_head_attention(RuleContext& ctx, const OpRule& rule);
/// com.microsoft MatMulNBits: a GEMM with N x K weights in `bits`-bit blocks, dequantised on the fly.
void cost_matmul_nbits(RuleContext& ctx, const OpRule& rule);
void cost_einsum(RuleContext& ctx, const OpRule& rule);
void cost_rnn(RuleContext& ctx, const OpRule& rule);

void cost_none(RuleContext& ctx, const OpRule& rule);
void cost_elementwise(RuleContext& ctx, const OpRule& rule);
void cost_variadic(RuleContext& ctx, const OpRule& rule);
void cost_batchnorm(RuleContext& ctx, const OpRule& rule);
void cost_layernorm(RuleContext& ctx, const OpRule& rule);
void cost_instancenorm(RuleContext& ctx, const OpRule& rule);
void cost_groupnorm(RuleContext& ctx, const OpRule& rule);
void cost_groupnorm_nhwc(RuleContext& ctx, const OpRule& rule);
void cost_skip_layernorm(RuleContext& ctx, const OpRule& rule);
void cost_skip_simplified_layernorm(RuleContext& ctx, const OpRule& rule);
void cost_lrn(RuleContext& ctx, const OpRule& rule);
void cost_mvn(RuleContext& ctx, const OpRule& rule);
void cost_pool(RuleContext& ctx, const OpRule& rule);
void cost_global_pool(RuleContext& ctx, const OpRule& rule);
/// com.microsoft QLinearAveragePool and QLinearGlobalAveragePool, NCHW or channels_last NHWC.
void cost_qlinear_pool(RuleContext& ctx, const OpRule& rule);
void cost_roi_pool(RuleContext& ctx, const OpRule& rule);
/// RoiAlign: sampling_ratio^2 bilinear samples per output element.
void cost_roi_align(RuleContext& ctx, const OpRule& rule);
void cost_softmax(RuleContext& ctx, const OpRule& rule);
void cost_reduce(RuleContext& ctx, const OpRule& rule);
void cost_scan(RuleContext& ctx, const OpRule& rule);
void cost_topk(RuleContext& ctx, const OpRule& rule);
/// Unique: a sort and a pass over the input; Det: LU of each matrix; Multinomial: a CDF and a search a sample.
void cost_unique(RuleContext& ctx, const OpRule& rule);
/// SequenceConstruct, SequenceInsert, SequenceAt, SplitToSequence, ConcatFromSequence: the tensors they copy in
/// or out (an insert reads and writes the new tensor only, an At the one it reads).
void cost_sequence(RuleContext& ctx, const OpRule& rule);
void cost_det(RuleContext& ctx, const OpRule& rule);
void cost_multinomial(RuleContext& ctx, const OpRule& rule);
/// NonMaxSuppression: the IoU of every pair of a class's candidate boxes (the output count is data).
void cost_nms(RuleContext& ctx, const OpRule& rule);
void cost_data_movement(RuleContext& ctx, const OpRule& rule);
void cost_tensor_scatter(RuleContext& ctx, const OpRule& rule);
void cost_gather(RuleContext& ctx, const OpRule& rule);
void cost_resize(RuleContext& ctx, const OpRule& rule);
/// DFT: an FFT of length L is about 5 L log2 L real FLOPs, so 2.5 log2(L) per real output element.
void cost_dft(RuleContext& ctx, const OpRule& rule);
/// STFT: a DFT of the frame length per frame, and the window's multiply.
void cost_stft(RuleContext& ctx, const OpRule& rule);

}  // namespace perfpred::analysis_detail
