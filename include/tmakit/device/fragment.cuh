// Where each register of a WGMMA accumulator fragment sits in the tile, for kernels that need it
// (row-wise softmax maxima and sums, causal masks, per-row or per-column scales, a bias), so that
// no kernel writes the fragment's index arithmetic itself. The map is smem_store's model of the
// m64nN accumulator (smem_store/source.hpp, wgmma_accumulator: the PTX ISA's D-fragment figure),
// split into a part that depends on the thread only (its origin, computed once) and a part that
// depends on the register slot only (a compile-time constant per slot):
//
//   using Acc = tmakit::device::AccumulatorFragment<128>;   // m64n128: 64 registers per thread
//   const Acc::Origin o = Acc::origin(threadIdx.x % 128);    // this thread's first element
//   acc[v] ... row o.row + Acc::row_of(v), column o.col + Acc::col_of(v)   (v a constant)
//
// Every thread holds two rows of the 64 (kRowsPerThread), o.row and o.row + 8, and N / 4 column
// pairs. The split is checked against the model for every (thread, slot) at compile time.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/smem_store/source.hpp"

namespace tmakit::device {

template <int N>
struct AccumulatorFragment {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "m64nN with N a multiple of 8 in 8..256");
  static constexpr int kValues = N / 2;   // fp32 registers per thread
  static constexpr int kThreads = 128;    // the warpgroup
  static constexpr int kRowsPerThread = 2;

  struct Origin {
    std::int32_t row = 0, col = 0;
  };
  // The element of slot 0 of `thread` (0 .. 127 within the warpgroup).
  TMAKIT_HD static constexpr Origin origin(std::int32_t thread) {
    const ::tmakit::TileCoord c = wgmma_accumulator(N).coord(thread, 0);
    return {c.row, c.col};
  }
  // Slot v's element relative to the origin: the same for every thread.
  TMAKIT_HD static constexpr std::int32_t row_of(std::int32_t v) { return wgmma_accumulator(N).coord(0, v).row; }
  TMAKIT_HD static constexpr std::int32_t col_of(std::int32_t v) { return wgmma_accumulator(N).coord(0, v).col; }
  // Which of the thread's two rows slot v is in (0: origin.row, 1: origin.row + 8).
  TMAKIT_HD static constexpr std::int32_t row_index_of(std::int32_t v) { return row_of(v) == 0 ? 0 : 1; }
  // The thread's row r (0 or 1) relative to the origin: the row of the slots with row_index_of == r.
  TMAKIT_HD static constexpr std::int32_t row_offset(std::int32_t r) { return r == 0 ? 0 : row_of(2); }

  // The split is the model: origin(t) + offset(v) == coord(t, v) for every thread and slot, and the
  // slots' rows are the two rows named above.
  static constexpr bool split_is_exact() {
    constexpr StoreSource m = wgmma_accumulator(N);
    for (std::int32_t t = 0; t < kThreads; ++t)
      for (std::int32_t v = 0; v < kValues; ++v) {
        const ::tmakit::TileCoord c = m.coord(t, v);
        if (c.row != origin(t).row + row_of(v) || c.col != origin(t).col + col_of(v)) return false;
        if (row_of(v) != 0 && row_of(v) != 8) return false;
        if (row_of(v) != row_offset(row_index_of(v))) return false;
      }
    return true;
  }
  static_assert(split_is_exact(), "the accumulator map splits into a thread part and a slot part");
};

}  // namespace tmakit::device
