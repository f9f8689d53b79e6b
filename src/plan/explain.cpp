// Planner refusals in the user's terms: see tmakit/plan/explain.hpp.
#include "tmakit/plan/explain.hpp"

#include <cstdint>
#include <string>

#include "tmakit/core/dtype.hpp"
#include "tmakit/core/reduce_op.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/layout/swizzled_layout.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {
namespace {

using S = std::string;
S num(std::int64_t v) { return std::to_string(v); }
S unum(std::uint64_t v) { return std::to_string(v); }

constexpr std::uint64_t kU64Max = ~std::uint64_t{0};
std::uint64_t mul_saturated(std::uint64_t a, std::uint64_t b) { return b != 0 && a > kU64Max / b ? kU64Max : a * b; }
std::uint64_t gcd(std::uint64_t a, std::uint64_t b) {
  while (b) {
    const std::uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
// `bits` bits in bytes: "64", or "64.5" for 16U4_ALIGN8B's half bytes (eighths in general, "0.75").
S bits_as_bytes(std::uint64_t bits) {
  S s = std::to_string(bits / 8);
  if (bits % 8 == 0) return s;
  S frac = std::to_string(bits % 8 * 125);  // eighths as thousandths: 1 -> 125, 4 -> 500
  while (frac.size() < 3) frac = "0" + frac;
  while (frac.back() == '0') frac.pop_back();
  return s + "." + frac;
}
// n elements of `bits` bits, in bytes: "more than 9223372036854775807" when that does not fit in
// int64 (n >= 0).
S bytes_text(std::int64_t n, std::int64_t bits) {
  if (bits > 0 && n > INT64_MAX / bits) return "more than " + std::to_string(INT64_MAX);
  return bits_as_bytes(static_cast<std::uint64_t>(n < 0 ? 0 : n) * static_cast<std::uint64_t>(bits));
}
// The largest legal TMA global stride: below 2^40 bytes, a multiple of 16.
constexpr std::uint64_t kMaxTmaStride = (std::uint64_t{1} << 40) - 16;

// "bf16", "16U4_ALIGN16B" (types without a short name: their cuda.h name), or "element type 17"
// for a value outside the enum.
S type_text(std::int64_t t) {
  if (t >= 0 && t < static_cast<std::int64_t>(kDataTypeCount)) return short_dtype_name(static_cast<DataType>(t));
  return "element type " + std::to_string(t);
}
S name_or_number(Arch a) { return to_name(a); }
// The multicast dimension as --multicast-mode names it (x, y, z), or its number outside them.
S dim_text(std::int64_t d) { return d >= 0 && d <= 2 ? S(1, "xyz"[d]) : "dimension " + std::to_string(d); }
S op_text(std::int64_t op) {
  const char* n = op >= 0 && op < static_cast<std::int64_t>(kReduceOpCount) ? reduce_op_name(static_cast<ReduceOp>(op))
                                                                              : nullptr;
  return n ? "." + S(n) : "reduction op " + std::to_string(op);
}
S direction_text(std::int64_t d) {
  return d == static_cast<std::int64_t>(PlanDirection::reduce) ? "a reduction" : "a store";
}

// The largest integer the layout notation reads (src/layout/notation.cpp): 2^62.
constexpr std::int64_t kMaxNotation = std::int64_t{1} << 62;

struct Ctx {
  const TileProblem& pb;
  const std::vector<std::string>& names;
  // Bits per element in shared memory (the codec's smem_element_bits: 8 for the padded ALIGN16B
  // types, 4 for 16U4_ALIGN8B) and in global memory (element_bits); 8 for an invalid type.
  std::int64_t smem_bits() const { return is_valid(pb.dtype) ? smem_element_bits(pb.dtype) : 8; }
  std::int64_t gmem_bits() const { return is_valid(pb.dtype) ? element_bits(pb.dtype) : 8; }
  S name(std::int32_t m) const {
    if (m < 0) return "the tile";
    S s = "tile mode " + num(m);
    if (m < static_cast<std::int32_t>(names.size()) && !names[m].empty()) s += " (" + names[m] + ")";
    return s;
  }
  S bare(std::int32_t m) const {
    if (m >= 0 && m < static_cast<std::int32_t>(names.size()) && !names[m].empty()) return names[m];
    return "mode " + num(m);
  }
  // pieces of mode m in the problem
  int pieces(std::int32_t m) const {
    int n = 0;
    for (int i = 0; i < pb.leaves; ++i) n += pb.leaf[i].mode == m && pb.leaf[i].extent > 1 ? 1 : 0;
    return n;
  }
  S piece(std::int32_t m, std::int32_t part) const {
    S s = name(m);
    if (part >= 0 && pieces(m) > 1) s += ", shared piece " + num(part);
    return s;
  }
  // A global stride issue's bytes (-1: more than fit in int64), exact for the packed types'
  // fractions of a byte: the stride (value) times step_bits (bits per unit of the stride).
  S stride_bytes(const PlanIssue& i, std::uint64_t step_bits) const {
    if (i.bytes < 0) return "more than " + num(INT64_MAX);
    const std::uint64_t stride = static_cast<std::uint64_t>(i.value < 0 ? 0 : i.value);
    if (step_bits % 8 == 0 || (step_bits != 0 && stride > ~std::uint64_t{0} / step_bits)) return num(i.bytes);
    return bits_as_bytes(stride * step_bits);
  }
  S swizzle_text() const {
    if (pb.swizzle.bits == 0) return "";
    return to_string(pb.swizzle) + " o ";
  }
  // A compact shared layout over the tiled modes with mode `inner` at stride 1 and its rows padded to
  // the swizzle span where shorter (as TMA writes them: smem_padded_row); "" when the tile has more
  // than kMaxNotation elements (its strides would not fit in the notation, or would wrap).
  S suggest_smem(std::int32_t inner) const {
    if (inner < 0)  // default: the tiled mode contiguous in global memory
      for (std::int32_t m = 0; m < pb.modes; ++m)
        if (pb.stride[m] == 1 && pb.tile[m] > 1) inner = m;
    std::int64_t size = 1;
    for (std::int32_t m = 0; m < pb.modes; ++m)
      if (pb.tile[m] > 1) {
        if (pb.tile[m] > kMaxNotation / size) return "";
        size *= pb.tile[m];
      }
    S shape = "(", stride = "(";
    std::int64_t s = 1;
    if (inner >= 0 && pb.tile[inner] > 1) {
      s = pb.tile[inner];
      Swizzle mode{};
      const std::int64_t span = tma_swizzle_of(pb.swizzle, mode) ? swizzle_span_bytes(mode) * 8 / smem_bits() : 0;
      if (span > s) {
        if (size / s > kMaxNotation / span) return "";
        s = span;
      }
    }
    bool first = true;
    for (std::int32_t m = 0; m < pb.modes; ++m) {
      if (pb.tile[m] <= 1) continue;
      shape += (first ? "" : ",") + num(pb.tile[m]);
      std::int64_t st = 0;
      if (m == inner) st = 1;
      else { st = s; s *= pb.tile[m]; }  // at most the (padded) size checked above: no overflow
      stride += (first ? "" : ",") + num(st);
      first = false;
    }
    return swizzle_text() + shape + "):" + stride + ")";
  }
  // lead + suggest_smem(inner) + tail, or a note that no layout of the tile can be written.
  S example_smem(const S& lead, std::int32_t inner, const S& tail = "") const {
    const S l = suggest_smem(inner);
    if (!l.empty()) return lead + l + tail;
    return " (no shared layout of this tile can be written: its extents multiply to more than 2^62 elements, "
           "the largest number the layout notation takes; use a smaller tile)";
  }
};

// gmem.base_align: value = the address, bytes = its known alignment (uint64s), count = the view's
// storage offset in elements (GlobalTensor::view_offset; 0: none or not known). A view whose offset is
// not a whole number of 16-byte steps is the usual cause (x[1:], a narrowed column range): the
// message names the offset, and the fixes keep the allocation's alignment.
void explain_base_align(const PlanIssue& i, const Ctx& c, PlanDiagnostic& d) {
  const std::string address = i.value != 0 ? "address " + unum(static_cast<std::uint64_t>(i.value)) + ", " : "";  // 0: not given
  d.what = "the global base (" + address + "known alignment " + unum(static_cast<std::uint64_t>(i.bytes)) +
           " bytes) must be a multiple of 16 bytes for TMA";
  d.fix = "allocate with at least 16-byte alignment (cudaMalloc gives 256) and say so with align=16 or more";
  const std::uint64_t bits = static_cast<std::uint64_t>(c.gmem_bits());
  if (i.count <= 0 || static_cast<std::uint64_t>(i.count) > ~std::uint64_t{0} / bits) return;
  const std::uint64_t offset_bits = static_cast<std::uint64_t>(i.count) * bits;
  if (offset_bits % 128 == 0) return;  // the view's offset keeps 16 bytes: the allocation is the cause
  const std::uint64_t step = 128 / gcd(bits, 128);  // elements per 16-byte step
  d.what += ": the tensor is a view that starts " + num(i.count) + (i.count == 1 ? " element (" : " elements (") +
            bits_as_bytes(offset_bits) + " bytes) past the start of its allocation";
  d.fix = "make the tensor map over the whole allocation and add the view's offset to the copy's coordinates; "
          "or start the view at a multiple of " + unum(step) + " elements (16 bytes); or copy the view into "
          "its own allocation (torch: x.clone(); x.contiguous() returns a contiguous view unchanged, offset "
          "and all)";
}

// The fix for a stride past TMA's limit: the largest legal stride of `mode`, whose TMA dimension steps
// `step_bits` bits per element of stride, in multiples of m elements (whole 16-byte steps).
S largest_stride_fix(const Ctx& c, std::int32_t mode, std::uint64_t step_bits, std::uint64_t m) {
  const std::uint64_t most = kMaxTmaStride * 8 / step_bits / m * m;
  if (most >= 1)
    return "give " + c.bare(mode) + " a stride of at most " + unum(most) + " elements (" + unum(most * step_bits / 8) +
           " bytes; a multiple of " + unum(m) + " elements), e.g. by copying the tensor into a denser layout, "
           "or use one tensor map per index of " + c.bare(mode) + " (the base address advanced by its stride)";
  return "one step of its TMA dimension is already " + bits_as_bytes(step_bits) + " bytes: use fewer shared pieces for " +
         c.bare(mode) + " or copy the tensor into a denser layout";
}

// Each what_of_* writes d.what and d.fix for the rules of one family and answers whether i.rule
// is one of them (sb: the shared element size in bits).

// Rules of the global tensor: element type, rank, extents, base and strides.
bool what_of_gmem(const PlanIssue& i, [[maybe_unused]] const Ctx& c, [[maybe_unused]] std::int64_t sb,
                  PlanDiagnostic& d) {
  switch (i.rule) {
    case PlanRule::gmem_dtype:
      if (i.value < 0)
        d.what = "DLPack element type (code " + num(-1 - i.value) + ", " + num(i.bits) + " bits, " + num(i.count) +
                 " lanes) has no TMA element type of its width";
      else
        d.what = type_text(i.value) + " cannot be placed by the planner (not a tensor-map data type)";
      d.fix = "use a tensor-map data type (u8, fp8, bf16, f16, f32, f64, 16U4_ALIGN8B, 16U4_ALIGN16B, ...)";
      break;
    case PlanRule::gmem_rank:
      d.what = "the global tensor has " + num(i.value) + " modes (after flattening); the planner takes at most " + num(i.limit);
      d.fix = "coalesce adjacent global modes the tile treats alike (stride(next) = extent * stride)";
      break;
    case PlanRule::gmem_extent:
      d.what = c.name(i.mode) + " has global extent " + num(i.value) + ": extents must be at least 1";
      d.fix = "give " + c.bare(i.mode) + " a positive extent";
      break;
    case PlanRule::gmem_negative_stride:
      d.what = c.name(i.mode) + " has global stride " + num(i.value) + ": TMA strides are unsigned";
      d.fix = "describe the tensor with a positive stride for " + c.bare(i.mode) +
              " (reverse that mode and move the base address to its other end)";
      break;
    case PlanRule::gmem_base_align:
      explain_base_align(i, c, d);
      break;
    case PlanRule::gmem_stride_align: {
      // value = the mode's stride (elements, >= 0), count = the coordinates its TMA dimension steps (>= 1),
      // bytes = its bytes (-1: more than fit in int64). Strides of m elements make whole 16-byte steps; the padded
      // stride must stay below 2^40 bytes. In bits: the packed types count 4 or 6 bits per element in global memory.
      const std::uint64_t stride = static_cast<std::uint64_t>(i.value < 0 ? 0 : i.value);
      const std::uint64_t step = mul_saturated(static_cast<std::uint64_t>(i.count < 1 ? 1 : i.count), static_cast<std::uint64_t>(c.gmem_bits()));
      const std::uint64_t m = 128 / gcd(step % 128, 128);
      const std::uint64_t pad = stride / m * m + (stride % m != 0 ? m : 0);  // stride < 2^63: no wrap
      d.what = c.name(i.mode) + " has global stride " + num(i.value) + " elements" +
               (i.count > 1 ? " (its TMA dimension steps " + num(i.count) + " of them: " : " (") +
               c.stride_bytes(i, step) + " bytes): TMA strides must be multiples of 16 bytes";
      if (pad <= kMaxTmaStride * 8 / step) {
        d.fix = "pad " + c.bare(i.mode) + "'s stride to " + unum(pad) + " elements (" + unum(pad * step / 8) + " bytes)";
        break;
      }
      d.fix = "no stride at or above " + num(i.value) + " elements is legal: the next multiple of 16 bytes, " + unum(pad) +
              " elements, is not below 2^40 bytes, the limit of TMA strides; " + largest_stride_fix(c, i.mode, step, m);
      break;
    }
    case PlanRule::gmem_stride_range: {
      // value = the mode's stride (elements, >= 0), count = the coordinates its TMA dimension steps (>= 1),
      // bytes = its bytes (-1: more than fit in int64), a multiple of 16. The largest legal stride: below 2^40
      // bytes, whole 16-byte steps (in bits, as above).
      const std::uint64_t step = mul_saturated(static_cast<std::uint64_t>(i.count < 1 ? 1 : i.count), static_cast<std::uint64_t>(c.gmem_bits()));
      const std::uint64_t m = 128 / gcd(step % 128, 128);
      d.what = c.name(i.mode) + " has global stride " + num(i.value) + " elements" +
               (i.count > 1 ? " (its TMA dimension steps " + num(i.count) + " of them: " : " (") +
               c.stride_bytes(i, step) + " bytes): TMA strides must be below 2^40 bytes";
      d.fix = largest_stride_fix(c, i.mode, step, m);
      break;
    }
    default: return false;
  }
  return true;
}

// Rules of the tile and the shared layout.
bool what_of_tile_or_smem(const PlanIssue& i, [[maybe_unused]] const Ctx& c, [[maybe_unused]] std::int64_t sb,
                          PlanDiagnostic& d) {
  switch (i.rule) {
    case PlanRule::tile_rank:
      d.what = "the tiler has " + num(i.value) + " entries but the global tensor has " + num(i.limit) + " modes";
      d.fix = "give one entry per global mode, in the global layout's order ('_' = the whole mode, 1 = one index)";
      break;
    case PlanRule::tile_extent:
      d.what = c.name(i.mode) + " has tile extent " + num(i.value) + ": must be at least 1";
      d.fix = "use 1 to take one index of " + c.bare(i.mode) + ", '_' for all of it";
      break;
    case PlanRule::smem_rank: {
      S tiled;
      for (std::int32_t m = 0; m < c.pb.modes; ++m)
        if (c.pb.tile[m] > 1) tiled += (tiled.empty() ? "" : ", ") + c.bare(m);
      d.what = "the shared layout has " + num(i.value) + " top-level modes; the tile spans " + num(i.limit) +
               " global modes (" + tiled + ") of " + num(i.count);
      d.fix = "give the shared layout one top-level mode per tiled mode, in order (" + tiled +
              "), or one per global mode; group pieces of one mode in parentheses" + c.example_smem(", e.g. ", -1);
      break;
    }
    case PlanRule::smem_mode_size:
      // c < 0: a hand-written TileProblem whose pieces make_tile_problem would not have made
      if (i.index == -3) {
        d.what = "a shared piece names global mode " + num(i.mode) + " with extent " + num(i.value) +
                 ": pieces walk one of the tile's modes with extent at least 1";
        d.fix = "give every TileLeaf a mode in 0.." + num(c.pb.modes - 1) + " and a positive extent (make_tile_problem does)";
        break;
      }
      if (i.index == -2) {
        d.what = c.piece(i.mode, i.part) + " steps " + num(i.value) + " coordinates of " + c.bare(i.mode) +
                 ", but the pieces before it span " + num(i.limit) + ": a piece's offset is the product of the extents before it";
        d.fix = "set that TileLeaf's offset to " + num(i.limit) + " (make_tile_problem does)";
        break;
      }
      if (i.index == -1) {
        d.what = "the shared pieces of " + c.name(i.mode) + " multiply to " + num(i.value) + " elements but it spans " + num(i.limit);
        d.fix = "make the pieces of " + c.bare(i.mode) + " multiply to its tile extent " + num(i.limit) +
                " (make_tile_problem does)";
        break;
      }
      d.what = "shared mode " + num(i.index) + " has " + num(i.value) + " elements but " + c.name(i.mode) + " spans " +
               num(i.limit);
      d.fix = "make shared mode " + num(i.index) + "'s shape multiply to " + num(i.limit) + " or change the tile extent of " +
              c.bare(i.mode) + " to " + num(i.value);
      break;
    case PlanRule::smem_swizzle: {
      const SwizzleParams& given = i.swizzle;
      d.what = "shared swizzle " + to_string(given) + " (byte units) is not a pattern TMA writes";
      d.fix = "use " + to_string(swizzle_for(Swizzle::b32)) + " (32B), " + to_string(swizzle_for(Swizzle::b64)) +
              " (64B), " + to_string(swizzle_for(Swizzle::b128)) + " (128B) or none; swizzles here are in BYTE units";
      // The same pattern read in element units (CuTe's convention), converted to bytes.
      const auto as_bytes = byte_swizzle(given, static_cast<std::uint64_t>(i.bytes));
      Swizzle mode{};
      if (i.bytes > 1 && as_bytes.ok() && tma_swizzle_of(as_bytes.value, mode) && mode != Swizzle::none)
        d.fix += " -- in element units for " + num(i.bytes) + "-byte elements (CuTe's convention) this is " +
                 to_string(as_bytes.value) + " in bytes";
      break;
    }
    case PlanRule::smem_overlap:
      if (i.limit > 0) {  // an instruction loop steps less than what is already written below it
        // value = the shared stride (elements), bytes = the step (rounded down below a byte per
        // element: there the step comes from value), limit = the bytes covered
        const std::int64_t need = (i.limit * 8 + sb - 1) / sb;
        const bool whole = sb % 8 == 0;
        d.what = "instructions for " + c.piece(i.mode, i.part) + " (shared stride " + num(i.value) + ") start " +
                 (whole ? num(i.bytes) : bytes_text(i.value, sb)) + " bytes apart, but the box and the instructions below them "
                 "already cover " + num(i.limit) + " bytes: each would overwrite " +
                 (whole ? num(i.limit - i.bytes) : bits_as_bytes(static_cast<std::uint64_t>(i.limit * 8 - i.value * sb))) +
                 " bytes of the one before";
        d.fix = "give " + c.bare(i.mode) + " a shared stride of at least " + num(need) +
                " elements (pad the shared layout)" + c.example_smem(", or a compact layout such as ", -1);
        break;
      }
      if (i.other_mode < 0) {
        d.what = c.piece(i.mode, i.part) + " has shared stride " + num(i.value) +
                 ": TMA writes every element of a box to its own place, at increasing addresses";
        d.fix = "give it a positive stride of its own" + c.example_smem(" (a compact layout such as ", -1, ")");
        break;
      }
      d.what = c.piece(i.mode, i.part) + " and " + c.piece(i.other_mode, i.other_part) +
               " share the shared stride " + num(i.value) + ": two tile elements would land on one place";
      d.fix = "give every shared mode its own stride" + c.example_smem(" (a compact layout such as ", -1, ")");
      break;
    case PlanRule::smem_no_contiguous:
      d.what = "no shared mode has stride 1 (the smallest is " + num(i.value) +
               "): TMA writes the innermost box dimension contiguously";
      d.fix = i.mode >= 0 ? "give " + c.name(i.mode) + ", the mode contiguous in global memory, shared stride 1" +
                                c.example_smem(", e.g. smem ", i.mode)
                          : "give the mode contiguous in global memory shared stride 1";
      break;
    default: return false;
  }
  return true;
}

// Rules of the contiguous inner run, the box and its factors.
bool what_of_inner_box(const PlanIssue& i, [[maybe_unused]] const Ctx& c, [[maybe_unused]] std::int64_t sb,
                       PlanDiagnostic& d) {
  switch (i.rule) {
    case PlanRule::inner_contiguous: {
      d.what = c.piece(i.mode, i.part) + " is contiguous in shared memory but has global stride " + num(i.value) +
               ": TMA's innermost box dimension must be contiguous in global memory";
      if (i.other_mode >= 0)
        d.fix = "make " + c.name(i.other_mode) + " the innermost shared mode (shared stride 1)" +
                c.example_smem(", e.g. smem ", i.other_mode) + ", or group (" + c.bare(i.mode) + ", " +
                c.bare(i.other_mode) + ") so that the contiguous global mode comes first";
      else
        d.fix = "tile a global mode of stride 1 (the tile takes one index of every contiguous mode) or copy the tensor "
                "into a layout with a contiguous mode";
      break;
    }
    case PlanRule::inner_bytes: {
      // value = elements, bytes = their bytes (rounded down), bits = their bits (0 where not given)
      const std::int64_t q = 128 / sb > 0 ? 128 / sb : 1;
      d.what = c.piece(i.mode, i.part) + " is the innermost box dimension with " + num(i.value) + " elements = " +
               (i.bits > 0 ? bits_as_bytes(static_cast<std::uint64_t>(i.bits)) : num(i.bytes)) +
               " bytes: TMA's inner box must be a multiple of 16 bytes";
      d.fix = "make " + c.bare(i.mode) + "'s contiguous extent a multiple of " + num(q) + " elements (e.g. " +
              num((i.value + q - 1) / q * q) + ")";
      break;
    }
    case PlanRule::inner_span: {
      d.what = c.piece(i.mode, i.part) + " is contiguous for " + num(i.value) + " elements (" + bytes_text(i.value, sb) +
               " bytes) in shared memory, wider than the " + num(i.bytes) + "-byte swizzle span (" + num(i.limit) +
               " elements), and " + num(i.value) + " is not a multiple of " + num(i.limit) +
               ": under this swizzle TMA writes rows of at most " + num(i.limit) + " elements";
      S alt;
      for (std::int64_t sp : {64, 32})
        if (sp < i.bytes && (i.value % (sp * 8)) * sb % (sp * 8) == 0) {  // (value * sb) % (sp bits) without the product
          alt = sp == 64 ? to_string(swizzle_for(Swizzle::b64)) + " (64B)" : to_string(swizzle_for(Swizzle::b32)) + " (32B)";
          const std::int64_t e = sp * 8 / sb;
          alt += " with the contiguous mode cut as (" + num(e) + "," + num(i.value / e) + ")";
          break;
        }
      d.fix = (alt.empty() ? S("") : "use " + alt + ", ") + "make " + c.bare(i.mode) + "'s extent a multiple of " +
              num(i.limit) + ", or use no swizzle";
      break;
    }
    case PlanRule::box_split:
      d.what = c.piece(i.mode, i.part) + " spans " + num(i.value) + " elements in one box dimension: TMA boxes hold at most " +
               num(i.limit) + " per dimension and " + num(i.value) + " has no divisor in 2.." + num(i.limit) +
               (i.bytes != 0 ? " whose rows are a multiple of " + num(i.bytes) + " bytes" : "") + " to cut it by";
      d.fix = "use a tile extent for " + c.bare(i.mode) + " with a divisor of at most " + num(i.limit) + " (e.g. a multiple of 64)";
      break;
    case PlanRule::inner_start: {  // retired: the planner no longer reports it (plan/rules.hpp)
      const std::int64_t q = 128 / sb > 0 ? 128 / sb : 1;
      d.what = "the innermost TMA coordinate (" + c.name(i.mode) + ") moves by " + num(i.value) + " elements = " + num(i.bytes) +
               " bytes between tiles or instructions: the hardware faults (illegal instruction, measured on the H200) "
               "unless it moves by multiples of 16 bytes";
      d.fix = "make the tile extent of " + c.bare(i.mode) + " a multiple of " + num(q) + " elements";
      break;
    }
    case PlanRule::factor_divides:
      d.what = "cutting " + c.name(i.mode) + " into one TMA dimension per shared piece needs its global extent " +
               num(i.value) + " to be a multiple of " + num(i.limit) + ", and keeping it whole needs more TMA dimensions or "
               "loops than allowed";
      if (i.value >= 1 && i.limit >= 1) {
        // the cut's outermost TMA dimension gets ceil(extent a / piece b) elements: legal up to 2^32
        const std::uint64_t a = static_cast<std::uint64_t>(i.value), b = static_cast<std::uint64_t>(i.limit);
        const std::uint64_t outer = a / b + (a % b != 0);
        if (outer <= (std::uint64_t{1} << 32)) {
          d.fix = "pad " + c.bare(i.mode) + "'s global extent to " + unum(outer * b) + " or use fewer shared pieces for it";
          break;
        }
        d.fix = "no padding helps: cut this way, " + c.bare(i.mode) + "'s outermost TMA dimension would have " + unum(outer) +
                " elements, more than 2^32; use fewer shared pieces for it, or cover " + c.bare(i.mode) +
                " with several tensor maps of at most " + unum(mul_saturated(b, std::uint64_t{1} << 32)) +
                " elements each";
        break;
      }
      d.fix = "use fewer shared pieces for " + c.bare(i.mode);
      break;
    default: return false;
  }
  return true;
}

// Rules of the hardware limits, multicast, stores and reductions.
bool what_of_limits(const PlanIssue& i, [[maybe_unused]] const Ctx& c, [[maybe_unused]] std::int64_t sb,
                    PlanDiagnostic& d) {
  switch (i.rule) {
    case PlanRule::rank_exceeded:
      d.what = "the plan needs " + num(i.value) + " TMA dimensions (" + num(i.count) + " in the box, the rest for modes the "
               "tile takes one index of): TMA has at most 5";
      d.fix = "index modes fold into one TMA dimension only when they continue each other in memory (stride(batch) "
              "= heads * stride(heads)): lay the tensor out so, view it with fewer modes, or load a larger tile "
              "along one of them";
      break;
    case PlanRule::smem_offset_align:
      // value = the step in bytes (rounded down), limit = the alignment, bits = the step in bits (0 where not given)
      d.what = "instructions for " + c.piece(i.mode, i.part) + " start " +
               (i.bits > 0 ? bits_as_bytes(static_cast<std::uint64_t>(i.bits)) : num(i.value)) +
               " bytes apart in shared memory: every TMA destination must be aligned to " + num(i.limit) +
               " bytes (the swizzle's repeat, and at least 128)";
      d.fix = "make that shared stride a multiple of " + num(i.limit * 8 / sb) + " elements (pad the shared layout), or make "
              "the piece contiguous with the rest of the box";
      break;
    case PlanRule::too_many_loops:
      d.what = "the plan needs more than " + num(i.limit) + " instruction loops";
      d.fix = "make the shared layout closer to what TMA writes (dense, innermost mode first)";
      break;
    case PlanRule::expect_tx_limit:
      d.what = "one stage delivers " + num(i.value) + " bytes; an mbarrier's transaction count holds at most " + num(i.limit);
      d.fix = "use smaller tiles, or split the stage over two barriers";
      break;
    case PlanRule::smem_capacity:
      if (i.mode >= 0)  // one piece's shared stride alone (refused before any plan is built)
        d.what = "one step of " + c.piece(i.mode, i.part) + " moves at least " + num(i.value) +
                 " bytes in shared memory; the architecture has " + num(i.limit) + " per block";
      else
        d.what = "the tile spans " + (i.value < 0 ? "more than " + num(INT64_MAX) : num(i.value)) +  // -1: past int64
                 " bytes of shared memory; the architecture has " + num(i.limit) + " per block";
      d.fix = "use a smaller tile, or smaller shared strides (the span from the first to the last element counts)";
      break;
    case PlanRule::multicast_split:
      d.what = "the tile takes " + num(i.value) + " instructions, which do not split evenly over the " + num(i.limit) +
               " CTAs that share it, and its outermost box dimension cannot be cut into " + num(i.limit) +
               " aligned pieces";
      d.fix = "make the tile's outermost shared mode a multiple of " + num(i.limit) + " pieces of aligned size, or use a "
              "cluster of " + num(i.value) + " CTAs along the multicast dimension";
      break;
    case PlanRule::gmem_dtype_arch:
      // value = the DataType, setting = the Arch
      d.what = type_text(i.value) + " is a packed sub-byte type, which " + name_or_number(static_cast<Arch>(i.setting)) +
               " does not have (the sm_90 driver refuses it; sm_100 and sm_120 have the packed types)";
      d.fix = "plan for --arch sm_100 or sm_120, or use a whole-byte type (u8 holds two 4-bit values)";
      break;
    case PlanRule::multicast_cluster:
      d.what = "cluster of " + num(i.value) + " CTAs" + (i.dim >= 0 ? ", multicast along " + dim_text(i.dim) : std::string()) +
               ": clusters hold 1..16 CTAs (the multicast mask has 16 bits), at least 1 in each dimension, and the "
               "multicast dimension is x, y or z";
      d.fix = "use a cluster of at most 16 CTAs and --multicast-mode x|y|z";
      break;
    case PlanRule::descriptor_invalid: {
      const Rule r = i.descriptor.rule;
      // as in explain(), only the im2col corners are signed (values above 2^63 arrive wrapped)
      const Field f = i.descriptor.field;
      const bool is_signed = f == Field::pixelBoxLowerCorner || f == Field::pixelBoxUpperCorner;
      d.what = "the planned descriptor breaks [" + S(rule_id(r)) + "]: " + S(rule_text(r)) + " (index " + num(i.descriptor.index) +
               ", value " + (is_signed ? num(i.descriptor.value) : unum(static_cast<std::uint64_t>(i.descriptor.value))) + ")";
      d.fix = "check the tile extents against the rule above (e.g. box dimensions 1..256, box within shared memory)";
      break;
    }
    case PlanRule::leaf_capacity:
      d.what = "the shared layout has " + num(i.value) + " pieces; the planner takes at most " + num(i.limit);
      d.fix = "coalesce the shared layout's modes";
      break;
    case PlanRule::store_multicast:
      // value = the direction, dim = the multicast dimension
      d.what = direction_text(i.value) + " cannot multicast (multicast along " + dim_text(i.dim) +
               "): TMA multicast delivers a load to several CTAs; stores and reductions go from one CTA's shared "
               "memory to global memory";
      d.fix = "plan the store without multicast (drop --multicast-mode); each CTA stores its own tile";
      break;
    case PlanRule::store_oob_fill:
      // value = the direction, setting = the OobFill
      d.what = direction_text(i.value) + " takes no out-of-bounds fill (oob " + num(i.setting) +
               "): the fill is what a load writes for elements outside the tensor; a store or reduction skips them";
      d.fix = "plan the store with --oob none (the default)";
      break;
    case PlanRule::coord_range:  // value: the coordinate (int64), index: the instruction, dim: the TMA dimension
      d.what = "instruction " + num(i.index) + " at this tile coordinate has TMA coordinate " + num(i.value) + " in dimension " +
               num(i.dim) + ": TMA coordinates are signed 32-bit";
      d.fix = "give a tile coordinate inside the tensor (coordinates times the tile extents below 2^31)";
      break;
    case PlanRule::box_pieces:
      d.what = "the box's outermost dimension (" + num(i.value) + " elements) cannot be cut into " + num(i.limit) +
               " equal copies whose shared destinations keep the alignment the swizzle needs";
      d.fix = "ask for a number of pieces that divides the outermost box extent into aligned slices (1: one copy "
              "per box)";
      break;
    case PlanRule::reduce_dtype: {
      if (i.value < 0) {  // setting = a direction value outside PlanDirection
        d.what = "direction " + num(i.setting) + " is not load, store or reduce";
        d.fix = "set PlanOptions::direction to PlanDirection::load, store or reduce";
        break;
      }
      // value = the op, setting = the element type, limit = the ops that type takes (bit per ReduceOp)
      S ops;
      for (std::uint32_t o = 0; o < kReduceOpCount; ++o)
        if ((static_cast<std::uint64_t>(i.limit) >> o) & 1u) ops += (ops.empty() ? "" : ", ") + S(".") + reduce_op_name(static_cast<ReduceOp>(o));
      const bool known = i.value < static_cast<std::int64_t>(kReduceOpCount);
      d.what = (known ? "cp.reduce.async.bulk.tensor" + op_text(i.value) + " does not take " + type_text(i.setting)
                      : op_text(i.value) + " is none of cp.reduce.async.bulk.tensor's ops") +
               " (PTX ISA: .add u32 s32 u64 f32 f16 bf16; .min/.max u32 s32 u64 s64 f16 bf16; .inc/.dec u32; "
               ".and/.or/.xor 32- and 64-bit integers); " + type_text(i.setting) + " takes " +
               (ops.empty() ? S("no reduction") : ops);
      d.fix = ops.empty() ? "store " + type_text(i.setting) + " tiles with a plain store, or reduce in a type the op takes (e.g. "
                            "f32 for .add, u32 for .inc)"
                          : "use one of " + ops + " on " + type_text(i.setting) + ", or a type " + op_text(i.value) + " takes";
      break;
    }
    default: return false;
  }
  return true;
}

// One refusal in words: the rule id, the tile piece it concerns, what is wrong and the fix (the
// first writer that knows the rule).
PlanDiagnostic diagnose_issue(const PlanIssue& i, const Ctx& c) {
  PlanDiagnostic d;
  d.rule_id = rule_id(i.rule);
  d.where = i.mode >= 0 ? c.piece(i.mode, i.part) : "";
  const std::int64_t sb = c.smem_bits();
  for (auto what : {what_of_gmem, what_of_tile_or_smem, what_of_inner_box, what_of_limits})
    if (what(i, c, sb, d)) break;
  return d;
}

}  // namespace

std::vector<PlanDiagnostic> explain_plan(const PlanIssues& issues, const TileProblem& problem,
                                         const std::vector<std::string>& names) {
  std::vector<PlanDiagnostic> out;
  const Ctx c{problem, names};
  for (const PlanIssue& i : issues) out.push_back(diagnose_issue(i, c));
  if (issues.truncated) {
    PlanDiagnostic d;
    d.rule_id = "plan.truncated";
    d.what = "more refusals than " + std::to_string(PlanIssues::kCapacity) + "; the rest are not listed";
    d.fix = "fix the ones above first";
    out.push_back(d);
  }
  return out;
}

}  // namespace tmakit
