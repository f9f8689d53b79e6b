// tmakit as a library: validate, encode (at compile time here), read a descriptor back, encode
// many maps in one call (the host library's encode_many), and explain a refusal. Built and run by
// CTest (example.encode_decode).
#include <cstdio>

#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_host.hpp"
#include "tmakit/tensor_map/explain.hpp"

// A 4096 x 4096 bf16 row-major matrix, loaded in 64 x 128 tiles into a 128B-swizzled buffer.
constexpr tmakit::TensorMapParams gemm_a_tile() {
  tmakit::TensorMapParams p;
  p.dtype = tmakit::DataType::bfloat16;
  p.rank = 2;
  p.address = 0x7f0000000000;  // the tensor's device address (16-byte aligned)
  p.dims[0] = 4096;            // innermost first
  p.dims[1] = 4096;
  p.strides[0] = 4096 * 2;     // bytes, for dims 1.., as cuTensorMapEncodeTiled takes them
  p.box[0] = 64;               // 64 bf16 = 128 bytes: exactly the 128B swizzle span
  p.box[1] = 128;
  p.swizzle = tmakit::Swizzle::b128;
  return p;
}

// No driver, no GPU: the descriptor is a compile-time constant.
constexpr auto kResult = tmakit::encode(gemm_a_tile());
static_assert(kResult.ok(), "the tile is valid");
static_assert(tmakit::decode(kResult.map).params.box[1] == 128);
static_assert(tmakit::transaction_bytes(gemm_a_tile()) == 64 * 128 * 2, "bytes one copy delivers (expect_tx)");

int main() {
  std::printf("descriptor: ");
  for (int i = 0; i < 128; ++i) std::printf("%02x", kResult.map.byte(i));
  std::printf("\n\n%s\n", tmakit::decode_text(kResult.map).c_str());

  // Many maps in one call, as a mixture-of-experts layer needs them (one weight matrix per expert,
  // each with its own row count and address): same results as encode() on each, with the fast
  // path's SIMD form for this CPU (encode_host.hpp; encode_host() and encode_into_host() are its
  // one-map forms).
  tmakit::TensorMapParams experts[8];
  tmakit::TensorMapBytes maps[8];
  bool ok[8];
  for (int e = 0; e < 8; ++e) {
    experts[e] = gemm_a_tile();
    experts[e].dims[1] = 512 * (e + 1);
    experts[e].address += 0x10000000ull * e;
  }
  const std::size_t encoded = tmakit::encode_many(experts, maps, ok, 8);
  std::printf("encode_many: %zu of 8 expert maps encoded\n\n", encoded);

  // A mistake: rows of 1028 bf16 (2056 bytes) and a 128-element box under a 128B swizzle.
  auto bad = gemm_a_tile();
  bad.dims[0] = 1028;
  bad.strides[0] = 2056;
  bad.box[0] = 128;
  const auto r = tmakit::encode(bad);
  std::printf("refused with %d violation(s):\n", r.violations.count);
  for (const auto& d : tmakit::explain(bad, r.violations)) std::printf("  %s\n", d.message().c_str());
  return r.ok() || encoded != 8 ? 1 : 0;  // the example expects the refusal and all 8 experts
}
