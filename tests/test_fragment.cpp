// device::AccumulatorFragment (include/tmakit/device/fragment.cuh): a WGMMA m64nN accumulator's
// register -> element map, split into a per-thread origin and per-slot offsets. Checked on the host
// against the PTX ISA's D-fragment figure written out here, and as a map: every element of the
// 64 x N tile is held by exactly one (thread, slot).
#include <gtest/gtest.h>

#include <vector>

#include "tmakit/device/fragment.cuh"

namespace {

template <int N>
void check_fragment() {
  using Acc = tmakit::device::AccumulatorFragment<N>;
  static_assert(Acc::kValues == N / 2);
  std::vector<int> held(64 * N, 0);
  for (int t = 0; t < 128; ++t) {
    const int w = t / 32, l = t % 32;
    const auto o = Acc::origin(t);
    for (int v = 0; v < Acc::kValues; ++v) {
      // PTX ISA, wgmma .m64nNk16 D fragment: row 16 w + l / 4 + 8 ((v / 2) % 2), column 8 (v / 4) + 2 (l % 4) + v % 2
      const int row = 16 * w + l / 4 + 8 * ((v / 2) % 2), col = 8 * (v / 4) + 2 * (l % 4) + v % 2;
      ASSERT_EQ(o.row + Acc::row_of(v), row) << "thread " << t << " slot " << v;
      ASSERT_EQ(o.col + Acc::col_of(v), col) << "thread " << t << " slot " << v;
      ASSERT_EQ(Acc::row_index_of(v), (v / 2) % 2);
      ++held[row * N + col];
    }
  }
  for (int e = 0; e < 64 * N; ++e) ASSERT_EQ(held[e], 1) << "element " << e / N << ", " << e % N;
}

TEST(AccumulatorFragment, MatchesThePtxFigureAndCoversTheTileOnce) {
  check_fragment<8>();
  check_fragment<64>();
  check_fragment<128>();
  check_fragment<192>();
  check_fragment<256>();
}

// The origin is the thread's first element; slot offsets do not depend on the thread.
TEST(AccumulatorFragment, OriginAndOffsets) {
  using Acc = tmakit::device::AccumulatorFragment<64>;
  EXPECT_EQ(Acc::origin(0).row, 0);
  EXPECT_EQ(Acc::origin(0).col, 0);
  EXPECT_EQ(Acc::origin(37).row, 16 + 1);  // warp 1, lane 5: row 16 + 5 / 4
  EXPECT_EQ(Acc::origin(37).col, 2);       // 2 (5 % 4)
  EXPECT_EQ(Acc::row_of(2), 8);            // slots 2, 3 of every group of four: the row 8 below
  EXPECT_EQ(Acc::col_of(5), 9);            // slot 5: column 8 (5 / 4) + 5 % 2
}

}  // namespace
