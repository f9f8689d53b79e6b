// The attention kernel's tensors as the planner sees them, and the copy programs compiled from
// them: for each head dim and P path, the shapes of the Q, K, V and O plans of a representative
// tensor (device/copy_program.cuh), which attention.cu checks every plan it makes against
// (plan/copy_shape.hpp: shape_difference).
#pragma once

#include <cstdint>

#include "kernels/attention_sm90/tiles.cuh"
#include "tmakit/device/copy_program.cuh"
#include "tmakit/plan/copy_shape.hpp"
#include "tmakit/plan/make_problem.hpp"

namespace tmakit::attention_sm90 {

// A [batch, seqlen, heads, head_dim] row-major tensor (PyTorch's (B, S, H, D) contiguous) as the
// planner sees it. Q, K and O tiles are (seqlen rows, head_dim columns): modes (seqlen, head_dim,
// heads, batch). V's tile is read as the MN-major B operand, (head_dim rows, seqlen columns): modes
// (head_dim, seqlen, heads, batch).
TMAKIT_HD constexpr GlobalTensor bshd_tensor(DataType t, std::uint64_t address, std::int64_t batch, std::int64_t seqlen,
                                             std::int64_t heads, std::int64_t head_dim, bool head_dim_first) {
  GlobalTensor g;
  g.dtype = t;
  g.address = address;
  g.base_alignment = known_alignment(address);
  const std::int64_t row = heads * head_dim, batch_stride = seqlen * row;
  if (head_dim_first)
    g.layout = make_layout(IntTuple::make(head_dim, seqlen, heads, batch), IntTuple::make(1, row, head_dim, batch_stride));
  else
    g.layout = make_layout(IntTuple::make(seqlen, head_dim, heads, batch), IntTuple::make(row, 1, head_dim, batch_stride));
  return g;
}

// Packed sequences of different lengths: Q, K, V or O as [total, heads, head_dim] rows, sequence i
// being rows [first_i, end_i). So that TMA clips a copy at the end of its own sequence, as it clips
// a fixed-length tensor at seqlen, the tensor is seen through a window of `window` rows (at least
// the longest sequence) that ends where the sequence ends: modes (window, head_dim, heads, end),
// the window and `end` both stepping by one row, the base `window` rows before the tensor's.
// Row r of a sequence that ends at row `end` is at window coordinate r - end + window and
// coordinate `end` of the last mode: in range for rows [end - window, end) only, which take in
// the whole sequence and nothing after it. A tile's rows then start window - length elements into
// the window (CopyProgram::issue_shifted), and only rows of the sequence are ever addressed.
// The plan's shape is the fixed-length tensor's: the same compiled programs copy both.
TMAKIT_HD constexpr GlobalTensor packed_tensor(DataType t, std::uint64_t address, std::int64_t total, std::int64_t window,
                                               std::int64_t heads, std::int64_t head_dim, bool head_dim_first) {
  GlobalTensor g;
  g.dtype = t;
  const std::int64_t row = heads * head_dim;
  g.address = address - static_cast<std::uint64_t>(window * row) * (element_bits(t) / 8);
  g.base_alignment = known_alignment(g.address);
  if (head_dim_first)
    g.layout = make_layout(IntTuple::make(head_dim, window, heads, total + 1), IntTuple::make(1, row, head_dim, row));
  else
    g.layout = make_layout(IntTuple::make(window, head_dim, heads, total + 1), IntTuple::make(row, 1, head_dim, row));
  return g;
}

// A tile of e0 x e1 elements of one head of one batch.
TMAKIT_HD constexpr TileExtents bshd_tile(std::int64_t e0, std::int64_t e1) {
  return make_tile_extents(e0, e1, 1, 1);  // one head of one batch
}

// Every tensor is planned with a fixed shape (unit modes kept, no mode cut), so that one compiled
// program fits every batch, sequence length and head count; O leaves through a store plan.
TMAKIT_HD constexpr PlanOptions tile_options(PlanDirection direction) {
  PlanOptions o;
  o.fixed_shape = true;
  o.direction = direction;
  return o;
}

// The plan of a representative tensor (any extents the rules accept: with fixed_shape the shape
// does not depend on them), reduced to its shape.
constexpr TmaPlan compiled_shape(DataType t, std::int64_t head_dim, bool head_dim_first, const SwizzledLayout& smem,
                                 std::int64_t e0, std::int64_t e1, PlanDirection direction) {
  const GlobalTensor g = bshd_tensor(t, std::uint64_t{1} << 20, 2, 4096, 4, head_dim, head_dim_first);
  const PlanResult r = plan_tile(g, smem, bshd_tile(e0, e1), tile_options(direction));
  return r.ok() ? plan_shape(r.plan) : TmaPlan{};
}
template <DataType T, int D, int C>
inline constexpr TmaPlan kQShape = compiled_shape(T, D, false, kQTile<D, C>.tile, kBlockM<C>, D, PlanDirection::load);
template <DataType T, int D, PSource Path>
inline constexpr TmaPlan kKShape =
    compiled_shape(T, D, false, kKTile<D, Path>.tile, kBlockN<D, Path>, D, PlanDirection::load);
template <DataType T, int D, PSource Path>
inline constexpr TmaPlan kVShape =
    compiled_shape(T, D, true, kVTile<D, Path>.tile, D, kBlockN<D, Path>, PlanDirection::load);
template <DataType T, int D>
inline constexpr TmaPlan kOShape = compiled_shape(T, D, false, kOTile<D>.tile, kRowsPerConsumer, D, PlanDirection::store);

// The copy programs of one kernel form. Tile coordinates (in tiles): Q (query block, 0, head,
// batch), K (KV block, 0, K / V head, batch), V (0, KV block, K / V head, batch), O (a consumer's
// 64-row block, 0, head, batch).
template <DataType T, int D, PSource Path>
struct Programs {
  static constexpr int C = kConsumersFor<D, Path>;
  using Q = device::CopyProgram<kQShape<T, D, C>>;
  using K = device::CopyProgram<kKShape<T, D, Path>>;
  using V = device::CopyProgram<kVShape<T, D, Path>>;
  using O = device::CopyProgram<kOShape<T, D>>;
  // One source of truth: the kernel's buffers are sized for these tiles.
  static_assert(Q::kBytes == kQBytes<D, C> && K::kBytes == kKVBytes<D, Path> && V::kBytes == kKVBytes<D, Path>,
                "the plans fill the stage buffers exactly");
  static_assert(O::kShape.smem_bytes <= kOBufferBytes<D, Path>, "O's plan reads no more than its buffer");
};

}  // namespace tmakit::attention_sm90
