// Shared by the planner tests (host) and the GPU test of executed plans: what a plan's
// instructions write into shared memory according to the host model of TMA (smem_model.hpp), and
// what the user's shared layout says must be there. Not a test itself (tests take test_*.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "tmakit/layout/swizzled_layout.hpp"
#include "tmakit/plan/global_tensor.hpp"
#include "tmakit/plan/tma_plan.hpp"
#include "tmakit/tensor_map/smem_model.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit_test {

// A global buffer for `g` (cosize elements) where every byte depends on its element index.
inline std::vector<unsigned char> make_global(const tmakit::GlobalTensor& g) {
  const std::uint64_t eb = tmakit::element_bits(g.dtype) / 8;
  const std::int64_t cos = g.layout.flatten().cosize();
  std::vector<unsigned char> v(static_cast<std::size_t>(cos) * eb);
  for (std::uint64_t i = 0; i < v.size(); ++i) {
    std::uint64_t x = (i / eb + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    v[i] = static_cast<unsigned char>(x >> (8 * (i % eb)));
  }
  return v;
}

// The shared image the plan's instructions produce for tile `t` under the model. `written` marks
// the bytes some instruction wrote; `twice` counts bytes written by two instructions.
struct PlanImage {
  std::vector<unsigned char> bytes;
  std::vector<unsigned char> written;
  std::uint64_t twice = 0;
  bool model_ok = true;
};

inline PlanImage model_plan_image(const tmakit::TmaPlan& plan, std::span<const unsigned char> global,
                                  const std::int32_t* t, std::uint32_t first = 0, std::uint32_t count = ~0u) {
  PlanImage im;
  im.bytes.assign(plan.smem_bytes, 0);
  im.written.assign(plan.smem_bytes, 0);
  tmakit::TensorMapParams p = plan.params;
  p.address = 0;
  // what smem_model_tiled_load refuses
  if (p.kind != tmakit::MapKind::tiled || tmakit::is_packed(p.dtype) || p.rank < 1 || p.rank > tmakit::kMaxRank ||
      !tmakit::swizzle_for(p.swizzle).supported) {
    im.model_ok = false;
    return im;
  }
  const std::uint32_t eb = tmakit::smem_model_piece_bytes(p);
  unsigned char fill[32];
  tmakit::smem_model_oob_fill(p, fill);
  const std::uint32_t end = count == ~0u ? plan.instructions : first + count;
  for (std::uint32_t k = first; k < end && k < plan.instructions; ++k) {
    const tmakit::PlanInstruction in = plan.instruction(k, t);
    // one pass of the model's walk: each piece it writes, at the instruction's offset
    im.model_ok = tmakit::smem_model_detail::for_each_box_element(
        p, in.coord, {}, p.dims[0], [&](std::uint64_t dst, bool inside, std::uint64_t src) {
          if (inside && src + eb > global.size()) return false;
          const unsigned char* from = inside ? &global[src] : fill;
          for (std::uint32_t b = 0; b < eb; ++b) {
            const std::uint64_t at = in.smem_offset + dst + b;
            if (at >= im.bytes.size()) return false;
            if (im.written[at]) ++im.twice;
            im.bytes[at] = from[b];
            im.written[at] = 1;
          }
          return true;
        });
    if (!im.model_ok) return im;
  }
  return im;
}

// Checks the image against the user's layouts: every tile element's bytes sit at
// swizzle(layout(c) * E) and hold the global element (zeros out of bounds); nothing else written.
// Shared top-level mode i is global mode i, or the i-th tiled global mode when the shared layout
// has one mode per tiled mode (as make_tile_problem assigns them). Returns "" or the first mismatch.
inline std::string check_image(const PlanImage& im, const tmakit::GlobalTensor& g, const tmakit::SwizzledLayout& smem,
                               const std::int64_t* tile, const std::int32_t* t, std::span<const unsigned char> global) {
  using namespace tmakit;
  if (!im.model_ok) return "model refused the plan's descriptor or wrote past smem_bytes";
  if (im.twice) return std::to_string(im.twice) + " bytes written by two instructions";
  const std::uint64_t eb = element_bits(g.dtype) / 8;
  const Layout gf = g.layout.flatten();
  const int gm = gf.num_leaves();
  std::int32_t tiled[kMaxTileModes] = {};
  int ntiled = 0;
  for (int m = 0; m < gm; ++m)
    if (tile[m] > 1) tiled[ntiled++] = m;
  const Layout& s = smem.layout;
  const int srank = s.shape.is_leaf() ? 1 : s.rank();
  std::int32_t mode_of[kMaxTileModes] = {};
  for (int i = 0; i < srank; ++i) mode_of[i] = srank == gm ? i : tiled[i];
  std::vector<unsigned char> expect_written(im.bytes.size(), 0);
  const std::int64_t n = s.size();
  for (std::int64_t idx = 0; idx < n; ++idx) {
    std::int64_t coord[kMaxTileModes] = {};
    for (int m = 0; m < gm; ++m) coord[m] = std::int64_t{t[m]} * tile[m];
    std::int64_t rest = idx;
    for (int i = 0; i < srank; ++i) {
      const std::int64_t sz = s.shape.is_leaf() ? s.size() : s.mode(i).size();
      coord[mode_of[i]] += rest % sz;
      rest /= sz;
    }
    bool in = true;
    std::int64_t goff = 0;
    for (int m = 0; m < gm; ++m) {
      if (coord[m] < 0 || coord[m] >= gf.shape_at(m)) in = false;
      goff += coord[m] * gf.stride_at(m);
    }
    const std::uint64_t at = smem.byte_offset(idx, eb);
    for (std::uint64_t b = 0; b < eb; ++b) {
      if (at + b >= im.bytes.size()) return "element " + std::to_string(idx) + " lies past the plan's smem_bytes";
      if (!im.written[at + b]) return "element " + std::to_string(idx) + " (smem byte " + std::to_string(at + b) + ") not written";
      const unsigned char want = in ? global[static_cast<std::size_t>(goff) * eb + b] : 0;
      if (im.bytes[at + b] != want)
        return "element " + std::to_string(idx) + " (smem byte " + std::to_string(at + b) + ") holds " +
               std::to_string(im.bytes[at + b]) + ", expected " + std::to_string(want);
      expect_written[at + b] = 1;
    }
  }
  for (std::size_t i = 0; i < im.bytes.size(); ++i)
    if (im.written[i] && !expect_written[i]) return "smem byte " + std::to_string(i) + " written but no tile element lives there";
  return "";
}

}  // namespace tmakit_test
