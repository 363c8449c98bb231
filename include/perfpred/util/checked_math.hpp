#pragma once
/// Overflow-checked integer arithmetic for shape products and byte counts. Inline: predictions call
/// these for every tensor (a sweep, millions of times), and a call each was a quarter of a sweep's time.
#include <cstdint>
#include <optional>
#include <span>

namespace perfpred {

/// a*b, or nullopt when it overflows int64.
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
/// a+b, or nullopt when it overflows int64.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
/// Product of dims, or nullopt on overflow or when a dim is negative (unknown).
inline std::optional<int64_t> checked_product(std::span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(p, d, &p)) return std::nullopt;
  }
  return p;
}

}  // namespace perfpred
