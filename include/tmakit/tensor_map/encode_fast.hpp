// The fast path of encode for the common case: a tiled map without interleave, of a non-packed
// type, with every elementStride 1 (every GEMM / attention operand). encode_fast_portable() writes
// the descriptor and returns true only when the parameters are valid; on false (invalid, or outside
// that domain) it writes nothing and the caller takes the general path (validate() /
// encode_unchecked()), which then decides. encode() and encode_into() (encode.hpp) do exactly that.
//
// This is its portable form: constexpr, host and device, no SIMD, no CPU dispatch. The host library
// (tmakit::host) has the same function in SIMD forms, SSE2 and AVX-512 (src/tensor_map/), picked
// once per process for the CPU; encode_into_host(), encode_host() and encode_many()
// (encode_host.hpp) run them.
//
// How it stays equal to the general codec: every table (encode_fast_tables.hpp) is computed at
// compile time from the functions validate() and encode_unchecked() use (dtype.hpp, bit_fields.hpp,
// derived.hpp, rules.hpp), every bit position comes from tmap_fields (static_asserts pin the words
// they live in), and tests/test_encode_fast.cpp checks, on every committed driver vector and on a
// million random and boundary parameter sets, that encoded => is_valid() and the bytes equal
// encode_unchecked()'s, and that every valid set of the domain is encoded, in every form.
//
// The rules of validate() that can fail inside the domain, each checked here (ORed into one
// reject word, no early exit): arch; rank 1..5; address % 16 and < 2^57; dims 1..2^32; strides
// % 16 and < 2^40; box 1..256; inner box bytes % 16 and within the swizzle span; shared-memory
// footprint; swizzle value, 128B_ATOM swizzles only on sm_100/sm_120; L2 promotion and OOB fill
// values, NaN fill only for float types. Entries past the rank are ignored, as validate() and
// encode_unchecked() ignore them.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/encode_fast_tables.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

TMAKIT_HD constexpr bool encode_fast_portable(const TensorMapParams& p, TensorMapBytes& out) {
  namespace F = fast_detail;
  const auto arch_offset = static_cast<std::uint32_t>(p.arch) - 90u;
  const std::uint64_t te = F::type_of(static_cast<std::uint32_t>(p.oob), static_cast<std::uint32_t>(p.dtype));
  const F::SwizzleEntry se = F::swizzle_of(arch_offset, static_cast<std::uint32_t>(p.swizzle));
  const F::RankEntry re = F::rank_of(p.rank);
  const std::uint64_t flags = te | se.word1 | re.word1;
  std::uint64_t reject = (flags & F::kReject) | F::out_of_index_range(p) | F::arch_out_of_range(arch_offset);

  std::uint64_t d[kMaxRank], b[kMaxRank], s[kMaxRank - 1];
  std::uint64_t prod = 1;
  for (std::uint32_t i = 0; i < kMaxRank; ++i) {
    const std::uint64_t on = re.dim[i];
    d[i] = (p.dims[i] - 1) & on;                                 // 0 .. 2^32 - 1 when valid
    b[i] = (std::uint64_t{p.box[i]} - 1) & on;                   // 0 .. 255
    reject |= (d[i] >> 32) | (b[i] >> 8) | ((std::uint64_t{p.elem_strides[i]} ^ 1) & on);
    prod *= b[i] + 1;                                            // 1 past the rank
    if (i >= 1) {
      s[i - 1] = p.strides[i - 1] & on;
      reject |= s[i - 1] & F::kStrideBadBits;
    }
  }
  const std::uint64_t ebytes = (te >> 32) & 15;
  const std::uint64_t row = (b[0] + 1) * ebytes, footprint = prod * ebytes;
  reject |= (p.address & F::kAddressBadBits) | (row & 15) | (row > se.max_row_bytes) | (footprint > se.smem_limit);
  if (reject) return false;

  out.words[0] = p.address;
  out.words[1] = (flags & F::kLow32) | std::uint64_t{static_cast<std::uint32_t>(p.l2)} << F::kL2Shift | s[0] << 28;
  out.words[2] = ((s[1] >> 4) & F::kLow32) | s[2] << 28;  // s << 28: bits 4..35 of s to 32..63 (s % 16 == 0)
  out.words[3] = ((s[3] >> 4) & F::kLow32) | (s[0] >> 36) << 32 | (s[1] >> 36) << 36 | (s[2] >> 36) << 40 |
                 (s[3] >> 36) << 44;
  out.words[4] = d[0] | d[1] << 32;
  out.words[5] = d[2] | d[3] << 32;
  out.words[6] = d[4] | b[0] << F::kBox0Shift;
  out.words[7] = b[1] | b[2] << 8 | b[3] << 16 | b[4] << 24;
  out.words[8] = footprint;
  out.words[9] = se.alignment;
  for (int i = 10; i < 16; ++i) out.words[i] = 0;
  return true;
}

}  // namespace tmakit
