// The 128-byte tensor map (CUtensorMap) as a value: 16 little-endian 64-bit words.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

struct alignas(64) TensorMapBytes {
  std::uint64_t words[16] = {};

  // Byte i in memory order (the descriptor is little-endian on every CUDA platform).
  TMAKIT_HD constexpr std::uint8_t byte(int i) const {
    return static_cast<std::uint8_t>(words[i / 8] >> (8 * (i % 8)));
  }
  TMAKIT_HD constexpr void set_byte(int i, std::uint8_t v) {
    const int s = 8 * (i % 8);
    words[i / 8] = (words[i / 8] & ~(std::uint64_t{0xff} << s)) | (std::uint64_t{v} << s);
  }
  // Bits [lo, lo + width) of the 1024-bit descriptor, bit 0 = bit 0 of byte 0; width <= 64.
  TMAKIT_HD constexpr std::uint64_t bits(int lo, int width) const {
    std::uint64_t v = 0;
    for (int i = 0; i < width; ++i) v |= ((words[(lo + i) / 64] >> ((lo + i) % 64)) & 1u) << i;
    return v;
  }
  TMAKIT_HD constexpr void set_bits(int lo, int width, std::uint64_t v) {
    for (int i = 0; i < width; ++i) {
      const int b = lo + i;
      const std::uint64_t m = std::uint64_t{1} << (b % 64);
      words[b / 64] = ((v >> i) & 1u) ? (words[b / 64] | m) : (words[b / 64] & ~m);
    }
  }
  friend TMAKIT_HD constexpr bool operator==(const TensorMapBytes& a, const TensorMapBytes& b) {
    for (int i = 0; i < 16; ++i)
      if (a.words[i] != b.words[i]) return false;
    return true;
  }
};

static_assert(sizeof(TensorMapBytes) == 128, "a tensor map is 128 bytes");

}  // namespace tmakit
