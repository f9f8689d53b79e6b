// The SM-to-SM (distributed shared memory) copy planner: from a source region in this CTA's shared
// memory and a destination region in a peer CTA's, choose how to copy and say why.
//
// Regions are (shape, stride) layouts over BYTE offsets (CuTe semantics: colexicographic, mode 0
// fastest; element i of the source goes to element i of the destination), plus a base offset and
// an optional byte swizzle applied to base + layout(i), as the hardware sees addresses (the buffer
// must then be aligned to swizzle.base_alignment()).
//
// Paths, in order of preference:
//   bulk_single  the bytes form ONE contiguous range on both sides with the same order: one
//                cp.async.bulk.shared::cluster.shared::cta completing on the destination CTA's
//                mbarrier (tx = bytes).
//   bulk_multi   the minimal set of contiguous pieces (maximal runs that are contiguous on both
//                sides), each 16 B aligned with a size a multiple of 16, at most kMaxBulkPieces;
//                tx on the remote barrier = the sum of the pieces.
//   st_async     element-wise, vectorized to unit_bytes (4, 8 or 16) per store: st.async with
//                mbarrier::complete_tx on the remote barrier (tx = total bytes).
//   st_cluster   units below 4 bytes (or asked for): mapa + st.shared::cluster, each participating
//                thread then arrives on the remote barrier with release at cluster scope
//                (remote_arrivals = threads).
// Every bulk copy is issued by exactly ONE thread (issuing_threads = 1); element-wise paths by all
// `threads` of the CTA.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/cluster/rules.hpp"

namespace tmakit {

inline constexpr std::uint32_t kMaxBulkPieces = 64;
inline constexpr std::uint32_t kMaxDsmemElements = 1u << 20;
inline constexpr std::uint32_t kMaxDsmemRank = 4;

struct SmemRegion {
  std::uint32_t rank = 1;
  std::int64_t shape[kMaxDsmemRank] = {1, 1, 1, 1};
  std::int64_t stride[kMaxDsmemRank] = {0, 0, 0, 0};  // BYTES
  std::uint32_t base = 0;                              // byte offset of element 0 (before the swizzle)
  SwizzleParams swizzle = SwizzleParams{0, 4, 3, true, true};  // bits 0: none

  TMAKIT_HD constexpr std::int64_t size() const {
    std::int64_t n = 1;
    for (std::uint32_t k = 0; k < rank && k < kMaxDsmemRank; ++k) n *= shape[k];
    return n;
  }
  // Physical byte offset (swizzle applied) of element i (colexicographic).
  TMAKIT_HD constexpr std::uint64_t offset(std::uint64_t i) const {
    std::int64_t o = base;
    for (std::uint32_t k = 0; k < rank && k < kMaxDsmemRank; ++k) {
      const std::uint64_t e = static_cast<std::uint64_t>(shape[k]);
      o += static_cast<std::int64_t>(i % e) * stride[k];
      i /= e;
    }
    return swizzle(static_cast<std::uint64_t>(o));
  }
};

// Compact column-major region (mode 0 fastest, elements of `elem_bytes` bytes).
TMAKIT_HD constexpr SmemRegion compact_region(std::uint32_t elem_bytes, std::int64_t s0, std::int64_t s1 = 1,
                                              std::int64_t s2 = 1, std::uint32_t base = 0) {
  SmemRegion r;
  r.rank = 3;
  r.shape[0] = s0;
  r.shape[1] = s1;
  r.shape[2] = s2;
  r.stride[0] = elem_bytes;
  r.stride[1] = elem_bytes * s0;
  r.stride[2] = elem_bytes * s0 * s1;
  r.base = base;
  return r;
}

enum class DsmemPath : std::uint32_t { bulk_single = 0, bulk_multi = 1, st_async = 2, st_cluster = 3, invalid = 4 };
enum class DsmemPrefer : std::uint32_t { automatic = 0, elementwise = 1, st_cluster = 2 };
enum class DsmemReason : std::uint32_t {
  contiguous = 0,         // one range on both sides
  pieces = 1,             // several ranges, all bulk-legal
  bulk_misaligned = 2,    // a piece not 16 B aligned / sized
  too_many_pieces = 3,    // more than kMaxBulkPieces
  asked = 4,              // DsmemPrefer forced an element-wise path
  narrow_units = 5,       // element-wise units below 4 bytes: st.async has no b8/b16 form
  invalid = 6,
};

TMAKIT_HD constexpr const char* dsmem_path_name(DsmemPath p) {
  switch (p) {
    case DsmemPath::bulk_single: return "bulk_single";
    case DsmemPath::bulk_multi: return "bulk_multi";
    case DsmemPath::st_async: return "st_async";
    case DsmemPath::st_cluster: return "st_cluster";
    case DsmemPath::invalid: return "invalid";
  }
  return "?";
}

// Why plan_dsmem_copy chose its path, as a rule family (the reason is a note; `invalid` is the error
// the plan's diagnostics detail): rule_text(reason) says it in one line.
TMAKIT_HD constexpr RuleTable<DsmemReason, 7> rule_table(DsmemReason) {
  return {{
      {DsmemReason::contiguous, "dsmem.reason.contiguous", "DSMEM regions",
       "source and destination are one contiguous range each: one bulk copy", Severity::note},
      {DsmemReason::pieces, "dsmem.reason.pieces", "DSMEM regions",
       "the region splits into contiguous pieces, each 16 B aligned and sized: one bulk copy per piece",
       Severity::note},
      {DsmemReason::bulk_misaligned, "dsmem.reason.bulk_misaligned", "DSMEM regions",
       "a contiguous piece is not 16 B aligned or not a multiple of 16 B: element-wise", Severity::note},
      {DsmemReason::too_many_pieces, "dsmem.reason.too_many_pieces", "DSMEM regions",
       "more contiguous pieces than kMaxBulkPieces (a reshape / swizzle change): element-wise", Severity::note},
      {DsmemReason::asked, "dsmem.reason.asked", "DSMEM regions", "an element-wise path was asked for", Severity::note},
      {DsmemReason::narrow_units, "dsmem.reason.narrow_units", "DSMEM regions",
       "element-wise units below 4 B (st.async stores b32/b64/v4.b32 only): mapa + st.shared::cluster",
       Severity::note},
      {DsmemReason::invalid, "dsmem.reason.invalid", "DSMEM regions",
       "invalid spec (see diagnostics)", Severity::error},
  }};
}
static_assert(rule_table_well_formed(rule_table(DsmemReason{})), "one row per reason in enum order, with unique ids");
static_assert(rule_count<DsmemReason> == static_cast<int>(DsmemReason::invalid) + 1, "a row for every enum value");

struct DsmemSpec {
  std::uint32_t elem_bytes = 4;
  SmemRegion src, dst;
  std::uint32_t threads = 128;  // threads of the copying CTA (element-wise paths)
  DsmemPrefer prefer = DsmemPrefer::automatic;
};

struct BulkPiece {
  std::uint32_t src = 0, dst = 0, bytes = 0;  // physical byte offsets in the source / destination buffer
};

struct DsmemPlan {
  DsmemSpec spec;
  DsmemPath path = DsmemPath::invalid;
  DsmemReason reason = DsmemReason::invalid;
  std::uint32_t elements = 0, total_bytes = 0;
  std::uint32_t min_pieces = 0;    // maximal pieces contiguous on both sides (reported even when unused)
  std::uint32_t piece_count = 0;   // bulk paths: pieces[0..piece_count)
  BulkPiece pieces[kMaxBulkPieces] = {};
  std::uint32_t unit_elems = 0, unit_bytes = 0, units = 0;  // element-wise paths
  std::uint32_t tx_bytes = 0;          // bytes the destination barrier must expect (bulk, st_async)
  std::uint32_t remote_arrivals = 0;   // arrivals the source CTA makes on it per copy (st_cluster)
  std::uint32_t issuing_threads = 0;   // 1 for bulk paths (exactly one), spec.threads element-wise
  ClusterDiagnostics diagnostics;
  TMAKIT_HD constexpr bool ok() const { return path != DsmemPath::invalid && diagnostics.ok(); }
  // Arrivals per phase the destination barrier is initialized with: the receiver's own
  // arrive_expect_tx plus the remote arrivals.
  TMAKIT_HD constexpr std::uint32_t receiver_init_count() const { return 1 + remote_arrivals; }
};

namespace detail {
struct ElemPair {
  std::uint64_t src, dst;
};
constexpr bool is_pow2_upto16(std::uint32_t e) { return e == 1 || e == 2 || e == 4 || e == 8 || e == 16; }
}  // namespace detail

constexpr DsmemPlan plan_dsmem_copy(const DsmemSpec& s) {
  DsmemPlan p;
  p.spec = s;
  ClusterDiagnostics& d = p.diagnostics;
  const std::uint32_t e = s.elem_bytes;
  if (!detail::is_pow2_upto16(e)) d.add(ClusterRule::dsmem_elem_bytes, -1, e, 4);
  for (const SmemRegion* r : {&s.src, &s.dst}) {
    const std::int32_t which = r == &s.src ? 0 : 1;
    if (r->rank < 1 || r->rank > kMaxDsmemRank) d.add(ClusterRule::dsmem_rank, which, r->rank, kMaxDsmemRank);
    else
      for (std::uint32_t k = 0; k < r->rank; ++k)
        if (r->shape[k] < 1) d.add(ClusterRule::dsmem_rank, which, r->shape[k], 1);
  }
  if (!d.ok()) return p;
  const std::int64_t n = s.src.size();
  if (n != s.dst.size()) d.add(ClusterRule::dsmem_element_count, -1, s.dst.size(), n);
  if (n > static_cast<std::int64_t>(kMaxDsmemElements) || n * e > std::int64_t{kMaxTransactionBytes})
    d.add(ClusterRule::dsmem_too_large, -1, n * e, std::int64_t{kMaxTransactionBytes});
  if (!d.ok()) return p;
  p.elements = static_cast<std::uint32_t>(n);
  p.total_bytes = static_cast<std::uint32_t>(n * e);

  // All element byte offsets, ordered by source address; injectivity of the destination.
  std::vector<detail::ElemPair> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = {s.src.offset(i), s.dst.offset(i)};
  {
    std::vector<std::uint64_t> dsts(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) dsts[i] = v[i].dst;
    std::sort(dsts.begin(), dsts.end());
    for (std::size_t i = 1; i < dsts.size(); ++i)
      if (dsts[i] - dsts[i - 1] < e) {
        d.add(ClusterRule::dsmem_not_injective, static_cast<std::int32_t>(i), static_cast<std::int64_t>(dsts[i]),
              static_cast<std::int64_t>(dsts[i - 1] + e));
        return p;
      }
  }
  std::sort(v.begin(), v.end(), [](const detail::ElemPair& a, const detail::ElemPair& b) { return a.src < b.src; });
  // Maximal runs contiguous on both sides.
  std::vector<BulkPiece> pieces;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!pieces.empty()) {
      BulkPiece& b = pieces.back();
      if (v[i].src == b.src + b.bytes && v[i].dst == b.dst + b.bytes) {
        b.bytes += e;
        continue;
      }
    }
    pieces.push_back(BulkPiece{static_cast<std::uint32_t>(v[i].src), static_cast<std::uint32_t>(v[i].dst), e});
  }
  p.min_pieces = static_cast<std::uint32_t>(pieces.size());
  bool bulk_legal = true;
  for (const BulkPiece& b : pieces) bulk_legal = bulk_legal && b.src % 16 == 0 && b.dst % 16 == 0 && b.bytes % 16 == 0;

  // Element-wise units: the largest g (elements, g * e <= 16 bytes) such that every group of g
  // consecutive elements (colex) is contiguous and g * e aligned on both sides.
  std::uint32_t g = 16 / (e > 16 ? 16 : e);
  for (; g > 1; g /= 2) {
    if (n % g != 0) continue;
    bool fits = true;
    const std::uint64_t ub = std::uint64_t{g} * e;
    for (std::int64_t u = 0; fits && u < n / g; ++u) {
      const std::uint64_t s0 = s.src.offset(u * g), d0 = s.dst.offset(u * g);
      fits = s0 % ub == 0 && d0 % ub == 0;
      for (std::uint32_t k = 1; fits && k < g; ++k)
        fits = s.src.offset(u * g + k) == s0 + k * e && s.dst.offset(u * g + k) == d0 + k * e;
    }
    if (fits) break;
  }
  p.unit_elems = g;
  p.unit_bytes = g * e;
  p.units = static_cast<std::uint32_t>(n / g);

  if (s.prefer == DsmemPrefer::automatic && bulk_legal && pieces.size() <= kMaxBulkPieces) {
    p.path = pieces.size() == 1 ? DsmemPath::bulk_single : DsmemPath::bulk_multi;
    p.reason = pieces.size() == 1 ? DsmemReason::contiguous : DsmemReason::pieces;
    p.piece_count = static_cast<std::uint32_t>(pieces.size());
    for (std::size_t i = 0; i < pieces.size(); ++i) p.pieces[i] = pieces[i];
    p.tx_bytes = p.total_bytes;
    p.issuing_threads = 1;
    return p;
  }
  if (s.prefer == DsmemPrefer::automatic) {
    p.reason = !bulk_legal ? DsmemReason::bulk_misaligned : DsmemReason::too_many_pieces;
    if (!bulk_legal) d.add(ClusterRule::dsmem_bulk_alignment, -1, static_cast<std::int64_t>(pieces.size()), 16);
  } else {
    p.reason = DsmemReason::asked;
  }
  p.issuing_threads = s.threads;
  if (s.prefer != DsmemPrefer::st_cluster && p.unit_bytes >= 4) {
    p.path = DsmemPath::st_async;
    p.tx_bytes = p.total_bytes;
  } else {
    if (s.prefer != DsmemPrefer::st_cluster) p.reason = DsmemReason::narrow_units;
    p.path = DsmemPath::st_cluster;
    p.remote_arrivals = s.threads;
  }
  return p;
}

}  // namespace tmakit
