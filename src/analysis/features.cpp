#include "perfpred/analysis/features.hpp"

#include <array>

namespace perfpred::feature {

namespace {

constexpr std::array k_conv{batch,  in_channels, out_channels, groups,     in_d,       in_h,       in_w,
                            out_d,  out_h,       out_w,        kernel_d,   kernel_h,   kernel_w,   stride_d,
                            stride_h, stride_w,  dilation_d,   dilation_h, dilation_w, pad_d,      pad_h,
                            pad_w,  has_bias};
constexpr std::array k_gemm{batch, m, n, k};
constexpr std::array k_pool{batch, channels, in_d, in_h, in_w, out_d, out_h, out_w, kernel_d, kernel_h,
                            kernel_w, stride_d, stride_h, stride_w, pad_d, pad_h, pad_w, elements};
constexpr std::array k_shaped{elements, inner, outer};
constexpr std::array k_elementwise{elements, inner, outer, broadcast};
constexpr std::array k_data{elements};
constexpr std::array k_rnn{batch, seq_len, hidden, input_size, directions, gates};

}  // namespace

std::span<const std::string_view> names(OpFamily family) {
  switch (family) {
    case OpFamily::conv:
    case OpFamily::conv_transpose: return k_conv;
    case OpFamily::gemm: return k_gemm;
    case OpFamily::pool: return k_pool;
    case OpFamily::norm:
    case OpFamily::reduce:
    case OpFamily::softmax: return k_shaped;
    case OpFamily::elementwise: return k_elementwise;
    case OpFamily::data_movement: return k_data;
    case OpFamily::rnn: return k_rnn;
    case OpFamily::view:
    case OpFamily::unknown: return {};
  }
  return {};
}

double value_or(const NodeCost& cost, std::string_view key, double def) {
  for (const auto& [k, v] : cost.attrs)
    if (k == key) return v;
  return def;
}

}  // namespace perfpred::feature
