// explain(): violations in words, each with a concrete fix computed from the actual values.
#include "tmakit/tensor_map/explain.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {
namespace {

using u64 = std::uint64_t;
using i64 = std::int64_t;

std::string num(u64 v) { return std::to_string(v); }
std::string num(i64 v) { return std::to_string(v); }
std::string num(std::uint32_t v) { return std::to_string(v); }
std::string num(std::int32_t v) { return std::to_string(v); }


// Without wrapping around: the values come from the caller's parameters, up to 2^64 - 1 (a
// dimension of 2^64 - 1 once made ceil_div 0 and the split search divide by it).
u64 ceil_div(u64 a, u64 b) { return a / b + (a % b != 0); }
constexpr u64 kU64Max = ~u64{0};
// The least multiple of m at or above v; kU64Max when that does not fit in 64 bits.
u64 round_up(u64 v, u64 m) {
  const u64 q = ceil_div(v, m);
  return q > kU64Max / m ? kU64Max : q * m;
}
u64 round_down(u64 v, u64 m) { return v / m * m; }
u64 mul_saturated(u64 a, u64 b) { return b != 0 && a > kU64Max / b ? kU64Max : a * b; }
u64 gcd(u64 a, u64 b) {
  while (b) {
    const u64 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// "2 bytes", "4 bits": the size of one element in shared memory.
std::string element_size_words(DataType t) {
  const u64 bits = smem_element_bits(t);
  return bits % 8 == 0 ? num(bits / 8) + (bits == 8 ? " byte" : " bytes") : num(bits) + " bits";
}

std::string bytes_of(u64 elems, u64 bits) {
  const u64 b = elems * bits;
  if (b % 8 == 0) return num(b / 8);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f", double(b) / 8.0);
  return buf;
}

const char* arch_name(Arch a) {
  const char* n = name_of(a);
  return n ? n : "this architecture";
}

// "UINT8 (0), UINT16 (1), ..." for an enum set with values 0..count-1.
std::string valid_values(NameSet set, std::uint32_t count) {
  std::string s;
  for (std::uint32_t v = 0; v < count; ++v) {
    if (!s.empty()) s += ", ";
    const char* n = canonical_name(set, v);
    s += std::string(n ? n : "?") + " (" + std::to_string(v) + ")";
  }
  return s;
}

std::string enum_value(NameSet set, std::uint32_t v) {
  const char* n = canonical_name(set, v);
  return n ? std::string(n) : std::to_string(v);
}

std::string list(const std::uint32_t* a, std::uint32_t n) {
  std::string s = "{";
  for (std::uint32_t i = 0; i < n; ++i) s += (i ? ", " : "") + num(a[i]);
  return s + "}";
}

std::uint32_t clamp_rank(std::uint32_t r) { return r > kMaxRank ? kMaxRank : r; }

// Smallest sm_90 swizzle whose span holds `bytes` (0 when none does).
const char* swizzle_for(u64 bytes) {
  const char* best = nullptr;
  u64 best_span = 0;
  for (std::uint32_t v = 0; v < kSwizzleCount; ++v) {
    const SwizzleMode m = swizzle_mode_row(static_cast<Swizzle>(v));
    if (m.span_bytes == 0 || m.hw_atomicity != 0 || m.span_bytes < bytes) continue;
    if (!best || m.span_bytes < best_span) best = m.name, best_span = m.span_bytes;
  }
  return best;
}

// Nearest legal values of an element count whose byte size must be a multiple of 16.
std::string inner16_fix(const char* what, std::uint32_t n, DataType t, std::uint32_t max_n) {
  const u64 bits = smem_element_bits(t);
  const u64 gran = 128 / gcd(128, bits);  // elements per 16-byte step
  const u64 up = round_up(n, gran), down = round_down(n, gran);
  std::string s = "use " + std::string(what) + " = ";
  if (up <= max_n) {
    s += num(up);
    if (down >= 1) s += " (or " + num(down) + ")";
  } else {
    s += num(down);
  }
  return s + ": a multiple of " + num(gran) + " " + short_dtype_name(t) + " elements (16 bytes)";
}

struct Words {
  std::string field, value, rule, fix;
};

// What a fix is written from: the parameters, the violation, and the values most rules need.
struct FixFacts {
  const TensorMapParams& p;
  const Violation<Rule>& x;
  std::uint32_t rank;  // clamped to 1..5
  int i;               // the violating field's index
  DataType t;
  u64 ebits, limit;    // bits per element in shared memory, shared-memory bytes of the architecture
};

// Each fix_* writes w.fix (and w.value, where the rule shows another value) for the rules of one
// family, and answers whether x.rule is one of them.

// Rules of an enum value out of range, the architecture, the rank.
bool fix_enum_or_rank(const FixFacts& f, Words& w) {
  [[maybe_unused]] const auto& [p, x, rank, i, t, ebits, limit] = f;
  switch (x.rule) {
    case Rule::arch_supported:
      w.value = num(static_cast<std::uint32_t>(p.arch));
      w.fix = "target sm_90 (Hopper), sm_100 or sm_120 (Blackwell); tensor maps need compute capability 9.0 or later";
      break;
    case Rule::kind_range:
      w.value = num(static_cast<std::uint32_t>(p.kind));
      w.fix = "use tiled (cuTensorMapEncodeTiled), im2col (cuTensorMapEncodeIm2col) or im2col_wide "
              "(cuTensorMapEncodeIm2colWide)";
      break;
    case Rule::dtype_range:
      w.fix = "use one of " + valid_values(NameSet::data_type, kDataTypeCount);
      break;
    case Rule::interleave_range: w.fix = "use one of " + valid_values(NameSet::interleave, kInterleaveCount); break;
    case Rule::swizzle_range: w.fix = "use one of " + valid_values(NameSet::swizzle, kSwizzleCount); break;
    case Rule::l2_promotion_range: w.fix = "use one of " + valid_values(NameSet::l2_promotion, kL2PromotionCount); break;
    case Rule::oob_fill_range: w.fix = "use one of " + valid_values(NameSet::oob_fill, kOobFillCount); break;
    case Rule::wide_mode_range: w.fix = "use one of " + valid_values(NameSet::wide_mode, kIm2colWideModeCount); break;

    case Rule::rank_range:
      if (p.rank == 0) {
        w.fix = "give the tensor at least one dimension (tensorRank 1..5; a scalar is a rank-1 tensor of 1 element)";
      } else {
        w.fix = "merge " + num(p.rank - kMaxRank) + " pair(s) of adjacent contiguous dimensions (dims i and i+1 "
                "merge when globalStrides[i] = globalDim[i] x globalStrides[i-1]) to reach tensorRank 5, or split "
                "the copy into several maps";
      }
      break;
    case Rule::rank_im2col_range: {
      // (C, N) -> (C, 1, N); (C) -> (C, 1, 1): singleton spatial dimensions go before N.
      const std::string d0 = p.rank >= 1 ? num(p.dims[0]) : "C";
      const std::string n = p.rank >= 2 ? num(p.dims[p.rank - 1]) : "1";
      w.fix = "an im2col map is (C, W[, H[, D]], N): add a singleton spatial dimension to reach tensorRank 3, e.g. "
              "globalDim = {" + d0 + ", 1, " + n + "}";
      break;
    }
    case Rule::rank_interleave_min3:
      w.fix = "use interleave NONE, or add " + num(3 - p.rank) +
              " singleton dimension(s) (globalDim 1) to reach tensorRank 3";
      break;
    default: return false;
  }
  return true;
}

// Rules of the global address.
bool fix_address(const FixFacts& f, Words& w) {
  [[maybe_unused]] const auto& [p, x, rank, i, t, ebits, limit] = f;
  switch (x.rule) {
    case Rule::address_align16:
    case Rule::address_align32: {
      const u64 a = static_cast<u64>(x.value);
      const u64 al = x.rule == Rule::address_align16 ? 16 : 32;
      w.value = hex_text(a);
      const u64 down = round_down(a, al);
      w.fix = "move the base to " + hex_text(down) + " (" + num(a - down) + " bytes lower)" +
              (down <= kU64Max - al ? " or " + hex_text(down + al) : std::string()) +
              " and offset the coordinates instead; cudaMalloc returns 256-byte-aligned pointers";
      if (al == 32)
        w.fix += std::string(" (32 bytes are needed because of ") +
                 (p.interleave == Interleave::b32 ? "interleave 32B)" : short_dtype_name(t) + std::string(")"));
      break;
    }
    case Rule::address_below_2_57: {
      const u64 a = static_cast<u64>(x.value);
      w.value = hex_text(a);
      w.fix = "pass the device pointer itself: bits 57-63 are set (" + hex_text(a >> 57 << 57) +
              "), which no CUDA allocation returns (tagged, sign-extended or uninitialised pointer?); the low 57 "
              "bits are " + hex_text(a & ((u64{1} << 57) - 1));
      break;
    }
    default: return false;
  }
  return true;
}

// Rules of the global extents and strides.
bool fix_dims_or_strides(const FixFacts& f, Words& w) {
  [[maybe_unused]] const auto& [p, x, rank, i, t, ebits, limit] = f;
  switch (x.rule) {
    case Rule::dims_range: {
      const u64 d = static_cast<u64>(x.value);
      if (d == 0) {
        w.fix = "use globalDim[" + num(i) + "] = 1 for a singleton dimension; a dimension of 0 elements cannot be "
                "described (skip the copy)";
      } else {
        const u64 lo = ceil_div(d, u64{1} << 32);
        u64 split = 0;
        for (u64 f = lo; f < lo + (u64{1} << 20) && f <= (u64{1} << 32); ++f)
          if (d % f == 0 && d / f <= (u64{1} << 32)) {
            split = f;
            break;
          }
        if (split)
          w.fix = "split dimension " + num(i) + " into two dimensions {" + num(d / split) + ", " + num(split) +
                  "} (" + num(d / split) + " x " + num(split) + " = " + num(d) + ", each at most 2^32)";
        else
          w.fix = "use " + num(lo) + " tensor maps of at most 4294967296 elements each along dimension " + num(i);
      }
      break;
    }
    case Rule::dims_packed_multiple_of_128:
    case Rule::dims_packed_multiple_of_2: {
      // validate() reports these only for dimensions 1..2^32, whose next multiple is <= 2^32 too; a
      // list from elsewhere may hold any dimension, and a padding beyond 2^32 is no legal value.
      const u64 m = x.rule == Rule::dims_packed_multiple_of_128 ? 128 : 2;
      const u64 up = round_up(p.dims[0], m);
      if (up > (u64{1} << 32)) {
        w.fix = "globalDim[0] = " + num(p.dims[0]) + " is itself above 2^32, the largest dimension (dims.range): "
                "split it into dimensions of at most 2^32 whose innermost is a multiple of " + num(m);
      } else if (m == 128) {
        w.fix = "pad globalDim[0] to " + num(up) + " (the next multiple of 128 " + short_dtype_name(t) +
                " values) and the rows accordingly";
      } else {
        w.fix = "pad globalDim[0] to " + num(up) + " (4-bit values come in pairs of one byte)";
      }
      break;
    }

    case Rule::strides_align16:
    case Rule::strides_align32: {
      const u64 s = static_cast<u64>(x.value);
      const u64 al = x.rule == Rule::strides_align16 ? 16 : 32;
      const std::string what = i == 0 ? "the row pitch" : "globalStrides[" + num(i) + "]";
      const u64 up = round_up(s, al), down = round_down(s, al);
      if (up < (u64{1} << 40)) {
        w.fix = "pad " + what + " to " + num(up) + " bytes";
        // Offer the smaller multiple only when it still holds the data it must span.
        const u64 needed = i == 0 ? (is_valid(t) ? ceil_div(mul_saturated(p.dims[0], element_bits(t)), 8) : s)
                                  : mul_saturated(p.strides[i - 1], p.dims[i]);
        if (down >= al && down >= needed) w.fix += " (or " + num(down) + ")";
      } else if (down < (u64{1} << 40)) {
        w.fix = "use " + num(down) + " bytes for " + what + " (" + num(up) + " would reach 2^40)";
      } else {
        w.fix = "use a multiple of " + num(al) + " bytes below 2^40 for " + what + " (this one is also above the "
                "largest legal stride)";
      }
      if (al == 32)
        w.fix += std::string("; 32-byte multiples are needed because of ") +
                 (p.interleave == Interleave::b32 ? "interleave 32B" : short_dtype_name(t));
      break;
    }
    case Rule::strides_below_2_40:
      w.fix = "the largest legal stride is 1099511627760 bytes (2^40 - 16): split dimension " + num(i + 1) +
              " into several tensor maps (advance the base address by globalStrides[" + num(i) + "] per slice)";
      break;
    default: return false;
  }
  return true;
}

// Rules of the box, its shared-memory footprint and its swizzle span.
bool fix_box_or_swizzle(const FixFacts& f, Words& w) {
  [[maybe_unused]] const auto& [p, x, rank, i, t, ebits, limit] = f;
  switch (x.rule) {
    case Rule::box_range:
      if (x.value == 0) {
        w.fix = "use boxDim[" + num(i) + "] >= 1";
      } else {
        const u64 b = static_cast<u64>(x.value);
        const u64 n = ceil_div(b, 256);
        w.fix = "use at most 256: e.g. " + num(n) + " copies of boxDim[" + num(i) + "] = " + num(ceil_div(b, n));
      }
      break;
    case Rule::box_inner_bytes_multiple_of_16:
      w.value = num(p.box[0]) + " (" + bytes_of(p.box[0], ebits) + " bytes of " + short_dtype_name(t) + ")";
      w.fix = inner16_fix("boxDim[0]", p.box[0], t, 256);
      break;
    case Rule::box_packed_inner_128: w.fix = "set boxDim[0] = 128 (" + short_dtype_name(t) + " copies rows of 128 values)"; break;
    case Rule::box_smem_footprint: {
      std::uint32_t counts[kMaxRank] = {};
      for (std::uint32_t k = 0; k < rank; ++k) counts[k] = p.elem_strides[k] ? p.box[k] / p.elem_strides[k] : 0;
      w.value = list(p.box, rank) + " (" + num(static_cast<u64>(x.value)) + " bytes)";
      w.rule = "the box's shared-memory footprint, element size x prod(floor(boxDim[i] / elementStrides[i])), must "
               "not exceed " + num(limit) + " bytes (" + num(limit / 1024) + " KiB, the shared memory of one " +
               arch_name(p.arch) + " SM)";
      // Shrink the outermost dimension that can absorb the excess on its own.
      std::string fix;
      for (int k = static_cast<int>(rank) - 1; k >= 0 && fix.empty(); --k) {
        u64 others_bits = ebits;
        for (std::uint32_t m = 0; m < rank; ++m)
          if (static_cast<int>(m) != k) others_bits *= counts[m];
        if (others_bits == 0) continue;
        const u64 max_count = limit * 8 / others_bits;
        if (max_count >= 1 && max_count < counts[k]) {
          const u64 max_box = std::min<u64>(256, max_count * p.elem_strides[k] + p.elem_strides[k] - 1);
          fix = "reduce boxDim[" + num(k) + "] from " + num(p.box[k]) + " to at most " + num(max_box) + " (footprint " +
                num(others_bits * (max_box / p.elem_strides[k]) / 8) + " bytes) and issue more copies";
        }
      }
      w.fix = fix.empty() ? "reduce the box so that the footprint fits in " + num(limit) + " bytes and issue more copies"
                          : fix;
      break;
    }
    case Rule::swizzle_inner_box_span: {
      const bool tiled = x.field == Field::boxDim;
      const std::uint32_t n = tiled ? p.box[0] : p.channels;
      const u64 inner = n * ebits / 8;
      const u64 span = swizzle_span_bytes(p.swizzle);
      const u64 fit = span * 8 / ebits;
      const char* what = tiled ? "boxDim[0]" : "channelsPerPixel";
      w.value = num(n) + " (" + bytes_of(n, ebits) + " bytes of " + short_dtype_name(t) + ")";
      w.rule = "the inner box dimension, " + bytes_of(n, ebits) + " bytes, must not exceed the " + num(span) +
               "-byte span of swizzle " + enum_value(NameSet::swizzle, static_cast<std::uint32_t>(p.swizzle));
      if (const char* sw = swizzle_for(inner)) {
        w.fix = "use swizzle " + std::string(sw) + " or a box of at most " + num(fit) + " " + short_dtype_name(t) +
                " elements (" + what + " <= " + num(fit) + ")";
      } else {
        const u64 fit128 = 128 * 8 / ebits;
        w.fix = std::string("use ") + what + " <= " + num(fit128) + " " + short_dtype_name(t) + " elements with swizzle 128B (" +
                num(ceil_div(inner, 128)) + " copies per row), or swizzle NONE";
      }
      break;
    }
    default: return false;
  }
  return true;
}

// Rules of fields that exclude each other or need another architecture.
bool fix_combination(const FixFacts& f, Words& w) {
  [[maybe_unused]] const auto& [p, x, rank, i, t, ebits, limit] = f;
  switch (x.rule) {
    case Rule::elem_strides_range:
      w.fix = x.value == 0 ? "use elementStrides[" + num(i) + "] = 1 (no striding)"
                           : "use a traversal stride of at most 8; for a step of " + num(static_cast<i64>(x.value)) +
                                 " describe dimension " + num(i) + " as two dimensions {" +
                                 num(static_cast<i64>(x.value)) + ", globalDim[" + num(i) + "] / " +
                                 num(static_cast<i64>(x.value)) + "} and load a box of 1 along the inner one";
      break;

    case Rule::interleave_u6_requires_none:
      w.value = enum_value(NameSet::interleave, static_cast<std::uint32_t>(p.interleave));
      w.fix = "use interleave NONE with 16U6_ALIGN16B";
      break;
    case Rule::swizzle_interleave32_requires_32b:
      w.value = enum_value(NameSet::swizzle, static_cast<std::uint32_t>(p.swizzle));
      w.fix = "use swizzle 32B with interleave 32B (or interleave NONE / 16B)";
      break;
    case Rule::swizzle_u6_modes:
      w.value = enum_value(NameSet::swizzle, static_cast<std::uint32_t>(p.swizzle));
      w.fix = "use swizzle NONE, 128B or 128B_ATOM_32B with 16U6_ALIGN16B (128B_ATOM_64B: stores only)";
      break;
    case Rule::swizzle_u4_align16b_modes:
      w.value = enum_value(NameSet::swizzle, static_cast<std::uint32_t>(p.swizzle));
      w.fix = "use swizzle NONE, 128B or 128B_ATOM_32B with 16U4_ALIGN16B (loads only)";
      break;
    case Rule::swizzle_im2col_wide_modes:
      w.value = enum_value(NameSet::swizzle, static_cast<std::uint32_t>(p.swizzle));
      w.fix = "use swizzle 64B, 128B or 128B_ATOM_32B for im2col_wide";
      break;
    case Rule::oob_fill_requires_float:
      w.value = enum_value(NameSet::oob_fill, static_cast<std::uint32_t>(p.oob));
      w.fix = std::string("use oobFill NONE (zero fill) with ") + enum_value(NameSet::data_type, static_cast<std::uint32_t>(t)) +
              "; the NaN fill needs FLOAT16/FLOAT32/FLOAT64/BFLOAT16/FLOAT32_FTZ/TFLOAT32/TFLOAT32_FTZ";
      break;

    case Rule::dtype_packed_requires_sm100: {
      w.value = enum_value(NameSet::data_type, static_cast<std::uint32_t>(t));
      const u64 gbits = element_bits(t);
      w.fix = "this type needs --arch sm_100 or later; on " + std::string(arch_name(p.arch)) +
              " describe the packed bytes as UINT8";
      // dims[0] * gbits / 8 without the product (dims[0] near 2^64 wrapped it), offered only when it
      // is a whole number of bytes and a legal dimension
      const u64 d0 = rank >= 1 ? p.dims[0] : 0, rest_bits = d0 % 8 * gbits;
      if (d0 >= 1 && rest_bits % 8 == 0) {
        const u64 bytes = d0 / 8 * gbits + rest_bits / 8;  // < 2^61 * 6 + 6: no wrap
        if (bytes <= (u64{1} << 32)) w.fix += " (globalDim[0] = " + num(bytes) + " bytes)";
      }
      w.fix += " and unpack in the kernel";
      break;
    }
    case Rule::swizzle_atom_requires_sm100:
      w.value = enum_value(NameSet::swizzle, static_cast<std::uint32_t>(p.swizzle));
      w.fix = "this swizzle needs --arch sm_100 or later; on " + std::string(arch_name(p.arch)) +
              " use swizzle 128B (16-byte atoms)";
      break;
    default: return false;
  }
  return true;
}

// Rules of im2col's corners, channels and pixels.
bool fix_im2col(const FixFacts& f, Words& w) {
  [[maybe_unused]] const auto& [p, x, rank, i, t, ebits, limit] = f;
  switch (x.rule) {
    case Rule::im2col_lower_corner_range:
    case Rule::im2col_upper_corner_range: {
      const i64 lim = tmap_fields::corner_limit(rank);
      const i64 c = std::clamp<i64>(x.value, -lim, lim - 1);
      w.rule = "must be within [" + num(-lim) + ", " + num(lim - 1) + "] for a rank-" + num(rank) + " " +
               (p.kind == MapKind::im2col_wide ? "im2col_wide" : "im2col") + " map";
      w.fix = "use " + w.field + " = " + num(c) + " (the nearest legal value)";
      if (p.kind == MapKind::im2col_wide && rank > 3)
        w.fix += "; the sm_90 driver limits im2col_wide corners like im2col ones, not to the 16-bit range cuda.h gives";
      break;
    }
    case Rule::im2col_box_nonempty: {
      const std::uint32_t off = p.interleave == Interleave::none ? 1 : 0;
      const std::uint32_t k = static_cast<std::uint32_t>(i) + off;
      const u64 d = p.dims[k];
      const i64 lo = p.lower[i], up = p.upper[i];
      w.rule = "the pixel box along globalDim[" + num(k) + "] must be non-empty: pixelBoxLowerCorner[" + num(i) +
               "] < globalDim[" + num(k) + "] + pixelBoxUpperCorner[" + num(i) + "] (32-bit arithmetic)";
      if (d >= (u64{1} << 31)) {
        const i64 wrapped = static_cast<std::int32_t>(static_cast<std::uint32_t>(d + static_cast<u64>(up)));
        w.fix = "globalDim[" + num(k) + "] + pixelBoxUpperCorner[" + num(i) + "] = " + num(static_cast<i64>(d) + up) +
                " wraps to " + num(wrapped) + " in the driver's 32-bit check: keep spatial dimensions below "
                "2147483648 (2^31; fold the excess into N)";
      } else {
        const i64 di = static_cast<i64>(d);
        w.fix = "globalDim[" + num(k) + "] + upper - lower = " + num(di + up - lo) + ": raise pixelBoxUpperCorner[" +
                num(i) + "] to at least " + num(lo - di + 1) + " or lower pixelBoxLowerCorner[" + num(i) +
                "] to at most " + num(di + up - 1);
      }
      break;
    }
    case Rule::im2col_wide_spatial_dim_below_2_31:
      w.fix = "keep globalDim[" + num(i) + "] below 2147483648 (2^31): fold the excess into the batch dimension N "
              "(globalDim[" + num(rank - 1) + "])";
      break;
    case Rule::im2col_channels_range:
      if (x.value == 0) {
        w.fix = "use channelsPerPixel >= 1";
      } else {
        const u64 c = static_cast<u64>(x.value);
        const u64 n = ceil_div(c, 256);
        w.fix = "use at most 256: e.g. " + num(n) + " copies of channelsPerPixel = " + num(ceil_div(c, n));
      }
      break;
    case Rule::im2col_channels_bytes_multiple_of_16:
      w.value = num(p.channels) + " (" + bytes_of(p.channels, ebits) + " bytes of " + short_dtype_name(t) + ")";
      w.fix = inner16_fix("channelsPerPixel", p.channels, t, 256);
      break;
    case Rule::im2col_channels_packed_128: w.fix = "set channelsPerPixel = 128"; break;
    case Rule::im2col_pixels_range:
      if (x.value == 0) {
        w.fix = "use pixelsPerColumn >= 1";
      } else {
        const u64 px = static_cast<u64>(x.value);
        const u64 n = ceil_div(px, 1024);
        w.fix = "use at most 1024: e.g. " + num(n) + " copies of pixelsPerColumn = " + num(ceil_div(px, n));
        if (p.kind == MapKind::im2col_wide && p.wide_mode == Im2colWideMode::w128)
          w.fix += " (the sm_90 driver checks pixelsPerColumn in W128 mode too)";
      }
      break;
    case Rule::im2col_smem_footprint: {
      const u64 bytes = static_cast<u64>(x.value);
      w.value = num(p.pixels) + " (" + num(p.channels) + " channels x " + num(p.pixels) + " pixels x " +
                element_size_words(t) + " = " + num(bytes) + " bytes)";
      w.rule = "the shared-memory footprint, element size x channelsPerPixel x pixelsPerColumn, must not exceed " +
               num(limit) + " bytes (" + num(limit / 1024) + " KiB, the shared memory of one " + arch_name(p.arch) +
               " SM)";
      const u64 max_px = p.channels ? limit * 8 / (u64{p.channels} * ebits) : 0;
      w.fix = "reduce pixelsPerColumn to at most " + num(max_px);
      const u64 max_ch = p.pixels ? limit * 8 / (u64{p.pixels} * ebits) : 0;
      const u64 gran = 128 / gcd(128, ebits);
      if (round_down(max_ch, gran) >= 1) w.fix += " or channelsPerPixel to at most " + num(round_down(max_ch, gran));
      break;
    }
    default: return false;
  }
  return true;
}

// One violation in words: the field with its index, the offending value, the rule and its fix
// (the first fix writer that knows the rule).
Words describe_violation(const TensorMapParams& p, const Violation<Rule>& x) {
  Words w;
  w.field = indexed_name(field_name(x.field), x.index);
  // The corners are signed; every other value is unsigned (Violation::value holds values above 2^63
  // wrapped to negative numbers).
  const bool is_signed = x.field == Field::pixelBoxLowerCorner || x.field == Field::pixelBoxUpperCorner;
  w.value = is_signed ? num(static_cast<i64>(x.value)) : num(static_cast<u64>(x.value));
  w.rule = rule_text(x.rule);
  const FixFacts f{p, x, clamp_rank(p.rank), x.index, p.dtype, is_valid(p.dtype) ? smem_element_bits(p.dtype) : 8,
                  smem_limit_bytes(p.arch)};
  for (auto fix : {fix_enum_or_rank, fix_address, fix_dims_or_strides, fix_box_or_swizzle, fix_combination, fix_im2col})
    if (fix(f, w)) break;
  return w;
}

}  // namespace

Diagnostic make_diagnostic(std::string rule_id, std::string field, std::string value, std::string rule, std::string fix) {
  Diagnostic d;
  d.rule_id = std::move(rule_id);
  std::string head = field;
  if (!value.empty()) head += (head.empty() ? "= " : " = ") + value;
  d.what = what_at(head, rule);
  d.where = std::move(field);
  d.fix = std::move(fix);
  d.value = std::move(value);
  d.rule = std::move(rule);
  return d;
}

std::vector<Diagnostic> explain(const TensorMapParams& p, const Violations& v) {
  std::vector<Diagnostic> out;
  out.reserve(static_cast<std::size_t>(v.count) + 1);
  for (const Violation<Rule>& x : v) {
    Words w = describe_violation(p, x);
    out.push_back(make_diagnostic(rule_id(x.rule), std::move(w.field), std::move(w.value), std::move(w.rule), std::move(w.fix)));
  }
  if (v.truncated)
    out.push_back(make_diagnostic("violations.truncated", "", "",
                                  "more than " + std::to_string(v.count) + " violations; the rest are not listed",
                                  "fix the ones above and validate again"));
  return out;
}

}  // namespace tmakit
