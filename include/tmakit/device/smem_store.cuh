// Executes a register -> shared-memory store plan (tmakit/smem_store/plan.hpp) computed at
// compile time:
//
//   constexpr tmakit::StoreSource      kSrc  = tmakit::wgmma_accumulator(128);
//   constexpr tmakit::StoreDestination kDst  = tmakit::gmma_operand(tmakit::OperandMajor::k,
//                                                 tmakit::Swizzle::b128, 2, 64, 128).value;
//   constexpr tmakit::SmemStorePlan    kPlan = tmakit::plan_smem_store(kSrc, kDst);
//   static_assert(kPlan.ok);
//   ...
//   std::uint16_t bits[64];            // this thread's values, converted to the element type, in
//                                      // fragment order (value v = register slot v of the source)
//   tmakit::device::store_planned<kPlan, kSrc, kDst>(smem_buffer, threadIdx.x, bits);
//   tmakit::device::publish_smem_writes();   // (tma.cuh) before a TMA store or a wgmma/tcgen05.mma reads it:
//                                            // every thread fences its shared writes, then the CTA syncs
//
// Addresses: when the map (thread, value) -> byte offset is linear over GF(2) (an XOR of one term
// per set bit of the thread index and one per value: true of power-of-two tiles under the XOR
// swizzles, e.g. every WGMMA accumulator into a 128B-swizzled tile), every term is a compile-time
// constant and a thread forms its offsets with a few XORs (XorAddressMap below). Otherwise the
// layout is evaluated for each instruction at run time.
//
// Every thread of the source (plan.threads, whole warps) must call it. smem_buffer must be aligned
// to the destination's swizzle repeat (dst.tile.base_alignment()): the executor adds buffer_offset()
// to it, so the destination's base_offset must be a multiple of that repeat (static_assert; the host
// planner also models a start inside the repeat, see smem_store/destination.hpp). Values are raw bits: std::uint16_t for 2-byte elements, std::uint32_t for 4-byte ones, etc.
// The instructions: st.shared of 1..16 bytes as plain C++ stores through a pointer into the
// shared buffer (the compiler emits STS of that width), stmatrix through matrix.cuh.
#pragma once

#include <cstdint>
#include <utility>

#include "tmakit/device/matrix.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/smem_store/plan.hpp"

namespace tmakit::device {

namespace smem_store_impl {

template <int Bytes>
struct VecOf;
template <> struct VecOf<1> { using type = std::uint8_t; };
template <> struct VecOf<2> { using type = std::uint16_t; };
template <> struct VecOf<4> { using type = std::uint32_t; };
template <> struct VecOf<8> { using type = uint2; };
template <> struct VecOf<16> { using type = uint4; };

// Byte offset of (thread, value) in the buffer (the buffer is aligned: no base_offset).
template <const StoreSource& S, const StoreDestination& D>
__device__ __forceinline__ std::uint32_t offset_of(int thread, int value) {
  constexpr StoreSource s = S;
  constexpr StoreDestination d = D;
  const TileCoord c = s.coord(thread, value);
  return static_cast<std::uint32_t>(d.buffer_offset(c.row, c.col));
}

// Plan entries as scalar constants (device code may not read the host plan object at run time).
template <const SmemStorePlan& P, int K>
inline constexpr int order_at = P.order[K];

// The byte offset of (thread, value), as a scalar constant (evaluated by the compiler, never on the GPU).
template <const StoreSource& S, const StoreDestination& D, int Thread, int Value>
inline constexpr std::uint32_t offset_constant = [] {
  const TileCoord c = S.coord(Thread, Value);
  return static_cast<std::uint32_t>(D.buffer_offset(c.row, c.col));
}();

// Whether offset(t, v) == offset(t, 0) ^ offset(0, v) ^ offset(0, 0) for every thread and value, with
// offset(t, 0) ^ offset(0, 0) the XOR of one term per set bit of t (threads a power of two). The
// check is exhaustive, so it is made only up to kMaxXorCheckPairs (thread, value) pairs (nvcc stops
// evaluating a constant expression past a step budget); larger sources take the run-time path.
inline constexpr int kMaxXorCheckPairs = 8192;
template <const StoreSource& S, const StoreDestination& D>
constexpr bool xor_linear() {
  const int threads = S.threads(), values = S.values();
  if (threads <= 0 || (threads & (threads - 1)) != 0 || values <= 0) return false;
  if (threads * values > kMaxXorCheckPairs) return false;
  auto off = [](int t, int v) {
    const TileCoord c = S.coord(t, v);
    return D.buffer_offset(c.row, c.col);
  };
  const std::uint64_t o00 = off(0, 0);
  std::uint64_t bit_term[32] = {};
  int bits = 0;
  while ((1 << bits) < threads) {
    bit_term[bits] = off(1 << bits, 0) ^ o00;
    ++bits;
  }
  for (int t = 0; t < threads; ++t) {
    std::uint64_t base = o00;
    for (int b = 0; b < bits; ++b)
      if (t >> b & 1) base ^= bit_term[b];
    for (int v = 0; v < values; ++v)
      if (off(t, v) != (base ^ off(0, v) ^ o00)) return false;
  }
  return true;
}

template <const StoreSource& S, const StoreDestination& D>
struct XorAddressMap {
  static constexpr bool kLinear = xor_linear<S, D>();
  static constexpr int kThreadBits = [] {
    int b = 0;
    while ((1 << b) < S.threads()) ++b;
    return b;
  }();
  // offset(thread, 0) ^ offset(0, 0): one constant per set bit of the thread index.
  __device__ static __forceinline__ std::uint32_t thread_term(int thread) {
    std::uint32_t r = 0;
    [&]<int... B>(std::integer_sequence<int, B...>) {
      ((r ^= (thread >> B & 1) ? (offset_constant<S, D, (1 << B), 0> ^ offset_constant<S, D, 0, 0>) : 0u), ...);
    }(std::make_integer_sequence<int, kThreadBits>{});
    return r;
  }
  // offset(thread, Value), given thread_term(thread).
  template <int Value>
  __device__ static __forceinline__ std::uint32_t offset(std::uint32_t thread_term) {
    return thread_term ^ offset_constant<S, D, 0, Value>;
  }
  // Whether, in every thread, value Value + 1 is the 2-byte element right after value Value and the
  // pair is 4-byte aligned: no thread term and neither constant touches the low two bits but bit 1
  // telling the two apart.
  template <int Value>
  static constexpr bool kAdjacentPair = [] {
    constexpr std::uint32_t lo = offset_constant<S, D, 0, Value>, hi = offset_constant<S, D, 0, Value + 1>;
    bool ok = (lo & 3u) == 0 && hi == (lo ^ 2u);
    [&]<int... B>(std::integer_sequence<int, B...>) {
      ((ok = ok && ((offset_constant<S, D, (1 << B), 0> ^ offset_constant<S, D, 0, 0>) & 3u) == 0), ...);
    }(std::make_integer_sequence<int, kThreadBits>{});
    return ok;
  }();
};

template <class U, int N>
__device__ __forceinline__ std::uint32_t pack2(const U (&vals)[N], int lo, int hi) {
  static_assert(sizeof(U) == 2, "stmatrix stores 2-byte elements");
  return static_cast<std::uint32_t>(vals[lo]) | (static_cast<std::uint32_t>(vals[hi]) << 16);
}

template <const SmemStorePlan& P, const StoreSource& S, const StoreDestination& D, int I, class U, int N>
__device__ __forceinline__ void instruction(unsigned char* buf, std::uint32_t buf_u32, int thread, const U (&vals)[N]) {
  constexpr int kV = P.values_per_instruction;
  constexpr int kFirst = I * kV;
  if constexpr (P.op.kind == StoreOpKind::st_shared) {
    constexpr int kBytes = P.op.bytes;
    using Vec = typename VecOf<kBytes>::type;
    // pack the run's values, lowest address first
    union {
      Vec v;
      U e[kV];
    } pk{};
    [&]<int... J>(std::integer_sequence<int, J...>) {
      ((pk.e[J] = vals[order_at<P, kFirst + J>]), ...);
    }(std::make_integer_sequence<int, kV>{});
    std::uint32_t off;
    if constexpr (XorAddressMap<S, D>::kLinear)
      off = XorAddressMap<S, D>::template offset<order_at<P, kFirst>>(XorAddressMap<S, D>::thread_term(thread));
    else
      off = offset_of<S, D>(thread, order_at<P, kFirst>);
    *reinterpret_cast<Vec*>(buf + off) = pk.v;
  } else {
    constexpr int kM = P.op.matrices;
    constexpr bool kTrans = P.op.trans;
    const int lane = thread & 31, warp_base = thread & ~31;
    const int j = lane / 8, r = lane % 8;  // this lane gives the address of row r of matrix j
    std::uint32_t row_off = 0;
    [&]<int... J>(std::integer_sequence<int, J...>) {
      (([&] {
         if (J == j) {
           constexpr int va = order_at<P, kFirst + 2 * J>, vb = order_at<P, kFirst + 2 * J + 1>;
           const StmatrixRow rs = stmatrix_row_source(r, kTrans);
           if constexpr (XorAddressMap<S, D>::kLinear) {
             const std::uint32_t tt = XorAddressMap<S, D>::thread_term(warp_base + rs.lane);
             row_off = rs.second ? XorAddressMap<S, D>::template offset<vb>(tt) : XorAddressMap<S, D>::template offset<va>(tt);
           } else {
             row_off = offset_of<S, D>(warp_base + rs.lane, rs.second ? vb : va);
           }
         }
       }()),
       ...);
    }(std::make_integer_sequence<int, kM>{});
    const std::uint32_t a = buf_u32 + row_off;
    constexpr int o = kFirst;
    if constexpr (kM == 1) {
      const std::uint32_t r0 = pack2(vals, order_at<P, o>, order_at<P, o + 1>);
      if constexpr (kTrans) matrix::stmatrix_x1_trans(a, r0);
      else matrix::stmatrix_x1(a, r0);
    } else if constexpr (kM == 2) {
      const std::uint32_t r0 = pack2(vals, order_at<P, o>, order_at<P, o + 1>);
      const std::uint32_t r1 = pack2(vals, order_at<P, o + 2>, order_at<P, o + 3>);
      if constexpr (kTrans) matrix::stmatrix_x2_trans(a, r0, r1);
      else matrix::stmatrix_x2(a, r0, r1);
    } else {
      const std::uint32_t r0 = pack2(vals, order_at<P, o>, order_at<P, o + 1>);
      const std::uint32_t r1 = pack2(vals, order_at<P, o + 2>, order_at<P, o + 3>);
      const std::uint32_t r2 = pack2(vals, order_at<P, o + 4>, order_at<P, o + 5>);
      const std::uint32_t r3 = pack2(vals, order_at<P, o + 6>, order_at<P, o + 7>);
      if constexpr (kTrans) matrix::stmatrix_x4_trans(a, r0, r1, r2, r3);
      else matrix::stmatrix_x4(a, r0, r1, r2, r3);
    }
  }
}

}  // namespace smem_store_impl

// Reads this thread's 2-byte values V and V + 1 back from a destination laid out as D (as
// load_elements below does), packed as V | V + 1 << 16: one 4-byte load where the two are adjacent
// (a row-major chunk's two columns of one accumulator pair), else two. A caller that folds each pair
// into its result at once holds half as many registers of loaded values.
template <const StoreSource& S, const StoreDestination& D, int V>
__device__ __forceinline__ std::uint32_t load_element_pair(const void* smem_buffer, int thread) {
  static_assert(D.elem_bytes == 2, "pairs of 2-byte elements");
  static_assert(V >= 0 && V + 1 < S.values(), "two register slots of the source");
  const unsigned char* buf = static_cast<const unsigned char*>(smem_buffer);
  using Map = smem_store_impl::XorAddressMap<S, D>;
  if constexpr (Map::kLinear) {
    const std::uint32_t tt = Map::thread_term(thread);
    if constexpr (Map::template kAdjacentPair<V>)
      return *reinterpret_cast<const std::uint32_t*>(buf + Map::template offset<V>(tt));
    else
      return static_cast<std::uint32_t>(*reinterpret_cast<const std::uint16_t*>(buf + Map::template offset<V>(tt))) |
             static_cast<std::uint32_t>(*reinterpret_cast<const std::uint16_t*>(buf + Map::template offset<V + 1>(tt))) << 16;
  } else {
    return static_cast<std::uint32_t>(*reinterpret_cast<const std::uint16_t*>(buf + smem_store_impl::offset_of<S, D>(thread, V))) |
           static_cast<std::uint32_t>(*reinterpret_cast<const std::uint16_t*>(buf + smem_store_impl::offset_of<S, D>(thread, V + 1))) << 16;
  }
}

// Reads this thread's values back from a destination laid out as D (e.g. an operand tile a TMA load
// filled: a GEMM's C), value v of the source being element S.coord(thread, v). Plain shared loads of
// one element each.
template <const StoreSource& S, const StoreDestination& D, class U, int N>
__device__ __forceinline__ void load_elements(const void* smem_buffer, int thread, U (&vals)[N]) {
  static_assert(sizeof(U) == static_cast<std::size_t>(D.elem_bytes), "value type must have the element size");
  static_assert(N == S.values(), "one value per register slot of the source");
  const unsigned char* buf = static_cast<const unsigned char*>(smem_buffer);
  if constexpr (smem_store_impl::XorAddressMap<S, D>::kLinear) {
    using Map = smem_store_impl::XorAddressMap<S, D>;
    const std::uint32_t tt = Map::thread_term(thread);
    [&]<int... V>(std::integer_sequence<int, V...>) {
      ((vals[V] = *reinterpret_cast<const U*>(buf + Map::template offset<V>(tt))), ...);
    }(std::make_integer_sequence<int, N>{});
  } else {
#pragma unroll
    for (int v = 0; v < N; ++v) vals[v] = *reinterpret_cast<const U*>(buf + smem_store_impl::offset_of<S, D>(thread, v));
  }
}

// Stores this thread's values per plan P (see the header comment). U: unsigned type of the element size.
template <const SmemStorePlan& P, const StoreSource& S, const StoreDestination& D, class U, int N>
__device__ __forceinline__ void store_planned(void* smem_buffer, int thread, const U (&vals)[N]) {
  static_assert(P.ok, "the plan was refused: print it on the host (tmakit smem-store) for the reason");
  static_assert(sizeof(U) == static_cast<std::size_t>(P.elem_bytes), "value type must have the element size");
  static_assert(N == P.values, "one value per register slot of the source");
  static_assert(D.base_offset % D.tile.base_alignment() == 0,
                "the executor takes a buffer aligned to the swizzle repeat (base_offset a multiple of it)");
  unsigned char* buf = static_cast<unsigned char*>(smem_buffer);
  const std::uint32_t buf_u32 = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_buffer));
  [&]<int... I>(std::integer_sequence<int, I...>) {
    (smem_store_impl::instruction<P, S, D, I>(buf, buf_u32, thread, vals), ...);
  }(std::make_integer_sequence<int, P.instructions>{});
}

}  // namespace tmakit::device
