// The DSMEM copy planner on CuTe layouts (tmakit/layout): a Layout maps to ELEMENT offsets, a
// SwizzledLayout adds a BYTE swizzle (the team's convention: byte address of element i =
// swizzle(layout(i) * elem_bytes)). region_from_layout() coalesces the layout (same function) and
// turns it into a SmemRegion of at most 4 byte-strided modes; plan_dsmem_copy() on layouts plans
// exactly as on regions.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/coalesce.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/swizzled_layout.hpp"
#include "tmakit/cluster/rules.hpp"
#include "tmakit/cluster/dsmem_copy.hpp"

namespace tmakit {

struct RegionFromLayout {
  SmemRegion region;
  bool ok = false;
  std::int32_t modes = 0;  // leaf modes after coalescing (more than kMaxDsmemRank: refused)
  LayoutDiagnostic diagnostic{};  // check_elem_bytes' refusal (layout.swizzle.elem_bytes), else ok
};

// base_bytes: byte offset of the layout's origin in the buffer (before the swizzle).
TMAKIT_HD constexpr RegionFromLayout region_from_layout(const Layout& l, std::uint32_t elem_bytes,
                                                        std::uint32_t base_bytes = 0,
                                                        SwizzleParams swizzle = SwizzleParams{0, 4, 3, true, true}) {
  RegionFromLayout r;
  // A swizzle moves 2^M-byte chunks: an element larger than a chunk (or not a power of two) would
  // be split, and the region's element offsets would not address it. (Without a swizzle the element
  // size is plan_dsmem_copy's dsmem.elem_bytes check.)
  if (swizzle.bits != 0) r.diagnostic = check_elem_bytes(swizzle, elem_bytes);
  if (!r.diagnostic.ok()) return r;
  const Layout c = coalesce(l);
  r.modes = c.num_leaves();
  if (c.overflow() || r.modes < 1 || r.modes > static_cast<std::int32_t>(kMaxDsmemRank)) return r;
  r.region.rank = static_cast<std::uint32_t>(r.modes);
  for (int k = 0; k < r.modes; ++k) {
    r.region.shape[k] = c.shape_at(k);
    r.region.stride[k] = c.stride_at(k) * static_cast<std::int64_t>(elem_bytes);
  }
  r.region.base = base_bytes;
  r.region.swizzle = swizzle;
  r.ok = true;
  return r;
}

TMAKIT_HD constexpr RegionFromLayout region_from_layout(const SwizzledLayout& l, std::uint32_t elem_bytes,
                                                        std::uint32_t base_bytes = 0) {
  return region_from_layout(l.layout, elem_bytes, base_bytes, l.swizzle);
}

// Plans a copy from `src` (this CTA) to `dst` (a peer), both SwizzledLayouts (swizzle bits 0 for a
// plain layout). A layout that does not fit 4 modes after coalescing gives dsmem.rank (CTA field:
// 0 = source, 1 = destination; value: its mode count); an element larger than a layout's swizzle
// chunk gives dsmem.swizzle_elem_bytes (value: element bytes, expected: chunk bytes).
constexpr DsmemPlan plan_dsmem_copy(const SwizzledLayout& src, const SwizzledLayout& dst, std::uint32_t elem_bytes,
                                    std::uint32_t threads = 128, DsmemPrefer prefer = DsmemPrefer::automatic,
                                    std::uint32_t src_base = 0, std::uint32_t dst_base = 0) {
  const RegionFromLayout s = region_from_layout(src, elem_bytes, src_base);
  const RegionFromLayout d = region_from_layout(dst, elem_bytes, dst_base);
  if (!s.ok || !d.ok) {
    DsmemPlan p;
    const RegionFromLayout* sides[2] = {&s, &d};
    for (std::int32_t k = 0; k < 2; ++k) {
      const RegionFromLayout& x = *sides[k];
      if (x.ok) continue;
      if (!x.diagnostic.ok()) p.diagnostics.add(ClusterRule::dsmem_swizzle_elem_bytes, k, x.diagnostic.a, x.diagnostic.b);
      else p.diagnostics.add(ClusterRule::dsmem_rank, k, x.modes, kMaxDsmemRank);
    }
    return p;
  }
  DsmemSpec spec;
  spec.elem_bytes = elem_bytes;
  spec.src = s.region;
  spec.dst = d.region;
  spec.threads = threads;
  spec.prefer = prefer;
  return plan_dsmem_copy(spec);
}

}  // namespace tmakit
