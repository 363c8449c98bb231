#pragma once
/// The stable names of NodeCost::attrs. The learned model uses them as feature names and the
/// datasets store them in their `attrs` column, so they are defined here once and nowhere else.
/// Every name fits the small-string buffer (at most 15 characters): building them costs no allocation.
#include <span>
#include <string>
#include <string_view>

#include "perfpred/analysis/cost.hpp"

namespace perfpred::feature {

// Shared by several families.
inline constexpr std::string_view batch = "batch";
inline constexpr std::string_view elements = "elements";  ///< output elements (norm/elementwise/softmax/data_movement/pool), input elements (reduce)
inline constexpr std::string_view inner = "inner";        ///< size of the normalised / reduced / last axis
inline constexpr std::string_view outer = "outer";        ///< elements / inner
inline constexpr std::string_view channels = "channels";

// conv, conv_transpose
inline constexpr std::string_view in_channels = "in_channels";
inline constexpr std::string_view out_channels = "out_channels";
inline constexpr std::string_view groups = "groups";
inline constexpr std::string_view in_d = "in_d";
inline constexpr std::string_view in_h = "in_h";
inline constexpr std::string_view in_w = "in_w";
inline constexpr std::string_view out_d = "out_d";
inline constexpr std::string_view out_h = "out_h";
inline constexpr std::string_view out_w = "out_w";
inline constexpr std::string_view kernel_d = "kernel_d";
inline constexpr std::string_view kernel_h = "kernel_h";
inline constexpr std::string_view kernel_w = "kernel_w";
inline constexpr std::string_view stride_d = "stride_d";
inline constexpr std::string_view stride_h = "stride_h";
inline constexpr std::string_view stride_w = "stride_w";
inline constexpr std::string_view dilation_d = "dilation_d";
inline constexpr std::string_view dilation_h = "dilation_h";
inline constexpr std::string_view dilation_w = "dilation_w";
inline constexpr std::string_view pad_d = "pad_d";
inline constexpr std::string_view pad_h = "pad_h";
inline constexpr std::string_view pad_w = "pad_w";
inline constexpr std::string_view has_bias = "has_bias";

// gemm
inline constexpr std::string_view m = "m";
inline constexpr std::string_view n = "n";
inline constexpr std::string_view k = "k";

// elementwise
inline constexpr std::string_view broadcast = "broadcast";  ///< 1 when an input is smaller than the output

// rnn
inline constexpr std::string_view seq_len = "seq_len";
inline constexpr std::string_view hidden = "hidden";
inline constexpr std::string_view input_size = "input_size";
inline constexpr std::string_view directions = "directions";
inline constexpr std::string_view gates = "gates";

/// The attribute names a node of this family carries, in the order analyze() writes them. Every node
/// of a family carries all of them (0 where a dimension does not exist, e.g. kernel_d of a 2-D conv),
/// so a family's feature vector has a fixed length. view and unknown carry none.
std::span<const std::string_view> names(OpFamily family);

/// Value of attribute `key` of a node, or `def` when the node does not carry it.
double value_or(const NodeCost& cost, std::string_view key, double def = 0);

}  // namespace perfpred::feature
