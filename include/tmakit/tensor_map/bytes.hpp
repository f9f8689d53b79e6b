// The 128-byte tensor map (CUtensorMap) as a value: 16 little-endian 64-bit words.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tmakit/core/config.hpp"

#if !defined(__CUDA_ARCH__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TMAKIT_BYTES_ZERO_IN_CHUNKS 1
#else
#define TMAKIT_BYTES_ZERO_IN_CHUNKS 0
#endif

namespace tmakit {

struct alignas(64) TensorMapBytes {
  std::uint64_t words[16];

  // All zero. In x86-64 host code, eight 16-byte stores of a zero the compiler cannot see (a
  // vector register, through the compiler's vector extension: no intrinsics header): g++ -O2 turns
  // any 128-byte zero fill it recognizes into `rep stosq`, which cost 12-15 ns per map (longer than
  // encoding one) and made encode() take twice encode_into()'s time (docs/lab/encode_2026-11-22.md, 2026-11-22
  // 08:53 and 09:04).
  TMAKIT_HD constexpr TensorMapBytes() {
#if TMAKIT_BYTES_ZERO_IN_CHUNKS
    if (!std::is_constant_evaluated()) {
      using Chunk = long long __attribute__((vector_size(16), may_alias));
      Chunk zero = {0, 0};
      asm("" : "+x"(zero));
      for (int i = 0; i < 16; i += 2) *reinterpret_cast<Chunk*>(&words[i]) = zero;
      return;
    }
#endif
    for (auto& w : words) w = 0;
  }
  // Left unwritten, for a map about to be written whole (encode() before its fast path). Every word
  // must be written before it is read.
  struct Unwritten {};
  TMAKIT_HD constexpr explicit TensorMapBytes(Unwritten) {}

  // Byte i in memory order (the descriptor is little-endian on every CUDA platform).
  TMAKIT_HD constexpr std::uint8_t byte(int i) const {
    return static_cast<std::uint8_t>(words[i / 8] >> (8 * (i % 8)));
  }
  TMAKIT_HD constexpr void set_byte(int i, std::uint8_t v) {
    const int s = 8 * (i % 8);
    words[i / 8] = (words[i / 8] & ~(std::uint64_t{0xff} << s)) | (std::uint64_t{v} << s);
  }
  // Bits [lo, lo + width) of the 1024-bit descriptor, bit 0 = bit 0 of byte 0; 1 <= width <= 64.
  TMAKIT_HD constexpr std::uint64_t bits(int lo, int width) const {
    const int w = lo / 64, s = lo % 64;
    std::uint64_t v = words[w] >> s;
    if (s + width > 64) v |= words[w + 1] << (64 - s);
    return width == 64 ? v : v & ((std::uint64_t{1} << width) - 1);
  }
  // Writes the low `width` bits of v there (higher bits of v are ignored).
  TMAKIT_HD constexpr void set_bits(int lo, int width, std::uint64_t v) {
    const std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    v &= mask;
    const int w = lo / 64, s = lo % 64;
    words[w] = (words[w] & ~(mask << s)) | (v << s);
    if (s + width > 64) {
      const int r = 64 - s;  // bits already written
      words[w + 1] = (words[w + 1] & ~(mask >> r)) | (v >> r);
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
