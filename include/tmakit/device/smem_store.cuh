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
// Every thread of the source (plan.threads, whole warps) must call it. smem_buffer must be aligned
// to the destination's swizzle repeat (dst.tile.base_alignment(); the plan refused a base_offset that
// is not). Values are raw bits: std::uint16_t for 2-byte elements, std::uint32_t for 4-byte ones, etc.
// The instructions: st.shared of 1..16 bytes as plain C++ stores through a pointer into the
// shared buffer (the compiler emits STS of that width), stmatrix through ptx_raw.cuh.
#pragma once

#include <cstdint>
#include <utility>

#include "tmakit/device/ptx_raw.cuh"
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
    const std::uint32_t off = offset_of<S, D>(thread, order_at<P, kFirst>);
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
           row_off = offset_of<S, D>(warp_base + rs.lane, rs.second ? vb : va);
         }
       }()),
       ...);
    }(std::make_integer_sequence<int, kM>{});
    const std::uint32_t a = buf_u32 + row_off;
    constexpr int o = kFirst;
    if constexpr (kM == 1) {
      const std::uint32_t r0 = pack2(vals, order_at<P, o>, order_at<P, o + 1>);
      if constexpr (kTrans) ptx_raw::stmatrix_x1_trans(a, r0);
      else ptx_raw::stmatrix_x1(a, r0);
    } else if constexpr (kM == 2) {
      const std::uint32_t r0 = pack2(vals, order_at<P, o>, order_at<P, o + 1>);
      const std::uint32_t r1 = pack2(vals, order_at<P, o + 2>, order_at<P, o + 3>);
      if constexpr (kTrans) ptx_raw::stmatrix_x2_trans(a, r0, r1);
      else ptx_raw::stmatrix_x2(a, r0, r1);
    } else {
      const std::uint32_t r0 = pack2(vals, order_at<P, o>, order_at<P, o + 1>);
      const std::uint32_t r1 = pack2(vals, order_at<P, o + 2>, order_at<P, o + 3>);
      const std::uint32_t r2 = pack2(vals, order_at<P, o + 4>, order_at<P, o + 5>);
      const std::uint32_t r3 = pack2(vals, order_at<P, o + 6>, order_at<P, o + 7>);
      if constexpr (kTrans) ptx_raw::stmatrix_x4_trans(a, r0, r1, r2, r3);
      else ptx_raw::stmatrix_x4(a, r0, r1, r2, r3);
    }
  }
}

}  // namespace smem_store_impl

// Stores this thread's values per plan P (see the header comment). U: unsigned type of the element size.
template <const SmemStorePlan& P, const StoreSource& S, const StoreDestination& D, class U, int N>
__device__ __forceinline__ void store_planned(void* smem_buffer, int thread, const U (&vals)[N]) {
  static_assert(P.ok, "the plan was refused: print it on the host (tmakit smem-store) for the reason");
  static_assert(sizeof(U) == static_cast<std::size_t>(P.elem_bytes), "value type must have the element size");
  static_assert(N == P.values, "one value per register slot of the source");
  unsigned char* buf = static_cast<unsigned char*>(smem_buffer);
  const std::uint32_t buf_u32 = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_buffer));
  [&]<int... I>(std::integer_sequence<int, I...>) {
    (smem_store_impl::instruction<P, S, D, I>(buf, buf_u32, thread, vals), ...);
  }(std::make_integer_sequence<int, P.instructions>{});
}

}  // namespace tmakit::device
