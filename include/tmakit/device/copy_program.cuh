// CopyProgram<Shape>: a plan's compile-time shape (plan/copy_shape.hpp), issued as straight-line
// TMA instructions.
//
// A TmaPlan passed at run time makes every loop, the rank and the multicast slicing run-time
// values in device code: the issuing thread then pays a jump table on the rank, divisions to
// decode each instruction's loop indices, and local memory for its coordinate arrays. With the
// shape as a template argument, issuing a tile is what a hand-written kernel would write: one TMA
// instruction per copy, the box's rank fixed, every coordinate offset and shared offset an
// immediate, and each TMA coordinate a constant-coefficient sum of the tile coordinates (so the
// compiler hoists what does not change along a K loop and adds the rest).
//
//   constexpr TmaPlan kA = plan_shape(plan_tile(representative tensor, kATile, tile).plan);
//   using A = device::CopyProgram<kA>;
//   const A::Share a_share = A::share();            // once: this CTA's slice of a multicast tile
//   ...
//   A::issue(&a_map, stage_a, full, a_share, m, kb, l);   // the plan's copies of tile (m, kb, l)
//
// The run-time plan of the caller's tensor must have this shape (the launcher checks with
// shape_difference before the launch); the tensor map carries the address, extents and strides.
// Loads complete on `bar`, which the caller armed with kBytes (per receiving CTA: the whole tile,
// every sharer's slice included). Stores and reductions (store(), reduce<Op>()) complete by bulk
// groups (tma.cuh: commit_group, wait_group_read).
#pragma once

#include <cuda/ptx>

#include <cstdint>
#include <utility>

#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/plan/copy_shape.hpp"
#include "tmakit/plan/tma_plan.hpp"

namespace tmakit::device {

template <TmaPlan Shape>
struct CopyProgram {
  static constexpr TmaPlan kShape = Shape;
  static constexpr std::uint32_t kRank = kShape.params.rank;
  static constexpr bool kMulticast = kShape.multicast_ctas > 1 && kShape.multicast_dim >= 0;
  // Copies this CTA issues per tile, and how many CTAs share a tile (1: no multicast).
  static constexpr std::uint32_t kCopies = kMulticast ? kShape.instructions_per_cta : kShape.instructions;
  static constexpr std::uint32_t kSharers = kMulticast ? kShape.multicast_ctas : 1u;
  // Bytes one tile brings to each CTA that receives it (loads): what its barrier is armed with.
  static constexpr std::uint32_t kBytes = kShape.expect_tx_bytes;
  static constexpr std::int32_t kTileModes = kShape.tile_modes;
  static_assert(kRank >= 1 && kRank <= kMaxRank, "a plan of rank 1..5");
  static_assert(kCopies * kSharers == kShape.instructions, "every instruction belongs to one sharer's slice");

  // Instruction k of the tile at origin 0: its coordinate and shared offsets.
  static constexpr PlanInstruction instruction(std::uint32_t k) { return kShape.instruction_at(k, PlanOrigin{}); }
  // Copy i of sharer j's slice, relative to that slice's first copy.
  static constexpr PlanInstruction relative(std::uint32_t j, std::uint32_t i) {
    const PlanInstruction first = instruction(j * kCopies), in = instruction(j * kCopies + i);
    PlanInstruction r;
    for (std::uint32_t d = 0; d < kMaxRank; ++d) r.coord[d] = in.coord[d] - first.coord[d];
    r.smem_offset = in.smem_offset - first.smem_offset;
    return r;
  }
  // Every sharer's slice is the first one moved: one instruction sequence serves all of them, and
  // a CTA's slice is its first copy's offsets (Share), read once.
  static constexpr bool slices_alike() {
    for (std::uint32_t j = 1; j < kSharers; ++j)
      for (std::uint32_t i = 0; i < kCopies; ++i) {
        const PlanInstruction a = relative(0, i), b = relative(j, i);
        if (a.smem_offset != b.smem_offset) return false;
        for (std::uint32_t d = 0; d < kMaxRank; ++d)
          if (a.coord[d] != b.coord[d]) return false;
      }
    return true;
  }
  static_assert(slices_alike(), "the multicast slices must be translates of one another");
  static constexpr std::uint32_t kClusterCtas = kShape.cluster[0] * kShape.cluster[1] * kShape.cluster[2];
  static_assert(kClusterCtas >= 1 && kClusterCtas <= 16, "a cluster of 1..16 CTAs");

  // This CTA's slice of the tile: the offsets of its first copy and who receives it (0: this CTA
  // alone, a plain load). Without multicast every field is zero.
  struct Share {
    std::int32_t coord[kRank] = {};
    std::uint32_t smem = 0;
    std::uint16_t mask = 0;
  };
  __device__ static Share share() {
    Share s;
    if constexpr (kMulticast) {
      // The cluster position picks the slice and the mask among compile-time values (no table in memory).
      const std::uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();
      [&]<std::uint32_t... R>(std::integer_sequence<std::uint32_t, R...>) {
        ((rank == R ? (void)(s = share_of_rank<R>()) : (void)0), ...);
      }(std::make_integer_sequence<std::uint32_t, kClusterCtas>{});
    }
    return s;
  }

  // The plan's copies of the tile at `tile...` (kTileModes coordinates, in tile units), this CTA's
  // slice, into `smem` (the tile's base, aligned to kShape.smem_alignment), completing on `bar`.
  template <class... T>
  __device__ static void issue(MapRef map, void* smem, Barrier& bar, const Share& s, T... tile) {
    static_assert(sizeof...(T) == static_cast<std::size_t>(kTileModes), "one coordinate per tile mode");
    const std::int32_t t[] = {static_cast<std::int32_t>(tile)...};
    std::int32_t base[kRank];
    origin(s, t, base);
    load_at(map, smem, bar, s, base);
  }

  // issue() of the tile at `tile...` moved by `elements` along tile mode M: for tiles that start at
  // an element rather than a multiple of the tile (packed sequences of different lengths, whose
  // rows start anywhere). Mode M must be one TMA dimension of unit offset (a mode the plan does not
  // cut or fold), so that an element along it is one step of that dimension's coordinate.
  template <std::int32_t M, class... T>
  __device__ static void issue_shifted(MapRef map, void* smem, Barrier& bar, const Share& s, std::int32_t elements,
                                       T... tile) {
    static_assert(sizeof...(T) == static_cast<std::size_t>(kTileModes), "one coordinate per tile mode");
    const std::int32_t t[] = {static_cast<std::int32_t>(tile)...};
    std::int32_t base[kRank];
    origin(s, t, base);
    base[kDimOf<M>] += elements;
    load_at(map, smem, bar, s, base);
  }

  // Store (shared -> global) and reduction forms of the same copies, for plans of those directions
  // (no multicast: every copy of the tile from this CTA).
  template <class... T>
  __device__ static void store(MapRef map, const void* smem, T... tile) {
    static_assert(kShape.direction == PlanDirection::store, "store() takes a store plan (PlanOptions::direction)");
    const std::int32_t t[] = {static_cast<std::int32_t>(tile)...};
    copies_at(t, 0, [&](std::uint32_t smem_offset, auto... c) {
      device::store(map, static_cast<const unsigned char*>(smem) + smem_offset, c...);
    });
  }
  // store() of the tile moved by `elements` along tile mode M (as issue_shifted).
  template <std::int32_t M, class... T>
  __device__ static void store_shifted(MapRef map, const void* smem, std::int32_t elements, T... tile) {
    static_assert(kShape.direction == PlanDirection::store, "store() takes a store plan (PlanOptions::direction)");
    const std::int32_t t[] = {static_cast<std::int32_t>(tile)...};
    copies_at<kDimOf<M>>(t, elements, [&](std::uint32_t smem_offset, auto... c) {
      device::store(map, static_cast<const unsigned char*>(smem) + smem_offset, c...);
    });
  }
  template <ReduceOp Op, class... T>
  __device__ static void reduce(MapRef map, const void* smem, T... tile) {
    static_assert(kShape.direction == PlanDirection::reduce && kShape.reduce_op == Op,
                  "reduce<Op>() takes a reduce plan of that op");
    const std::int32_t t[] = {static_cast<std::int32_t>(tile)...};
    copies_at(t, 0, [&](std::uint32_t smem_offset, auto... c) {
      device::reduce<Op>(map, static_cast<const unsigned char*>(smem) + smem_offset, c...);
    });
  }

 private:
  // The CTA of cluster rank R (x fastest): its position along the multicast dimension picks its
  // slice; the mask names every CTA that shares the tile with it.
  static constexpr std::uint32_t position_of(std::uint32_t rank, int dim) {
    const std::uint32_t x = rank % kShape.cluster[0], y = rank / kShape.cluster[0] % kShape.cluster[1],
                        z = rank / (kShape.cluster[0] * kShape.cluster[1]);
    return dim == 0 ? x : dim == 1 ? y : z;
  }
  template <std::uint32_t R>
  __device__ static Share share_of_rank() {
    constexpr std::uint32_t cta[3] = {position_of(R, 0), position_of(R, 1), position_of(R, 2)};
    constexpr PlanInstruction first = instruction(cta[kShape.multicast_dim] * kCopies);
    constexpr std::uint16_t mask = kShape.multicast_mask(cta);
    Share s;
    [&]<std::uint32_t... D>(std::integer_sequence<std::uint32_t, D...>) {
      ((s.coord[D] = first.coord[D]), ...);
    }(std::make_integer_sequence<std::uint32_t, kRank>{});
    s.smem = first.smem_offset;
    s.mask = mask;
    return s;
  }
  // coordinate of TMA dimension d = the slice's offset + sum over tile modes of coef * tile coordinate
  // (every coefficient an immediate)
  __device__ static void origin(const Share& s, const std::int32_t* t, std::int32_t (&base)[kRank]) {
    [&]<std::uint32_t... D>(std::integer_sequence<std::uint32_t, D...>) {
      ((base[D] = s.coord[D] + dot<D>(t, std::make_integer_sequence<std::int32_t, kTileModes>{})), ...);
    }(std::make_integer_sequence<std::uint32_t, kRank>{});
  }
  template <std::uint32_t D, std::int32_t M>
  static constexpr std::int32_t kCoef = kShape.coef[D][M];  // a scalar: an immediate in device code
  template <std::uint32_t D, std::int32_t... M>
  __device__ static std::int32_t dot(const std::int32_t* t, std::integer_sequence<std::int32_t, M...>) {
    return (0 + ... + (kCoef<D, M> * t[M]));
  }
  template <class F>
  __device__ static void each_copy(F&& f) {
    [&]<std::uint32_t... I>(std::integer_sequence<std::uint32_t, I...>) {
      (f.template operator()<I>(), ...);
    }(std::make_integer_sequence<std::uint32_t, kCopies>{});
  }
  // Calls f(c_0, ..., c_{rank-1}) with copy I's coordinates.
  template <std::uint32_t I, class F>
  __device__ static void at_coords(const std::int32_t (&base)[kRank], F&& f) {
    constexpr PlanInstruction r = relative(0, I);
    [&]<std::uint32_t... D>(std::integer_sequence<std::uint32_t, D...>) {
      f((base[D] + r.coord[D])...);
    }(std::make_integer_sequence<std::uint32_t, kRank>{});
  }
  // Every copy of this CTA's slice, the tile's origin at `base`.
  __device__ static void load_at(MapRef map, void* smem, Barrier& bar, const Share& s, const std::int32_t (&base)[kRank]) {
    unsigned char* dst = static_cast<unsigned char*>(smem) + s.smem;
    each_copy([&]<std::uint32_t I>() {
      constexpr PlanInstruction r = relative(0, I);
      at_coords<I>(base, [&](auto... c) {
        if constexpr (kMulticast) load_multicast(map, dst + r.smem_offset, bar, s.mask, c...);
        else load(map, dst + r.smem_offset, bar, c...);
      });
    });
  }
  // The TMA dimension that tile mode M is, for an element shift along it: the one dimension of that
  // mode, of unit offset, with no other mode folded in.
  static constexpr std::int32_t dim_of(std::int32_t m) {
    std::int32_t found = -1, count = 0;
    for (std::uint32_t d = 0; d < kRank; ++d)
      if (kShape.dim[d].mode == m || (kShape.dim[d].folded >> m & 1u)) {
        ++count;
        if (kShape.dim[d].mode == m && kShape.dim[d].offset == 1 && kShape.dim[d].folded == 0) found = static_cast<std::int32_t>(d);
      }
    return count == 1 ? found : -1;
  }
  template <std::int32_t M>
  static constexpr std::uint32_t kDimOf = [] {
    static_assert(M >= 0 && M < kTileModes, "a tile mode of the plan");
    static_assert(dim_of(M) >= 0, "an element shift needs a mode that is one TMA dimension of unit offset");
    return static_cast<std::uint32_t>(dim_of(M));
  }();
  // Calls f(shared offset, c_0, ..., c_{rank-1}) for every copy of the tile at t, moved by `elements`
  // along TMA dimension Dim (stores, reductions).
  template <std::uint32_t Dim = 0, std::size_t N, class F>
  __device__ static void copies_at(const std::int32_t (&t)[N], std::int32_t elements, F&& f) {
    static_assert(!kMulticast, "stores and reductions are not multicast");
    static_assert(N == static_cast<std::size_t>(kTileModes), "one coordinate per tile mode");
    std::int32_t base[kRank];
    origin(Share{}, t, base);
    base[Dim] += elements;
    each_copy([&]<std::uint32_t I>() {
      constexpr PlanInstruction r = relative(0, I);
      at_coords<I>(base, [&](auto... c) { f(r.smem_offset, c...); });
    });
  }
};

}  // namespace tmakit::device
