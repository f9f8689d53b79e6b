// The fast path (encode_fast.hpp) against the general codec: whenever it encodes, the parameters
// are valid and its bytes are encode_unchecked()'s; every valid parameter set of its domain is
// encoded; the portable form and the host library's SSE2 and AVX-512 forms (each where this CPU
// runs it; src/tensor_map/) agree on every input; nothing is written on a refusal; encode() and
// encode_into() (portable) and encode_host() and encode_into_host() (the host library's) decide and
// write the same.
// Inputs: every line of the committed driver vectors, a million boundary-value parameter sets
// (each field drawn from values at and around its limits, garbage past the rank), and the corner
// cases of the table indices. encode_many (16 maps at a time through encode_fast_block16 where
// this CPU runs AVX-512) against encode() on the same inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "test_configs.hpp"
#include "test_data.hpp"
#include "tensor_map/encode_fast_avx512.hpp"
#include "tensor_map/encode_fast_block.hpp"
#include "tensor_map/encode_fast_forms.hpp"
#include "tensor_map/encode_fast_sse2.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_fast.hpp"
#include "tmakit/tensor_map/encode_host.hpp"
#include "tmakit/tensor_map/jsonl.hpp"

#if defined(__x86_64__) && TMAKIT_ENCODE_FAST_SSE2 && !TMAKIT_ENCODE_FAST_USES_SSE2
#error "on x86-64 the SSE2 form must be compiled in (and compared below) unless the build turns it off"
#endif

namespace {

using namespace tmakit;
using fast_detail::encode_fast_host;  // the fast path in the host library's form for this CPU

// The fast path's domain: tiled, no interleave, a valid non-packed type, elementStrides 1 up to
// the rank (any rank value; invalid ranks are simply not valid).
bool in_domain(const TensorMapParams& p) {
  if (p.kind != MapKind::tiled || p.interleave != Interleave::none) return false;
  if (!is_valid(p.dtype) || is_packed(p.dtype)) return false;
  for (std::uint32_t i = 0; i < p.rank && i < kMaxRank; ++i)
    if (p.elem_strides[i] != 1) return false;
  return true;
}

struct Tally {
  std::size_t inputs = 0, encoded = 0, domain_valid = 0;
};

// Every property on one input; returns a description of the first failure ("" when none).
std::string check_one(const TensorMapParams& p, Tally& t) {
  ++t.inputs;
  TensorMapBytes fast;
  for (auto& w : fast.words) w = 0xa5a5a5a5a5a5a5a5u;
  const TensorMapBytes untouched = fast;
  const bool encoded = encode_fast_portable(p, fast);
  const bool valid = is_valid(p);
  if (encoded) {
    ++t.encoded;
    if (!valid) return "encoded invalid parameters";
    if (!(fast == encode_unchecked(p))) return "bytes differ from encode_unchecked";
  } else if (!(fast == untouched)) {
    return "wrote the output on a refusal";
  }
  if (in_domain(p) && valid) {
    ++t.domain_valid;
    if (!encoded) return "valid parameters of the domain not encoded";
  }
#if TMAKIT_ENCODE_FAST_USES_SSE2
  TensorMapBytes sse = untouched;
  if (encode_fast_sse2(p, sse) != encoded) return "SSE2 and portable forms decide differently";
  if (!(sse == fast)) return "SSE2 and portable forms write different bytes";
#endif
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (fast_detail::kCpuRunsAvx512Form) {
    TensorMapBytes avx = untouched;
    if (encode_fast_avx512(p, avx) != encoded) return "AVX-512 and portable forms decide differently";
    if (!(avx == fast)) return "AVX-512 and portable forms write different bytes";
  }
#endif
  TensorMapBytes host = untouched;
  if (encode_fast_host(p, host) != encoded) return "the host library's form and the portable form decide differently";
  if (!(host == fast)) return "the host library's form and the portable form write different bytes";
  for (const bool in_host_library : {false, true}) {
    const std::string what = in_host_library ? "encode_into_host" : "encode_into";
    TensorMapBytes into = untouched;
    if ((in_host_library ? encode_into_host(p, into) : encode_into(p, into)) != valid) return what + " disagrees with is_valid";
    if (valid && !(into == encode_unchecked(p))) return what + "'s bytes differ from encode_unchecked's";
    if (!valid && !(into == untouched)) return what + " wrote the output on a refusal";
  }
  const EncodeResult portable = encode(p), in_host_library = encode_host(p);
  if (portable.ok() != valid || in_host_library.ok() != valid) return "encode or encode_host disagrees with is_valid";
  if (!(portable.map == in_host_library.map)) return "encode and encode_host write different bytes";
  if (portable.violations.count != in_host_library.violations.count) return "encode and encode_host list different violations";
  return "";
}

std::string describe(const TensorMapParams& p) {
  std::string s = "kind " + std::to_string(std::uint32_t(p.kind)) + " arch " + std::to_string(std::uint32_t(p.arch)) +
                  " dtype " + std::to_string(std::uint32_t(p.dtype)) + " rank " + std::to_string(p.rank) + " addr " +
                  std::to_string(p.address) + " swizzle " + std::to_string(std::uint32_t(p.swizzle)) + " l2 " +
                  std::to_string(std::uint32_t(p.l2)) + " oob " + std::to_string(std::uint32_t(p.oob)) +
                  " interleave " + std::to_string(std::uint32_t(p.interleave)) + " |";
  for (int i = 0; i < 5; ++i)
    s += " d" + std::to_string(p.dims[i]) + " b" + std::to_string(p.box[i]) + " e" + std::to_string(p.elem_strides[i]) +
         (i < 4 ? " s" + std::to_string(p.strides[i]) : "");
  return s;
}

TEST(EncodeFast, AgreesWithTheGeneralCodecOnEveryDriverVector) {
  Tally t;
  std::size_t lines = 0;
  for (const auto& line : tmakit_test::read_gz_lines(std::string(TMAKIT_TEST_DATA_DIR) + "/driver_sm90.jsonl.gz")) {
    TensorMapParams p;
    std::vector<jsonl::Error> errors;
    if (!jsonl::parse_params(line, p, errors)) continue;
    ++lines;
    for (const Arch a : {Arch::sm_90, Arch::sm_100, Arch::sm_120}) {
      p.arch = a;
      const std::string why = check_one(p, t);
      ASSERT_EQ(why, "") << line;
    }
  }
  ASSERT_GE(lines, 20000u);
  // The corpus is mostly refusals and exotic cases; its tiled, stride-1 acceptances exercise the path.
  EXPECT_GT(t.encoded, 5000u);
  std::printf("driver vectors: %zu inputs (3 archs), %zu encoded by the fast path, %zu valid in its domain\n",
              t.inputs, t.encoded, t.domain_valid);
}

// Values at and around every limit the domain's rules have, for each field.
template <class T>
T pick(std::mt19937_64& rng, std::initializer_list<T> values) {
  return *(values.begin() + rng() % values.size());
}

TensorMapParams boundary_params(std::mt19937_64& rng) {
  TensorMapParams p;
  const auto one_in = [&](int n) { return rng() % n == 0; };
  p.kind = one_in(20) ? static_cast<MapKind>(pick<std::uint32_t>(rng, {1, 2, 3, 0x80000000u})) : MapKind::tiled;
  p.arch = static_cast<Arch>(pick<std::uint32_t>(rng, {90, 90, 90, 100, 120, 0, 89, 91, 110, 121, 122, 0xffffffffu}));
  p.dtype = static_cast<DataType>(one_in(10) ? pick<std::uint32_t>(rng, {13, 14, 15, 16, 31, 0x80000009u}) : rng() % 13);
  p.rank = one_in(10) ? pick<std::uint32_t>(rng, {0, 6, 7, 8, 9, 15, 0xffffffffu}) : 1 + rng() % 5;
  p.address = one_in(8) ? pick<std::uint64_t>(rng, {0x7f0000000008, 1, 0, 16, (std::uint64_t{1} << 57) - 16,
                                                    std::uint64_t{1} << 57, ~std::uint64_t{15}})
                        : 0x7f0000000000 + 16 * (rng() % 4096);
  p.interleave = one_in(20) ? static_cast<Interleave>(pick<std::uint32_t>(rng, {1, 2, 3})) : Interleave::none;
  p.swizzle = static_cast<Swizzle>(one_in(10) ? pick<std::uint32_t>(rng, {4, 5, 6, 7, 8, 0xffffffffu}) : rng() % 4);
  p.l2 = static_cast<L2Promotion>(one_in(20) ? pick<std::uint32_t>(rng, {4, 5, 0xffffffffu}) : rng() % 4);
  p.oob = static_cast<OobFill>(one_in(20) ? pick<std::uint32_t>(rng, {2, 3, 0xffffffffu}) : rng() % 2);
  const std::uint32_t esize = in_domain(p) || is_valid(p.dtype) ? std::max(1u, element_bits(p.dtype) / 8) : 1;
  for (int i = 0; i < 5; ++i) {
    p.dims[i] = one_in(16) ? pick<std::uint64_t>(rng, {0, 1, 2, (std::uint64_t{1} << 32) - 1, std::uint64_t{1} << 32,
                                                      (std::uint64_t{1} << 32) + 1, ~std::uint64_t{0}})
                          : 1 + rng() % 100000;
    if (i < 4)
      p.strides[i] = one_in(16) ? pick<std::uint64_t>(rng, {0, 8, 24, (std::uint64_t{1} << 40) - 16, std::uint64_t{1} << 40,
                                                           (std::uint64_t{1} << 36) + 16, (std::uint64_t{0xf} << 36) + 128,
                                                           ~std::uint64_t{15}})
                               : 16 * (1 + rng() % (std::uint64_t{1} << 20));
    p.box[i] = one_in(16) ? pick<std::uint32_t>(rng, {0, 1, 255, 256, 257, 0x100000001u & 0xffffffffu, 0xffffffffu, 512})
                         : (i == 0 ? 16 / esize * (1 + rng() % 16) : 1 + rng() % 256);
    p.elem_strides[i] = one_in(32) ? pick<std::uint32_t>(rng, {0, 2, 8, 9, 0xffffffffu}) : 1;
  }
  // Now and then a box small enough to fit shared memory, so that every rule can be the only one.
  if (one_in(2))
    for (int i = 1; i < 5; ++i) p.box[i] = 1 + rng() % 4;
  return p;
}

TEST(EncodeFast, AgreesWithTheGeneralCodecOnBoundaryValues) {
  std::mt19937_64 rng(2026);
  Tally t;
  for (int n = 0; n < 1000000; ++n) {
    const TensorMapParams p = boundary_params(rng);
    const std::string why = check_one(p, t);
    ASSERT_EQ(why, "") << describe(p);
  }
  // The draw must reach both outcomes often, or the agreement proves little.
  EXPECT_GT(t.encoded, 30000u);
  EXPECT_GT(t.inputs - t.encoded, 300000u);
  std::printf("boundary values: %zu inputs, %zu encoded by the fast path; forms compared: portable%s%s\n", t.inputs,
              t.encoded, TMAKIT_ENCODE_FAST_USES_SSE2 ? ", SSE2" : "",
              std::string(encode_fast_host_form()) == "AVX-512" ? ", AVX-512" : "");
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (!fast_detail::kCpuRunsAvx512Form) std::printf("this CPU does not run the AVX-512 forms: not compared\n");
#endif
}

TEST(EncodeFast, EachRuleOfTheDomainAloneRefuses) {
  // One valid map, then each rule broken alone: the fast path refuses and validate() names a rule.
  const TensorMapParams good = test::tiled_bf16();
  TensorMapBytes out;
  ASSERT_TRUE(encode_fast_host(good, out));
  EXPECT_EQ(out, encode_unchecked(good));
  auto refused = [&](auto&& change) {
    TensorMapParams p = good;
    change(p);
    TensorMapBytes o;
    Tally t;
    EXPECT_EQ(check_one(p, t), "");
    return !encode_fast_host(p, o) && !is_valid(p);
  };
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.arch = static_cast<Arch>(91); }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.rank = 0; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.rank = 6; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.address += 8; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.address = std::uint64_t{1} << 57; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.dims[1] = 0; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.dims[2] = (std::uint64_t{1} << 32) + 1; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.strides[1] = 12808; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.strides[0] = std::uint64_t{1} << 40; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.box[2] = 0; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.box[1] = 257; }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.box[0] = 72; }));                            // 144 B > 128 B span
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.box[0] = 60, p.swizzle = Swizzle::none; }));  // 120 B, not % 16
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.box[1] = 256, p.box[2] = 8; }));             // 256 KiB footprint
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.swizzle = static_cast<Swizzle>(7); }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.swizzle = Swizzle::b128_atom_32b; }));       // sm_90
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.l2 = static_cast<L2Promotion>(4); }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.oob = static_cast<OobFill>(2); }));
  EXPECT_TRUE(refused([](TensorMapParams& p) { p.dtype = DataType::uint16, p.oob = OobFill::nan_request_zero_fma; }));
  // Past the rank anything goes.
  TensorMapParams p = good;
  p.dims[3] = 0, p.dims[4] = ~std::uint64_t{0}, p.strides[2] = 3, p.strides[3] = ~std::uint64_t{0};
  p.box[3] = 0, p.box[4] = 9999, p.elem_strides[3] = 0, p.elem_strides[4] = 77;
  ASSERT_TRUE(encode_fast_host(p, out));
  EXPECT_EQ(out, encode_unchecked(good));
  // 128B_ATOM swizzles are fine on Blackwell targets, and sm_120 has less shared memory.
  p = good;
  p.arch = Arch::sm_100, p.swizzle = Swizzle::b128_atom_64b;
  EXPECT_TRUE(encode_fast_host(p, out));
  p = good;
  p.box[1] = 256, p.box[2] = 1, p.arch = Arch::sm_120;  // 32 KiB: fine
  EXPECT_TRUE(encode_fast_host(p, out));
  p.box[2] = 4;  // 128 KiB: over sm_120's 100 KiB, within sm_90's 228 KiB
  EXPECT_FALSE(encode_fast_host(p, out));
  p.arch = Arch::sm_90;
  EXPECT_TRUE(encode_fast_host(p, out));
}

TEST(EncodeFast, EachPerDimensionRuleAtEveryIndex) {
  // A rank-5 uint8 map with room everywhere (a 4 KiB box), each per-dimension limit met and then
  // broken at each index alone: every form decides and writes what the general codec does
  // (check_one), and the broken ones are refused. Vector forms check the dimensions in lanes; this
  // reaches every lane.
  TensorMapParams good;
  good.dtype = DataType::uint8;
  good.rank = 5;
  good.address = 0x10000;
  for (std::uint32_t i = 0; i < 5; ++i) good.dims[i] = 64, good.box[i] = i == 0 ? 16 : 4;
  for (std::uint32_t i = 0; i < 4; ++i) good.strides[i] = std::uint64_t{64} << (6 * i);
  ASSERT_TRUE(is_valid(good));
  Tally t;
  auto decide = [&](auto&& change) {
    TensorMapParams p = good;
    change(p);
    const std::string failure = check_one(p, t);
    EXPECT_EQ(failure, "") << describe(p);
    TensorMapBytes o;
    return encode_fast_host(p, o);
  };
  for (std::uint32_t i = 0; i < 5; ++i) {
    SCOPED_TRACE("index " + std::to_string(i));
    EXPECT_TRUE(decide([&](TensorMapParams& p) { p.dims[i] = std::uint64_t{1} << 32; }));
    EXPECT_FALSE(decide([&](TensorMapParams& p) { p.dims[i] = 0; }));
    EXPECT_FALSE(decide([&](TensorMapParams& p) { p.dims[i] = (std::uint64_t{1} << 32) + 1; }));
    EXPECT_FALSE(decide([&](TensorMapParams& p) { p.box[i] = 0; }));
    EXPECT_TRUE(decide([&](TensorMapParams& p) { p.box[i] = 256, p.box[i == 1 ? 2 : 1] = 1; }));
    EXPECT_FALSE(decide([&](TensorMapParams& p) { p.box[i] = i == 0 ? 272 : 257; }));  // 272: rows stay % 16 B
    EXPECT_FALSE(decide([&](TensorMapParams& p) { p.box[i] = 496, p.box[i == 1 ? 2 : 1] = 1; }));
    EXPECT_FALSE(decide([&](TensorMapParams& p) { p.elem_strides[i] = 2; }));  // valid, outside the domain
    EXPECT_FALSE(decide([&](TensorMapParams& p) { p.elem_strides[i] = 0; }));
    if (i < 4) {  // strides[i] belongs to dimension i + 1
      EXPECT_TRUE(decide([&](TensorMapParams& p) { p.strides[i] = (std::uint64_t{1} << 40) - 16; }));
      EXPECT_FALSE(decide([&](TensorMapParams& p) { p.strides[i] = std::uint64_t{1} << 40; }));
      EXPECT_FALSE(decide([&](TensorMapParams& p) { p.strides[i] += 8; }));
      EXPECT_FALSE(decide([&](TensorMapParams& p) { p.strides[i] += 1; }));
    }
  }
  // One rank less: index 4 and stride 3 are past the rank and ignored.
  EXPECT_TRUE(decide([](TensorMapParams& p) {
    p.rank = 4, p.dims[4] = 0, p.box[4] = 999, p.strides[3] = 1, p.elem_strides[4] = 5;
  }));
  EXPECT_GT(t.encoded, 10u);
}

TEST(EncodeFast, EncodeWritesTheWholeMapOnEveryPath) {
  // encode() starts from an unwritten map (no zero fill before the fast path): each of its three
  // paths must write all 128 bytes. Placement over garbage shows the zeroing constructor zeroes.
  alignas(64) unsigned char buffer[sizeof(TensorMapBytes)];
  for (auto& c : buffer) c = 0xa5;
  const TensorMapBytes* zero = new (buffer) TensorMapBytes;
  for (const std::uint64_t w : zero->words) EXPECT_EQ(w, 0u);
  static_assert(TensorMapBytes{}.words[0] == 0 && TensorMapBytes{}.words[15] == 0);

  const TensorMapParams fast = test::tiled_bf16();
  TensorMapParams general = fast;
  general.elem_strides[1] = 2;  // valid, outside the fast path's domain
  TensorMapParams refused = fast;
  refused.box[1] = 0;
  for (int round = 0; round < 3; ++round) {  // the same stack slots, written by the previous calls
    EXPECT_EQ(encode(fast).map, encode_unchecked(fast));
    EXPECT_EQ(encode(general).map, encode_unchecked(general));
    const EncodeResult r = encode(refused);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.map, TensorMapBytes{});
    EXPECT_EQ(encode_host(fast).map, encode_unchecked(fast));
    EXPECT_EQ(encode_host(general).map, encode_unchecked(general));
    const EncodeResult h = encode_host(refused);
    EXPECT_FALSE(h.ok());
    EXPECT_EQ(h.map, TensorMapBytes{});
    EXPECT_EQ(h.violations.count, r.violations.count);
  }
  constexpr auto at_compile_time = [] {
    TensorMapParams p = test::tiled_bf16();
    p.box[1] = 0;
    return encode(p).map == TensorMapBytes{};
  };
  static_assert(at_compile_time());
}

TEST(EncodeFast, OutsideTheDomainTheGeneralPathDecides) {
  TensorMapBytes out;
  TensorMapParams p = test::tiled_bf16();
  p.elem_strides[1] = 2;  // valid, but not stride 1: the general path encodes it
  EXPECT_FALSE(encode_fast_host(p, out));
  ASSERT_TRUE(encode_into(p, out));
  EXPECT_EQ(out, encode_unchecked(p));
  const TensorMapParams im = test::im2col_bf16();
  EXPECT_FALSE(encode_fast_host(im, out));
  EXPECT_TRUE(encode(im).ok());
  EXPECT_TRUE(encode_host(im).ok());
  ASSERT_TRUE(encode_into_host(p, out));
  EXPECT_EQ(out, encode_unchecked(p));
}

TEST(EncodeFast, WorksAtCompileTime) {
  constexpr auto r = [] {
    TensorMapBytes fast{};
    const bool ok = encode_fast_portable(test::tiled_bf16(), fast);
    return ok && fast == encode_unchecked(test::tiled_bf16());
  }();
  static_assert(r, "the fast path runs in constant evaluation and matches encode_unchecked");
  static_assert(encode(test::tiled_bf16()).ok());
}

// encode_many over `ps` against encode() on each: the decision, the bytes (zero on a refusal), the
// count; nothing written past n. Returns a description of the first difference ("" when none).
std::string many_matches_encode(const std::vector<TensorMapParams>& ps) {
  const std::size_t n = ps.size();
  std::vector<TensorMapBytes> out(n + 1);
  for (auto& m : out)
    for (auto& w : m.words) w = 0xa5a5a5a5a5a5a5a5u;
  const TensorMapBytes canary = out[n];
  auto ok = std::make_unique<bool[]>(n + 1);
  ok[n] = true;
  const std::size_t count = encode_many(ps.data(), out.data(), ok.get(), n);
  std::size_t expected = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const EncodeResult r = encode(ps[i]);
    expected += r.ok();
    if (ok[i] != r.ok()) return "decision differs at " + std::to_string(i) + ": " + describe(ps[i]);
    if (!(out[i] == r.map)) return "bytes differ at " + std::to_string(i) + ": " + describe(ps[i]);
  }
  if (count != expected) return "count " + std::to_string(count) + ", expected " + std::to_string(expected);
  if (!(out[n] == canary) || !ok[n]) return "wrote past n";
  return "";
}

TEST(EncodeMany, AgreesWithEncodeOnBoundaryValues) {
  std::mt19937_64 rng(2027);
  std::vector<TensorMapParams> ps(1000003);  // not a multiple of 16: the last block is short
  for (auto& p : ps) p = boundary_params(rng);
  EXPECT_EQ(many_matches_encode(ps), "");
  std::printf("encode_many: %zu boundary inputs, host form %s\n", ps.size(), encode_fast_host_form());
}

TEST(EncodeMany, AgreesWithEncodeOnEveryDriverVector) {
  std::vector<TensorMapParams> ps;
  for (const auto& line : tmakit_test::read_gz_lines(std::string(TMAKIT_TEST_DATA_DIR) + "/driver_sm90.jsonl.gz")) {
    TensorMapParams p;
    std::vector<jsonl::Error> errors;
    if (!jsonl::parse_params(line, p, errors)) continue;
    for (const Arch a : {Arch::sm_90, Arch::sm_100, Arch::sm_120}) {
      p.arch = a;
      ps.push_back(p);
    }
  }
  ASSERT_GE(ps.size(), 60000u);
  EXPECT_EQ(many_matches_encode(ps), "");
}

TEST(EncodeMany, EveryLengthAndMixOfOutcomes) {
  // Lengths 0..40 (short blocks, one and two full ones and a tail), each slot drawn from: valid
  // on the fast path, valid outside it (the general path encodes), refused by a table rule,
  // refused by a range rule.
  TensorMapParams general = test::tiled_bf16();
  general.elem_strides[1] = 2;
  TensorMapParams bad_type = test::tiled_bf16();
  bad_type.dtype = DataType::uint8;  // a NaN fill needs a float type
  bad_type.oob = OobFill::nan_request_zero_fma;
  TensorMapParams bad_box = test::tiled_bf16();
  bad_box.box[1] = 0;
  const TensorMapParams kinds[] = {test::tiled_bf16(), general, bad_type, bad_box, test::im2col_bf16()};
  std::mt19937_64 rng(7);
  for (std::size_t n = 0; n <= 40; ++n)
    for (int draw = 0; draw < 20; ++draw) {
      std::vector<TensorMapParams> ps(n);
      for (auto& p : ps) p = kinds[rng() % 5];
      ASSERT_EQ(many_matches_encode(ps), "") << "n = " << n;
    }
}

// A random valid map of the fast path's domain: any architecture, type (not packed), swizzle the
// architecture takes, rank, L2 promotion and OOB fill; the inner box fills the swizzle span or a
// multiple of 16 bytes, the other boxes keep the footprint within shared memory.
TensorMapParams valid_fast_params(std::mt19937_64& rng) {
  for (;;) {
    TensorMapParams p;
    p.arch = pick<Arch>(rng, {Arch::sm_90, Arch::sm_100, Arch::sm_120});
    p.dtype = static_cast<DataType>(rng() % 13);
    p.rank = 1 + rng() % 5;
    p.swizzle = static_cast<Swizzle>(rng() % (p.arch == Arch::sm_90 ? 4 : kSwizzleCount));
    p.l2 = static_cast<L2Promotion>(rng() % kL2PromotionCount);
    p.oob = is_floating_point(p.dtype) && rng() % 2 ? OobFill::nan_request_zero_fma : OobFill::none;
    p.address = 0x7f0000000000 + 16 * (rng() % (1u << 24));
    const std::uint32_t esize = element_bits(p.dtype) / 8;
    const std::uint32_t span = p.swizzle == Swizzle::none ? 256 * esize : swizzle_span_bytes(p.swizzle);
    std::uint64_t pitch = 0;
    for (std::uint32_t i = 0; i < p.rank; ++i) {
      p.dims[i] = 1 + rng() % 70000;
      p.box[i] = i == 0 ? std::max<std::uint32_t>(1, (16 * (1 + rng() % (span / 16))) / esize) : 1 + rng() % (rng() % 2 ? 4 : 256);
      if (i == 0) {
        pitch = 16 * (1 + rng() % 4096);
      } else {
        p.strides[i - 1] = pitch;
        pitch = 16 * (1 + rng() % ((std::uint64_t{1} << 36) - 1));  // any multiple of 16 below 2^40
      }
    }
    for (std::uint32_t i = p.rank; i < kMaxRank; ++i) {  // garbage past the rank
      p.dims[i] = rng();
      p.box[i] = static_cast<std::uint32_t>(rng());
      p.elem_strides[i] = static_cast<std::uint32_t>(rng());
      if (i >= 1) p.strides[i - 1] = rng();
    }
    if (is_valid(p)) return p;
  }
}

TEST(EncodeMany, BlocksOfValidMapsAndSingleTableOrFootprintRefusals) {
  // Whole blocks that pass every range rule (so the block form never looks for a range refusal),
  // some with one map broken by a rule of pass 2 alone: a type or swizzle the architecture
  // refuses, an inner box row past the swizzle span, a footprint past shared memory.
  std::mt19937_64 rng(2029);
  std::size_t refused = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<TensorMapParams> ps(16 * (1 + rng() % 4));
    for (auto& p : ps) p = valid_fast_params(rng);
    if (round % 2) {
      TensorMapParams& p = ps[rng() % ps.size()];
      switch (rng() % 4) {
        case 0: p.dtype = DataType::int32, p.oob = OobFill::nan_request_zero_fma; break;
        case 1: p.arch = Arch::sm_90, p.swizzle = Swizzle::b128_atom_64b; break;
        case 2: p.swizzle = Swizzle::b32, p.box[0] = 64 / (element_bits(p.dtype) / 8); break;
        default: for (std::uint32_t i = 0; i < p.rank; ++i) p.box[i] = 256;
      }
      refused += !is_valid(p);
    }
    ASSERT_EQ(many_matches_encode(ps), "") << "round " << round;
  }
  EXPECT_GT(refused, 1000u);
}

#if TMAKIT_ENCODE_FAST_USES_AVX512
TEST(EncodeMany, TheBlockFormAgreesWithThePortableForm) {
  // encode_fast_block16 alone: bit i set exactly when encode_fast_portable encodes map i, the same
  // bytes then, zeros otherwise.
  if (!fast_detail::kCpuRunsAvx512Form) GTEST_SKIP() << "this CPU does not run the AVX-512 forms";
  std::mt19937_64 rng(2028);
  std::size_t encoded = 0;
  for (int block = 0; block < 20000; ++block) {
    const int n = 1 + static_cast<int>(rng() % 16);
    TensorMapParams ps[16];
    alignas(64) TensorMapBytes out[16];
    for (int i = 0; i < n; ++i) ps[i] = boundary_params(rng);
    const std::uint32_t done = encode_fast_block16(ps, out, n);
    ASSERT_EQ(done >> n, 0u);
    for (int i = 0; i < n; ++i) {
      TensorMapBytes portable{};
      const bool e = encode_fast_portable(ps[i], portable);
      ASSERT_EQ(bool(done >> i & 1), e) << describe(ps[i]);
      ASSERT_EQ(out[i], e ? portable : TensorMapBytes{}) << describe(ps[i]);
      encoded += e;
    }
  }
  EXPECT_GT(encoded, 5000u);  // both outcomes, often
}
#endif

TEST(EncodeMany, WorksAtCompileTime) {
  constexpr auto r = [] {
    TensorMapParams ps[3] = {test::tiled_bf16(), test::tiled_bf16(), test::im2col_bf16()};
    ps[1].box[1] = 0;
    TensorMapBytes out[3];
    bool ok[3] = {};
    const std::size_t count = encode_many(ps, out, ok, 3);
    return count == 2 && ok[0] && !ok[1] && ok[2] && out[0] == encode(ps[0]).map && out[1] == TensorMapBytes{} &&
           out[2] == encode(ps[2]).map;
  }();
  static_assert(r);
}

}  // namespace
