// F2 linear layouts (as Triton's linear layouts): a map from input bits to output bits that is
// linear over GF(2): the image of an input is the XOR of the images ("basis vectors") of its set bits.
//
// Inputs and outputs are named dimensions of 2^bits values each (e.g. lane: 5 bits, register: 3 bits
// -> offset: 13 bits). Input bits are numbered by concatenating the input dimensions in order (dim 0
// lowest); output bits likewise; basis[k] holds the packed output bits of input bit k. Everything is
// constexpr and TMAKIT_HD; at most 4 dimensions a side and 64 bits a side.
//
// Where power-of-two reasoning is simpler than the CuTe algebra: a swizzle is linear (XOR), so a
// swizzled shared-memory tile composed with a thread->element map is still one matrix; inverses are
// Gaussian elimination; the widest vector is the number of leading register bits that map to the
// leading offset bits; bank conflicts follow from the lane bits' images (shared_wavefronts below).
//
//   linear_from_layout((4,8):(8,1))      index (5 bits) -> offset: basis 8,16,1,2,4
//   linear_from_swizzle(Sw<3,4,3>, 10)   offset -> offset: identity, plus bits 7,8,9 also flip 4,5,6
// Names are at most LinearDim::kMaxName characters: every constructor that takes a name refuses a
// longer one (layout.capacity) rather than truncating it.
#pragma once

#include <cstdint>

#include "tmakit/core/bits.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/core/smem_banks.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/diagnostic.hpp"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/layout/swizzled_layout.hpp"

namespace tmakit {

struct LinearDim {
  static constexpr int kMaxName = 11;  // characters; linear_from_layout refuses longer names
  char name[12] = {};
  int bits = 0;

  // Whether this dimension is called n (the full name: a longer n never matches).
  TMAKIT_HD constexpr bool named(const char* n) const {
    for (int i = 0; i < 12; ++i) {
      if (name[i] != n[i]) return false;
      if (n[i] == 0) return true;
    }
    return false;
  }
  friend TMAKIT_HD constexpr bool operator==(const LinearDim& a, const LinearDim& b) {
    if (a.bits != b.bits) return false;
    for (int i = 0; i < 12; ++i)
      if (a.name[i] != b.name[i]) return false;
    return true;
  }
};

// Characters in name, or kMaxName + 1 when it is longer than a LinearDim holds.
TMAKIT_HD constexpr int linear_name_length(const char* name) {
  int n = 0;
  while (n <= LinearDim::kMaxName && name[n] != 0) ++n;
  return n;
}
using LinearDimResult = LayoutOpResult<LinearDim>;

// A dimension called `name` of 2^bits values. Refused (nothing is truncated): a name longer than
// LinearDim::kMaxName characters (layout.capacity, a = kMaxName, b = 0) or more than 64 bits
// (layout.capacity, a = 64, b = bits), as linear_from_layout refuses them.
TMAKIT_HD constexpr LinearDimResult linear_dim(const char* name, int bits) {
  if (linear_name_length(name) > LinearDim::kMaxName)
    return {LinearDim{}, make_diagnostic(LayoutRule::capacity, -1, LinearDim::kMaxName)};
  if (bits > 64) return {LinearDim{}, make_diagnostic(LayoutRule::capacity, -1, 64, bits)};
  LinearDim d;
  for (int i = 0; name[i] != 0; ++i) d.name[i] = name[i];
  d.bits = bits;
  return {d, {}};
}

TMAKIT_HD constexpr std::uint64_t low_mask(int bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

struct LinearLayout {
  static constexpr int kMaxDims = 4;
  static constexpr int kMaxBits = 64;

  LinearDim in[kMaxDims] = {};
  int n_in = 0;
  LinearDim out[kMaxDims] = {};
  int n_out = 0;
  std::uint64_t basis[kMaxBits] = {};  // basis[k]: packed output bits of input bit k

  TMAKIT_HD constexpr int in_bits() const {
    int b = 0;
    for (int i = 0; i < n_in; ++i) b += in[i].bits;
    return b;
  }
  TMAKIT_HD constexpr int out_bits() const {
    int b = 0;
    for (int i = 0; i < n_out; ++i) b += out[i].bits;
    return b;
  }
  // First packed bit of input / output dimension d.
  TMAKIT_HD constexpr int in_offset(int d) const {
    int b = 0;
    for (int i = 0; i < d; ++i) b += in[i].bits;
    return b;
  }
  TMAKIT_HD constexpr int out_offset(int d) const {
    int b = 0;
    for (int i = 0; i < d; ++i) b += out[i].bits;
    return b;
  }
  TMAKIT_HD constexpr int in_index(const char* name) const {
    for (int i = 0; i < n_in; ++i)
      if (in[i].named(name)) return i;
    return -1;
  }
  TMAKIT_HD constexpr int out_index(const char* name) const {
    for (int i = 0; i < n_out; ++i)
      if (out[i].named(name)) return i;
    return -1;
  }
  // The image of bit `bit` of input dimension d.
  TMAKIT_HD constexpr std::uint64_t basis_of(int d, int bit) const { return basis[in_offset(d) + bit]; }

  // Packed input bits -> packed output bits.
  TMAKIT_HD constexpr std::uint64_t apply(std::uint64_t packed_in) const {
    std::uint64_t r = 0;
    const int nb = in_bits();
    for (int k = 0; k < nb; ++k)
      if ((packed_in >> k) & 1) r ^= basis[k];
    return r;
  }
  // One value per input dimension (values[d] < 2^in[d].bits) -> packed output bits.
  TMAKIT_HD constexpr std::uint64_t apply_dims(const std::uint64_t* values) const {
    std::uint64_t packed = 0;
    for (int d = 0; d < n_in; ++d) packed |= (values[d] & low_mask(in[d].bits)) << in_offset(d);
    return apply(packed);
  }
  // Output dimension d of packed output bits.
  TMAKIT_HD constexpr std::uint64_t out_value(std::uint64_t packed_out, int d) const {
    return (packed_out >> out_offset(d)) & low_mask(out[d].bits);
  }

  friend TMAKIT_HD constexpr bool operator==(const LinearLayout& a, const LinearLayout& b) {
    if (a.n_in != b.n_in || a.n_out != b.n_out) return false;
    for (int i = 0; i < a.n_in; ++i)
      if (!(a.in[i] == b.in[i])) return false;
    for (int i = 0; i < a.n_out; ++i)
      if (!(a.out[i] == b.out[i])) return false;
    for (int k = 0; k < a.in_bits(); ++k)
      if (a.basis[k] != b.basis[k]) return false;
    return true;
  }
};

using LinearLayoutResult = LayoutOpResult<LinearLayout>;

namespace detail {
TMAKIT_HD constexpr int bit_length(std::uint64_t v) {
  int b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}
TMAKIT_HD constexpr LinearLayoutResult refuse_linear(LayoutRule r, int mode = -1, std::int64_t a = 0, std::int64_t b = 0) {
  return {LinearLayout{}, make_diagnostic(r, mode, a, b)};
}

// Reduced echelon form of the columns, remembering which input bits make each row: solves L(x) = y.
struct F2Solver {
  std::uint64_t vec[64] = {};   // reduced image vectors, pivot = highest set bit
  std::uint64_t comb[64] = {};  // input bits whose images XOR to vec
  int n = 0;
  TMAKIT_HD constexpr void add(std::uint64_t v, std::uint64_t c) {
    for (int i = 0; i < n; ++i)
      if ((v ^ vec[i]) < v) {
        v ^= vec[i];
        c ^= comb[i];
      }
    if (v == 0) return;
    // keep sorted by pivot, descending, so one pass reduces
    int pos = n;
    while (pos > 0 && bit_length(vec[pos - 1]) < bit_length(v)) {
      vec[pos] = vec[pos - 1];
      comb[pos] = comb[pos - 1];
      --pos;
    }
    vec[pos] = v;
    comb[pos] = c;
    ++n;
  }
  // Some x with L(x) == y; false when y is not in the image.
  TMAKIT_HD constexpr bool solve(std::uint64_t y, std::uint64_t& x) const {
    x = 0;
    for (int i = 0; i < n; ++i)
      if ((y ^ vec[i]) < y) {
        y ^= vec[i];
        x ^= comb[i];
      }
    return y == 0;
  }
};
TMAKIT_HD constexpr F2Solver solver_of(const LinearLayout& l) {
  F2Solver s;
  for (int k = 0; k < l.in_bits(); ++k) s.add(l.basis[k], std::uint64_t{1} << k);
  return s;
}
}  // namespace detail

// The identity on one dimension of 2^bits values. Refused as linear_dim (a name longer than
// LinearDim::kMaxName characters, more than 64 bits: layout.capacity).
TMAKIT_HD constexpr LinearLayoutResult identity_linear(const char* name, int bits) {
  const LinearDimResult d = linear_dim(name, bits);
  if (!d.ok()) return {LinearLayout{}, d.diagnostic};
  LinearLayout l;
  l.in[0] = l.out[0] = d.value;
  l.n_in = l.n_out = 1;
  for (int k = 0; k < bits; ++k) l.basis[k] = std::uint64_t{1} << k;
  return {l, {}};
}

// A CuTe layout with power-of-two extents and power-of-two (or 0) strides whose strides never add
// up with carries (distinct input bits land on distinct output bits) is F2-linear. With `in_names`
// naming each top-level mode (n_names == rank; a leaf layout has rank 1), each mode is its own input
// dimension; with in_names == nullptr the whole layout is one input dimension `index`. The output is
// `out_name` (default `offset`).
// Refused: names given but n_names != rank (layout.linear.dims_mismatch, a = n_names, b = rank); a
// name longer than LinearDim::kMaxName characters (layout.capacity, mode = its index, a = kMaxName);
// a non-power-of-two extent or stride (layout.linear.not_power_of_two, mode = the flattened leaf
// index); two input bits on the same output bit (strides that add with carries:
// layout.linear.not_linear, a = the offset bit, mode = the flattened leaf); too many bits
// (layout.capacity).
TMAKIT_HD constexpr LinearLayoutResult linear_from_layout(const Layout& lay, const char* const* in_names = nullptr,
                                                          int n_names = 0, const char* out_name = "offset") {
  LinearLayout l;
  const bool per_mode = in_names != nullptr;
  if (per_mode && n_names != lay.rank())
    return detail::refuse_linear(LayoutRule::dims_mismatch, -1, n_names, lay.rank());
  if (per_mode && n_names > LinearLayout::kMaxDims) return detail::refuse_linear(LayoutRule::capacity, -1, n_names);
  for (int d = 0; per_mode && d < n_names; ++d)
    if (linear_name_length(in_names[d]) > LinearDim::kMaxName)
      return detail::refuse_linear(LayoutRule::capacity, d, LinearDim::kMaxName);
  if (linear_name_length(out_name) > LinearDim::kMaxName)
    return detail::refuse_linear(LayoutRule::capacity, -1, LinearDim::kMaxName);
  int k = 0;  // next input bit
  std::uint64_t used = 0;
  const int n_dims = per_mode ? n_names : 1;
  int leaf_base = 0;  // leaves of the modes before d: diagnostics name the flattened leaf
  for (int d = 0; d < n_dims; ++d) {
    const Layout m = per_mode ? lay.mode(d) : lay;
    int dim_bits = 0;
    for (int leaf = 0; leaf < m.num_leaves(); ++leaf) {
      const int flat = leaf_base + leaf;
      const int eb = log2_exact(m.shape_at(leaf));
      const std::int64_t stride = m.stride_at(leaf);
      const int sb = stride == 0 ? 0 : log2_exact(stride);
      if (eb < 0) return detail::refuse_linear(LayoutRule::not_power_of_two, flat, m.shape_at(leaf));
      if (sb < 0) return detail::refuse_linear(LayoutRule::not_power_of_two, flat, stride);
      for (int j = 0; j < eb; ++j) {
        if (k >= LinearLayout::kMaxBits || (stride != 0 && sb + j >= 63))
          return detail::refuse_linear(LayoutRule::capacity, flat, 64);
        const std::uint64_t v = stride == 0 ? 0 : std::uint64_t{1} << (sb + j);
        if (v & used) return detail::refuse_linear(LayoutRule::not_linear, flat, sb + j, 0);
        used |= v;
        l.basis[k++] = v;
        ++dim_bits;
      }
    }
    l.in[d] = linear_dim(per_mode ? in_names[d] : "index", dim_bits).value;  // names checked above, bits <= 64
    leaf_base += m.num_leaves();
  }
  l.n_in = n_dims;
  l.out[0] = linear_dim(out_name, detail::bit_length(used)).value;
  l.n_out = 1;
  return {l, {}};
}

// A byte swizzle on `bits` offset bits: offset -> offset, bit k in [M+S, M+S+B) also flips bit k-S.
// Refused as identity_linear (name, bits).
TMAKIT_HD constexpr LinearLayoutResult linear_from_swizzle(const SwizzleParams& sw, int bits,
                                                           const char* name = "offset") {
  LinearLayoutResult r = identity_linear(name, bits);
  if (!r.ok() || sw.bits == 0) return r;
  for (int k = sw.base + sw.shift; k < sw.base + sw.shift + sw.bits && k < bits; ++k)
    r.value.basis[k] |= std::uint64_t{1} << (k - sw.shift);
  return r;
}

// forward declaration (defined below)
TMAKIT_HD constexpr LinearLayoutResult compose(const LinearLayout& outer, const LinearLayout& inner);

// The BYTE-address map of a swizzled shared-memory tile for elem_bytes-byte elements (a power of two):
// swizzle(L(c) * elem_bytes) as one linear map, inputs as in linear_from_layout, output `offset`
// (bytes). Refused as linear_from_layout for the layout scaled to bytes.
TMAKIT_HD constexpr LinearLayoutResult linear_byte_map(const SwizzledLayout& sl, std::int64_t elem_bytes,
                                                       const char* const* in_names = nullptr, int n_names = 0) {
  if (log2_exact(elem_bytes) < 0) return detail::refuse_linear(LayoutRule::not_power_of_two, -1, elem_bytes);
  Layout bytes = sl.layout;
  for (int i = 0; i < bytes.stride.count; ++i)
    if (bytes.stride.nodes[i].rank < 0) {
      const std::int64_t d = bytes.stride.nodes[i].value;
      if (!checked_mul(d, elem_bytes, &bytes.stride.nodes[i].value))
        return {LinearLayout{}, overflow_diagnostic(LayoutOperation::offsets, -1, d, elem_bytes)};
    }
  const LinearLayoutResult m = linear_from_layout(bytes, in_names, n_names, "offset");
  if (!m.ok() || sl.swizzle.bits == 0) return m;
  const int needed = sl.swizzle.base + sl.swizzle.shift + sl.swizzle.bits;
  LinearLayout widened = m.value;
  if (widened.out[0].bits < needed) widened.out[0].bits = needed;  // the swizzle reads bits up to M+S+B
  const LinearLayoutResult swz = linear_from_swizzle(sl.swizzle, widened.out[0].bits, "offset");
  if (!swz.ok()) return swz;
  return compose(swz.value, widened);
}

// outer o inner: inner's output dimensions must be outer's input dimensions (names and bits).
TMAKIT_HD constexpr LinearLayoutResult compose(const LinearLayout& outer, const LinearLayout& inner) {
  bool same = inner.n_out == outer.n_in;
  for (int i = 0; same && i < inner.n_out; ++i) same = inner.out[i] == outer.in[i];
  if (!same) return detail::refuse_linear(LayoutRule::dims_mismatch, -1, inner.out_bits(), outer.in_bits());
  LinearLayout r;
  r.n_in = inner.n_in;
  for (int i = 0; i < inner.n_in; ++i) r.in[i] = inner.in[i];
  r.n_out = outer.n_out;
  for (int i = 0; i < outer.n_out; ++i) r.out[i] = outer.out[i];
  for (int k = 0; k < inner.in_bits(); ++k) r.basis[k] = outer.apply(inner.basis[k]);
  return {r, {}};
}

// The rank of the map (number of independent images).
TMAKIT_HD constexpr int rank_of(const LinearLayout& l) { return detail::solver_of(l).n; }

// forward declaration (defined below)
TMAKIT_HD constexpr LinearLayoutResult right_inverse(const LinearLayout& l);

// Inverse of a bijective map (in_bits == out_bits == rank): a square map's right inverse. Inputs and
// outputs swap names.
TMAKIT_HD constexpr LinearLayoutResult invert(const LinearLayout& l) {
  if (l.in_bits() != l.out_bits()) return detail::refuse_linear(LayoutRule::not_bijective, -1, l.in_bits(), l.out_bits());
  return right_inverse(l);
}

// A right inverse R (L(R(y)) == y for every y) of a surjective map (rank == out_bits); for a
// bijective map it is the inverse. Among the preimages it picks the one Gaussian elimination finds.
TMAKIT_HD constexpr LinearLayoutResult right_inverse(const LinearLayout& l) {
  const detail::F2Solver s = detail::solver_of(l);
  if (s.n != l.out_bits()) return detail::refuse_linear(LayoutRule::not_bijective, -1, l.in_bits(), l.out_bits());
  LinearLayout r;
  r.n_in = l.n_out;
  for (int i = 0; i < l.n_out; ++i) r.in[i] = l.out[i];
  r.n_out = l.n_in;
  for (int i = 0; i < l.n_in; ++i) r.out[i] = l.in[i];
  for (int j = 0; j < l.out_bits(); ++j) s.solve(std::uint64_t{1} << j, r.basis[j]);
  return {r, {}};
}

// The widest vector: 2^k where k is the number of leading bits of input dimension `in_dim` whose
// images are exactly the leading bits of output dimension `out_dim` (bit j -> bit j, nothing else).
// E.g. registers 0..7 at consecutive offsets -> 8 (one 8-element vector store).
TMAKIT_HD constexpr std::int64_t contiguous_elements(const LinearLayout& l, int in_dim, int out_dim = 0) {
  if (in_dim < 0 || in_dim >= l.n_in || out_dim < 0 || out_dim >= l.n_out) return 1;
  int k = 0;
  while (k < l.in[in_dim].bits && k < l.out[out_dim].bits &&
         l.basis_of(in_dim, k) == (std::uint64_t{1} << (l.out_offset(out_dim) + k)))
    ++k;
  return std::int64_t{1} << k;
}

// ---- shared-memory banks (32 banks of 4-byte words)
//
// The rule is core/smem_banks.hpp's (the store planner's, checked with ncu on an H100): a warp's
// access is served in wavefronts; one wavefront serves at most one distinct 4-byte word per bank
// (lanes naming the same word share it). With by_lane_groups = true (the default), lanes are split
// into groups of lanes_per_wavefront_group(bytes_per_lane) lanes (half-warps for 8 B, quarter-warps
// for 16 B) served separately: each group needs the largest number of distinct words one bank must
// serve, and the groups' counts (and ideals) add up. That is what the H100 does. The whole-warp count
// (false: the warp is one group) can be lower for 64/128-bit accesses.
// Valid input: 1..32 lanes of 1, 2, 4, 8 or 16 bytes (a warp's st/ld.shared); anything else gives
// wavefronts == 0, which is not conflict_free().
struct BankAnalysis {
  int wavefronts = 0;        // the answer; 0: no valid access (see above)
  int ideal_wavefronts = 0;  // sum over lane groups of ceil(group lanes * bytes_per_lane / 128)
  TMAKIT_HD constexpr bool conflict_free() const { return wavefronts > 0 && wavefronts == ideal_wavefronts; }
};

TMAKIT_HD constexpr BankAnalysis shared_wavefronts(const std::uint64_t* lane_byte_address, int lanes, int bytes_per_lane,
                                                   bool by_lane_groups = true) {
  BankAnalysis r;
  const bool width_ok = bytes_per_lane == 1 || bytes_per_lane == 2 || bytes_per_lane == 4 || bytes_per_lane == 8 ||
                        bytes_per_lane == 16;
  if (lanes <= 0 || lanes > 32 || !width_ok) return r;
  const int group = by_lane_groups ? lanes_per_wavefront_group(bytes_per_lane) : lanes;
  for (int g0 = 0; g0 < lanes; g0 += group) {
    const int n = g0 + group < lanes ? group : lanes - g0;
    r.wavefronts += group_wavefronts(lane_byte_address + g0, n, bytes_per_lane);
    r.ideal_wavefronts += ideal_group_wavefronts(n, bytes_per_lane);
  }
  return r;
}

// The same for a linear layout from (lane, ...) to a BYTE offset: lanes 0..31 of input dimension
// `lane_dim`, every other input 0 (one instruction), output dimension `out_dim`. A lane_dim or
// out_dim the map does not have gives 0 lanes: wavefronts == 0, not conflict_free().
TMAKIT_HD constexpr BankAnalysis shared_wavefronts(const LinearLayout& byte_map, int lane_dim, int bytes_per_lane,
                                                   int out_dim = 0, bool by_lane_groups = true) {
  std::uint64_t addr[32] = {};
  const bool dims_ok = lane_dim >= 0 && lane_dim < byte_map.n_in && out_dim >= 0 && out_dim < byte_map.n_out;
  const int lanes = dims_ok ? (byte_map.in[lane_dim].bits >= 5 ? 32 : 1 << byte_map.in[lane_dim].bits) : 0;
  for (int lane = 0; lane < lanes; ++lane)
    addr[lane] = byte_map.out_value(byte_map.apply(static_cast<std::uint64_t>(lane) << byte_map.in_offset(lane_dim)), out_dim);
  return shared_wavefronts(addr, lanes, bytes_per_lane, by_lane_groups);
}

}  // namespace tmakit
