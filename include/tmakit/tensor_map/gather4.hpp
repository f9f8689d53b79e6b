// Blackwell's TMA row gather and scatter checked before launch: a tensor map, the instruction form
// (gather4 into .shared::cta, .shared::cluster or multicast; scatter4) and the target, against the
// rules of .tile::gather4 / .tile::scatter4, plus the bytes one copy delivers, so that the bytes a
// kernel arms its barrier with can be compared. constexpr, no allocation; host only (the target
// rules read core/capabilities.hpp's table).
//
// Every rule is from the documents, per the PTX ISA and CCCL; none is verified on hardware (no
// Blackwell GPU has run tmakit):
//   gather4.arch, scatter4.arch (target)
//     PTX ISA, cp.async.bulk.tensor, target ISA notes: ".tile::gather4 ... require sm_100a when the
//     destination state space is .shared::cluster (sm_100f from PTX ISA 8.8), sm_100 or higher when
//     it is .shared::cta"; ".tile::scatter4 is supported on sm_100a, sm_101a (renamed sm_110a), and
//     the sm_100f / sm_110f families". CCCL's generated cp_async_bulk_tensor_gather_scatter.h agrees:
//     the .shared::cta gather4 form needs __CUDA_ARCH__ >= 1000 ("not supported before SM_100"), the
//     .shared::cluster, multicast and scatter4 forms SM_100a / SM_101a. So gather4 on sm_100a,
//     sm_103a (the sm_100f family) and sm_120a (.shared::cta), never on sm_90a; scatter4 on sm_100a
//     and sm_103a, never on sm_90a or sm_120a (ptxas: "Feature '.tile::scatter4' not supported on
//     .target 'sm_120a'"). These two rules are read off the capability table's gather4 and scatter4
//     cells (core/capabilities.hpp), so the table and the check cannot disagree.
//   gather4.cluster_destination
//     The same target notes: the .shared::cluster destination (and so .multicast::cluster) needs
//     sm_100a / sm_100f; sm_120a is neither (ptxas refuses ".tile::gather4 with destination state
//     space as .shared::cluster" for consumer Blackwell). The capability table's sm_120a gather4 cell
//     states this limit in words; gather4_cluster_destination() below is the rule.
//   gather4.mode, gather4.rank, gather4.box_rows, gather4.interleave (the map)
//     PTX ISA 5.5.3.4, ".tile::scatter4 and .tile::gather4 modes": "similar to the tiled mode with
//     restriction that these modes work only on 2D tensor data" (CCCL offers only .2d forms, with
//     tensorCoords {col, row0, row1, row2, row3}); "the interleave layout is not supported"; 5.5.3.4.1:
//     "four request coordinates will form four Bounding Boxes ... The size of the bounding box in the
//     dimension 0 represents the length of the rows. The size of the bounding box in the dimension 1
//     must be one." "All other constraints and rules of the tile mode apply": validate() on the
//     target's architecture (Gather4Check::tile_mode).
//   gather4.armed_bytes, scatter4.armed_bytes (completion)
//     A gather4 copy completes complete_tx on its mbarrier with the bytes it copied: four boxes of one
//     row, 4 x boxDim[0] elements, four times the map's box (whose volume is one row). scatter4 is
//     .bulk_group only: it completes through the bulk async-group and signals no mbarrier.
// cuda.h (13.0) says nothing of gather4: its map is an ordinary cuTensorMapEncodeTiled map.
#pragma once

#include <cstdint>

#include "tmakit/core/arch.hpp"
#include "tmakit/core/capabilities.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/gather4_rules.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit {

// The instruction forms of the PTX ISA (and CCCL's cuda::ptx overloads).
enum class Gather4Form : std::uint8_t {
  gather4_cta = 0,    // cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes
  gather4_cluster,    // cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes
  gather4_multicast,  // the .shared::cluster form with .multicast::cluster (a ctaMask)
  scatter4,           // cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group
};
inline constexpr int kGather4FormCount = 4;

// Rows one copy moves: the instruction's four row coordinates.
inline constexpr std::uint32_t kGather4Rows = 4;

constexpr bool is_gather(Gather4Form f) { return f != Gather4Form::scatter4; }

// The PTX of a form, its operands as the PTX ISA names them.
constexpr const char* gather4_ptx(Gather4Form f) {
  switch (f) {
    case Gather4Form::gather4_cta:
      return "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [dstMem], "
             "[tensorMap, {col, row0, row1, row2, row3}], [mbar]";
    case Gather4Form::gather4_cluster:
      return "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [dstMem], "
             "[tensorMap, {col, row0, row1, row2, row3}], [mbar]";
    case Gather4Form::gather4_multicast:
      return "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes"
             ".multicast::cluster [dstMem], [tensorMap, {col, row0, row1, row2, row3}], [mbar], ctaMask";
    case Gather4Form::scatter4:
      return "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group "
             "[tensorMap, {col, row0, row1, row2, row3}], [srcMem]";
  }
  return "?";
}

// The architecture whose tensor-map rules apply on a target (validate()'s Arch).
constexpr Arch target_arch(Target t) {
  switch (t) {
    case Target::sm_90a: return Arch::sm_90;
    case Target::sm_100a: case Target::sm_103a: return Arch::sm_100;
    case Target::sm_120a: return Arch::sm_120;
  }
  return Arch::sm_90;
}

// Whether the capability table says yes for `id` on `t`.
constexpr bool capability_yes(const char* id, Target t) {
  const Capability* c = find_capability(id);
  return c != nullptr && cell(*c, t).value == kYes;
}

// Whether gather4 may write .shared::cluster (and multicast) on `t`: sm_100a / sm_100f, which covers
// sm_103a (see the rule sources above); not sm_120a (.shared::cta only), not sm_90a (no gather4).
constexpr bool gather4_cluster_destination(Target t) { return t == Target::sm_100a || t == Target::sm_103a; }

// One copy's request: the form, the target, and what the kernel arms its barrier with per phase for
// `copies` gather4 copies that complete on it (armed = false: not checked).
struct Gather4Request {
  Gather4Form form = Gather4Form::gather4_cta;
  Target target = Target::sm_100a;
  bool armed = false;
  std::uint64_t armed_bytes = 0;
  std::uint32_t copies = 1;  // >= 1
};

// The map cut to one row of a gather4 / scatter4 copy: rank 2, boxDim {boxDim[0], 1}.
constexpr TensorMapParams gather4_row(const TensorMapParams& p) {
  TensorMapParams r = p;
  r.rank = 2;
  r.box[1] = 1;
  r.elem_strides[1] = 1;
  for (std::uint32_t i = 2; i < kMaxRank; ++i) r.box[i] = 0;
  return r;
}

// Bytes of one row as the tile mode delivers it (transaction_bytes of the one-row box: boxDim[0]
// elements); 0 for a map that is not tiled (it has no boxDim).
constexpr std::uint64_t gather4_row_bytes(const TensorMapParams& p) {
  return p.kind == MapKind::tiled ? transaction_bytes(gather4_row(p)) : 0;
}

// Bytes one gather4 copy delivers to shared memory (its complete_tx on the barrier: the expect_tx per
// copy), or one scatter4 copy writes: four rows.
constexpr std::uint64_t gather4_copy_bytes(const TensorMapParams& p) { return kGather4Rows * gather4_row_bytes(p); }

// What check_gather4 found, and the bytes it is about.
struct Gather4Check {
  Gather4Findings findings;     // gather4.* / scatter4.* (gather4_rules.hpp)
  Violations tile_mode;         // validate() of the map on target_arch(target): the tile mode's own rules
  std::uint64_t row_bytes = 0;  // one row (gather4_row_bytes)
  std::uint64_t copy_bytes = 0;  // four rows (gather4_copy_bytes)
  std::uint64_t box_bytes = 0;   // the map's box as a tiled copy delivers it (transaction_bytes): what a
                                 // barrier armed "for the box" holds; one row when boxDim[1] is 1
  std::uint64_t expect_bytes = 0;  // copies x copy_bytes: the barrier's expect_tx (gather forms; 0 for scatter4)
  constexpr bool ok() const { return findings.ok() && tile_mode.ok(); }
};

namespace gather4_detail {

// gather4.arch / scatter4.arch / gather4.cluster_destination. An arch finding leaves out the
// destination rule (the form does not exist there at all).
constexpr void check_target(const Gather4Request& r, Gather4Findings& f) {
  const auto t = static_cast<std::int64_t>(r.target);
  if (!is_gather(r.form)) {
    if (!capability_yes("scatter4", r.target)) f.add(Gather4Rule::scatter4_arch, t, 0);
  } else if (!capability_yes("gather4", r.target)) {
    f.add(Gather4Rule::gather4_arch, t, 0);
  } else if (r.form != Gather4Form::gather4_cta && !gather4_cluster_destination(r.target)) {
    f.add(Gather4Rule::cluster_destination, t, static_cast<std::int64_t>(r.form));
  }
}

// gather4.mode, gather4.rank, gather4.box_rows, gather4.interleave. A map that is not tiled has no
// boxDim: only gather4.mode is reported for it.
constexpr void check_map(const TensorMapParams& p, Gather4Findings& f) {
  if (p.kind != MapKind::tiled) {
    f.add(Gather4Rule::mode, static_cast<std::int64_t>(p.kind), static_cast<std::int64_t>(MapKind::tiled));
    return;
  }
  if (p.rank != 2) f.add(Gather4Rule::rank, p.rank, 2);
  if (p.rank >= 2 && p.rank <= kMaxRank && p.box[1] != 1) f.add(Gather4Rule::box_rows, p.box[1], 1);
  if (p.interleave != Interleave::none) f.add(Gather4Rule::interleave, static_cast<std::int64_t>(p.interleave), 0);
}

// gather4.armed_bytes / scatter4.armed_bytes, against the bytes the copies deliver.
constexpr void check_armed(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c,
                           Gather4Findings& f) {
  if (!r.armed) return;
  const auto armed = static_cast<std::int64_t>(r.armed_bytes);
  if (!is_gather(r.form)) {
    f.add(Gather4Rule::scatter4_armed, armed, 0);
  } else if (p.kind == MapKind::tiled && r.armed_bytes != c.expect_bytes) {
    f.add(Gather4Rule::armed_bytes, armed, static_cast<std::int64_t>(c.expect_bytes));
  }
}

}  // namespace gather4_detail

// Every finding at once, in the order target, map, armed bytes; then the tile mode's own rules
// (validate() with the target's architecture).
constexpr Gather4Check check_gather4(const TensorMapParams& p, const Gather4Request& r) {
  Gather4Check c;
  c.row_bytes = gather4_row_bytes(p);
  c.copy_bytes = gather4_copy_bytes(p);
  c.box_bytes = p.kind == MapKind::tiled ? transaction_bytes(p) : 0;
  c.expect_bytes = is_gather(r.form) ? std::uint64_t{r.copies} * c.copy_bytes : 0;
  gather4_detail::check_target(r, c.findings);
  gather4_detail::check_map(p, c.findings);
  gather4_detail::check_armed(p, r, c, c.findings);
  TensorMapParams on_target = p;
  on_target.arch = target_arch(r.target);
  c.tile_mode = validate(on_target);
  return c;
}

}  // namespace tmakit
