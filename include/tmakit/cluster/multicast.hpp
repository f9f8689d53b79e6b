// Multicast plans: from a cluster shape and the cluster dimensions along which CTAs share a tile,
// who issues which TMA copy with which CTA mask, and how many bytes every receiving mbarrier must
// expect, fan-in from peers included. All byte counts come from transaction_bytes() (what the
// hardware counts: esize * box0 * prod ceil(box_i / es_i)), never from hand-written sizes.
//
// Sharing: CTAs whose cluster coordinates agree on every NON-shared dimension receive the same
// tile ("sharers"). In a GEMM with cluster (M, N) = (x, y), the A tile of a CTA row is shared
// along y (share = {false, true, false}) and the B tile along x (share = {true, false, false}).
//
// Modes:
//   leader_broadcast  the lowest active rank of each sharer set loads the whole box once, with the
//                     sharers as the mask; every sharer expects tile_bytes (fan-in 1).
//   sliced            each of the N sharers loads 1/N of the box along slice_dim (a map whose box
//                     is issue_params()) and multicasts it to all N; every sharer expects N slices
//                     (fan-in N: N issuing CTAs complete on its barrier). The split is
//                     slice_box() (box_slices.hpp), the TMA planner's too: the outermost non-unit
//                     dim, equal parts delivering the box, slice k at k * smem_step bytes of the
//                     box's shared image (rows padded to the swizzle span included), every slice
//                     aligned to tma_smem_alignment (128 B / the swizzle repeat).
// Decisions that override the mode (every CTA computes them from the same spec, so all agree):
//   unicast_single    a sharer set of one CTA: a plain load, no multicast.
//   unicast_straddle  grouped GEMM: some sharer set holds tiles of different groups (problems), so
//                     the cluster straddles a group boundary: EVERY CTA of the cluster loads its own
//                     tile unicast (note group.straddle), none multicasts.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/tensor_map/box_slices.hpp"
#include "tmakit/cluster/rules.hpp"
#include "tmakit/cluster/shape.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

enum class MulticastMode : std::uint32_t { leader_broadcast = 0, sliced = 1 };
enum class MulticastDecision : std::uint32_t {
  leader_broadcast = 0,
  sliced = 1,
  unicast_single = 2,
  unicast_straddle = 3,
  invalid = 4,
};

TMAKIT_HD constexpr const char* decision_name(MulticastDecision d) {
  switch (d) {
    case MulticastDecision::leader_broadcast: return "leader_broadcast";
    case MulticastDecision::sliced: return "sliced";
    case MulticastDecision::unicast_single: return "unicast_single";
    case MulticastDecision::unicast_straddle: return "unicast_straddle";
    case MulticastDecision::invalid: return "invalid";
  }
  return "?";
}

inline constexpr std::uint32_t kSliceDimAuto = 0xFFFFFFFFu;

struct MulticastSpec {
  ClusterShape cluster;
  bool share[3] = {false, false, false};  // cluster dims (x, y, z) along which CTAs share the tile
  MulticastMode mode = MulticastMode::leader_broadcast;
  TensorMapParams box;                    // the WHOLE tile's map parameters (tiled)
  std::uint32_t slice_dim = kSliceDimAuto;  // sliced: box dim to split (auto: outermost with box > 1)
  std::uint16_t active = 0;               // CTAs taking part (bit r = rank r); 0 = all
  bool grouped = false;                   // grouped GEMM: group_of[r] = group (problem) of CTA r's tile
  std::uint32_t group_of[kMaxClusterSize] = {};
};

// One CTA's copy for this operand (at most one per CTA per stage in every mode).
struct MulticastIssue {
  std::uint16_t mask = 0;          // receiving CTAs (multicast) / the issuer itself (unicast)
  bool multicast = false;          // false: plain load into the issuer's own smem
  std::uint32_t slice = 0;         // slice index within the sharer set
  std::uint32_t slices = 1;        // slice count of the sharer set
  std::uint32_t coord_offset = 0;  // tensor coordinate offset along slice_dim (elements), added to the tile's
  std::uint32_t smem_offset = 0;   // byte offset of the slice in the destination buffer (same in every receiver):
                                   // where one copy of the whole box puts it (padded rows included)
  std::uint32_t bytes = 0;         // bytes the copy delivers to EACH receiver (transaction_bytes of its box)
};

struct MulticastCta {
  bool active = false;
  bool issues = false;
  MulticastIssue issue;
  std::uint16_t sharers = 0;  // CTAs receiving the same tile (this one included)
  std::uint16_t senders = 0;  // CTAs whose issues deliver into this CTA
  std::uint32_t fan_in = 0;   // popcount(senders)
  std::uint32_t expect_bytes = 0;  // what this CTA's barrier must expect for this operand
};

struct MulticastPlan {
  MulticastSpec spec;
  MulticastDecision decision = MulticastDecision::invalid;
  std::uint32_t tile_bytes = 0;    // transaction_bytes(spec.box): what each receiver's barrier expects
  std::uint32_t buffer_bytes = 0;  // box_smem_image_bytes(spec.box): what each receiver's buffer spans
                                   // (more than tile_bytes when rows are padded to the swizzle span)
  std::uint32_t slice_dim = 0;
  MulticastCta cta[kMaxClusterSize];
  ClusterDiagnostics diagnostics;
  TMAKIT_HD constexpr bool ok() const { return decision != MulticastDecision::invalid && diagnostics.ok(); }
  // The map parameters the issuer of CTA r must encode (its slice's box; the whole box otherwise).
  TMAKIT_HD constexpr TensorMapParams issue_params(std::uint32_t r) const {
    if (r < kMaxClusterSize && cta[r].issue.slices > 1) return slice_box(spec.box, slice_dim, cta[r].issue.slices).params;
    return spec.box;
  }
};

namespace detail {
TMAKIT_HD constexpr std::uint16_t active_mask(const MulticastSpec& s) {
  const std::uint16_t full = s.cluster.full_mask();
  return s.active ? static_cast<std::uint16_t>(s.active & full) : full;
}
// Active CTAs whose coordinates agree with r on every non-shared dim.
TMAKIT_HD constexpr std::uint16_t sharers_of(const MulticastSpec& s, std::uint32_t r, std::uint16_t active) {
  const ClusterCoord c = s.cluster.coord_of(r);
  std::uint32_t m = 0;
  for (std::uint32_t q = 0; q < s.cluster.size(); ++q) {
    if (!(active >> q & 1u)) continue;
    const ClusterCoord d = s.cluster.coord_of(q);
    bool same = true;
    for (int k = 0; k < 3; ++k) same = same && (s.share[k] || c[k] == d[k]);
    if (same) m |= 1u << q;
  }
  return static_cast<std::uint16_t>(m);
}
}  // namespace detail

// True when some sharer set holds CTAs of different groups: the cluster straddles a group
// boundary. Depends only on cluster-uniform data, so every CTA of the cluster gets the same answer.
TMAKIT_HD constexpr bool cluster_straddles_groups(const MulticastSpec& s, std::int32_t* first_cta = nullptr,
                                                  std::int32_t* peer = nullptr) {
  if (!s.grouped || !s.cluster.valid()) return false;
  const std::uint16_t active = detail::active_mask(s);
  for (std::uint32_t r = 0; r < s.cluster.size(); ++r) {
    if (!(active >> r & 1u)) continue;
    const std::uint16_t sh = detail::sharers_of(s, r, active);
    for (std::uint32_t q = 0; q < s.cluster.size(); ++q)
      if ((sh >> q & 1u) && s.group_of[q] != s.group_of[r]) {
        if (first_cta) *first_cta = static_cast<std::int32_t>(r);
        if (peer) *peer = static_cast<std::int32_t>(q);
        return true;
      }
  }
  return false;
}

// Re-derives every receiver's expected bytes from the issues and checks masks, fan-in, the tx
// limit and slice alignment. Use it on a plan you edited (or built by hand); plan_multicast()
// runs it on every plan it returns.
TMAKIT_HD constexpr ClusterDiagnostics validate_multicast_plan(const MulticastPlan& p) {
  ClusterDiagnostics d;
  const ClusterShape& cs = p.spec.cluster;
  if (!cs.valid()) {
    d.add(ClusterRule::cluster_size, -1, static_cast<std::int64_t>(cs.x) * cs.y * cs.z, kMaxClusterSize);
    return d;
  }
  const std::uint32_t n = cs.size();
  const std::uint16_t active = detail::active_mask(p.spec);
  std::uint32_t delivered[kMaxClusterSize] = {};
  for (std::uint32_t r = 0; r < kMaxClusterSize; ++r) {
    const MulticastCta& c = p.cta[r];
    if (!c.issues) continue;
    if (r >= n) {
      d.add(ClusterRule::mask_outside_cluster, static_cast<std::int32_t>(r), r, n);
      continue;
    }
    const std::uint16_t m = c.issue.multicast ? c.issue.mask : static_cast<std::uint16_t>(1u << r);
    if (m == 0) d.add(ClusterRule::mask_empty, static_cast<std::int32_t>(r), 0, 0);
    for (std::uint32_t q = 0; q < 16; ++q) {
      if (!(m >> q & 1u)) continue;
      if (q >= n) d.add(ClusterRule::mask_outside_cluster, static_cast<std::int32_t>(r), q, n);
      else if (!(active >> q & 1u)) d.add(ClusterRule::mask_inactive_cta, static_cast<std::int32_t>(r), q, active);
      else delivered[q] += c.issue.bytes;
    }
    if (c.issue.slices > 1) {  // each slice is a TMA destination: 128 B at least (box_slices.hpp)
      const std::uint64_t align = slice_alignment(p.spec.box);
      if (c.issue.smem_offset % align != 0)
        d.add(ClusterRule::slice_alignment, static_cast<std::int32_t>(r), c.issue.smem_offset,
              static_cast<std::int64_t>(align));
    }
  }
  for (std::uint32_t q = 0; q < n; ++q) {
    if (!(active >> q & 1u)) continue;
    if (p.cta[q].expect_bytes != delivered[q])
      d.add(ClusterRule::fan_in, static_cast<std::int32_t>(q), p.cta[q].expect_bytes, delivered[q]);
    const std::uint32_t most = delivered[q] > p.cta[q].expect_bytes ? delivered[q] : p.cta[q].expect_bytes;
    if (most > kMaxTransactionBytes) d.add(ClusterRule::tx_limit, static_cast<std::int32_t>(q), most, kMaxTransactionBytes);
  }
  return d;
}

// Plans one operand's copies for one pipeline stage.
TMAKIT_HD constexpr MulticastPlan plan_multicast(const MulticastSpec& s) {
  MulticastPlan p;
  p.spec = s;
  ClusterDiagnostics& d = p.diagnostics;
  const ClusterShape& cs = s.cluster;
  bool bad = false;
  if (!cs.valid()) {
    d.add(ClusterRule::cluster_size, -1, static_cast<std::int64_t>(cs.x) * cs.y * cs.z, kMaxClusterSize);
    return p;
  }
  if (cs.size() > kMaxPortableClusterSize) d.add(ClusterRule::cluster_nonportable, -1, cs.size(), kMaxPortableClusterSize);
  if (s.box.kind != MapKind::tiled || s.box.rank < 1 || s.box.rank > kMaxRank) {
    d.add(ClusterRule::box_params, -1, s.box.rank, 0);
    return p;
  }
  for (std::uint32_t i = 0; i < s.box.rank; ++i)
    if (s.box.box[i] == 0 || s.box.elem_strides[i] == 0) {
      d.add(ClusterRule::box_params, static_cast<std::int32_t>(i), s.box.box[i], 1);
      bad = true;
    }
  bool any_share = false;  // (sharing only along extent-1 dims is fine: every sharer set is one CTA)
  for (int k = 0; k < 3; ++k) any_share = any_share || s.share[k];
  if (!any_share) {
    d.add(ClusterRule::share_dims, -1, 0, 0);
    bad = true;
  }
  if (s.active & ~cs.full_mask()) {
    d.add(ClusterRule::mask_outside_cluster, -1, s.active, cs.full_mask());
    bad = true;
  }
  if (bad) return p;

  p.tile_bytes = static_cast<std::uint32_t>(transaction_bytes(s.box));
  p.buffer_bytes = static_cast<std::uint32_t>(box_smem_image_bytes(s.box));
  p.slice_dim = s.slice_dim == kSliceDimAuto ? outermost_nonunit_dim(s.box) : s.slice_dim;
  const std::uint16_t active = detail::active_mask(s);
  std::int32_t straddle_cta = -1, straddle_peer = -1;
  const bool straddle = cluster_straddles_groups(s, &straddle_cta, &straddle_peer);
  if (straddle)
    d.add(ClusterRule::straddle, straddle_cta, s.group_of[straddle_cta], s.group_of[straddle_peer]);

  bool all_single = true;
  for (std::uint32_t r = 0; r < cs.size(); ++r) {
    MulticastCta& c = p.cta[r];
    c.active = (active >> r & 1u) != 0;
    if (!c.active) continue;
    c.sharers = straddle ? static_cast<std::uint16_t>(1u << r) : detail::sharers_of(s, r, active);
    const int nsh = popcount16(c.sharers);
    if (nsh > 1) all_single = false;
    if (nsh == 1) {  // unicast: own plain load
      c.issues = true;
      c.issue = MulticastIssue{static_cast<std::uint16_t>(1u << r), false, 0, 1, 0, 0, p.tile_bytes};
      continue;
    }
    if (s.mode == MulticastMode::leader_broadcast) {
      if (nth_set_bit(c.sharers, 0) == static_cast<int>(r)) {
        c.issues = true;
        c.issue = MulticastIssue{c.sharers, true, 0, 1, 0, 0, p.tile_bytes};
      }
      continue;
    }
    // sliced
    const std::uint32_t k = static_cast<std::uint32_t>(bit_index(c.sharers, r));
    const std::uint32_t N = static_cast<std::uint32_t>(nsh);
    const std::uint32_t dim = p.slice_dim;
    // The split is slice_box (box_slices.hpp): the N slices must deliver exactly the tile (refuses
    // e.g. an interleaved map's untraversed dim, where every slice would deliver the whole tile's
    // bytes); their alignment is checked by validate_multicast_plan below (slice.alignment per CTA).
    const BoxSlices sl = slice_box(s.box, dim, N);
    if (!sl.outermost) {
      d.add(ClusterRule::slice_outermost, static_cast<std::int32_t>(r), dim,
            dim >= s.box.rank ? s.box.rank - 1 : outermost_nonunit_dim(s.box));
      return p;
    }
    if (!sl.divisible) {
      d.add(ClusterRule::slice_divisible, static_cast<std::int32_t>(r), s.box.box[dim], N);
      return p;
    }
    c.issues = true;
    c.issue = MulticastIssue{c.sharers, true, k, N, k * sl.part, static_cast<std::uint32_t>(k * sl.smem_step),
                             static_cast<std::uint32_t>(sl.bytes)};
  }
  p.decision = straddle ? MulticastDecision::unicast_straddle
               : all_single ? MulticastDecision::unicast_single
               : s.mode == MulticastMode::sliced ? MulticastDecision::sliced
                                                 : MulticastDecision::leader_broadcast;
  // Receivers: senders, fan-in and expected bytes, derived from the issues.
  for (std::uint32_t r = 0; r < cs.size(); ++r) {
    if (!p.cta[r].issues) continue;
    const std::uint16_t m = p.cta[r].issue.multicast ? p.cta[r].issue.mask : static_cast<std::uint16_t>(1u << r);
    for (std::uint32_t q = 0; q < cs.size(); ++q)
      if (m >> q & 1u) {
        p.cta[q].senders = static_cast<std::uint16_t>(p.cta[q].senders | (1u << r));
        p.cta[q].expect_bytes += p.cta[r].issue.bytes;
      }
  }
  for (std::uint32_t r = 0; r < cs.size(); ++r) p.cta[r].fan_in = static_cast<std::uint32_t>(popcount16(p.cta[r].senders));
  const ClusterDiagnostics v = validate_multicast_plan(p);
  for (const ClusterViolation& x : v) d.add(x.rule, x.cta, x.value, x.expected);
  if (!d.ok()) p.decision = MulticastDecision::invalid;
  return p;
}

// What CTA r's barrier must expect when several operands' copies (e.g. A and B) complete on the
// same barrier: the sum over the plans.
TMAKIT_HD constexpr std::uint32_t stage_expect_bytes(const MulticastPlan* plans, int count, std::uint32_t r) {
  std::uint32_t sum = 0;
  for (int i = 0; i < count; ++i) sum += r < kMaxClusterSize ? plans[i].cta[r].expect_bytes : 0;
  return sum;
}

// Checks what a kernel arms on CTA r's barrier (e.g. a hand-written expect_tx) against the plans
// that complete on it: expect.fan_in when they differ, expect.tx_limit past 2^20 - 1.
TMAKIT_HD constexpr ClusterDiagnostics check_armed_bytes(const MulticastPlan* plans, int count, std::uint32_t r,
                                                         std::uint64_t armed) {
  ClusterDiagnostics d;
  const std::uint32_t want = stage_expect_bytes(plans, count, r);
  if (armed != want) d.add(ClusterRule::fan_in, static_cast<std::int32_t>(r), static_cast<std::int64_t>(armed), want);
  if (armed > kMaxTransactionBytes) d.add(ClusterRule::tx_limit, static_cast<std::int32_t>(r), static_cast<std::int64_t>(armed), kMaxTransactionBytes);
  return d;
}

// A GEMM's two operands on a cluster (x = M direction, y = N direction): A (M x K tile) is shared
// by the CTAs of one cluster row (along y), B (N x K tile) by those of one column (along x).
struct GemmMulticastPlans {
  MulticastPlan a, b;
};
TMAKIT_HD constexpr GemmMulticastPlans plan_gemm_multicast(ClusterShape cluster, const TensorMapParams& a_box,
                                                           const TensorMapParams& b_box, MulticastMode mode,
                                                           std::uint16_t active = 0) {
  MulticastSpec sa, sb;
  sa.cluster = sb.cluster = cluster;
  sa.share[1] = true;
  sb.share[0] = true;
  sa.mode = sb.mode = mode;
  sa.box = a_box;
  sb.box = b_box;
  sa.active = sb.active = active;
  return {plan_multicast(sa), plan_multicast(sb)};
}

// One CTA's part in a pipeline stage whose copies (one or more operands' plans) complete on one
// "full" barrier per CTA: what it arms, whom it releases, whose releases it waits for.
struct StageRole {
  std::uint32_t expect_bytes = 0;  // armed on this CTA's full barrier per stage (all plans' deliveries)
  std::uint16_t senders = 0;       // CTAs issuing into this CTA: it arrives on their empty barriers
  std::uint16_t receivers = 0;     // CTAs this CTA issues into: its empty barrier counts their arrivals
  TMAKIT_HD constexpr std::uint32_t empty_arrivals() const { return static_cast<std::uint32_t>(popcount16(receivers)); }
};

TMAKIT_HD constexpr StageRole stage_role(const MulticastPlan* plans, int count, std::uint32_t r) {
  StageRole s;
  if (r >= kMaxClusterSize) return s;
  for (int i = 0; i < count; ++i) {
    const MulticastCta& c = plans[i].cta[r];
    s.expect_bytes += c.expect_bytes;
    s.senders = static_cast<std::uint16_t>(s.senders | c.senders);
    if (c.issues) s.receivers = static_cast<std::uint16_t>(s.receivers | (c.issue.multicast ? c.issue.mask : (1u << r)));
  }
  return s;
}

}  // namespace tmakit
