// libFuzzer target: 128 raw bytes -> decode, decode_text, decode_json, diff (see docs/fuzzing.md).
//
// Input: the descriptor in memory order; shorter inputs are zero-padded, longer ones truncated.
// Every invariant below traps (__builtin_trap) when violated, so libFuzzer reports it as a crash.
//
//   (a) decode(m).round_trips()  =>  encode_unchecked(decode(m).params) == m
//   (b) nothing the decoder claims to explain is lost: with e = encode_unchecked(decode(m).params),
//       every bit of e ^ m lies in
//         - decode(m).unexplained, or
//         - the derived words (bytes 64..79: boxBytes, smemAlignment) and only when
//           derived_consistent is false, or
//         - the element-type fields (code + tf32 bit) and only when dtype_known is false, or
//         - the swizzle fields (mode, atomicity, 96B bit) and only when swizzle_known is false.
//       Conversely every unexplained bit is outside what encode writes (e has it clear), except the
//       rank field of a rank > 5 map (decode reports the whole rank field as unexplained there,
//       while encode writes the clamped rank 5).
//   (e) the re-encoding is a clean descriptor: decode(e) has no unexplained bits; when dtype and
//       swizzle are known, encode_unchecked(decode(e).params) == e, and decode(e) round-trips when
//       the interleave is known too (interleave bits 3 name no CUtensorMapInterleave: decode keeps
//       them and says interleave_known = false, so such bytes never round-trip).
//   (c) diff(m, m) is empty (and so is diff(e, e) trivially; not checked).
//   (d) the union of the byte offsets in diff(a, m) is exactly the set of bytes where a and m
//       differ, for a = a fixed valid descriptor and a = e; every entry names a field and lists
//       sorted, distinct offsets in 0..127.
//   decode_text ends in a newline; decode_json and diff_json, written by json_text, are JSON
//   objects that nlohmann parses, and decode_json's "round_trips" equals decode(m).round_trips().
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"

namespace {

using namespace tmakit;
namespace L = tmakit::tmap_fields;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

TensorMapBytes mask_of(std::initializer_list<L::BitRange> ranges) {
  TensorMapBytes m{};
  for (auto r : ranges) m.set_bits(r.lo, r.width, ~std::uint64_t{0});
  return m;
}

// A valid tiled BF16 map (4096 x 4096, 128B swizzle), as tmakit encode would print it.
TensorMapBytes fixed_descriptor() {
  TensorMapParams p;
  p.kind = MapKind::tiled;
  p.dtype = DataType::bfloat16;
  p.rank = 2;
  p.address = 0x7f0000000000;
  p.dims[0] = 4096;
  p.dims[1] = 4096;
  p.strides[0] = 8192;
  p.box[0] = 64;
  p.box[1] = 128;
  p.swizzle = Swizzle::b128;
  const EncodeResult r = encode(p);
  check(r.ok());
  return r.map;
}

const TensorMapBytes kFixed = fixed_descriptor();
const TensorMapBytes kDerivedMask = mask_of({L::kBoxBytes, L::kSmemAlignment});
const TensorMapBytes kDtypeMask = mask_of({L::kElemTypeCode, L::kTf32Round});
const TensorMapBytes kSwizzleMask = mask_of({L::kSwizzle, L::kSwizzleAtomicity, L::kSwizzleMode96B});
const TensorMapBytes kRankMask = mask_of({L::kRankMinus1});

void check_diff(const TensorMapBytes& a, const TensorMapBytes& b) {
  const std::vector<FieldDifference> d = diff(a, b);
  std::set<int> got;
  for (const FieldDifference& f : d) {
    check(!f.name.empty());
    check(!f.byte_offsets.empty());
    for (std::size_t i = 0; i < f.byte_offsets.size(); ++i) {
      const int o = f.byte_offsets[i];
      check(o >= 0 && o < 128);
      check(i == 0 || f.byte_offsets[i - 1] < o);
      got.insert(o);
    }
  }
  std::set<int> want;
  for (int i = 0; i < 128; ++i)
    if (a.byte(i) != b.byte(i)) want.insert(i);
  check(got == want);
  check(d.empty() == (a == b));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  TensorMapBytes m{};
  for (std::size_t i = 0; i < 128 && i < size; ++i) m.set_byte(static_cast<int>(i), data[i]);

  const DecodedTensorMap d = decode(m);
  const TensorMapBytes e = encode_unchecked(d.params);

  // (a)
  if (d.round_trips()) check(e == m);

  // (b)
  const bool big_rank = d.params.rank > kMaxRank;
  for (int w = 0; w < 16; ++w) {
    const std::uint64_t x = e.words[w] ^ m.words[w];
    std::uint64_t allowed = d.unexplained.words[w];
    if (!d.derived_consistent) allowed |= kDerivedMask.words[w];
    if (!d.dtype_known) allowed |= kDtypeMask.words[w];
    if (!d.swizzle_known) allowed |= kSwizzleMask.words[w];
    check((x & ~allowed) == 0);
    const std::uint64_t unexplained = d.unexplained.words[w] & ~(big_rank ? kRankMask.words[w] : 0);
    check((unexplained & m.words[w]) == unexplained);  // unexplained bits are set bits of m
    check((unexplained & e.words[w]) == 0);            // ... that encode never writes
  }

  // (e)
  const DecodedTensorMap de = decode(e);
  check(!de.has_unexplained_bits());
  if (d.dtype_known && d.swizzle_known) {
    check(de.round_trips() == d.interleave_known);
    check(encode_unchecked(de.params) == e);
  }

  // (c), (d)
  check(diff(m, m).empty());
  check_diff(kFixed, m);
  check_diff(m, e);

  // Rendering.
  const std::string text = decode_text(m);
  check(!text.empty() && text.back() == '\n');
  const std::string js = json_text(decode_json(m));
  const auto j = nlohmann::json::parse(js, nullptr, /*allow_exceptions=*/false);
  check(j.is_object());
  check(j.contains("round_trips") && j["round_trips"].is_boolean() && j["round_trips"].get<bool>() == d.round_trips());
  const auto dj = nlohmann::json::parse(json_text(diff_json(kFixed, m)), nullptr, false);
  check(dj.is_object() && dj.contains("differences") && dj["differences"].is_array());
  check(!diff_text(kFixed, m).empty());
  return 0;
}
