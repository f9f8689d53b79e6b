// Checked 64-bit integer arithmetic (constexpr, host and device): every helper reports whether the
// exact result fits in int64 instead of wrapping (signed overflow is undefined behaviour in C++).
// g++ and clang use the compiler builtins (constexpr there); code compiled by nvcc, host and device
// side, uses the same checks written out with unsigned arithmetic, because nvcc's front end does not
// evaluate the builtins in constant expressions.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

namespace detail {
TMAKIT_HD constexpr std::uint64_t magnitude(std::int64_t v) {
  return v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}
}  // namespace detail

// *out = a * b; returns false (and leaves *out unspecified) when the product does not fit in int64.
TMAKIT_HD constexpr bool checked_mul(std::int64_t a, std::int64_t b, std::int64_t* out) {
#if !defined(__CUDACC__)
  return !__builtin_mul_overflow(a, b, out);
#else
  if (a == 0 || b == 0) {
    *out = 0;
    return true;
  }
  const bool neg = (a < 0) != (b < 0);
  const std::uint64_t ua = detail::magnitude(a), ub = detail::magnitude(b);
  const std::uint64_t limit = (std::uint64_t{1} << 63) - (neg ? 0 : 1);
  if (ua > limit / ub) return false;
  const std::uint64_t m = ua * ub;
  *out = neg ? static_cast<std::int64_t>(0 - m) : static_cast<std::int64_t>(m);
  return true;
#endif
}

// *out = a + b; returns false when the sum does not fit in int64.
TMAKIT_HD constexpr bool checked_add(std::int64_t a, std::int64_t b, std::int64_t* out) {
#if !defined(__CUDACC__)
  return !__builtin_add_overflow(a, b, out);
#else
  const std::uint64_t s = static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b);
  // Overflow exactly when a and b have the same sign and the sum's sign differs.
  if (((a < 0) == (b < 0)) && ((static_cast<std::int64_t>(s) < 0) != (a < 0))) return false;
  *out = static_cast<std::int64_t>(s);
  return true;
#endif
}

// *out = a - b; returns false when the difference does not fit in int64.
TMAKIT_HD constexpr bool checked_sub(std::int64_t a, std::int64_t b, std::int64_t* out) {
#if !defined(__CUDACC__)
  return !__builtin_sub_overflow(a, b, out);
#else
  const std::uint64_t s = static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b);
  if (((a < 0) != (b < 0)) && ((static_cast<std::int64_t>(s) < 0) != (a < 0))) return false;
  *out = static_cast<std::int64_t>(s);
  return true;
#endif
}

// a * b, or INT64_MAX / INT64_MIN (the sign of the exact product) where that does not fit in int64.
TMAKIT_HD constexpr std::int64_t mul_saturated(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (checked_mul(a, b, &r)) return r;
  return ((a < 0) != (b < 0)) ? static_cast<std::int64_t>(std::uint64_t{1} << 63)
                              : static_cast<std::int64_t>((std::uint64_t{1} << 63) - 1);
}

}  // namespace tmakit
