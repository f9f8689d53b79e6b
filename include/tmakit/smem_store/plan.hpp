// The register -> shared-memory store planner: for a source fragment (smem_store_source.hpp) and a
// destination tile (smem_store_destination.hpp), choose the store instruction and the register
// order/packing with the fewest instructions and then the fewest shared-memory wavefronts
// (smem_store_wavefronts.hpp), and say exactly what limits the width and what causes conflicts.
//
// Candidates (all plans are uniform: every thread issues the same instructions on the same register
// slots, so the device code indexes registers with compile-time constants):
//   st.shared of B = E * n bytes per lane (B in 1..16): values are grouped into runs of n whose
//     elements are consecutive in memory and B-aligned for every thread (a value's successor is
//     the value whose element sits E bytes later, the same for all threads, in the same live group);
//   stmatrix.m8n8.x{1,2,4}[.trans].b16 (2-byte elements): registers pack values (2k, 2k+1) (as
//     cvt.rn.bf16x2.f32 does); each pair must form an 8x8 matrix with 16-byte-aligned rows.
// Everything is constexpr (host; the device code only reads a finished plan), default options
// included: nvcc and g++ evaluate whole plans, fix search and unit check on, at compile time.
// Cost: the slot addresses come from small tables (a built-in fragment is a thread part plus a value
// part; a rank-2 destination is mode0(row) + mode1(col)), kept for at most 8192 slots (one warp of
// 256 values) at a time; a plan needs ~90-105 KB of stack (29 KB of it the destination-injectivity
// bitmap, touched only for layouts whose leaves overlap), and the unit check and the fix search run
// their re-plans one after another (never nested), ~120-135 KB in all. Tens of microseconds per plan
// (bench/bench_smem_store.cpp, docs/smem_store.md).
#pragma once

#include <cstdint>

#include "tmakit/core/bits.hpp"
#include "tmakit/core/checked.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/smem_store/destination.hpp"
#include "tmakit/smem_store/rules.hpp"
#include "tmakit/smem_store/source.hpp"
#include "tmakit/smem_store/wavefronts.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {

enum class StoreOpKind : std::uint8_t { st_shared = 0, stmatrix = 1 };

struct StoreOp {
  StoreOpKind kind = StoreOpKind::st_shared;
  std::int32_t bytes = 0;     // st.shared: bytes per lane; stmatrix: 4 per matrix (one b16x2 register)
  std::int32_t matrices = 0;  // stmatrix: 1, 2 or 4
  bool trans = false;
  // Register values one instruction stores per lane.
  TMAKIT_HD constexpr std::int32_t values_per_lane(std::int32_t elem_bytes) const {
    return kind == StoreOpKind::stmatrix ? 2 * matrices : bytes / elem_bytes;
  }
  friend TMAKIT_HD constexpr bool operator==(const StoreOp& a, const StoreOp& b) {
    return a.kind == b.kind && a.bytes == b.bytes && a.matrices == b.matrices && a.trans == b.trans;
  }
};

// The PTX spelling of an op.
TMAKIT_HD constexpr const char* store_op_ptx(const StoreOp& op) {
  if (op.kind == StoreOpKind::stmatrix) {
    if (op.trans) return op.matrices == 1 ? "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16"
                         : op.matrices == 2 ? "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16"
                                            : "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16";
    return op.matrices == 1 ? "stmatrix.sync.aligned.m8n8.x1.shared.b16"
           : op.matrices == 2 ? "stmatrix.sync.aligned.m8n8.x2.shared.b16"
                              : "stmatrix.sync.aligned.m8n8.x4.shared.b16";
  }
  switch (op.bytes) {
    case 1: return "st.shared.b8";
    case 2: return "st.shared.b16";
    case 4: return "st.shared.b32";
    case 8: return "st.shared.v2.b32";
    case 16: return "st.shared.v4.b32";
  }
  return "st.shared.?";
}

// stmatrix m8n8: the register of a matrix is values (va, vb) = (2k, 2k+1) of each lane; row r (0..7)
// of the 8x8 matrix starts at the address of the element that lane `lane` (of the warp) holds in va
// (second == false) or vb. Plain: row r is lanes 4r..4r+3's (va, vb) pairs, so lane 4r's va starts it;
// .trans: row r is column r of those pairs, started by lane r/2's va (r even) or vb (r odd).
struct StmatrixRow {
  std::int32_t lane = 0;
  bool second = false;
};
TMAKIT_HD constexpr StmatrixRow stmatrix_row_source(int r, bool trans) {
  return trans ? StmatrixRow{r / 2, r % 2 != 0} : StmatrixRow{4 * r, false};
}

// One register slot: thread, value, the tile element it holds and its byte address.
struct SlotRef {
  std::int32_t thread = -1, value = -1;
  TileCoord elem{};
  std::uint64_t addr = 0;
  TMAKIT_HD constexpr bool valid() const { return thread >= 0; }
};

struct SmemStoreRefusal {
  SmemStoreRule rule = SmemStoreRule::ok;
  SlotRef a{}, b{};
  std::int64_t n0 = 0, n1 = 0, n2 = 0, n3 = 0;
};

// Why a store of `bytes` per lane is impossible.
enum class WidthLimit : std::uint8_t {
  none = 0,
  max_vector,    // already 16 bytes (the widest st.shared)
  other_thread,  // the element at the next address (slot b) belongs to another thread
  other_load,    // ... to the same thread but another tcgen05.ld (not live together)
  not_uniform,   // thread a's next element is value x, but thread b's is not the same value
  not_adjacent,  // no slot holds the next address (gap, or the tile ends / the layout jumps)
  misaligned,    // slot a starts a run at a byte address not a multiple of `bytes`
};

struct WidthFinding {
  WidthLimit why = WidthLimit::none;
  std::int32_t bytes = 0;  // the width that is impossible
  SlotRef a{}, b{};
};

struct ConflictFinding {
  std::int32_t warp = -1, instruction = -1;
  std::int32_t wavefronts = 0, ideal = 0;  // of the group named
  std::int32_t lane_a = -1, lane_b = -1;   // two lanes of one group writing different words of one bank
  SlotRef a{}, b{};
  TMAKIT_HD constexpr bool any() const { return warp >= 0; }
};

struct StoreCandidate {
  StoreOp op{};
  bool feasible = false;
  std::int32_t instructions = 0;     // per thread
  std::int32_t wavefronts = 0;       // per warp (the largest over warps)
  std::int32_t ideal = 0;            // per warp
  WidthFinding why_not{};            // infeasible: the blocking slots
};

struct SmemStoreOptions {
  bool allow_stmatrix = true;
  bool suggest = true;      // look for a better swizzle / tcgen05 repetition
  // Refuse a swizzle whose chunk is below the runs the fragment implies (dest_swizzle_units), and a
  // byte swizzle that is none of TMA's / WGMMA's / UMMA's modes (dest_swizzle_mode): both are how an
  // element-unit swizzle (CuTe's Sw<3,3,3> for 2-byte elements) given as bytes shows.
  bool check_units = true;
  std::int32_t max_bytes = 16;
  bool widths_only = false;  // internal: stop after the st.shared widths (no wavefronts, no choice)
  // internal (the fix search): give up (ok = false) as soon as the plan cannot be conflict-free
  // within max_instructions instructions per thread
  bool conflict_free_only = false;
  std::int32_t max_instructions = 0;
  // Plan with this instruction only (bytes > 0: st.shared of that many bytes per lane, or stmatrix
  // .x{matrices}[.trans]); refused (forced_op) when it cannot store the fragment. The CLI shows such a
  // plan next to the best one (--instruction).
  StoreOp force{};  // last: positional initializers of the fields above stay valid
};

struct SmemStorePlan {
  static constexpr int kMaxValues = 256;
  static constexpr int kMaxWarps = 32;
  static constexpr int kMaxCandidates = 11;

  bool ok = false;
  SmemStoreRefusal refusal{};

  StoreOp op{};
  std::int32_t elem_bytes = 0, threads = 0, warps = 0, values = 0;
  std::int32_t values_per_instruction = 0;  // per lane
  std::int32_t instructions = 0;            // per thread
  // Register order: instruction i stores values order[i * values_per_instruction + j], j ascending
  // (st.shared: element j of the vector; stmatrix: matrix j/2, low (j even) / high half of its register).
  std::int16_t order[kMaxValues] = {};

  std::int32_t wavefronts[kMaxWarps] = {};  // per warp, all instructions
  std::int32_t ideal_wavefronts = 0;        // per warp
  std::int32_t total_wavefronts = 0, total_ideal = 0;

  std::int32_t widest_st_bytes = 0;  // widest feasible st.shared
  WidthFinding width_limit{};        // why st.shared cannot be wider than widest_st_bytes
  ConflictFinding conflict{};        // the first group of the chosen plan above its ideal

  StoreCandidate candidates[kMaxCandidates] = {};
  std::int32_t num_candidates = 0;

  // Computed fixes (0 / false: none found or not asked).
  std::int32_t better_rep = 0, better_rep_bytes = 0;        // tcgen05 .xR giving a wider store
  bool has_better_swizzle = false;
  SwizzleParams better_swizzle{};
  Swizzle better_swizzle_mode = Swizzle::none;               // canonical destinations
  std::int32_t better_swizzle_wavefronts = 0;
  std::int32_t unswizzled_bytes = 0;  // widest st.shared with the swizzle removed (unit check)

  TMAKIT_HD constexpr bool conflict_free() const { return ok && total_wavefronts == total_ideal; }
};

namespace smem_store_detail {

inline constexpr int kMaxExtent = 1024;
inline constexpr int kMaxSlots = 32768;  // threads x values
// The most shared memory of any supported arch (sm_90, sm_100: 228 KiB; tensor_map/rules.hpp): every
// destination byte address lies below it (validate()), so the 32-bit address tables cannot wrap.
inline constexpr std::uint64_t kMaxDestBytes = smem_limit_bytes(Arch::sm_90);


// Slot -> tile element -> byte address, from small tables instead of layout evaluations:
//  - every built-in fragment model is a sum of a thread part and a value part,
//    coord(t, v) = coord(t, 0) + coord(0, v) (coord(0, 0) = (0, 0); see smem_store_source.hpp),
//    and a tv layout of rank 2 is mode0(t) + mode1(v) before the split into (row, col);
//  - a rank-2 destination layout whose mode 0 covers the rows is mode0(row) + mode1(col) (tabulated);
//    other layouts are evaluated directly.
// slot() gives the exact SlotRef (through StoreSource::coord) for findings.
struct AddressMap {
  const StoreSource* src = nullptr;
  const StoreDestination* dst = nullptr;
  bool split = false, tv = false;
  std::int32_t threads = 0, values = 0;
  std::int64_t tv_rows = 1;
  std::int64_t row_off[kMaxExtent];  // written by init() before any read
  std::int64_t col_off[kMaxExtent];
  std::int64_t vrow[SmemStorePlan::kMaxValues];  // built-in: coord(0, v).row; tv: mode1(v)
  std::int32_t vcol[SmemStorePlan::kMaxValues];  // built-in: coord(0, v).col
  Layout tv_threads{};                           // tv: mode 0

  constexpr void init(const StoreSource& s, const StoreDestination& d) {
    src = &s;
    dst = &d;
    threads = s.threads();
    values = s.values();
    const Layout& l = d.tile.layout;
    split = l.rank() == 2 && l.mode(0).size() == d.rows && d.rows <= kMaxExtent && d.cols <= kMaxExtent;
    if (split) {
      const Layout m0 = l.mode(0), m1 = l.mode(1);
      for (int r = 0; r < d.rows; ++r) row_off[r] = m0(r);
      for (int c = 0; c < d.cols; ++c) col_off[c] = m1(c);
    }
    tv = s.kind == FragmentKind::tv_layout;
    if (tv) {
      tv_rows = s.tv_rows > 0 ? s.tv_rows : 1;
      tv_threads = s.tv.mode(0);
      const Layout m1 = s.tv.mode(1);
      for (int v = 0; v < values; ++v) vrow[v] = m1(v);
    } else {
      for (int v = 0; v < values; ++v) {
        const TileCoord c = s.coord(0, v);
        vrow[v] = c.row;
        vcol[v] = c.col;
      }
    }
  }
  // The thread parts of the 32 lanes of warp w: built-in: coord(t, 0); tv: mode0(t) (in row).
  constexpr void lane_parts(int w, std::int64_t* trow, std::int32_t* tcol) const {
    for (int l = 0; l < 32; ++l) {
      const int t = 32 * w + l;
      if (tv) {
        trow[l] = tv_threads(t);
        tcol[l] = 0;
      } else {
        const TileCoord c = src->coord(t, 0);
        trow[l] = c.row;
        tcol[l] = c.col;
      }
    }
  }
  // coord(t, v) from the thread part of t and v.
  constexpr TileCoord coord(std::int64_t trow, std::int32_t tcol, int v) const {
    if (tv) {
      const std::int64_t idx = trow + vrow[v];
      return {static_cast<std::int32_t>(idx % tv_rows), static_cast<std::int32_t>(idx / tv_rows)};
    }
    return {static_cast<std::int32_t>(trow + vrow[v]), tcol + vcol[v]};
  }
  // The 32-bit address of slot (t, v) from t's lane parts (as the slot table holds it).
  constexpr std::uint32_t addr32(std::int64_t trow, std::int32_t tcol, int v) const {
    return static_cast<std::uint32_t>(at(coord(trow, tcol, v)));
  }
  constexpr std::uint64_t at(TileCoord c) const {
    if (!split) return dst->byte_address(c.row, c.col);
    return dst->tile.swizzle(dst->base_offset + static_cast<std::uint64_t>(row_off[c.row] + col_off[c.col]) *
                                                    static_cast<std::uint64_t>(dst->elem_bytes));
  }
  constexpr SlotRef slot(int t, int v) const {
    SlotRef s;
    s.thread = t;
    s.value = v;
    s.elem = src->coord(t, v);
    const bool inside = s.elem.row >= 0 && s.elem.row < dst->rows && s.elem.col >= 0 && s.elem.col < dst->cols;
    s.addr = inside ? at(s.elem) : 0;  // the tables hold the tile's rows and columns only
    return s;
  }
};

// The 32-bit byte addresses of the slots of up to kEntries / (32 values) warps (all of them when the
// source has at most 8192 slots; else the most recent ones): warp w lives in part w % per.
struct WarpTable {
  static constexpr int kEntries = 32 * SmemStorePlan::kMaxValues;
  std::uint32_t a[kEntries];  // written by fill() before any read
  int values = 0, per = 1;
  int held[SmemStorePlan::kMaxWarps] = {};  // held[i]: the warp in part i (-1: none)
  std::uint32_t* cur = nullptr;             // the selected warp's addresses: cur[l * values + v]
  constexpr void init(int v) {
    values = v;
    per = kEntries / (32 * v);
    if (per > SmemStorePlan::kMaxWarps) per = SmemStorePlan::kMaxWarps;
    for (int i = 0; i < SmemStorePlan::kMaxWarps; ++i) held[i] = -1;
  }
  constexpr std::uint32_t at(int l, int v) const { return cur[l * values + v]; }
  constexpr const std::uint32_t* row(int l) const { return cur + l * values; }
  // Select warp w if it is held.
  constexpr bool select(int w) {
    if (held[w % per] != w) return false;
    cur = a + (w % per) * 32 * values;
    return true;
  }
  // The addresses of warp w. With `seen` (a bit per tile element, row + rows * col), also checks
  // register ownership and stops at the first slot (lane-major) outside the rows x cols tile or
  // holding an element seen before: returns its index l * values + v (*dup says which), else -1.
  constexpr int fill(const AddressMap& m, int w, std::uint64_t* seen = nullptr, int R = 0, int C = 0,
                     bool* dup = nullptr) {
    std::int64_t trow[32];
    std::int32_t tcol[32];
    m.lane_parts(w, trow, tcol);
    held[w % per] = w;
    cur = a + (w % per) * 32 * values;
    const int V = values;
    if (m.split && !m.tv && !seen) {
      // the common case (built-in models, no ownership checks): lanes with the same column part
      // share col_off[tcol + vcol[v]]; when every value has the same row part, a lane's row offset
      // is one number and the loop is a plain add-swizzle-store
      const StoreDestination& d = *m.dst;
      const SwizzleParams sw = d.tile.swizzle;
      const std::uint64_t E = static_cast<std::uint64_t>(d.elem_bytes), base = d.base_offset;
      bool row_const = true;
      for (int v = 1; v < V; ++v) row_const = row_const && m.vrow[v] == m.vrow[0];
      std::int64_t colpart[SmemStorePlan::kMaxValues];  // written below before any read
      std::uint32_t done = 0;
      for (int l = 0; l < 32; ++l) {
        if (done & (std::uint32_t{1} << l)) continue;
        const std::int32_t c0 = tcol[l];
        for (int v = 0; v < V; ++v) colpart[v] = m.col_off[c0 + m.vcol[v]];
        for (int l2 = l; l2 < 32; ++l2) {
          if (tcol[l2] != c0) continue;
          done |= std::uint32_t{1} << l2;
          std::uint32_t* row = cur + l2 * V;
          const std::int64_t r0 = trow[l2];
          if (row_const) {
            const std::int64_t rp = m.row_off[r0 + m.vrow[0]];
            for (int v = 0; v < V; ++v) {
              const std::uint64_t o = static_cast<std::uint64_t>(rp + colpart[v]) * E;
              row[v] = static_cast<std::uint32_t>(sw(base + o));
            }
          } else {
            for (int v = 0; v < V; ++v) {
              const std::uint64_t o = static_cast<std::uint64_t>(m.row_off[r0 + m.vrow[v]] + colpart[v]) * E;
              row[v] = static_cast<std::uint32_t>(sw(base + o));
            }
          }
        }
      }
      return -1;
    }
    for (int l = 0; l < 32; ++l)
      for (int v = 0; v < V; ++v) {
        const TileCoord c = m.coord(trow[l], tcol[l], v);
        if (seen) {
          if (c.row < 0 || c.row >= R || c.col < 0 || c.col >= C) {
            *dup = false;
            return l * V + v;
          }
          const int bit = c.row + R * c.col;
          const std::uint64_t b = std::uint64_t{1} << (bit % 64);
          if (seen[bit / 64] & b) {
            *dup = true;
            return l * V + v;
          }
          seen[bit / 64] |= b;
        }
        cur[l * V + v] = static_cast<std::uint32_t>(m.at(c));
      }
    return -1;
  }
};

// Who holds the byte `addr` (the first slot, thread-major, whose element covers it), or an invalid SlotRef.
constexpr SlotRef owner_of(const AddressMap& m, std::uint64_t addr, int elem_bytes) {
  for (int w = 0; w < m.threads / 32; ++w) {
    std::int64_t trow[32];
    std::int32_t tcol[32];
    m.lane_parts(w, trow, tcol);
    for (int l = 0; l < 32; ++l)
      for (int v = 0; v < m.values; ++v) {
        const std::uint64_t a = static_cast<std::uint32_t>(m.at(m.coord(trow[l], tcol[l], v)));
        if (addr >= a && addr < a + static_cast<std::uint64_t>(elem_bytes)) return m.slot(32 * w + l, v);
      }
  }
  return {};
}

// The byte span of a destination: element offsets lo..hi from the layout's leaves; every byte address
// lies below end = base offset + (hi + 1) E, rounded up to 2^(M+B) under a swizzle Sw<B,M,S> (which
// changes only address bits M..M+B-1 of an address); end = -1 when a stride or extent alone is past
// the limit.
struct DestExtent {
  std::int64_t lo = 0, hi = 0, end = 0;
  bool fits = false;
};
constexpr DestExtent dest_extent(const StoreDestination& dst) {
  DestExtent x;
  const Layout& l = dst.tile.layout;
  const std::int64_t lim = static_cast<std::int64_t>(kMaxDestBytes);
  bool over = dst.base_offset > kMaxDestBytes;
  for (int k = 0; k < l.num_leaves(); ++k) {
    const std::int64_t s = l.shape_at(k), d = l.stride_at(k);
    if (s <= 1 || d == 0) continue;
    if (s - 1 > lim || d > lim || d < -lim) over = true;
    else if (d > 0) x.hi += (s - 1) * d;
    else x.lo += (s - 1) * d;
  }
  x.end = over ? -1 : static_cast<std::int64_t>(dst.base_offset) + (x.hi + 1) * dst.elem_bytes;
  if (!over && dst.tile.swizzle.bits != 0) {
    const std::int64_t m = std::int64_t{1} << (dst.tile.swizzle.base + dst.tile.swizzle.bits);
    x.end = (x.end + m - 1) / m * m;
  }
  x.fits = !over && x.lo >= 0 && x.end <= lim;
  return x;
}

// A quick sufficient test of injectivity: the leaves, by ascending stride, each step past everything
// the smaller ones reach (stride_k > sum over j < k of (shape_j - 1) stride_j), as in every canonical
// operand and padded row-major layout. When it fails, pass 1 checks every address (a bitmap).
constexpr bool dest_leaves_disjoint(const Layout& l) {
  constexpr int kMaxLeaves = 32;
  std::int64_t sh[kMaxLeaves] = {}, st[kMaxLeaves] = {};
  int n = 0;
  for (int k = 0; k < l.num_leaves(); ++k) {
    const std::int64_t s = l.shape_at(k), d = l.stride_at(k);
    if (s <= 1) continue;
    if (d <= 0 || n == kMaxLeaves) return false;
    int i = n++;
    for (; i > 0 && st[i - 1] > d; --i) {
      sh[i] = sh[i - 1];
      st[i] = st[i - 1];
    }
    sh[i] = s;
    st[i] = d;
  }
  std::int64_t reach = 0;  // the largest offset the smaller leaves give
  for (int i = 0; i < n; ++i) {
    if (st[i] <= reach) return false;
    reach += (sh[i] - 1) * st[i];
  }
  return true;
}

// The tile indices a tv layout reaches, from its leaves alone (no evaluation): lo and hi are the
// lowest and highest offset (sums of (extent - 1) * stride by sign), lo_slot and hi_slot the linear
// slot indices (t + threads * v) that reach them. overflow: a leaf below 1, or a term or sum that
// leaves int64 (the offsets cannot all be computed). Needs size(tv) <= kMaxSlots (validate()).
struct TvReach {
  std::int64_t lo = 0, hi = 0, lo_slot = 0, hi_slot = 0;
  bool overflow = false;
};
constexpr TvReach tv_reach(const Layout& tv) {
  TvReach r;
  std::int64_t pitch = 1;  // the linear slot index step of leaf k (colexicographic)
  for (int k = 0; k < tv.num_leaves(); ++k) {
    const std::int64_t s = tv.shape_at(k), d = tv.stride_at(k);
    std::int64_t t = 0;
    if (s < 1 || !checked_mul(s - 1, d, &t) || !checked_add(t < 0 ? r.lo : r.hi, t, t < 0 ? &r.lo : &r.hi)) {
      r.overflow = true;
      return r;
    }
    if (t < 0) r.lo_slot += (s - 1) * pitch;
    if (t > 0) r.hi_slot += (s - 1) * pitch;
    pitch *= s;
  }
  return r;
}

// A tv source's thread and value counts in 64 bits (StoreSource's int32 counts could wrap first).
constexpr bool tv_counts_fit(SmemStorePlan& p, const StoreSource& src) {
  const std::int64_t threads = src.tv.mode(0).size(), slots = src.tv.size();
  if (threads < 32 || threads % 32 != 0 || threads > 1024) {
    p.ok = false;
    p.refusal = {SmemStoreRule::source_threads, {}, {}, threads, 0, 0, 0};
    return false;
  }
  if (slots < threads || slots > kMaxSlots || slots / threads > SmemStorePlan::kMaxValues) {
    p.ok = false;
    p.refusal = {SmemStoreRule::capacity, {}, {}, slots / threads, SmemStorePlan::kMaxValues, 0, 0};
    return false;
  }
  return true;
}

// Every slot of a tv source inside the rows x cols tile, decided from the layout's leaves before any
// slot is evaluated or any table indexed. Refused: source_out_of_tile with n2 = 1 and n3 = the tile
// index of slot a (the first extreme outside 0..rows*cols-1), or n2 = 2 when the offsets do not fit
// in 64 bits (no slot named).
constexpr bool tv_within_tile(SmemStorePlan& p, const StoreSource& src, std::int64_t rows, std::int64_t cols) {
  const TvReach r = tv_reach(src.tv);
  if (!r.overflow && r.lo >= 0 && r.hi < rows * cols) return true;
  SlotRef a;
  std::int64_t index = 0;
  if (!r.overflow) {
    const std::int64_t slot = r.lo < 0 ? r.lo_slot : r.hi_slot, threads = src.threads();
    a.thread = static_cast<std::int32_t>(slot % threads);
    a.value = static_cast<std::int32_t>(slot / threads);
    index = r.lo < 0 ? r.lo : r.hi;
  }
  p.ok = false;
  p.refusal = {SmemStoreRule::source_out_of_tile, a, {}, rows, cols, r.overflow ? 2 : 1, index};
  return false;
}

constexpr SmemStorePlan refuse(SmemStorePlan p, SmemStoreRule r, std::int64_t n0 = 0, std::int64_t n1 = 0,
                               std::int64_t n2 = 0, std::int64_t n3 = 0, SlotRef a = {}, SlotRef b = {}) {
  p.ok = false;
  p.refusal = {r, a, b, n0, n1, n2, n3};
  return p;
}

constexpr bool reject(SmemStorePlan& p, SmemStoreRule r, std::int64_t n0 = 0, std::int64_t n1 = 0,
                      std::int64_t n2 = 0, std::int64_t n3 = 0) {
  p.ok = false;
  p.refusal = {r, {}, {}, n0, n1, n2, n3};
  return false;
}

// The search proper, for a validated request (everything after the unit check).
constexpr void plan_search(SmemStorePlan& p, const StoreSource& src, const StoreDestination& dst,
                           const SmemStoreOptions& opts);

// The computed fixes: re-plans with other swizzles / tcgen05 repetitions.
constexpr void find_fixes(SmemStorePlan& p, const StoreSource& src, const StoreDestination& dst,
                          const SmemStoreOptions& opts);

}  // namespace smem_store_detail

constexpr SmemStorePlan plan_smem_store(const StoreSource& src, const StoreDestination& dst,
                                        const SmemStoreOptions& opts = {});

namespace smem_store_detail {

// The checks of the request that need no addresses; false (and the refusal in p) when refused.
constexpr bool validate(SmemStorePlan& p, const StoreSource& src, const StoreDestination& dst) {
  const int T = src.threads(), V = src.values(), E = dst.elem_bytes;
  p.elem_bytes = E;
  p.threads = T;
  p.values = V;
  p.warps = T / 32;

  // ---- the source
  if (src.kind == FragmentKind::tv_layout && src.tv.rank() != 2)
    return reject(p, SmemStoreRule::source_not_tv_map, src.tv.rank());
  if (src.kind == FragmentKind::tv_layout && !tv_counts_fit(p, src)) return false;
  if (T < 32 || T % 32 != 0 || T > 1024) return reject(p, SmemStoreRule::source_threads, T);
  switch (src.kind) {
    case FragmentKind::wgmma_acc:
      if (src.n < 8 || src.n > 256 || src.n % 8 != 0 || src.warps != 4)
        return reject(p, SmemStoreRule::source_shape, src.n, src.rep);
      break;
    case FragmentKind::mma_m16n8_c:
      if (src.n < 8 || src.n % 8 != 0) return reject(p, SmemStoreRule::source_shape, src.n, src.rep);
      break;
    case FragmentKind::tv_layout: break;
    default:
      if (log2_exact(src.rep) < 0 || src.rep > 128 || src.n <= 0 || src.n % src.cols_per_load() != 0)
        return reject(p, SmemStoreRule::source_shape, src.n, src.rep);
  }
  if (V < 1 || V > SmemStorePlan::kMaxValues || T * V > kMaxSlots)
    return reject(p, SmemStoreRule::capacity, V, SmemStorePlan::kMaxValues);
  const int R = src.rows(), C = src.cols();
  if (R <= 0 || C <= 0 || static_cast<std::int64_t>(R) * C > 65536 || R > kMaxExtent || C > kMaxExtent)
    return reject(p, SmemStoreRule::capacity, R, C);
  if (src.kind == FragmentKind::tv_layout && !tv_within_tile(p, src, R, C)) return false;
  if (R != dst.rows || C != dst.cols) return reject(p, SmemStoreRule::tile_mismatch, R, C, dst.rows, dst.cols);

  // ---- the destination
  const SwizzleParams sw = dst.tile.swizzle;
  if (log2_exact(E) < 0 || E > 8) return reject(p, SmemStoreRule::dest_elem_bytes, E, 0);  // 1, 2, 4 or 8
  if (!sw.supported) return reject(p, SmemStoreRule::dest_swizzle_unsupported, sw.bits, sw.base);
  if (!check_elem_bytes(sw, static_cast<std::uint64_t>(E)).ok())
    return reject(p, SmemStoreRule::dest_elem_bytes, E, std::int64_t{1} << sw.base);
  // Any base offset is modelled (the swizzle acts on base + offset); an element must be aligned.
  if (dst.base_offset % static_cast<std::uint64_t>(E) != 0)
    return reject(p, SmemStoreRule::dest_base_alignment, static_cast<std::int64_t>(dst.base_offset), E);
  // Every element inside shared memory.
  const DestExtent x = dest_extent(dst);
  if (!x.fits) return reject(p, SmemStoreRule::dest_size, x.lo, x.end, static_cast<std::int64_t>(kMaxDestBytes));

  return true;
}

// Whether a byte swizzle is one that a TMA swizzle mode (and so WGMMA's / UMMA's operand layouts,
// which are the same patterns) applies: the rows of tensor_map/swizzle_modes.hpp.
constexpr bool is_hardware_swizzle(const SwizzleParams& sw) {
  for (std::uint32_t m = 1; m < kSwizzleCount; ++m) {
    const SwizzleParams h = swizzle_for(static_cast<Swizzle>(m));
    if (h.bits == sw.bits && h.base == sw.base && h.shift == sw.shift) return true;
  }
  return false;
}

// A plan without the unit check and the fix search.
constexpr SmemStorePlan plan_core(const StoreSource& src, const StoreDestination& dst, const SmemStoreOptions& opts) {
  SmemStorePlan p{};
  if (validate(p, src, dst)) plan_search(p, src, dst, opts);
  return p;
}

}  // namespace smem_store_detail

// Not recursive: the unit check and the fix search run whole plans one after another, so only one
// search's tables (~60 KB) are on the stack at a time.
constexpr SmemStorePlan plan_smem_store(const StoreSource& src, const StoreDestination& dst,
                                        const SmemStoreOptions& opts) {
  using namespace smem_store_detail;
  SmemStorePlan p{};
  if (!validate(p, src, dst)) return p;
  const SwizzleParams sw = dst.tile.swizzle;
  const std::int64_t chunk = std::int64_t{1} << sw.base;

  // Unit check: a swizzle whose 2^M-byte chunk is smaller than the runs the fragment holds is most
  // likely an element-unit swizzle (CuTe's recast form) given as a byte swizzle.
  // (A chunk of 16 bytes or more can never be below a run: st.shared is at most 16 bytes wide.)
  if (opts.check_units && sw.bits != 0 && chunk < 16) {
    StoreDestination plain = dst;
    plain.tile.swizzle = swizzle_for(Swizzle::none);
    plain.base_offset = 0;
    SmemStoreOptions o{};
    o.allow_stmatrix = false;
    o.suggest = false;
    o.check_units = false;
    o.widths_only = true;
    const SmemStorePlan u = plan_core(src, plain, o);
    p.unswizzled_bytes = u.widest_st_bytes;
    if (u.ok && chunk < u.widest_st_bytes) return refuse(p, SmemStoreRule::dest_swizzle_units, chunk, u.widest_st_bytes);
  }
  // Whatever the source: a byte swizzle that none of TMA, WGMMA and UMMA applies (Sw<3,3,3>, CuTe's
  // element-unit SW128 for 2-byte elements, moves 8-byte chunks: a .x4 load's 8-byte runs pass the
  // check above, and the plan would model a layout no copy or MMA reads).
  if (opts.check_units && sw.bits != 0 && !is_hardware_swizzle(sw))
    return refuse(p, SmemStoreRule::dest_swizzle_mode, sw.bits, sw.base, sw.shift);

  plan_search(p, src, dst, opts);
  if (p.ok && opts.suggest && !opts.widths_only) find_fixes(p, src, dst, opts);
  return p;
}

namespace smem_store_detail {

// ---- the phases of plan_search, in order: pass 1 (scan_slots), the chains (link_chains), the
// candidates (add_candidates, find_width_limit), pass 2 (select_measured, measure_warps) and the
// choice (choose_plan). A phase that returns bool returns false where the search stops: a refusal in
// p, or (for the fix search) p.ok left false.

// The first value pair (2k, 2k+1) of one stmatrix form that cannot be an 8x8 matrix (k = kNone: every
// pair can), found by pass 1: the slot whose address breaks it, the address it needed there and
// whether the rows were 16-byte aligned.
struct PairBreak {
  static constexpr int kNone = 1 << 30;
  int k = kNone, thread = 0, value = 0;
  std::uint32_t want = 0;
  bool aligned = true;
};

// What pass 1 learns from the slot addresses of every warp; the chains and the candidates read it.
struct SlotScan {
  std::int32_t live = 0;      // G: values live together (one tcgen05.ld); runs and instructions stay in one group
  bool try_stmatrix = false;  // stmatrix allowed, 2-byte elements, value pairs inside the groups
  // succ[v]: the value E bytes after v, the same for every thread and in v's group (-1: none)
  std::int16_t succ[SmemStorePlan::kMaxValues] = {};
  std::int32_t fail_thread[SmemStorePlan::kMaxValues] = {};  // the thread where succ[v] failed
  std::uint32_t amask[SmemStorePlan::kMaxValues] = {};       // OR of every thread's address of v (alignment)
  PairBreak pair[2];                                         // stmatrix: [0] plain, [1] .trans
};

// The destination must be injective: unless its leaves are disjoint (dest_leaves_disjoint), pass 1
// keeps one bit per element address (address / E; every address is below dest_extent().end <=
// kMaxDestBytes, validate()), zeroed by init() up to that end before any read. (Not a left inverse:
// padded layouts such as (64,128):(130,1) are injective without one.)
struct DestBitmap {
  bool check = false;
  int log_elem = 0;                         // log2 E
  std::uint64_t words[kMaxDestBytes / 64];  // written by init() before any read
  constexpr void init(const StoreDestination& dst) {
    const int E = dst.elem_bytes;
    check = !dest_leaves_disjoint(dst.tile.layout);
    log_elem = E == 1 ? 0 : E == 2 ? 1 : E == 4 ? 2 : 3;  // E is 1, 2, 4 or 8 (validate())
    const std::int64_t n = check ? ((dest_extent(dst).end >> log_elem) + 63) / 64 : 0;
    for (std::int64_t i = 0; i < n; ++i) words[i] = 0;
  }
};

// Pass 1's refusal for slot (t, v), where WarpTable::fill() stopped: outside the tile (dup false), or
// holding an element that an earlier slot (thread-major) holds, named with the first slot holding it
// (the search reaches (t, v) itself at the latest). True once p holds the refusal.
constexpr bool refuse_slot(SmemStorePlan& p, const StoreSource& src, const AddressMap& map, int t, int v, bool dup) {
  if (!dup) {
    p = refuse(p, SmemStoreRule::source_out_of_tile, src.rows(), src.cols(), 0, 0, map.slot(t, v));
    return true;
  }
  const TileCoord c = src.coord(t, v);
  for (int t2 = 0; t2 < p.threads; ++t2)
    for (int v2 = 0; v2 < p.values; ++v2)
      if (src.coord(t2, v2) == c) {
        p = refuse(p, SmemStoreRule::source_not_injective, 0, 0, 0, 0, map.slot(t2, v2), map.slot(t, v));
        return true;
      }
  return false;
}

// The addresses of warp w (the table's current warp) into every value's alignment mask and, when it
// checks, the destination bitmap. False (the refusal in p) at the first address written twice: named
// by the first slot (thread-major) at it and this one.
constexpr bool record_addresses(SmemStorePlan& p, const AddressMap& map, const WarpTable& tab, int w, SlotScan& s,
                                DestBitmap& written) {
  const int V = p.values, E = p.elem_bytes;
  for (int l = 0; l < 32; ++l) {
    const std::uint32_t* row = tab.row(l);
    for (int v = 0; v < V; ++v) s.amask[v] |= row[v];
    if (written.check)
      for (int v = 0; v < V; ++v) {
        const std::uint32_t e = row[v] >> written.log_elem;
        const std::uint64_t bit = std::uint64_t{1} << (e % 64);
        if (written.words[e / 64] & bit) {
          p = refuse(p, SmemStoreRule::dest_not_injective, 0, 0, 0, 0, owner_of(map, row[v], E),
                     map.slot(32 * w + l, v));
          return false;
        }
        written.words[e / 64] |= bit;
      }
  }
  return true;
}

// Every value's successor as thread 0 sees it (warp 0 in the table): the value whose address is E
// bytes higher, kept only inside v's live group. Thread 0's values sorted by address (stable), then a
// binary search per value.
constexpr void find_successors(const SmemStorePlan& p, const WarpTable& tab, SlotScan& s) {
  const int V = p.values, E = p.elem_bytes, G = s.live;
  std::int16_t idx[SmemStorePlan::kMaxValues] = {}, tmp[SmemStorePlan::kMaxValues] = {};
  for (int v = 0; v < V; ++v) idx[v] = static_cast<std::int16_t>(v);
  for (int width = 1; width < V; width *= 2) {  // bottom-up merge sort (stable)
    for (int lo = 0; lo < V; lo += 2 * width) {
      const int mid = lo + width < V ? lo + width : V, hi = lo + 2 * width < V ? lo + 2 * width : V;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = tab.at(0, idx[j]) < tab.at(0, idx[i]) ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    for (int v = 0; v < V; ++v) idx[v] = tmp[v];
  }
  for (int v = 0; v < V; ++v) {
    s.succ[v] = -1;
    s.fail_thread[v] = 0;
    const std::uint32_t want = tab.at(0, v) + static_cast<std::uint32_t>(E);
    int lo = 0, hi = V - 1;
    while (lo <= hi) {
      const int mid = (lo + hi) / 2;
      const std::uint32_t x = tab.at(0, idx[mid]);
      if (x == want) {
        if (idx[mid] / G == v / G) s.succ[v] = idx[mid];
        break;
      }
      if (x < want) lo = mid + 1;
      else hi = mid - 1;
    }
  }
}

// Drops each successor that some lane of warp w (the table's current warp; thread 0 set them) does not
// share, with the first thread where it fails. Value by value: a value's check reads only its own
// successor and the table, so the order of values and lanes does not change the result (lane by lane
// measured slower).
constexpr void check_successors(const SmemStorePlan& p, const WarpTable& tab, int w, SlotScan& s) {
  const int V = p.values, E = p.elem_bytes;
  for (int v = 0; v < V; ++v) {
    const int next = s.succ[v];
    if (next < 0) continue;
    for (int l = (w == 0 ? 1 : 0); l < 32; ++l) {
      const std::uint32_t* row = tab.row(l);
      if (row[next] != row[v] + static_cast<std::uint32_t>(E)) {
        s.succ[v] = -1;
        s.fail_thread[v] = 32 * w + l;
        break;
      }
    }
  }
}

// stmatrix in warp w (the table's current warp): registers pack values (2k, 2k+1); each pair must be
// an 8x8 matrix of 16-byte rows. Lowers each form's first failing pair (then warp, then lane).
constexpr void check_pairs(const SmemStorePlan& p, const WarpTable& tab, int w, SlotScan& s) {
  const int V = p.values;
  for (int tr = 0; tr < 2; ++tr) {
    PairBreak& brk = s.pair[tr];
    for (int k = 0; k < V / 2 && k < brk.k; ++k) {
      const int va = 2 * k, vb = va + 1;
      bool bad = false;
      for (int l = 0; l < 32 && !bad; ++l) {
        // the rows lane l's va and vb lie in and where each row starts: stmatrix_row_source
        // inverted (plain: both in row l/4, started by lane 4 (l/4)'s va; .trans: rows 2 (l%4) and
        // 2 (l%4) + 1, started by lane l%4's va and vb), written out because the helper's
        // ternaries measured slower here (test SmemStorePlan.PairCheckFollowsTheRowRule)
        std::uint32_t ea = 0, eb = 0, ra = 0, rb = 0;
        if (tr == 0) {
          ra = rb = tab.at(4 * (l / 4), va);
          ea = ra + 4 * static_cast<std::uint32_t>(l % 4);
          eb = ea + 2;
        } else {
          ra = tab.at(l % 4, va);
          rb = tab.at(l % 4, vb);
          ea = ra + 2 * static_cast<std::uint32_t>(l / 4);
          eb = rb + 2 * static_cast<std::uint32_t>(l / 4);
        }
        const bool aligned = ra % 16 == 0 && rb % 16 == 0;
        if (tab.at(l, va) != ea || tab.at(l, vb) != eb || !aligned) {
          bad = true;
          const bool bad_a = tab.at(l, va) != ea;
          brk.k = k;
          brk.thread = 32 * w + l;
          brk.value = bad_a ? va : vb;
          brk.want = bad_a ? ea : eb;
          brk.aligned = aligned;
        }
      }
    }
  }
}

// ---- pass 1, warp by warp: addresses, register ownership (every slot inside the tile, no element
// held twice), successors (checked in every thread), alignment masks and the stmatrix pairs. Leaves
// the last warps' addresses in the table for pass 2. False (the refusal in p) when a slot or a
// destination address is refused.
constexpr bool scan_slots(SmemStorePlan& p, const StoreSource& src, const StoreDestination& dst,
                          const AddressMap& map, WarpTable& tab, SlotScan& s) {
  const int V = p.values, W = p.threads / 32;
  const int R = src.rows(), C = src.cols();
  std::uint64_t seen[1024];  // tv only: zeroed here, before any read
  if (map.tv)
    for (int i = 0; i < 1024; ++i) seen[i] = 0;
  DestBitmap written;
  written.init(dst);
  for (int w = 0; w < W; ++w) {
    bool dup = false;
    // Ownership is checked for tv layouts; the built-in models hold every element of their tile
    // exactly once by construction (for the shapes validate() accepts; tested in test_smem_store).
    const int bad = tab.fill(map, w, map.tv ? seen : nullptr, R, C, &dup);
    if (bad >= 0 && refuse_slot(p, src, map, 32 * w + bad / V, bad % V, dup)) return false;
    if (!record_addresses(p, map, tab, w, s, written)) return false;
    if (w == 0) find_successors(p, tab, s);
    check_successors(p, tab, w, s);
    if (s.try_stmatrix) check_pairs(p, tab, w, s);
  }
  return true;
}

// The chains of successors: every value once, in chain order, chains by ascending head, and the
// length of the chain each value is in. The candidates cut them into runs from each head.
struct Chains {
  std::int16_t value[SmemStorePlan::kMaxValues] = {};
  std::int16_t length_of[SmemStorePlan::kMaxValues] = {};
};

// ---- chains of successors
constexpr void link_chains(const SmemStorePlan& p, const SlotScan& s, Chains& ch) {
  const int V = p.values;
  std::int16_t pred[SmemStorePlan::kMaxValues] = {};
  for (int v = 0; v < V; ++v) pred[v] = -1;
  for (int v = 0; v < V; ++v)
    if (s.succ[v] >= 0) pred[s.succ[v]] = static_cast<std::int16_t>(v);
  int k = 0;
  for (int h = 0; h < V; ++h) {
    if (pred[h] >= 0) continue;
    const int start = k;
    for (int v = h; v >= 0; v = s.succ[v]) ch.value[k++] = static_cast<std::int16_t>(v);
    for (int i = start; i < k; ++i) ch.length_of[ch.value[i]] = static_cast<std::int16_t>(k - start);
  }
}

// Why value v (at its failing thread) has no successor, as the limit of a store of `bytes` per lane.
constexpr WidthFinding explain_break(const SmemStorePlan& p, const AddressMap& map, const SlotScan& s, int v,
                                     int bytes) {
  const int E = p.elem_bytes, G = s.live;
  WidthFinding f;
  f.bytes = bytes;
  const int t = s.fail_thread[v];
  f.a = map.slot(t, v);
  const SlotRef o = owner_of(map, f.a.addr + static_cast<std::uint64_t>(E), E);
  f.b = o;
  if (!o.valid()) f.why = WidthLimit::not_adjacent;
  else if (o.thread != t) f.why = WidthLimit::other_thread;
  else if (o.value / G != v / G) f.why = WidthLimit::other_load;
  else {
    // thread t's next element is o.value, but thread 0 disagrees
    f.why = WidthLimit::not_uniform;
    const SlotRef o0 = owner_of(map, map.slot(0, v).addr + static_cast<std::uint64_t>(E), E);
    if (t != 0) f.b = map.slot(0, v);
    else f.b = o0.valid() ? o0 : o;
  }
  return f;
}

// The st.shared candidate of `bytes` per lane: feasible when every chain splits into whole runs of
// bytes / E values and every run starts at a multiple of `bytes` in every thread.
constexpr StoreCandidate st_shared_candidate(const SmemStorePlan& p, const AddressMap& map, const SlotScan& s,
                                             const Chains& ch, int bytes) {
  const int T = p.threads, V = p.values, E = p.elem_bytes;
  const int n = bytes / E;
  StoreCandidate c;
  c.op = StoreOp{StoreOpKind::st_shared, bytes, 0, false};
  c.feasible = true;
  c.instructions = V / n;
  c.wavefronts = -1;
  for (int k = 0; k < V && c.feasible; ++k) {
    const int v = ch.value[k];
    if (ch.length_of[v] % n != 0) {
      // the run containing v is cut short: the value ending v's chain has no successor
      int end = v;
      while (s.succ[end] >= 0) end = s.succ[end];
      c.feasible = false;
      c.why_not = explain_break(p, map, s, end, bytes);
    }
  }
  // every run starts at a multiple of the width, in every thread
  for (int k = 0; k < V && c.feasible; k += n)
    if (s.amask[ch.value[k]] % static_cast<std::uint32_t>(bytes) != 0)
      for (int t = 0; t < T && c.feasible; ++t) {
        const SlotRef slot = map.slot(t, ch.value[k]);
        if (static_cast<std::uint32_t>(slot.addr) % static_cast<std::uint32_t>(bytes) != 0) {
          c.feasible = false;
          c.why_not.why = WidthLimit::misaligned;
          c.why_not.bytes = bytes;
          c.why_not.a = slot;
        }
      }
  return c;
}

// The six stmatrix candidates (plain, then .trans; .x1, .x2, .x4 each) from p.candidates[nc] on;
// returns the new candidate count.
constexpr int add_stmatrix_candidates(SmemStorePlan& p, const AddressMap& map, const SlotScan& s, int nc) {
  const int V = p.values, E = p.elem_bytes, G = s.live;
  bool pair_ok[2] = {true, true};
  WidthFinding pair_why[2] = {};
  for (int tr = 0; tr < 2; ++tr)
    if (s.pair[tr].k < PairBreak::kNone) {
      pair_ok[tr] = false;
      WidthFinding& f = pair_why[tr];
      f.bytes = 4;
      f.why = s.pair[tr].aligned ? WidthLimit::not_adjacent : WidthLimit::misaligned;
      f.a = map.slot(s.pair[tr].thread, s.pair[tr].value);
      f.b = owner_of(map, s.pair[tr].want, E);
    }
  for (int tr = 0; tr < 2; ++tr)
    for (int mi = 0; mi < 3; ++mi) {
      const int m = 1 << mi;
      StoreCandidate c;
      c.op = StoreOp{StoreOpKind::stmatrix, 4, m, tr == 1};
      c.instructions = V / 2 / m;
      c.wavefronts = -1;
      // the 2m values of one instruction must come from one tcgen05.ld (G values live together)
      c.feasible = pair_ok[tr] && (V / 2) % m == 0 && G % (2 * m) == 0;
      if (!pair_ok[tr]) c.why_not = pair_why[tr];
      else if ((V / 2) % m != 0) {
        c.why_not.why = WidthLimit::not_adjacent;
        c.why_not.bytes = 4 * m;
      } else if (!c.feasible) {  // G < V here: values G - 1 and G share an instruction
        c.why_not.why = WidthLimit::other_load;
        c.why_not.bytes = 4 * m;
        c.why_not.a = map.slot(0, G - 1);
        c.why_not.b = map.slot(0, G);
      }
      p.candidates[nc++] = c;
    }
  return nc;
}

// ---- candidates and their feasibility: st.shared by ascending width (E..max_bytes), then stmatrix.
// Returns the index of the first stmatrix candidate (p.num_candidates when there are none).
constexpr int add_candidates(SmemStorePlan& p, const AddressMap& map, const SlotScan& s, const Chains& ch,
                             const SmemStoreOptions& opts) {
  int nc = 0;
  for (int wi = 0; wi < 5; ++wi) {
    const int bytes = 1 << wi;
    if (bytes < p.elem_bytes || bytes > opts.max_bytes) continue;
    p.candidates[nc++] = st_shared_candidate(p, map, s, ch, bytes);
  }
  const int first_stm = nc;
  if (s.try_stmatrix) nc = add_stmatrix_candidates(p, map, s, nc);
  p.num_candidates = nc;
  return first_stm;
}

// The widest feasible st.shared and what stops the next width (max_vector when that width is past
// max_bytes).
constexpr void find_width_limit(SmemStorePlan& p, int first_stm, const SmemStoreOptions& opts) {
  p.widest_st_bytes = 0;
  for (int ci = 0; ci < first_stm; ++ci)
    if (p.candidates[ci].feasible) p.widest_st_bytes = p.candidates[ci].op.bytes;
  p.width_limit = WidthFinding{};
  p.width_limit.why = WidthLimit::max_vector;
  p.width_limit.bytes = p.widest_st_bytes * 2;
  if (p.widest_st_bytes * 2 <= opts.max_bytes)
    for (int ci = 0; ci < first_stm; ++ci)
      if (p.candidates[ci].op.bytes == p.widest_st_bytes * 2) p.width_limit = p.candidates[ci].why_not;
}

// Pass 2's measured candidates, the feasible ones with min_instructions instructions (with a forced
// instruction its candidate alone: the others with as many instructions have their counts negated
// until the choice), and what it measures, per candidate index: the wavefronts of each warp, the ideal
// per warp, the totals over the warps and the first group above the ideal (the lowest warp's).
struct WavefrontTally {
  int min_instructions = 1 << 30;
  int forced = -1;  // the forced instruction's candidate (-1: none)
  std::int32_t per_warp[SmemStorePlan::kMaxCandidates][SmemStorePlan::kMaxWarps] = {};
  std::int32_t ideal[SmemStorePlan::kMaxCandidates] = {};
  std::int32_t total[SmemStorePlan::kMaxCandidates] = {};
  std::int32_t total_ideal[SmemStorePlan::kMaxCandidates] = {};
  ConflictFinding conflict[SmemStorePlan::kMaxCandidates] = {};
  constexpr bool measures(const StoreCandidate& c) const { return c.feasible && c.instructions == min_instructions; }
};

// The candidates pass 2 measures: those with the fewest instructions, or the forced instruction's.
// False (the refusal in p) when the forced instruction is no candidate or cannot store the fragment.
constexpr bool select_measured(SmemStorePlan& p, const SmemStoreOptions& opts, WavefrontTally& m) {
  const int nc = p.num_candidates;
  for (int ci = 0; ci < nc; ++ci)
    if (p.candidates[ci].feasible && p.candidates[ci].instructions < m.min_instructions)
      m.min_instructions = p.candidates[ci].instructions;
  if (opts.force.bytes <= 0) return true;
  for (int ci = 0; ci < nc; ++ci)
    if (p.candidates[ci].op == opts.force) m.forced = ci;
  const bool stm = opts.force.kind == StoreOpKind::stmatrix;
  const std::int64_t forced_bytes = opts.force.bytes * (stm ? opts.force.matrices : 1);
  if (m.forced < 0) return reject(p, SmemStoreRule::forced_op, forced_bytes, stm, 1);
  if (!p.candidates[m.forced].feasible) {
    reject(p, SmemStoreRule::forced_op, forced_bytes, stm, 0);
    p.width_limit = p.candidates[m.forced].why_not;  // the slots that block it, for the words
    return false;
  }
  m.min_instructions = p.candidates[m.forced].instructions;
  for (int ci = 0; ci < nc; ++ci)  // set aside: pass 2 measures only candidates with min_instructions
    if (ci != m.forced && p.candidates[ci].instructions == m.min_instructions)
      p.candidates[ci].instructions = -p.candidates[ci].instructions;
  return true;
}

// The 32-bit slot addresses of one warp in pass 2: read from the table while it holds the warp, else
// computed from the lanes' thread parts (pass 2 needs only a few per lane).
struct WarpAddresses {
  const AddressMap* map = nullptr;
  const WarpTable* tab = nullptr;
  int warp = 0;
  bool held = false;
  std::int64_t trow[32] = {};  // not held: the lanes' thread parts (AddressMap::lane_parts)
  std::int32_t tcol[32] = {};
  constexpr std::uint32_t operator()(int l, int v) const {
    return held ? tab->at(l, v) : map->addr32(trow[l], tcol[l], v);
  }
};

// One candidate's cost in one warp: its wavefronts, their ideal and the warp's first group above it.
struct WarpCost {
  std::int32_t wavefronts = 0, ideal = 0;
  ConflictFinding conflict{};
};

// Instruction i of an st.shared of `bytes` per lane, whose run starts with value v0: the lanes'
// addresses, by the groups of lanes that one wavefront serves.
constexpr void add_st_shared_wavefronts(WarpCost& cost, const WarpAddresses& addrs, int i, int bytes, int v0) {
  const int B = bytes, gl = lanes_per_wavefront_group(B), w = addrs.warp;
  std::uint32_t addr[32] = {};
  for (int l = 0; l < 32; ++l) addr[l] = addrs(l, v0);
  for (int g = 0; g < 32; g += gl) {
    int ca = -1, cb = -1;
    const int gw = group_wavefronts(addr + g, gl, B, &ca, &cb);
    const int gi = ideal_group_wavefronts(gl, B);
    cost.wavefronts += gw;
    cost.ideal += gi;
    if (gw > gi && !cost.conflict.any()) {
      ConflictFinding& cf = cost.conflict;
      cf.warp = w;
      cf.instruction = i;
      cf.wavefronts = gw;
      cf.ideal = gi;
      cf.lane_a = g + ca;
      cf.lane_b = g + cb;
      cf.a = addrs.map->slot(32 * w + g + ca, v0);
      cf.b = addrs.map->slot(32 * w + g + cb, v0);
    }
  }
}

// Instruction i of stmatrix `op`, whose values start at `base`: each 8x8 matrix's 8 row addresses
// (16 bytes each) are one group, ideally one wavefront.
constexpr void add_stmatrix_wavefronts(WarpCost& cost, const WarpAddresses& addrs, int i, int base, const StoreOp& op) {
  const int w = addrs.warp;
  for (int j = 0; j < op.matrices; ++j) {
    const int va = base + 2 * j, vb = va + 1;
    std::uint32_t rowaddr[8] = {};
    int rowlane[8] = {};
    int rowval[8] = {};
    for (int r = 0; r < 8; ++r) {
      const StmatrixRow rs = stmatrix_row_source(r, op.trans);
      rowlane[r] = rs.lane;
      rowval[r] = rs.second ? vb : va;
      rowaddr[r] = addrs(rowlane[r], rowval[r]);
    }
    int ca = -1, cb = -1;
    const int gw = group_wavefronts(rowaddr, 8, 16, &ca, &cb);
    cost.wavefronts += gw;
    cost.ideal += 1;
    if (gw > 1 && !cost.conflict.any()) {
      ConflictFinding& cf = cost.conflict;
      cf.warp = w;
      cf.instruction = i;
      cf.wavefronts = gw;
      cf.ideal = 1;
      cf.lane_a = 8 * j + ca;  // the lanes that give those row addresses
      cf.lane_b = 8 * j + cb;
      cf.a = addrs.map->slot(32 * w + rowlane[ca], rowval[ca]);
      cf.b = addrs.map->slot(32 * w + rowlane[cb], rowval[cb]);
    }
  }
}

// Every instruction of candidate c in one warp.
constexpr WarpCost measure_candidate(const StoreCandidate& c, const WarpAddresses& addrs, const Chains& ch, int E) {
  const int vpi = c.op.values_per_lane(E);
  WarpCost cost;
  for (int i = 0; i < c.instructions; ++i) {
    const int base = i * vpi;
    if (c.op.kind == StoreOpKind::st_shared) add_st_shared_wavefronts(cost, addrs, i, c.op.bytes, ch.value[base]);
    else add_stmatrix_wavefronts(cost, addrs, i, base, c.op);
  }
  return cost;
}

// ---- pass 2: wavefronts of the measured candidates, warp by warp (last warp first: its addresses are
// still in the table). A candidate's conflict finding is its first group (warp, instruction, group)
// above the ideal. False with conflict_free_only once every measured candidate has such a group.
constexpr bool measure_warps(SmemStorePlan& p, const AddressMap& map, WarpTable& tab, const Chains& ch,
                             const SmemStoreOptions& opts, WavefrontTally& m) {
  const int nc = p.num_candidates;
  for (int w = p.threads / 32 - 1; w >= 0; --w) {
    // the warps still in the table are read from it; the others compute the few addresses needed
    // (one per run and lane for st.shared, the row addresses for stmatrix)
    WarpAddresses addrs;
    addrs.map = &map;
    addrs.tab = &tab;
    addrs.warp = w;
    addrs.held = tab.select(w);
    if (!addrs.held) map.lane_parts(w, addrs.trow, addrs.tcol);
    for (int ci = 0; ci < nc; ++ci) {
      StoreCandidate& c = p.candidates[ci];
      if (!m.measures(c)) continue;
      const WarpCost cost = measure_candidate(c, addrs, ch, p.elem_bytes);
      m.per_warp[ci][w] = cost.wavefronts;
      m.ideal[ci] = cost.ideal;
      m.total[ci] += cost.wavefronts;
      m.total_ideal[ci] += cost.ideal;
      if (cost.wavefronts > c.wavefronts) c.wavefronts = cost.wavefronts;
      c.ideal = cost.ideal;
      if (cost.conflict.any()) m.conflict[ci] = cost.conflict;  // warps run downwards: the lowest warp's finding stays
    }
    if (opts.conflict_free_only) {  // every candidate already above its ideal: not conflict-free
      bool any_clean = false;
      for (int ci = 0; ci < nc; ++ci)
        if (m.measures(p.candidates[ci]) && !m.conflict[ci].any()) any_clean = true;
      if (!any_clean) return false;
    }
  }
  return true;
}

// The plan: the measured candidate with the fewest wavefronts (the first on ties: st.shared, then
// stmatrix), with its measurements and register order; the set-aside candidates get their
// instruction counts back.
constexpr void choose_plan(SmemStorePlan& p, const Chains& ch, const WavefrontTally& m) {
  const int V = p.values, W = p.threads / 32, nc = p.num_candidates;
  int best = -1;
  for (int ci = 0; ci < nc; ++ci) {
    if (!m.measures(p.candidates[ci])) continue;
    if (best < 0 || m.total[ci] < p.total_wavefronts) {
      best = ci;
      for (int w = 0; w < W; ++w) p.wavefronts[w] = m.per_warp[ci][w];
      p.ideal_wavefronts = m.ideal[ci];
      p.total_wavefronts = m.total[ci];
      p.total_ideal = m.total_ideal[ci];
      p.conflict = m.conflict[ci];
    }
  }
  if (m.forced >= 0)
    for (int ci = 0; ci < nc; ++ci)
      if (p.candidates[ci].instructions < 0) p.candidates[ci].instructions = -p.candidates[ci].instructions;
  const StoreCandidate& bc = p.candidates[best];
  p.op = bc.op;
  p.values_per_instruction = bc.op.values_per_lane(p.elem_bytes);
  p.instructions = bc.instructions;
  for (int k = 0; k < V; ++k)
    p.order[k] = bc.op.kind == StoreOpKind::st_shared ? ch.value[k] : static_cast<std::int16_t>(k);
  p.ok = true;
}

constexpr void plan_search(SmemStorePlan& p, const StoreSource& src, const StoreDestination& dst,
                           const SmemStoreOptions& opts) {
  AddressMap map;
  map.init(src, dst);
  WarpTable tab;
  tab.init(p.values);

  SlotScan scan;
  scan.live = src.live_values() > 0 ? src.live_values() : p.values;
  scan.try_stmatrix = opts.allow_stmatrix && p.elem_bytes == 2 && p.values % 2 == 0 && scan.live % 2 == 0;
  if (!scan_slots(p, src, dst, map, tab, scan)) return;

  Chains chains;
  link_chains(p, scan, chains);

  const int first_stm = add_candidates(p, map, scan, chains, opts);
  find_width_limit(p, first_stm, opts);
  if (opts.widths_only) {
    p.ok = true;
    return;
  }

  // Pass 2 measures the candidates with the fewest instructions; the chosen one has the fewest
  // wavefronts. Stopping early for the fix search leaves p.ok false.
  WavefrontTally tally;
  if (!select_measured(p, opts, tally)) return;
  if (opts.conflict_free_only && tally.min_instructions > opts.max_instructions) return;
  if (!measure_warps(p, map, tab, chains, opts, tally)) return;
  choose_plan(p, chains, tally);
}

constexpr void find_fixes(SmemStorePlan& p, const StoreSource& src, const StoreDestination& dst,
                          const SmemStoreOptions& opts) {
  const SwizzleParams sw = dst.tile.swizzle;
  const int E = dst.elem_bytes;
  SmemStoreOptions o = opts;
  o.suggest = false;
  o.check_units = false;
  if (p.total_wavefronts > p.total_ideal) {
    // only a conflict-free plan with no more instructions counts: stop each re-plan at the first
    // sign that it is not one (its wavefronts and choice are not needed then)
    o.conflict_free_only = true;
    o.max_instructions = p.instructions;
    for (int b = 3; b >= 1 && !p.has_better_swizzle; --b) {  // the widest conflict-free swizzle
      StoreDestination d2 = dst;
      Swizzle mode = Swizzle::none;
      tma_swizzle_of(SwizzleParams{b, 4, 3}, mode);  // the sm_90 mode of Swizzle<b,4,3>
      if (dst.canonical) {
        const DestinationResult r = gmma_operand(dst.major, mode, E, dst.rows, dst.cols);
        if (!r.ok) continue;
        d2 = r.value;
      } else {
        d2.tile.swizzle = swizzle_for(mode);
        d2.base_offset = 0;
      }
      if (d2.tile.swizzle.bits == sw.bits && d2.tile.swizzle.base == sw.base && d2.tile.swizzle.shift == sw.shift)
        continue;
      const SmemStorePlan q = plan_core(src, d2, o);
      if (q.ok && q.total_wavefronts == q.total_ideal && q.instructions <= p.instructions) {
        p.has_better_swizzle = true;
        p.better_swizzle = d2.tile.swizzle;
        p.better_swizzle_mode = mode;
        p.better_swizzle_wavefronts = q.wavefronts[0];
      }
    }
  }
  if (src.is_tcgen05() && p.widest_st_bytes < 16 && p.width_limit.why == WidthLimit::other_load) {
    // only the widest st.shared matters here: widths only, no stmatrix, no wavefronts
    SmemStoreOptions ow = o;
    ow.widths_only = true;
    ow.allow_stmatrix = false;
    for (int rep = src.rep * 2; rep <= 128 && p.better_rep == 0; rep *= 2) {
      StoreSource s2 = src;
      s2.rep = rep;
      if (src.n % s2.cols_per_load() != 0) break;
      const SmemStorePlan q = plan_core(s2, dst, ow);
      if (q.ok && q.widest_st_bytes > p.widest_st_bytes) {
        p.better_rep = rep;
        p.better_rep_bytes = q.widest_st_bytes;
      }
    }
  }
}

}  // namespace smem_store_detail

}  // namespace tmakit
