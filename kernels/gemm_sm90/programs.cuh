// The GEMM's operands as the planner sees them, and the copy programs compiled from them: for each
// operand layout, the shape of the plan of a representative tensor (device/copy_program.cuh), which
// gemm.cu checks every plan it makes against (plan/copy_shape.hpp: shape_difference).
#pragma once

#include <cstdint>

#include "kernels/gemm_sm90/tiles.cuh"
#include "tmakit/device/copy_program.cuh"
#include "tmakit/plan/copy_shape.hpp"
#include "tmakit/plan/make_problem.hpp"

namespace tmakit::gemm_sm90 {

// An operand's global tensor as (rows, cols, batch) in elements: `rows` is the mode the tile's first
// shared mode covers (M of A, N of B, M of C, D and W), `cols` the second (K, K, N, N, N).
// `rows_contiguous`: element (r + 1, c) follows (r, c) in memory; `ld` is then the stride of a
// column, else of a row. A batch of one has no stride of its own: its mode gets the matrix's extent.
TMAKIT_HD constexpr GlobalTensor operand_tensor(DataType t, std::uint64_t address, std::int64_t rows, std::int64_t cols,
                                                std::int64_t batch, std::int64_t ld, std::int64_t batch_stride,
                                                bool rows_contiguous) {
  GlobalTensor g;
  g.dtype = t;
  g.address = address;
  g.base_alignment = known_alignment(address);
  const std::int64_t rs = rows_contiguous ? 1 : ld;
  const std::int64_t cs = rows_contiguous ? ld : 1;
  const std::int64_t bs = batch > 1 ? batch_stride : (rows_contiguous ? ld * cols : ld * rows);
  g.layout = make_layout(IntTuple::make(rows, cols, batch), IntTuple::make(rs, cs, bs));
  return g;
}

// How each operand is planned: fixed shapes (so one compiled program fits every tensor of the
// layout), operand loads asking L2 for 256-byte promotion (a tile row is one or two 128-byte lines;
// measured faster than none: docs/lab/gemm.md), B planned for the cluster it is multicast in.
TMAKIT_HD constexpr PlanOptions operand_options(int multicast_ctas) {
  PlanOptions o;
  o.fixed_shape = true;
  o.l2 = L2Promotion::b256;
  o.cluster[0] = static_cast<std::uint32_t>(multicast_ctas);
  o.multicast_dim = multicast_ctas > 1 ? 0 : -1;
  return o;
}
TMAKIT_HD constexpr PlanOptions chunk_options(PlanDirection direction) {
  PlanOptions o;
  o.fixed_shape = true;
  o.direction = direction;
  o.reduce_op = ReduceOp::add;
  return o;
}
TMAKIT_HD constexpr TileExtents tile_extents(std::int64_t rows, std::int64_t cols) {
  return make_tile_extents(rows, cols, 1);  // (rows, cols, batch)
}

// The plan of a representative tensor of each layout (any extents and strides the rules accept;
// with fixed_shape the shape does not depend on them), reduced to its shape.
constexpr TmaPlan compiled_shape(DataType t, bool rows_contiguous, const SwizzledLayout& smem, std::int64_t rows,
                                 std::int64_t cols, const PlanOptions& o) {
  constexpr std::int64_t kExtent = 4096;
  const GlobalTensor g = operand_tensor(t, std::uint64_t{1} << 20, kExtent, kExtent, 2, kExtent, kExtent * kExtent,
                                        rows_contiguous);
  const PlanResult r = plan_tile(g, smem, tile_extents(rows, cols), o);
  return r.ok() ? plan_shape(r.plan) : TmaPlan{};
}
template <Inputs In, bool MnMajor, int Rows = kTileM>
inline constexpr TmaPlan kAShape = compiled_shape(tma_type(In), MnMajor, kATile<MnMajor, input_bytes(In), Rows>.tile, Rows,
                                                  kTileK<input_bytes(In)>, operand_options(1));
template <Inputs In, bool MnMajor, int TileN, int ClusterM>
inline constexpr TmaPlan kBShape = compiled_shape(tma_type(In), MnMajor, kBTile<MnMajor, TileN, input_bytes(In)>.tile, TileN,
                                                  kTileK<input_bytes(In)>, operand_options(ClusterM));
template <DataType T>
inline constexpr TmaPlan kCShape = compiled_shape(T, false, kChunkLayout, 64, kChunkN, chunk_options(PlanDirection::load));
template <DataType T>
inline constexpr TmaPlan kDShape = compiled_shape(T, false, kChunkLayout, 64, kChunkN, chunk_options(PlanDirection::store));
// The split-K workspace W's fp32 chunks: stored by a tile's first K slice, reduced into by the
// middle ones, loaded back by the last (device/split_turns.cuh).
template <PlanDirection Direction>
inline constexpr TmaPlan kWShape =
    compiled_shape(DataType::float32, false, kChunkLayoutF32, 64, kChunkNF32, chunk_options(Direction));

// Block scales: A's column of one K block for the tile's rows (tiles.cuh), in the tile coordinates of
// A's own copies (row tile, K block, batch).
template <int Rows = kTileM>
inline constexpr TmaPlan kScaleShape =
    compiled_shape(DataType::float32, true, kScaleColumnLayout<Rows>, Rows, 1, operand_options(1));

// The copy programs of one kernel form: A and B of the input types, C and D of the output type, and
// with block scales A's scale column; A's tile and scale column of the tile's rows.
template <Inputs In, DataType Out, bool AMn, bool BMn, int TileN, int ClusterM, bool BlockScales = false, int Rows = kTileM>
struct Programs {
  using A = device::CopyProgram<kAShape<In, AMn, Rows>>;
  using B = device::CopyProgram<kBShape<In, BMn, TileN, ClusterM>>;
  using C = device::CopyProgram<kCShape<Out>>;
  using D = device::CopyProgram<kDShape<Out>>;
  using WStore = device::CopyProgram<kWShape<PlanDirection::store>>;
  using WAdd = device::CopyProgram<kWShape<PlanDirection::reduce>>;
  using WLoad = device::CopyProgram<kWShape<PlanDirection::load>>;
  using SA = device::CopyProgram<kScaleShape<Rows>>;
  // Every byte that lands in a stage of one CTA: its A tile and the whole B tile (each slice, its
  // own and its peers' multicasts), and A's scale column.
  static constexpr std::uint32_t kStageBytes = A::kBytes + B::kBytes + (BlockScales ? SA::kBytes : 0);
  static_assert(SA::kBytes == Rows * sizeof(float), "a scale column per stage");
  static_assert(A::kBytes == Rows * kTileKBytes && B::kBytes == kBBytes<TileN>, "the plans fill the stage buffers exactly");
  static_assert(D::kShape.smem_bytes <= kChunkBytes && WStore::kShape.smem_bytes <= kChunkBytes &&
                    WLoad::kBytes == kChunkBytes,
                "chunks fit their buffers");
  static_assert(B::kSharers == static_cast<std::uint32_t>(ClusterM), "B is shared by the cluster's CTAs");
};

}  // namespace tmakit::gemm_sm90
