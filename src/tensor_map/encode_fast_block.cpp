// encode_many() on CPUs that run the AVX-512 forms (see encode_fast_block.hpp).
#include "encode_fast_block.hpp"

#if TMAKIT_ENCODE_FAST_USES_AVX512

#include "tmakit/tensor_map/encode.hpp"

namespace tmakit::many_detail {
namespace {

// One block of count <= 16 maps: encode_fast_block16, the block's ok flags in one store, the maps
// it leaves to the general path one by one. Returns how many were encoded.
TMAKIT_ENCODE_AVX512_TARGET inline __attribute__((always_inline)) std::size_t encode_one_block(const TensorMapParams* params,
                                                                                            TensorMapBytes* out, bool* ok,
                                                                                            int count,
                                                                                            const fast_block_detail::Splats* splats) {
  const std::uint32_t done = fast_block_detail::encode_block16(params, out, count, splats);
  const auto all = static_cast<__mmask16>(count >= 16 ? 0xffffu : (1u << count) - 1);
  _mm_mask_storeu_epi8(ok, all, _mm_maskz_set1_epi8(static_cast<__mmask16>(done), 1));
  auto encoded = static_cast<std::size_t>(__builtin_popcount(done));
  for (std::uint32_t rest = ~done & all; rest != 0; rest &= rest - 1) {  // outside the domain, or refused
    const auto i = static_cast<std::size_t>(__builtin_ctz(rest));
    ok[i] = encode_detail::encode_general(params[i], out[i]);
    encoded += ok[i];
  }
  return encoded;
}

}  // namespace

// Blocks of 16. Up to 3 maps go one at a time through encode_fast_avx512: a block's pass 2 costs
// the same for 1 map as for 16 (1, 2 and 3 maps took 0.40-0.50, 0.61-0.76 and 0.80-0.96 of the
// block form's time; 4 and more, about the same or more). That loop has the AVX-512 form inlined:
// a loop that called the fast path per map took 1.08-1.18 times as long with 2 or 3 maps
// (docs/lab/encode_2026-11-26.md, 2026-11-26 01:37 and 02:05). Up to 16 take a path of their own, without the
// loop of blocks: in that loop g++ kept pass 2's constants on the stack, which a single block paid
// for in full (0.87-0.92 of the time with 8 maps, docs/lab/encode_2026-11-26.md, 2026-11-26 01:10), and copies
// registers and reloads constants there (8 maps through the loop: 63.8 instructions per map by
// bench/icount_encode.cpp, against 52.9 without it).
TMAKIT_ENCODE_AVX512_TARGET std::size_t encode_many_avx512(const TensorMapParams* params, TensorMapBytes* out, bool* ok,
                                                        std::size_t n) {
  if (n <= 3) {
    std::size_t encoded = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ok[i] = encode_fast_avx512(params[i], out[i]) || encode_detail::encode_general(params[i], out[i]);
      encoded += ok[i];
    }
    return encoded;
  }
  if (n <= 16) return encode_one_block(params, out, ok, static_cast<int>(n), fast_block_detail::opaque_splats());
  std::size_t encoded = 0;
  for (std::size_t first = 0; first < n; first += 16)
    encoded += encode_one_block(params + first, out + first, ok + first, n - first < 16 ? static_cast<int>(n - first) : 16,
                                &fast_block_detail::kSplats);
  return encoded;
}

}  // namespace tmakit::many_detail

#endif  // TMAKIT_ENCODE_FAST_USES_AVX512
