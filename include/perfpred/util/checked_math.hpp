#pragma once
/// Overflow-checked integer arithmetic for shape products and byte counts.
#include <cstdint>
#include <optional>
#include <span>

namespace perfpred {

/// a*b, or nullopt when it overflows int64.
std::optional<int64_t> checked_mul(int64_t a, int64_t b);
/// a+b, or nullopt when it overflows int64.
std::optional<int64_t> checked_add(int64_t a, int64_t b);
/// Product of dims, or nullopt on overflow or when a dim is negative (unknown).
std::optional<int64_t> checked_product(std::span<const int64_t> dims);

}  // namespace perfpred
