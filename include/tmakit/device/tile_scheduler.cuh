// The persistent kernels' tile order: which output tile (or attention query tile) a CTA takes next.
//
// A persistent grid launches as many CTAs (or clusters) as fit at once; CTA c takes work units c,
// c + G, c + 2G, ... (G the grid's CTA or cluster count). How a unit number maps to a tile decides
// what the units running at the same time share in L2:
//   GroupedRaster  tiles in groups of `group` tile rows, column by column inside a group: the
//                  ~G units in flight touch about `group` row panels of A and G / group column
//                  panels of B, instead of one row panel and G column panels (row-major order).
// The mapping costs a few integer divisions per unit, none per K block.
//
// Units may also be handed out as CTAs free up rather than dealt in turn: take_unit returns the next
// unit number of a counter in global memory that is zero at launch (one atomic add per unit). Where
// units differ in work (causal attention's query tiles), numbering them longest first makes the last
// ones handed out the shortest, and the CTAs finish together (list scheduling); a static deal gives a
// CTA whatever its turns bring.
#pragma once

#include <cstdint>

namespace tmakit::device {

struct TileIndex {  // an output tile by its indices (in tiles), not an element
  std::int32_t m = 0, n = 0, batch = 0;
};

struct GroupedRaster {
  std::int32_t tiles_m = 0, tiles_n = 0, batch = 1, group = 8;

  __host__ __device__ constexpr std::int32_t tiles() const { return tiles_m * tiles_n * batch; }

  // Unit t (0 <= t < tiles()) -> its tile. Batches one after another; inside one, groups of `group`
  // rows (the last group may be shorter), column-major inside a group.
  __device__ __forceinline__ TileIndex at(std::int32_t t) const {
    const std::int32_t per_batch = tiles_m * tiles_n;
    const std::int32_t l = t / per_batch;
    const std::int32_t r = t - l * per_batch;
    const std::int32_t per_group = group * tiles_n;
    const std::int32_t g = r / per_group;
    const std::int32_t first_m = g * group;
    const std::int32_t rows = min(tiles_m - first_m, group);
    const std::int32_t in = r - g * per_group;
    return {first_m + in % rows, in / rows, l};
  }
};

// The next unit of a launch's counter (zero at launch): every caller gets a different number, in the
// order the calls reach it; numbers past the last unit say that none is left.
__device__ __forceinline__ std::int32_t take_unit(std::int32_t* counter) { return atomicAdd(counter, 1); }

}  // namespace tmakit::device
