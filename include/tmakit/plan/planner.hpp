// plan_tma(): from a TileProblem (global modes, tile, shared-layout pieces) to a TmaPlan, or every
// refusal at once. constexpr and host+device: `constexpr PlanResult r = plan_tma(problem);`.
//
// How it works ("direct basis" search). TMA writes a box densely, box dim 0 fastest, each row
// padded to the swizzle span when shorter, then swizzles the byte address. So the shared layout's
// pieces, sorted by shared stride, must form a chain: the stride-1 piece is box dim 0 (and must be
// contiguous in global memory), each next piece's stride equals the dense pitch so far. Pieces that
// break the chain become instruction loops (one more instruction per step, at their own shared
// offset). Box dims above 256, or a dim-0 row wider than the swizzle span, are cut into two pieces.
// A global mode walked by several pieces is either cut into several TMA dimensions (a higher-rank
// box: one dimension per piece) or kept as one dimension with the outer pieces as loops; every
// combination is tried and the one with the fewest instructions (then the lowest rank) wins. Only
// when none fits in 5 TMA dimensions, modes the tile takes one index of that continue each other in
// memory (stride = extent x stride) are folded into one dimension and the search runs again.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/tensor_map/box_slices.hpp"
#include "tmakit/cluster/shape.hpp"
#include "tmakit/plan/rules.hpp"
#include "tmakit/plan/tile_problem.hpp"
#include "tmakit/plan/tma_plan.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit {

namespace plan_detail {

struct Work {
  TileLeaf leaf[kMaxTileLeaves] = {};
  std::int32_t n = 0;
};

// The largest divisor d of e in 2..limit (1 if none); with need16, d elements of `bits` bits must
// also fill a multiple of 16 bytes (128 bits).
TMAKIT_HD constexpr std::int64_t largest_divisor_at_most(std::int64_t e, std::int64_t limit, std::int64_t bits,
                                                         bool need16) {
  for (std::int64_t d = limit < e ? limit : e; d >= 2; --d)
    if (e % d == 0 && (!need16 || (d * bits) % 128 == 0)) return d;
  return 1;
}

// a * b for a, b >= 0, or INT64_MAX where that does not fit (global strides times coordinate steps,
// extents times strides: far past any legal TMA stride, extent or
// shared span there).
TMAKIT_HD constexpr std::int64_t mul_capped(std::int64_t a, std::int64_t b) {
  return b != 0 && a > INT64_MAX / b ? INT64_MAX : a * b;
}

// Splits leaf i into (d, e/d): the outer piece is inserted right after it.
TMAKIT_HD constexpr bool split_leaf(Work& w, std::int32_t i, std::int64_t d) {
  if (w.n >= kMaxTileLeaves) return false;
  for (std::int32_t k = w.n; k > i + 1; --k) w.leaf[k] = w.leaf[k - 1];
  TileLeaf outer = w.leaf[i];
  outer.extent = w.leaf[i].extent / d;
  outer.smem_stride = mul_capped(w.leaf[i].smem_stride, d);  // plan_core refuses it past kMaxSmemStride
  outer.offset = w.leaf[i].offset * d;
  w.leaf[i].extent = d;
  w.leaf[i + 1] = outer;
  ++w.n;
  return true;
}

struct DescDim {
  std::int32_t mode = -1;
  std::int64_t offset = 1;   // coordinate unit along the mode
  std::int64_t extent = 1;   // globalDim
  std::int64_t stride = 0;   // elements
  std::int64_t coef = 0;     // per tile coordinate of `mode`
  std::int32_t box_leaf = -1;
  std::int64_t box = 1;
  std::int64_t pitch = 0;    // shared pitch (elements) of the box dim
  bool in_box = false;
  // Further global modes folded into this dimension (modes the tile takes one index of, adjacent
  // in memory): coordinate += merged_coef[k] * t[merged_mode[k]].
  std::int32_t merged = 0;
  std::int32_t merged_mode[kMaxTileModes] = {};
  std::int64_t merged_coef[kMaxTileModes] = {};
};

// The base address (or its known alignment) is not a multiple of 16 bytes: gmem.base_align.
TMAKIT_HD constexpr bool base_misaligned(const TileProblem& pb) {
  return pb.address % 16 != 0 || pb.base_alignment % 16 != 0 || pb.base_alignment == 0;
}

// validate()'s checks, reported straight into the plan's issues (no ViolationList copy: its
// unused slots are uninitialized, which constant evaluation in nvcc's front end refuses). Causes
// the planner reports under its own rule are not reported twice: a misaligned base
// (gmem.base_align, added by plan_tma) and a box beyond shared memory (plan.smem_capacity: the
// tile's span includes the box).
struct DescriptorSink {
  PlanIssues* issues;
  bool base_reported = false;
  TMAKIT_HD constexpr void add(Rule r, Field f, std::int32_t index, std::int64_t value) {
    if (r == Rule::address_align16 && base_reported) return;
    if (r == Rule::box_smem_footprint && issues->contains(PlanRule::smem_capacity)) return;
    issues->add(PlanIssue{.rule = PlanRule::descriptor_invalid, .descriptor = {r, f, index, value}});
  }
};

struct Candidate {
  TmaPlan plan{};
  PlanIssues issues{};
  std::uint64_t instructions = 0;
  std::uint32_t rank = 0;
};

// Bits of one element in shared memory, what every shared offset, box row and footprint counts:
// the codec's smem_element_bits (derived.hpp): element_bits for the whole-byte types, 8 for the
// packed 16U4_ALIGN16B / 16U6_ALIGN16B types (TMA pads them to a byte per value there) and 4 for
// 16U4_ALIGN8B (two values per byte, no gaps). Global strides count element_bits (4 or 6) instead.
TMAKIT_HD constexpr std::int64_t smem_bits(DataType t) { return smem_element_bits(t); }

// n elements of `bits` bits, in bytes (rounded down; exact wherever the planner lays out a row or
// an instruction's offset: rows are multiples of 16 bytes (plan.inner_bytes), and a loop step of a
// fraction of a byte is refused first (plan.smem_offset_align)).
TMAKIT_HD constexpr std::int64_t bits_to_bytes(std::int64_t n, std::int64_t bits) { return n * bits / 8; }

// Whether the planner places elements of type t: a tensor-map data type. Every one has its place
// in shared memory (smem_bits), the sub-byte 16U4_ALIGN8B included: offsets are counted in bits.
TMAKIT_HD constexpr bool plannable_dtype(DataType t) { return is_valid(t) && smem_element_bits(t) > 0; }

// Shared strides (elements) above this are refused outright (plan.smem_capacity).
inline constexpr std::int64_t kMaxSmemStride = std::int64_t{1} << 40;

// build's state between its phases: the TMA dimensions before ordering (which piece went to which),
// then their order in the descriptor.
struct DimTable {
  DescDim dim[2 * kMaxTileLeaves + kMaxTileModes] = {};
  std::int32_t n = 0;
  std::int32_t of_leaf[kMaxTileLeaves] = {};                    // the dimension each piece is in
  std::int32_t order[2 * kMaxTileLeaves + kMaxTileModes] = {};  // descriptor dimension k is dim[order[k]]
  std::int32_t rank = 0;
};
// The box's chain of dimensions (in shared pitch order) and the loops over the other pieces.
struct BoxChain {
  std::int32_t chain[kMaxRank] = {};
  std::int32_t n = 0;
  std::int32_t loop_leaf[kMaxPlanLoops] = {};  // the piece each loop walks
  std::int64_t step[kMaxPlanLoops] = {};       // each loop's shared step in bytes, before narrowing
};

// The TMA dimensions of each mode: one for a mode without pieces (unless the tile takes nothing of
// it), one per piece for a mode cut into several (cut_mask), else one whose box is its offset-1 piece.
TMAKIT_HD constexpr void make_dims(const TileProblem& pb, const Work& w, std::uint32_t cut_mask,
                                   const std::int32_t* multi, std::int32_t nmulti, DimTable& t, PlanIssues& is) {
  auto is_cut = [&](std::int32_t mode) {
    for (std::int32_t k = 0; k < nmulti; ++k)
      if (multi[k] == mode) return ((cut_mask >> k) & 1u) != 0;
    return false;
  };
  for (std::int32_t g = 0; g < pb.modes; ++g) {
    // this mode's pieces in offset order (w keeps a mode's pieces in order)
    std::int32_t idx[kMaxTileLeaves] = {};
    std::int32_t np = 0;
    for (std::int32_t i = 0; i < w.n; ++i)
      if (w.leaf[i].mode == g) idx[np++] = i;
    if (np == 0) {
      if (pb.extent[g] == 1 && pb.tile[g] == 1 && !pb.fixed_shape) continue;  // nothing to address
      t.dim[t.n++] = DescDim{g, 1, pb.extent[g], pb.stride[g], 1, -1, 1, 0, false, 0, {}, {}};
      continue;
    }
    if (np > 1 && is_cut(g)) {
      const std::int64_t q_last = w.leaf[idx[np - 1]].offset;
      if (pb.extent[g] % q_last != 0) {
        is.add(PlanIssue{.rule = PlanRule::factor_divides, .mode = g, .part = w.leaf[idx[np - 1]].part,
                         .value = pb.extent[g], .limit = q_last});
        continue;
      }
      for (std::int32_t k = 0; k < np; ++k) {
        const TileLeaf& L = w.leaf[idx[k]];
        const bool last = k + 1 == np;
        t.of_leaf[idx[k]] = t.n;
        t.dim[t.n++] = DescDim{g, L.offset, last ? pb.extent[g] / L.offset : L.extent, mul_capped(pb.stride[g], L.offset),
                             last ? pb.tile[g] / L.offset : 0, idx[k], 1, 0, false, 0, {}, {}};
      }
    } else {
      std::int32_t box_leaf = -1;
      for (std::int32_t k = 0; k < np; ++k) {
        t.of_leaf[idx[k]] = t.n;
        if (w.leaf[idx[k]].offset == 1) box_leaf = idx[k];
      }
      t.dim[t.n++] = DescDim{g, 1, pb.extent[g], pb.stride[g], pb.tile[g], box_leaf, 1, 0, false, 0, {}, {}};
    }
  }
}

// Fold: a dimension the tile takes one index of (no pieces, box 1) that continues another such
// dimension in memory (stride = extent x stride) joins it: one TMA dimension for both, coordinate
// t_inner + extent_inner * t_outer. Only tried when the plan would otherwise need more than 5.
TMAKIT_HD constexpr void fold_dims(const Work& w, DimTable& t) {
  for (bool again = true; again;) {
    again = false;
    for (std::int32_t x = 0; x < t.n && !again; ++x)
      for (std::int32_t y = 0; y < t.n && !again; ++y) {
        DescDim& X = t.dim[x];
        const DescDim& Y = t.dim[y];
        if (x == y || X.box_leaf >= 0 || Y.box_leaf >= 0 || X.offset != 1 || Y.offset != 1) continue;
        if (mul_capped(X.extent, X.stride) != Y.stride || Y.stride == INT64_MAX) continue;
        const std::int64_t scale = X.extent;
        X.merged_mode[X.merged] = Y.mode;
        X.merged_coef[X.merged++] = mul_capped(Y.coef, scale);
        for (std::int32_t k = 0; k < Y.merged; ++k) {
          X.merged_mode[X.merged] = Y.merged_mode[k];
          X.merged_coef[X.merged++] = mul_capped(Y.merged_coef[k], scale);
        }
        X.extent = mul_capped(X.extent, Y.extent);
        for (std::int32_t k = y; k + 1 < t.n; ++k) t.dim[k] = t.dim[k + 1];
        --t.n;
        for (std::int32_t i = 0; i < w.n; ++i)
          if (t.of_leaf[i] > y) --t.of_leaf[i];
        again = true;
      }
  }
}

// The pieces in shared-stride order: those that continue the box's rows (each at the pitch of the
// ones below) chain into the box; from the first that does not, each piece is a loop of instructions.
TMAKIT_HD constexpr void chain_pieces(const Work& w, Swizzle sw, std::int64_t sb, DimTable& t, BoxChain& b, TmaPlan& P,
                                      PlanIssues& is) {
  std::int32_t order[kMaxTileLeaves] = {};
  for (std::int32_t i = 0; i < w.n; ++i) order[i] = i;
  for (std::int32_t i = 1; i < w.n; ++i)
    for (std::int32_t k = i; k > 0 && w.leaf[order[k]].smem_stride < w.leaf[order[k - 1]].smem_stride; --k) {
      const std::int32_t swap = order[k]; order[k] = order[k - 1]; order[k - 1] = swap;
    }
  bool open = true;
  std::int64_t pitch = 1;
  for (std::int32_t o = 0; o < w.n; ++o) {
    const std::int32_t i = order[o];
    const TileLeaf& L = w.leaf[i];
    DescDim& D = t.dim[t.of_leaf[i]];
    if (open && L.smem_stride == pitch && D.box_leaf == i && b.n < static_cast<std::int32_t>(kMaxRank)) {
      D.in_box = true;
      D.box = L.extent;
      D.pitch = pitch;
      b.chain[b.n++] = t.of_leaf[i];
      if (b.n == 1) {
        // rows shorter than the span take a whole span row (whole bytes: plan.inner_bytes holds)
        pitch = static_cast<std::int64_t>(smem_padded_row(sw, static_cast<std::uint64_t>(bits_to_bytes(L.extent, sb)))) * 8 / sb;
      } else {
        pitch *= L.extent;
      }
      continue;
    }
    open = false;
    if (P.loops >= static_cast<std::uint32_t>(kMaxPlanLoops)) {
      is.add(PlanIssue{.rule = PlanRule::too_many_loops, .mode = L.mode, .part = L.part, .limit = kMaxPlanLoops});
      return;
    }
    b.loop_leaf[P.loops] = i;
    b.step[P.loops] = bits_to_bytes(L.smem_stride, sb);  // narrowed into the plan once the span fits in shared memory
    PlanLoop& lp = P.loop[P.loops++];
    lp.extent = static_cast<std::uint32_t>(L.extent);
    lp.dim = t.of_leaf[i];  // renumbered by order_dims
    lp.coord_step = static_cast<std::int32_t>(L.offset / D.offset);
    lp.smem_step = static_cast<std::uint32_t>(b.step[P.loops - 1]);
  }
}

// The descriptor's dimensions: the box's in chain order, then the rest (box 1) in mode order; the
// loops renumbered to them.
TMAKIT_HD constexpr void order_dims(const BoxChain& b, DimTable& t, TmaPlan& P, PlanIssues& is) {
  std::int32_t final_of[2 * kMaxTileLeaves + kMaxTileModes] = {};
  for (std::int32_t k = 0; k < b.n; ++k) t.order[t.rank++] = b.chain[k];
  for (std::int32_t d = 0; d < t.n; ++d)
    if (!t.dim[d].in_box) t.order[t.rank++] = d;
  for (std::int32_t k = 0; k < t.rank; ++k) final_of[t.order[k]] = k;
  if (t.rank > static_cast<std::int32_t>(kMaxRank)) {
    is.add(PlanIssue{.rule = PlanRule::rank_exceeded, .value = t.rank, .count = b.n});
    return;
  }
  for (std::uint32_t l = 0; l < P.loops; ++l) P.loop[l].dim = final_of[P.loop[l].dim];
}

// The tensor map's parameters, and each dimension's place in the tile (mode, offset, pitch, the
// coefficients of folded modes); each global stride a multiple of 16 bytes below 2^40 bytes. (The
// innermost start coordinates move by multiples of 16 bytes by construction: the tile extent and
// every loop's coordinate step along dim 0 are multiples of the inner box, which plan.inner_bytes
// makes a multiple of 16 bytes.)
TMAKIT_HD constexpr void fill_params(const TileProblem& pb, const DimTable& t, Swizzle sw, TmaPlan& P, PlanIssues& is) {
  const std::int64_t gbits = element_bits(pb.dtype);  // global memory: 4 or 6 for the packed types
  TensorMapParams& p = P.params;
  p.kind = MapKind::tiled;
  p.arch = pb.arch;
  p.dtype = pb.dtype;
  p.rank = static_cast<std::uint32_t>(t.rank);
  p.address = pb.address;
  p.swizzle = sw;
  p.l2 = pb.l2;
  p.oob = pb.oob;
  P.tile_modes = pb.modes;
  for (std::int32_t k = 0; k < t.rank; ++k) {
    const DescDim& D = t.dim[t.order[k]];
    p.dims[k] = static_cast<std::uint64_t>(D.extent);
    // the stride in bytes (D.stride = pb.stride[D.mode] * D.offset, capped); -1 where that does not
    // fit in int64 (far past TMA's 2^40 either way)
    // (packed types: D.stride * gbits bits, a whole number of bytes where the alignment check below passes)
    const std::int64_t gb = gbits % 8 == 0 ? gbits / 8 : 0;  // whole bytes per element in global memory, else 0
    const std::int64_t stride_bytes = D.stride == INT64_MAX || D.stride > INT64_MAX / (gb ? gb : gbits) ? -1
                                      : gb                                                              ? D.stride * gb
                                                                    : D.stride * gbits / 8;
    if (k > 0) p.strides[k - 1] = stride_bytes < 0 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(stride_bytes);
    p.box[k] = static_cast<std::uint32_t>(D.box);
    p.elem_strides[k] = 1;
    P.dim[k] = PlanDim{D.mode, D.offset, D.in_box ? D.pitch : 0};
    P.coef[k][D.mode] = static_cast<std::int32_t>(D.coef);
    for (std::int32_t m = 0; m < D.merged; ++m) {
      P.coef[k][D.merged_mode[m]] = static_cast<std::int32_t>(D.merged_coef[m]);
      P.dim[k].folded |= 1u << D.merged_mode[m];
    }
    // not a multiple of 16 bytes: gmem.stride_align (its fix also keeps the padded stride below 2^40
    // bytes); a multiple of 16 bytes at or above 2^40: gmem.stride_range (before the descriptor's
    // strides.below_2_40, which could not show a byte count past int64)
    // stride * offset * gbits bits a multiple of 16 bytes = 128 bits (D.stride may be capped)
    if (k > 0 && pb.stride[D.mode] % 128 * (D.offset % 128) % 128 * gbits % 128 != 0)
      is.add(PlanIssue{.rule = PlanRule::gmem_stride_align, .mode = D.mode, .value = pb.stride[D.mode],
                       .bytes = stride_bytes, .count = D.offset});
    else if (k > 0 && (stride_bytes < 0 || static_cast<std::uint64_t>(stride_bytes) >= validate_detail::kStrideLimit))
      is.add(PlanIssue{.rule = PlanRule::gmem_stride_range, .mode = D.mode, .value = pb.stride[D.mode],
                       .bytes = stride_bytes, .count = D.offset});
  }
}

// The loops' shared steps: each aligned as a tensor copy's destination, none overlapping what the box
// and the loops below it write.
TMAKIT_HD constexpr void check_steps(const Work& w, Swizzle sw, std::int64_t sb, const BoxChain& b, TmaPlan& P,
                                     PlanIssues& is) {
  // Every destination (the tile base and each instruction's offset) must be aligned as tensor
  // copies need (derived.hpp's tma_smem_alignment: the swizzle's repeat, at least 128 bytes).
  P.smem_alignment = static_cast<std::uint32_t>(tma_smem_alignment(sw));
  // (In bits: a step of a fraction of a byte, 16U4_ALIGN8B's odd strides, is never aligned.)
  for (std::uint32_t l = 0; l < P.loops; ++l) {
    const TileLeaf& L = w.leaf[b.loop_leaf[l]];
    const std::int64_t step_bits = L.smem_stride * sb;  // smem_stride <= kMaxSmemStride: no overflow
    if (step_bits % (std::int64_t{P.smem_alignment} * 8) != 0)
      is.add(PlanIssue{.rule = PlanRule::smem_offset_align, .mode = L.mode, .part = L.part, .value = b.step[l],
                       .limit = P.smem_alignment, .bits = step_bits});
  }
  // No two instructions may write one byte: the loops, in increasing step (the order they were
  // made in), each step at least the bytes the box and the loops below it already cover.
  const TensorMapParams& p = P.params;
  std::int64_t covered = static_cast<std::int64_t>(smem_padded_row(sw, static_cast<std::uint64_t>(bits_to_bytes(p.box[0], sb))));
  for (std::uint32_t k = 1; k < p.rank; ++k) covered *= p.box[k];
  for (std::uint32_t l = 0; l < P.loops; ++l) {
    if (b.step[l] < covered) {
      const TileLeaf& L = w.leaf[b.loop_leaf[l]];
      is.add(PlanIssue{.rule = PlanRule::smem_overlap, .mode = L.mode, .part = L.part, .value = L.smem_stride,
                       .limit = covered, .bytes = b.step[l]});
    }
    covered += (std::int64_t{P.loop[l].extent} - 1) * b.step[l];
  }
}

// The instructions: the box cut into slices where asked (box_pieces) or where multicast needs an
// equal share per CTA; then the counts, the bytes, the shared span and the descriptor's own rules.
TMAKIT_HD constexpr void finish_plan(const TileProblem& pb, Swizzle sw, std::int64_t sb, BoxChain& b, Candidate& c) {
  TmaPlan& P = c.plan;
  TensorMapParams& p = P.params;
  // Cuts the box's outermost chain dim into n equal slices (slice_box, box_slices.hpp: the cluster
  // planner's split too; each slice's shared offset a multiple of the alignment, which also makes a
  // cut dim 0 a multiple of 16 bytes) as a new slowest loop, so that consecutive instructions cover
  // one contiguous shared range each. False where the box cannot be cut so.
  std::uint64_t instr = 1;
  for (std::uint32_t l = 0; l < P.loops; ++l) instr *= P.loop[l].extent;
  auto add_slice_loop = [&](std::uint32_t n) {
    const std::int32_t k = b.n - 1;
    if (k < 0 || P.loops >= static_cast<std::uint32_t>(kMaxPlanLoops)) return false;
    const BoxSlices sl = slice_box(p, static_cast<std::uint32_t>(k), n);
    if (!sl.ok()) return false;
    p.box[k] = sl.part;
    b.step[P.loops] = static_cast<std::int64_t>(sl.smem_step);
    P.loop[P.loops++] = PlanLoop{n, k, static_cast<std::int32_t>(sl.part), static_cast<std::uint32_t>(sl.smem_step)};
    instr *= n;
    return true;
  };
  // The many-copy form on request (PlanOptions::box_pieces).
  if (pb.box_pieces > 1 && !add_slice_loop(pb.box_pieces)) {
    c.issues.add(
        PlanIssue{.rule = PlanRule::box_pieces, .value = b.n > 0 ? p.box[b.n - 1] : 0, .limit = pb.box_pieces});
    return;
  }
  // Multicast: each CTA of the group issues an equal share; where the instructions do not divide
  // over the CTAs, the box is cut into one slice per CTA.
  std::uint32_t n = 1;
  if (pb.multicast_dim >= 0) {
    n = pb.cluster[pb.multicast_dim];
    if (n > 1 && instr % n != 0 && !add_slice_loop(n)) {
      c.issues.add(PlanIssue{.rule = PlanRule::multicast_split, .value = static_cast<std::int64_t>(instr), .limit = n});
      return;
    }
  }
  P.cluster[0] = pb.cluster[0];
  P.cluster[1] = pb.cluster[1];
  P.cluster[2] = pb.cluster[2];
  P.multicast_dim = pb.multicast_dim;
  P.multicast_ctas = n;
  P.instructions = static_cast<std::uint32_t>(instr);
  P.instructions_per_cta = static_cast<std::uint32_t>(instr / n);
  P.tx_bytes_per_instruction = static_cast<std::uint32_t>(transaction_bytes(p));
  const std::uint64_t expect = instr * P.tx_bytes_per_instruction;
  // Only a load arms an mbarrier with the tile's bytes; stores and reductions count bulk groups.
  const bool load = pb.direction == PlanDirection::load;
  P.expect_tx_bytes = load ? static_cast<std::uint32_t>(expect) : 0;
  P.direction = pb.direction;
  P.reduce_op = pb.reduce_op;
  // Shared span: the box's image (rows padded to the span, rounded to the swizzle repeat) past the
  // last instruction's offset (from the unnarrowed steps: a step past 4 GiB must not wrap).
  const std::uint64_t box_span =
      smem_footprint(sw, smem_padded_row(sw, static_cast<std::uint64_t>(bits_to_bytes(p.box[0], sb))), p.box, p.rank);
  std::uint64_t last = 0;
  for (std::uint32_t l = 0; l < P.loops; ++l)
    last += std::uint64_t{P.loop[l].extent - 1} * static_cast<std::uint64_t>(b.step[l]);
  P.smem_bytes = last + box_span;
  c.instructions = instr;
  if (load && expect > kMaxTransactionBytes)
    c.issues.add(PlanIssue{.rule = PlanRule::expect_tx_limit, .value = static_cast<std::int64_t>(expect),
                           .limit = kMaxTransactionBytes});
  if (P.smem_bytes > smem_limit_bytes(pb.arch))
    c.issues.add(PlanIssue{.rule = PlanRule::smem_capacity, .value = static_cast<std::int64_t>(P.smem_bytes),
                           .limit = static_cast<std::int64_t>(smem_limit_bytes(pb.arch))});
  DescriptorSink sink{&c.issues, base_misaligned(pb)};
  check_params(p, sink);
}

// Builds the plan for one choice of which multi-piece modes are cut into several TMA dimensions.
TMAKIT_HD constexpr Candidate build(const TileProblem& pb, const Work& w, std::uint32_t cut_mask,
                                    const std::int32_t* multi, std::int32_t nmulti, Swizzle sw, bool fold) {
  Candidate c;
  const std::int64_t sb = smem_bits(pb.dtype);
  DimTable t;
  BoxChain b;
  make_dims(pb, w, cut_mask, multi, nmulti, t, c.issues);
  if (!c.issues.empty()) return c;
  if (fold) fold_dims(w, t);
  chain_pieces(w, sw, sb, t, b, c.plan, c.issues);
  if (!c.issues.empty()) return c;
  order_dims(b, t, c.plan, c.issues);
  c.rank = static_cast<std::uint32_t>(t.rank);
  if (!c.issues.empty()) return c;
  fill_params(pb, t, sw, c.plan, c.issues);
  check_steps(w, sw, sb, b, c.plan, c.issues);
  if (!c.issues.empty()) return c;
  finish_plan(pb, sw, sb, b, c);
  return c;
}

// plan_core's phases. Each reports what it refuses into is; plan_core stops after the first phase that
// refused anything, so that no phase meets what an earlier one would have refused.

// The problem as given: the data type on its architecture, the modes and pieces within capacity, the
// extents, strides and tile, the swizzle, the cluster, the direction. Sets sb (bits per element in
// shared memory) and sw (the TMA swizzle).
TMAKIT_HD constexpr void check_problem(const TileProblem& pb, PlanIssues& is, std::int64_t& sb, Swizzle& sw) {
  // Packed sub-byte types exist from sm_100 on (the codec's dtype.packed_requires_sm100); there the
  // ALIGN16B ones are planned in their padded shared footprint (a byte per value), 16U4_ALIGN8B in
  // its packed one (two values per byte), and validate() holds the final descriptor to the driver's
  // rules for them (ALIGN16B: inner box of 128 values, 32-byte aligned strides; 16U4_ALIGN8B: an
  // even globalDim[0]; all: inner box a multiple of 16 bytes, 16-byte aligned strides).
  const bool packed_arch_ok = !is_packed(pb.dtype) || pb.arch != Arch::sm_90;
  const bool dtype_ok = plannable_dtype(pb.dtype) && packed_arch_ok;
  if (!packed_arch_ok)
    is.add(PlanIssue{.rule = PlanRule::gmem_dtype_arch, .value = static_cast<std::int64_t>(pb.dtype),
                     .setting = static_cast<std::int64_t>(pb.arch)});
  else if (!dtype_ok)
    is.add(PlanIssue{.rule = PlanRule::gmem_dtype, .value = static_cast<std::int64_t>(pb.dtype)});
  sb = dtype_ok ? smem_bits(pb.dtype) : 8;
  if (pb.modes < 1 || pb.modes > kMaxTileModes) {
    is.add(PlanIssue{.rule = PlanRule::gmem_rank, .value = pb.modes, .limit = kMaxTileModes});
    return;
  }
  if (pb.leaves < 0 || pb.leaves > kMaxTileLeaves) {
    is.add(PlanIssue{.rule = PlanRule::leaf_capacity, .value = pb.leaves, .limit = kMaxTileLeaves});
    return;
  }
  for (std::int32_t g = 0; g < pb.modes; ++g) {
    if (pb.extent[g] < 1) is.add(PlanIssue{.rule = PlanRule::gmem_extent, .mode = g, .value = pb.extent[g]});
    if (pb.stride[g] < 0) is.add(PlanIssue{.rule = PlanRule::gmem_negative_stride, .mode = g, .value = pb.stride[g]});
    if (pb.tile[g] < 1) is.add(PlanIssue{.rule = PlanRule::tile_extent, .mode = g, .value = pb.tile[g]});
  }
  sw = Swizzle::none;
  if (!tma_swizzle_of(pb.swizzle, sw))  // bytes: whole bytes per element, 0 below a byte (no element-unit reading)
    is.add(PlanIssue{.rule = PlanRule::smem_swizzle, .bytes = sb / 8, .swizzle = pb.swizzle});
  // The cluster shape, with or without multicast: a cluster that cannot be launched (a dimension of
  // 0 CTAs, more than 16 in all) is refused whatever the plan would do with it.
  const std::uint64_t csize = std::uint64_t{pb.cluster[0]} * pb.cluster[1] * pb.cluster[2];
  if (pb.multicast_dim > 2 || !ClusterShape{pb.cluster[0], pb.cluster[1], pb.cluster[2]}.valid())
    is.add(PlanIssue{.rule = PlanRule::multicast_cluster, .value = static_cast<std::int64_t>(csize),
                     .dim = pb.multicast_dim});
  // Stores and reductions: the same boxes the other way. TMA multicasts loads only, and an OOB fill
  // is what a load writes for elements outside the tensor (a store skips them). A reduction's op
  // must take the element type (core/reduce_op.hpp: the PTX ISA's table).
  if (pb.direction != PlanDirection::load) {
    const auto dir = static_cast<std::int64_t>(pb.direction);
    if (pb.multicast_dim >= 0)
      is.add(PlanIssue{.rule = PlanRule::store_multicast, .value = dir, .dim = pb.multicast_dim});
    if (pb.oob != OobFill::none)
      is.add(PlanIssue{.rule = PlanRule::store_oob_fill, .value = dir, .setting = static_cast<std::int64_t>(pb.oob)});
    if (pb.direction != PlanDirection::store && pb.direction != PlanDirection::reduce)
      is.add(PlanIssue{.rule = PlanRule::reduce_dtype, .value = -1, .setting = dir});  // not a direction
    else if (pb.direction == PlanDirection::reduce && dtype_ok && !reduce_op_allows(pb.reduce_op, pb.dtype))
      is.add(PlanIssue{.rule = PlanRule::reduce_dtype, .value = static_cast<std::int64_t>(pb.reduce_op),
                       .limit = reduce_ops_allowed(pb.dtype), .setting = static_cast<std::int64_t>(pb.dtype)});
  }
}

// The pieces: what make_tile_problem guarantees, checked (a TileProblem may be written by hand): each
// mode's pieces, in order, step by the product of the extents before them (offset), and multiply to
// the mode's tile extent (so a mode without pieces has tile extent 1).
TMAKIT_HD constexpr void check_pieces(const TileProblem& pb, std::int64_t sb, PlanIssues& is) {
  std::int64_t run[kMaxTileModes] = {};
  for (std::int32_t g = 0; g < pb.modes; ++g) run[g] = 1;
  for (std::int32_t i = 0; i < pb.leaves; ++i) {
    const TileLeaf& L = pb.leaf[i];
    if (L.extent < 1 || L.mode < 0 || L.mode >= pb.modes) {
      is.add(
          PlanIssue{.rule = PlanRule::smem_mode_size, .mode = L.mode, .part = L.part, .value = L.extent, .index = -3});
      continue;
    }
    if (L.offset != run[L.mode])
      is.add(PlanIssue{.rule = PlanRule::smem_mode_size, .mode = L.mode, .part = L.part, .value = L.offset,
                       .limit = run[L.mode], .index = -2});
    run[L.mode] = mul_capped(run[L.mode], L.extent);  // a hand-written problem may multiply past int64
    // a step far beyond any shared memory (below this bound the byte arithmetic stays in int64)
    if (L.extent > 1 && L.smem_stride > kMaxSmemStride)
      is.add(PlanIssue{.rule = PlanRule::smem_capacity, .mode = L.mode, .part = L.part,
                       .value = L.smem_stride >> 56 ? L.smem_stride : bits_to_bytes(L.smem_stride, sb),
                       .limit = static_cast<std::int64_t>(smem_limit_bytes(pb.arch))});
  }
  if (!is.empty()) return;
  for (std::int32_t g = 0; g < pb.modes; ++g)
    if (run[g] != pb.tile[g])
      is.add(PlanIssue{.rule = PlanRule::smem_mode_size, .mode = g, .value = run[g], .limit = pb.tile[g], .index = -1});
}

// The pieces TMA writes: extent-1 pieces dropped, pieces of one mode that are adjacent in both
// memories merged; no two may step alike in shared memory, and none by zero or backwards.
TMAKIT_HD constexpr Work merge_pieces(const TileProblem& pb, PlanIssues& is) {
  Work w;
  for (std::int32_t i = 0; i < pb.leaves; ++i) {
    const TileLeaf& L = pb.leaf[i];
    if (L.extent == 1) continue;
    if (w.n > 0) {
      TileLeaf& prev = w.leaf[w.n - 1];
      if (prev.mode == L.mode && L.offset == prev.offset * prev.extent && L.smem_stride == prev.smem_stride * prev.extent) {
        prev.extent *= L.extent;
        continue;
      }
    }
    w.leaf[w.n++] = L;
  }
  for (std::int32_t i = 0; i < w.n; ++i)
    if (w.leaf[i].smem_stride <= 0)  // a broadcast (or reversed) shared mode: not what TMA writes
      is.add(PlanIssue{.rule = PlanRule::smem_overlap, .mode = w.leaf[i].mode, .part = w.leaf[i].part,
                       .value = w.leaf[i].smem_stride});
  if (!is.empty()) return w;
  for (std::int32_t i = 0; i < w.n; ++i)
    for (std::int32_t k = i + 1; k < w.n; ++k)
      if (w.leaf[i].smem_stride == w.leaf[k].smem_stride)
        is.add(PlanIssue{.rule = PlanRule::smem_overlap, .mode = w.leaf[k].mode, .part = w.leaf[k].part,
                         .value = w.leaf[k].smem_stride, .other_mode = w.leaf[i].mode, .other_part = w.leaf[i].part});
  return w;
}

// The stride-1 piece becomes box dim 0: contiguous in global memory, at most 256 elements and (with a
// swizzle) at most the span, a multiple of 16 bytes; longer pieces are cut where a divisor allows.
TMAKIT_HD constexpr void cut_pieces(const TileProblem& pb, Work& w, Swizzle sw, std::int64_t sb, PlanIssues& is) {
  std::int32_t c0 = -1;
  for (std::int32_t i = 0; i < w.n; ++i)
    if (w.leaf[i].smem_stride == 1) c0 = i;
  std::int32_t gcontig = -1;  // the tiled global mode of stride 1, for the fix
  for (std::int32_t g = 0; g < pb.modes; ++g)
    if (pb.stride[g] == 1 && pb.tile[g] > 1) gcontig = g;
  if (c0 < 0) {
    std::int64_t smallest = -1;
    for (std::int32_t i = 0; i < w.n; ++i)
      if (smallest < 0 || w.leaf[i].smem_stride < smallest) smallest = w.leaf[i].smem_stride;
    is.add(PlanIssue{.rule = PlanRule::smem_no_contiguous, .mode = gcontig, .value = smallest});
    return;
  }
  const TileLeaf& L0 = w.leaf[c0];
  const std::int64_t gs0 = mul_capped(pb.stride[L0.mode], L0.offset);
  if (gs0 != 1) {
    is.add(PlanIssue{.rule = PlanRule::inner_contiguous, .mode = L0.mode, .part = L0.part, .value = gs0,
                     .other_mode = gcontig});
    return;
  }
  // dim-0 row: at most 256 elements and, with a swizzle, at most the span
  const std::int64_t span = swizzle_span_bytes(sw);
  const std::int64_t span_elems = span * 8 / sb;
  const std::int64_t row_limit = span ? (span_elems < 256 ? span_elems : 256) : 256;
  if (L0.extent > row_limit) {
    std::int64_t d = 1;
    if (span) d = L0.extent % row_limit == 0 ? row_limit : 1;
    else d = largest_divisor_at_most(L0.extent, row_limit, sb, true);
    if (d <= 1) {
      // box_split: the pieces must also keep the rows a multiple of 16 bytes
      is.add(PlanIssue{.rule = span ? PlanRule::inner_span : PlanRule::box_split, .mode = L0.mode, .part = L0.part,
                       .value = L0.extent, .limit = row_limit, .bytes = span ? span : 16});
      return;
    }
    if (!split_leaf(w, c0, d)) {
      is.add(PlanIssue{.rule = PlanRule::leaf_capacity, .value = w.n + 1, .limit = kMaxTileLeaves});
      return;
    }
  }
  if ((w.leaf[c0].extent * sb) % 128 != 0)
    is.add(PlanIssue{.rule = PlanRule::inner_bytes, .mode = w.leaf[c0].mode, .part = w.leaf[c0].part,
                     .value = w.leaf[c0].extent, .bytes = bits_to_bytes(w.leaf[c0].extent, sb),
                     .bits = w.leaf[c0].extent * sb});
  // other pieces above 256
  for (std::int32_t i = 0; i < w.n; ++i) {
    if (w.leaf[i].extent <= 256) continue;
    const std::int64_t d = largest_divisor_at_most(w.leaf[i].extent, 256, sb, false);
    if (d <= 1) {
      is.add(PlanIssue{.rule = PlanRule::box_split, .mode = w.leaf[i].mode, .part = w.leaf[i].part,
                       .value = w.leaf[i].extent, .limit = 256});
      continue;
    }
    if (!split_leaf(w, i, d)) {
      is.add(PlanIssue{.rule = PlanRule::leaf_capacity, .value = w.n + 1, .limit = kMaxTileLeaves});
      return;
    }
  }
  if (!is.empty()) return;
  // A piece cut from a longer one steps by the extents below it: past kMaxSmemStride the tile spans
  // more than any shared memory (and build()'s byte steps and running totals would leave int64).
  for (std::int32_t i = 0; i < w.n; ++i)
    if (w.leaf[i].smem_stride > kMaxSmemStride) {
      std::int64_t span = 1;  // elements from the first to the last, capped at INT64_MAX
      for (std::int32_t k = 0; k < pb.leaves; ++k) {
        const std::int64_t reach = mul_capped(pb.leaf[k].extent - 1, pb.leaf[k].smem_stride);
        span = reach > INT64_MAX - span ? INT64_MAX : span + reach;
      }
      const std::int64_t bytes = span > INT64_MAX / sb ? -1 : bits_to_bytes(span, sb);  // -1: more than fit in int64
      is.add(PlanIssue{.rule = PlanRule::smem_capacity, .value = bytes,
                       .limit = static_cast<std::int64_t>(smem_limit_bytes(pb.arch))});
      return;
    }
}

// The search: which multi-piece modes become several TMA dimensions; the cut that issues the fewest
// instructions (then the lowest rank) wins.
TMAKIT_HD constexpr PlanResult search_cuts(const TileProblem& pb, const Work& w, Swizzle sw) {
  PlanResult r;
  std::int32_t multi[kMaxTileModes] = {};
  std::int32_t nmulti = 0;
  for (std::int32_t g = 0; g < pb.modes; ++g) {
    std::int32_t np = 0;
    for (std::int32_t i = 0; i < w.n; ++i) np += w.leaf[i].mode == g ? 1 : 0;
    if (np > 1) multi[nmulti++] = g;
  }
  bool have = false;
  Candidate best{};
  Candidate first_fail{};
  bool have_fail = false;
  for (std::uint32_t trial = 0; trial < (2u << nmulti) && !(have && trial == (1u << nmulti)); ++trial) {
    const std::uint32_t mask = trial & ((1u << nmulti) - 1);
    if (pb.fixed_shape && mask != 0) continue;  // a fixed shape never cuts a mode (its extent may not divide)
    const bool fold = trial >= (1u << nmulti);  // second round: fold unit modes (only if none fit)
    Candidate c = build(pb, w, mask, multi, nmulti, sw, fold);
    if (!c.issues.empty()) {
      // keep the refusal of the cut that would issue the fewest instructions (all modes cut),
      // from the first round (the second only folds modes to save TMA dimensions)
      if (!have_fail || (!fold && mask == (1u << nmulti) - 1)) first_fail = c;
      have_fail = true;
      continue;
    }
    if (!have || c.instructions < best.instructions || (c.instructions == best.instructions && c.rank < best.rank)) {
      best = c;
      have = true;
    }
  }
  if (!have) {
    r.issues = first_fail.issues;
    return r;
  }
  r.plan = best.plan;
  return r;
}

TMAKIT_HD constexpr PlanResult plan_core(const TileProblem& pb) {
  PlanResult r;
  std::int64_t sb = 8;
  Swizzle sw = Swizzle::none;
  check_problem(pb, r.issues, sb, sw);
  if (!r.issues.empty()) return r;
  check_pieces(pb, sb, r.issues);
  if (!r.issues.empty()) return r;
  Work w = merge_pieces(pb, r.issues);
  if (!r.issues.empty()) return r;
  cut_pieces(pb, w, sw, sb, r.issues);
  if (!r.issues.empty()) return r;
  return search_cuts(pb, w, sw);
}

}  // namespace plan_detail

TMAKIT_HD constexpr PlanResult plan_tma(const TileProblem& pb) {
  // The base alignment does not change the plan: reported together with everything else.
  PlanResult r = plan_detail::plan_core(pb);
  r.problem = pb;
  if (plan_detail::base_misaligned(pb)) {
    PlanIssues all;
    all.add(PlanIssue{.rule = PlanRule::gmem_base_align, .value = static_cast<std::int64_t>(pb.address),
                      .bytes = static_cast<std::int64_t>(pb.base_alignment), .count = pb.view_offset});
    for (const PlanIssue& i : r.issues) all.add(i);
    all.truncated = all.truncated || r.issues.truncated;
    r.issues = all;
  }
  return r;
}

}  // namespace tmakit
