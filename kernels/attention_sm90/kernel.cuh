// The attention forward kernel: a tile is kBlockM query rows of one (batch, head) (64 per consumer
// warpgroup: 192 with three, 128 with two; kConsumersFor), warp-specialized.
// Two forms (the template parameter Persistent, AttentionArgs::grid):
//   one CTA per tile   grid (query blocks, heads, batch), the present form;
//   persistent         grid = min(CTAs that fit at once, tiles), each CTA taking tiles as it frees up
//                      (CtaTiles); the producer's K / V rings and the consumers' turns run on across
//                      tiles.
//
//   warpgroup 0     thread 0 (producer) loads the CTA's Q tile once, then the K and V tiles of each
//                   KV block (kBlockN rows) into rings of their own (device::Ring: K_j ahead of
//                   V_{j-1}, the order the consumers need them), each stage freed by its own barrier
//   warpgroup 1 ..  (consumers: 3 or 2, kConsumersFor) each owns 64 query rows, pipelined by one
//                   block: iteration j issues
//                   S_j = Q K_j^T and O += P_{j-1} V_{j-1} (WGMMA), waits for S_j alone, runs the
//                   masks (sequence end, causal) and the online softmax of block j in fp32 (exp2)
//                   while P V runs, then waits for it and rescales O where a row's maximum moved
//                   (by more than kMaxSlack); causal, each stops at the last block holding a
//                   column at or left of its last row (skipping the later ones); the consumers take turns
//                   issuing their WGMMAs (named barriers), so one's softmax runs under another's
//                   multiplies; at the end O / l through shared memory and a TMA store, and the
//                   log-sum-exp per row
//
// P reaches the second WGMMA one of two ways (PSource, a template parameter so both are measured):
//   PSource::smem       P is converted to 16 bits and written into a 64 x N K-major 128B-swizzled
//                     operand buffer, 64 columns at a time, by the smem-store plan
//                     plan_smem_store(wgmma_accumulator(64), a 64 x 64 piece of that buffer)
//                     (stmatrix), fenced for the async proxy, and read by an SS WGMMA;
//   PSource::registers  the accumulator of S, converted to 16 bits, is the A fragment of the RS WGMMA
//                     as it stands (wgmma::a_fragment: slots paired, no data moves between threads).
//
// Nothing here computes a byte count, a box, a coordinate or a shared offset by hand:
//   - the Q, K, V and O tiles' descriptors, copies and expected bytes are tmakit plans (plan_tile,
//     against the layouts of tiles.cuh): their shapes compiled into copy programs (programs.cuh,
//     one TMA instruction per copy with constant offsets), each plan the host makes checked
//     against them (attention.cu), the tensor maps the only run-time part;
//   - Q, K, P and O are gmma_operand's canonical K-major layouts and V its MN-major one (V is
//     [kv, d] with d contiguous: N-major for the B operand of O = P V); the WGMMA descriptors are
//     read off them (wgmma_descriptor_fields, wgmma_start_offset);
//   - P (PSource::smem) and O reach shared memory through plan_smem_store plans, checked at compile time.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/attention_sm90/attention.hpp"
#include "kernels/attention_sm90/programs.cuh"
#include "kernels/attention_sm90/tiles.cuh"
#include "tmakit/device/element_bits.cuh"
#include "tmakit/device/fast_math.cuh"
#include "tmakit/device/fragment.cuh"
#include "tmakit/device/named_barrier.cuh"
#include "tmakit/device/registers.cuh"
#include "tmakit/device/ring.cuh"
#include "tmakit/device/smem_store.cuh"
#include "tmakit/device/tile_scheduler.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/device/wgmma.cuh"
#include "tmakit/smem_store/gmma_descriptor.hpp"
#include "tmakit/smem_store/plan.hpp"

namespace tmakit::attention_sm90 {

// Everything the kernel reads from the host, as one __grid_constant__ parameter.
// The copies' shapes are compiled (programs.cuh); the tensor maps carry the rest.
struct KernelParams {
  CUtensorMap q_map, k_map, v_map, o_map;
  float* lse = nullptr;  // [batch, heads, seqlen], or (packed sequences) [heads, total rows]
  // Packed sequences of different lengths: sequence b is rows [cu_seqlens[b], cu_seqlens[b + 1]) of
  // the packed tensors (programs.cuh: packed_tensor); null for one length, seqlen, in every batch.
  const std::int32_t* cu_seqlens = nullptr;
  std::int32_t seqlen = 0, heads = 0, batch = 0;
  std::int32_t window = 0;    // rows of the tensors' window (packed_tensor); seqlen for one length
  std::int64_t lse_head_stride = 0;  // LSE values from one head to the next: seqlen, or the total rows
  // Persistent form: the tiles are handed out one at a time from *tile_counter (zero at launch), unit
  // u being raster.at(u): m the (head, batch) index hb, n the query block counted from the sequence's
  // last (CtaTiles).
  std::int32_t* tile_counter = nullptr;
  device::GroupedRaster raster{};
  std::int32_t group = 1;  // query heads per K / V head (grouped-query attention): K and V head = h / group
  float scale_log2 = 0.0f;  // the softmax scale times log2(e): the kernel's exponentials are exp2
};


// The KV blocks the CTA of query block qb of a sequence of seqlen rows visits: every block, or
// (causal) those with a column at or left of the tile's last row.
template <int D, PSource Path, bool Causal>
__device__ __forceinline__ std::int32_t kv_blocks(std::int32_t seqlen, std::int32_t qb) {
  constexpr int kN = kBlockN<D, Path>;
  const std::int32_t cols = Causal ? min(seqlen, (qb + 1) * kBlockM<kConsumersFor<D, Path>>) : seqlen;
  return (cols + kN - 1) / kN;
}

// Sequence b's rows: seqlen, or (packed) cu_seqlens[b + 1] - cu_seqlens[b].
__device__ __forceinline__ std::int32_t rows_of(const KernelParams& p, std::int32_t b) {
  return p.cu_seqlens ? __ldg(p.cu_seqlens + b + 1) - __ldg(p.cu_seqlens + b) : p.seqlen;
}

// A tile: query block qb (kBlockM rows) of head h = hb % heads of sequence (batch) b = hb / heads,
// which has seqlen rows. Three words, what a consumer holds across its KV loop; the rest is derived
// where a copy or the epilogue needs it.
struct Tile {
  std::int32_t qb = 0, hb = 0, seqlen = 0;
  __device__ __forceinline__ std::int32_t h(const KernelParams& p) const { return hb % p.heads; }
  __device__ __forceinline__ std::int32_t b(const KernelParams& p) const { return hb / p.heads; }
  // The coordinate of the tensor maps' last mode: the batch, or (packed) the row the sequence ends at.
  __device__ __forceinline__ std::int32_t coord(const KernelParams& p) const {
    return p.cu_seqlens ? __ldg(p.cu_seqlens + b(p) + 1) : b(p);
  }
  // The tile's rows lie this many elements into the tensors' window (0 for one length).
  __device__ __forceinline__ std::int32_t shift(const KernelParams& p) const { return p.window - seqlen; }
  // The LSE value of row 0 of the tile's (head, sequence): [batch, heads, seqlen], or [heads, total].
  __device__ __forceinline__ float* lse(const KernelParams& p) const {
    const std::int64_t first = p.cu_seqlens ? std::int64_t{__ldg(p.cu_seqlens + b(p))} : std::int64_t{b(p)} * p.heads * p.seqlen;
    return p.lse + first + h(p) * p.lse_head_stride;
  }
};

// Arrivals that free Q's stage: one per consumer thread (SharedStorage).
template <int C>
inline constexpr std::uint32_t kQReleases = 128 * C;

template <int D, PSource Path, int C = kConsumersFor<D, Path>>
struct alignas(1024) SharedStorage {
  unsigned char q[kQBytes<D, C>];
  unsigned char k[kKStages<D, Path>][kKVBytes<D, Path>];
  unsigned char v[kVStages<D, Path>][kKVBytes<D, Path>];
  unsigned char scratch[C][kScratchBytes<D, Path>];
  // A K stage is released by every consumer warpgroup (one arrival each) once S is computed from it, a
  // V stage once P V is. Q's stage (persistent form) by every consumer thread (kQReleases) once its
  // warpgroup's last P V of the tile has completed: each thread has then also read the tile published
  // with Q (below), and its own arrival orders that read before the producer's next write of it.
  device::Ring<1> q_ring;
  device::Ring<kKStages<D, Path>> k_ring;
  device::Ring<kVStages<D, Path>> v_ring;
  // Persistent form: the tile whose Q the producer loads in Q's round, published with it (qb < 0: none,
  // the CTA's work is done).
  Tile tile;
};

// Each fits the 227 KiB a CTA may have, with the 1 KiB the kernel may skip to align its base.
inline constexpr std::size_t kMaxDynamicSmem = 227 * 1024;
template <int D, PSource Path>
inline constexpr bool kFits = sizeof(SharedStorage<D, Path>) + 1024 <= kMaxDynamicSmem;
template <int D>
inline constexpr bool kFitsBoth = kFits<D, PSource::smem> && kFits<D, PSource::registers>;
static_assert(kFitsBoth<64> && kFitsBoth<96> && kFitsBoth<128> && kFitsBoth<256>,
              "the stages, Q and the scratch buffers fit in shared memory");

// Query blocks of BM rows in a sequence of seqlen rows.
template <int BM>
__device__ __forceinline__ std::int32_t query_blocks(std::int32_t seqlen) {
  return (seqlen + BM - 1) / BM;
}

// The tiles a CTA computes, in order.
//   one CTA per tile: the CTA's own, (query_blocks(seqlen) - 1 - blockIdx.x, blockIdx.y, blockIdx.z):
//     the longest causal rows first within each (head, batch), as the hardware hands out the blocks;
//     the producer and every consumer thread read it off the block index.
//   persistent: handed out one at a time as CTAs free up. The producer takes unit u with one atomic
//     add on tile_counter and publishes its tile in shared memory (SharedStorage::tile) with Q's round;
//     the consumers read it there once Q has landed. Unit u is raster.at(u) (device::GroupedRaster):
//     the (head, batch) indices in sections of raster.group, each section's query blocks from the
//     sequence's last to its first, head by head. Causal, a tile of a later query block visits more
//     KV blocks, so the tiles come longest first within a section and the last ones handed out are
//     the shortest: the CTAs finish together, whatever the count of tiles per CTA (a static deal of
//     units gives each CTA whatever its turns bring). The host sizes a section so that its heads' K
//     and V fit in L2 beside one another (attention.cu), so that the CTAs at work share them; non-causal
//     tiles are equal, and a section is one (head, batch).
//   packed sequences: the grid and the units cover the longest sequence; a CTA (one per tile) or a
//     unit past its own sequence's query blocks has no tile, and the walk passes it by.
template <bool Persistent, int BM>
struct CtaTiles;

// next(p, t): the CTA's tile, once; false after.
template <int BM>
struct CtaTiles<false, BM> {
  bool done = false;
  __device__ __forceinline__ bool next(const KernelParams& p, Tile& t) {
    if (done) return false;
    done = true;
    t.seqlen = rows_of(p, static_cast<std::int32_t>(blockIdx.z));
    t.qb = query_blocks<BM>(t.seqlen) - 1 - static_cast<std::int32_t>(blockIdx.x);
    t.hb = static_cast<std::int32_t>(blockIdx.y + blockIdx.z * gridDim.y);
    return true;  // a CTA without a tile has left at the kernel's entry (has_tile)
  }
  // Whether this CTA has a tile: packed, the grid covers the longest sequence.
  __device__ __forceinline__ static bool has_tile(const KernelParams& p) {
    return p.cu_seqlens == nullptr ||
           static_cast<std::int32_t>(blockIdx.x) < query_blocks<BM>(rows_of(p, static_cast<std::int32_t>(blockIdx.z)));
  }
};

// next(p, t), the producer's: the next unit's tile (packed: a unit past its sequence's query blocks is
// taken and passed by); false once the counter has passed the last unit.
template <int BM>
struct CtaTiles<true, BM> {
  __device__ __forceinline__ bool next(const KernelParams& p, Tile& t) const {
    for (;;) {
      // unsigned: past the last unit the counter runs on by one per CTA, beyond 2^31 - 1 for the largest grids
      const std::int32_t u = device::take_unit(p.tile_counter);
      if (static_cast<std::uint32_t>(u) >= static_cast<std::uint32_t>(p.raster.tiles())) return false;
      const device::TileIndex i = p.raster.at(u);
      t.hb = i.m;
      t.seqlen = rows_of(p, t.b(p));
      t.qb = query_blocks<BM>(t.seqlen) - 1 - i.n;
      if (t.qb >= 0) return true;
    }
  }
};

// ---- producer: one thread. Per tile Q, then K and V of every KV block, a stage each, in the order the
// consumers need them: K_0, then K_j ahead of V_{j-1} (a consumer multiplies Q K_j^T while P_{j-1} V_{j-1}
// runs), then V of the last block. K and V stages are freed separately (K once S is computed, V once
// P V is). The rings' states run on across tiles, so in the persistent form the next tile's K_0 is
// loaded as soon as a stage frees, while the consumers still finish this tile; its Q only once every
// consumer's last P V of this tile has completed (Q's ring of one stage).
template <DataType T, int D, PSource Path, bool Causal, bool Persistent>
__device__ __forceinline__ void produce(const KernelParams& p, SharedStorage<D, Path>& s) {
  using P = Programs<T, D, Path>;
  device::prefetch_tensor_map(&p.q_map);
  device::prefetch_tensor_map(&p.k_map);
  device::prefetch_tensor_map(&p.v_map);
  device::RingState<1> qs;
  device::RingState<kKStages<D, Path>> ks;
  device::RingState<kVStages<D, Path>> vs;
  Tile t;
  CtaTiles<Persistent, kBlockM<P::C>> walk;
  bool has = walk.next(p, t);
  for (std::int32_t i = 0; has; ++i) {
    const std::int32_t h = t.h(p), kv_head = h / p.group, coord = t.coord(p), shift = t.shift(p);
    // Rows are tile mode 0 of Q and K (seqlen, head_dim, heads, batch) and mode 1 of V (head_dim first).
    auto load_q = [&] {
      s.q_ring.wait_free(qs);
      if constexpr (Persistent) s.tile = t;  // published by the arrival that arms Q's round (release)
      P::Q::template issue_shifted<0>(&p.q_map, s.q, s.q_ring.arm(qs, P::Q::kBytes), typename P::Q::Share{}, shift,
                                      t.qb, 0, h, coord);
      ++qs;
    };
    auto load_k = [&](std::int32_t j) {
      s.k_ring.wait_free(ks);
      P::K::template issue_shifted<0>(&p.k_map, s.k[ks.index], s.k_ring.arm(ks, P::K::kBytes), typename P::K::Share{},
                                      shift, j, 0, kv_head, coord);
      ++ks;
    };
    auto load_v = [&](std::int32_t j) {
      s.v_ring.wait_free(vs);
      P::V::template issue_shifted<1>(&p.v_map, s.v[vs.index], s.v_ring.arm(vs, P::V::kBytes), typename P::V::Share{},
                                      shift, 0, j, kv_head, coord);
      ++vs;
    };
    const std::int32_t blocks = kv_blocks<D, Path, Causal>(t.seqlen, t.qb);
    if (i == 0) {
      load_q();
      load_k(0);
    } else {
      load_k(0);  // into the ring as it frees; Q waits for the consumers' last P V of the previous tile
      load_q();
    }
    for (std::int32_t j = 1; j < blocks; ++j) {
      load_k(j);
      load_v(j - 1);
    }
    // Persistent: the next tile, taken as this tile's last load goes out (late, so that CTAs already
    // free take the tiles before it; its atomic's round trip runs under that load).
    Tile after;
    bool has_after = false;
    if constexpr (Persistent) has_after = walk.next(p, after);
    load_v(blocks - 1);
    t = after;
    has = has_after;
  }
  if constexpr (Persistent) {
    // No tile left: a round of Q without a copy, which tells the consumers so.
    s.q_ring.wait_free(qs);
    s.tile.qb = -1;
    s.q_ring.arm(qs, 0);
  }
}

// The consumer warpgroups take turns issuing their WGMMAs, in order 0, 1, (2,) 0, ... (named barriers
// kSchedulerBarrier + wg, 256 threads: the waiting warpgroup's bar.sync and the previous one's
// bar.arrive), so that a warpgroup's softmax runs while another's multiplies occupy the tensor cores.
// Warpgroup 0 goes first. Named barriers 1 .. C are each warpgroup's own (128 threads).
template <int C>
inline constexpr std::uint32_t kSchedulerBarrier = 1 + C;
template <int C>
inline constexpr std::uint32_t kConsumersBarrier = kSchedulerBarrier<C> + C;  // every consumer
template <int C>
__device__ __forceinline__ void wait_turn(int wg) {
  device::named_barrier_sync(kSchedulerBarrier<C> + wg, 256);
}
template <int C>
__device__ __forceinline__ void pass_turn(int wg) {
  device::named_barrier_arrive(kSchedulerBarrier<C> + (wg + 1 == C ? 0 : wg + 1), 256);  // wg < C
}

// How far (in log2 units) a row's maximum may run behind the true one: P = exp2(S scale log2(e) - max)
// is then at most 2^kMaxSlack, far inside the range of the 16-bit P, of O and l (fp32), and the
// normalisation at the end (O / l, the log-sum-exp from the same max) is exact whatever max was used.
// With it, most KV blocks leave the maxima where they were and O needs no rescale.
inline constexpr float kMaxSlack = 8.0f;

// Ends the basic block after the value x has been computed: a branch on x around an empty asm. ptxas
// schedules a wgmma wait as early as its block allows; placed after this, the wait for P_{j-1} V_{j-1}
// cannot rise above the softmax that x sums up, which is then computed while that multiply runs.
__device__ __forceinline__ void overlap_fence(float x) {
  if (__float_as_uint(x) == 0xffffffffu) __nanosleep(0);
}

// Two floats as the element type's 16 bits each, packed into one word, lo in the low half: one
// cvt.rn of the pair, the same bits as to_bits<T> of each.
template <DataType T>
__device__ __forceinline__ std::uint32_t pack_pair(float lo, float hi) {
  static_assert(T == DataType::bfloat16 || T == DataType::float16, "pack_pair: bf16 or f16");
  if constexpr (T == DataType::bfloat16) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  } else {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
}

// ---- the consumer's phases that keep no state of their own (the consumer below holds it): each takes
// what it reads and writes as arguments. Slots are a thread's accumulator elements (device/fragment.cuh:
// AccumulatorFragment says, at compile time, which of the thread's two rows and which column each is).

// Masks block j's S (columns [kv0, kv0 + kN)) to -inf where a column lies at or past the sequence's end
// (the rows TMA filled with zeros) or, causal, right of its row. row0 and col0: this thread's first row
// and its first column of a block; first_row: the warpgroup's. A block that reaches neither costs two
// comparisons.
template <bool Causal, int kN>
__device__ __forceinline__ void mask_block(float (&sc)[kN / 2], std::int32_t kv0, std::int32_t row0, std::int32_t col0,
                                           std::int32_t seqlen, std::int32_t first_row) {
  using SFrag = device::AccumulatorFragment<kN>;
  const bool tail = kv0 + kN > seqlen;
  const bool diagonal = Causal && kv0 + kN - 1 > first_row;
  if (tail || diagonal) {
    // Per row, its first masked column less this thread's first column of the block: slot v is
    // masked where its column offset (a constant) reaches that.
    std::int32_t end[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const std::int32_t row = row0 + SFrag::row_offset(r);
      end[r] = (Causal ? min(seqlen, row + 1) : seqlen) - kv0 - col0;
    }
#pragma unroll
    for (int v = 0; v < kN / 2; ++v)
      if (SFrag::col_of(v) >= end[SFrag::row_index_of(v)]) sc[v] = -INFINITY;
  }
}

// The online softmax of one block: the row maxima m (units of log2, over the quad of threads that
// share a row) moved where the block's exceed them by more than kMaxSlack, this thread's share of the
// row sums l rescaled, and P = exp2(S scale log2(e) - max) as 16-bit bits (PSource::smem: pairs packed
// in words, so that P holds half the registers from here to its store). corr: what O must be
// multiplied by before this block's P V is added (exactly 1 where the maximum stayed). The results are
// pinned before the block ends (overlap_fence): computed while the previous block's P V runs, not
// after the wait for it.
template <DataType T, int kN, class PBits, int kPBits>
__device__ __forceinline__ void online_softmax(float (&sc)[kN / 2], float scale_log2, float (&m)[2], float (&l)[2],
                                               PBits (&pbits)[kPBits], float (&corr)[2]) {
  using SFrag = device::AccumulatorFragment<kN>;
  constexpr int kS = kN / 2;
  float base[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = -INFINITY;
#pragma unroll
    for (int v = 0; v < kS; ++v)
      if (SFrag::row_index_of(v) == r) mx = fmaxf(mx, sc[v]);
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    const float m_blk = mx * scale_log2;
    const float m_new = m_blk > m[r] + kMaxSlack ? m_blk : m[r];
    base[r] = m_new == -INFINITY ? 0.0f : m_new;  // a row with nothing unmasked yet stays at 0
    corr[r] = device::ex2_approx_ftz(m[r] - base[r]);
    m[r] = m_new;
    l[r] *= corr[r];
  }
#pragma unroll
  for (int v = 0; v < kS; v += 2) {
    const int r = SFrag::row_index_of(v);
    const float p0 = device::ex2_approx_ftz(fmaf(sc[v], scale_log2, -base[r]));
    const float p1 = device::ex2_approx_ftz(fmaf(sc[v + 1], scale_log2, -base[r]));
    l[r] += p0;
    l[r] += p1;
    if constexpr (std::is_same_v<PBits, std::uint32_t>) {
      pbits[v / 2] = pack_pair<T>(p0, p1);
    } else {
      pbits[v] = device::to_bits<T>(p0);
      pbits[v + 1] = device::to_bits<T>(p1);
    }
  }
  device::wgmma::fence_operands(pbits);
  device::wgmma::fence_operands(l);
  device::wgmma::fence_operands(corr);
  overlap_fence(l[0] + l[1]);
}

// O times the correction of its rows' maxima (online softmax), skipped by every warp whose rows kept
// theirs (corr exactly 1).
template <int D>
__device__ __forceinline__ void rescale_o(float (&o)[D / 2], const float (&corr)[2]) {
  using OFrag = device::AccumulatorFragment<D>;
  if (__any_sync(0xffffffffu, corr[0] != 1.0f || corr[1] != 1.0f)) {
#pragma unroll
    for (int v = 0; v < D / 2; ++v) o[v] *= corr[OFrag::row_index_of(v)];
  }
}

// P of one block (PSource::smem), its 16-bit pairs packed in words, into the warpgroup's 64 x kN
// operand buffer by the smem-store plan, a 64 x 64 piece at a time (stmatrix; t: the thread's index in
// its warpgroup). The plan's values per piece are the words' halves, which it packs as they were.
template <int D, int kN>
__device__ __forceinline__ void store_p(const std::uint32_t (&pbits)[kN / 4], unsigned char* pbuf, int t) {
  constexpr int kS = kN / 2;
  constexpr int kPieceSlots = kS / kPPieces<D>;
  std::uint16_t bits[kPPieces<D>][kPieceSlots];
#pragma unroll
  for (int v = 0; v < kS; v += 2) {
    bits[v / kPieceSlots][v % kPieceSlots] = static_cast<std::uint16_t>(pbits[v / 2]);
    bits[v / kPieceSlots][v % kPieceSlots + 1] = static_cast<std::uint16_t>(pbits[v / 2] >> 16);
  }
  [&]<int... Piece>(std::integer_sequence<int, Piece...>) {
    (device::store_planned<kPPieceStore, kPPieceSrc, kPPieceTile>(pbuf + kPPieceOffset<D, Piece>, t, bits[Piece]), ...);
  }(std::make_integer_sequence<int, kPPieces<D>>{});
}

// The epilogue's O: this thread's row sums l completed over the quad of threads that share the rows (in
// place), and O / l as the element type's bits, per piece of the O store plan (0 for a row whose every
// column was masked).
template <DataType T, int D>
__device__ __forceinline__ void normalize_o(const float (&o)[D / 2], float (&l)[2],
                                            std::uint16_t (&obits)[kOPieces<D>][D / 2 / kOPieces<D>]) {
  using OFrag = device::AccumulatorFragment<D>;
  constexpr int kPieceSlots = D / 2 / kOPieces<D>;
  float inv[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    inv[r] = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
  }
#pragma unroll
  for (int v = 0; v < D / 2; ++v)
    obits[v / kPieceSlots][v % kPieceSlots] = device::to_bits<T>(o[v] * inv[OFrag::row_index_of(v)]);
}

// O's bits into its staging buffer by the O store plan, piece by piece (t: the thread's index in its
// warpgroup).
template <int D>
__device__ __forceinline__ void store_o(const std::uint16_t (&obits)[kOPieces<D>][D / 2 / kOPieces<D>],
                                        unsigned char* obuf, int t) {
  [&]<int... Piece>(std::integer_sequence<int, Piece...>) {
    (device::store_planned<kOStore<D>, kOSrc<D>, kOPieceTile<D>>(obuf + kOPieceOffset<D, Piece>, t, obits[Piece]), ...);
  }(std::make_integer_sequence<int, kOPieces<D>>{});
}

// The log-sum-exp of this thread's two rows (row0 and row0 + 8), those before the sequence's end, from
// the running maxima m (units of log2) and the completed sums l: log(sum exp(s scale)) =
// (max + log2(sum)) ln 2. For one thread of each quad (the four hold the same values).
template <int D>
__device__ __forceinline__ void write_lse(float* lse, std::int32_t row0, std::int32_t seqlen, const float (&m)[2],
                                          const float (&l)[2]) {
  using OFrag = device::AccumulatorFragment<D>;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const std::int32_t row = row0 + OFrag::row_offset(r);
    if (row < seqlen) lse[row] = (m[r] + log2f(l[r])) * 0.69314718055994531f;
  }
}

// ---- consumer: warpgroup wg (0 .. C - 1) owns query rows [64 wg, 64 wg + 64) of each of the CTA's
// tiles.
//
// Software-pipelined by one block: block j issues S_j = Q K_j^T and then O += P_{j-1} V_{j-1} (two
// commit groups), waits for S_j alone, runs the masks and the online softmax of block j while P V still
// runs, then waits for P V, rescales O and makes P_j the next A operand. The first block's S and the
// last block's P V stand alone. Across tiles (persistent form) the ring rounds and the turns continue:
// round n0 + j holds block j of a tile whose predecessors used n0 rounds; the consumers follow the
// rounds with a RingState per ring.
//
// The phases, in three layers, each a function of what it reads and writes:
//   a tile     next_tile, begin_tile, first_block, pipelined_block (every later block), last_pv,
//              skip_blocks, epilogue: consume calls them in this order
//   a block    issue_s, issue_pv (the WGMMAs), softmax_step, stage_p, scratch_free
//   no state   mask_block, online_softmax, rescale_o, store_p, normalize_o, store_o, write_lse (above)
// The warpgroup's constants are values (Warpgroup, QDescriptors, StageDescriptors) named together by a
// Context; its running state is locals of consume, reached through a State. The three-consumer forms
// (160 registers a thread, S's and O's accumulators live together during the softmax) are one register
// from spilling, and ptxas's allocation there follows the order of the code it is given (State says
// what that asks of the layout): tests/tools/ptxas_check.sh checks every form.

// The consumer's compile-time facts, one type for every phase.
template <DataType T_, int D_, bool Causal_, PSource Path_, bool Persistent_>
struct ConsumerForm {
  static constexpr DataType T = T_;
  static constexpr int D = D_;
  static constexpr bool Causal = Causal_;
  static constexpr PSource Path = Path_;
  static constexpr bool Persistent = Persistent_;
  static constexpr int C = kConsumersFor<D, Path>;
  static constexpr int kN = kBlockN<D, Path>;  // rows of a KV block
  static constexpr int kS = kN / 2;            // accumulator slots of S per thread
  static constexpr int kO = D / 2;             // of O
  // P of a block as the softmax leaves it. Through shared memory: pairs of 16-bit values packed into
  // words as they are computed (32 registers where 64 fp32 values would wait for the store). In
  // registers: 16-bit values, packed into the A fragments only after P_{j-1} V_{j-1} has completed
  // (packed while that multiply still reads the previous fragments, they make ptxas wait after each RS
  // multiply).
  using PBits = std::conditional_t<Path == PSource::smem, std::uint32_t, std::uint16_t>;
  static constexpr int kPBits = Path == PSource::smem ? kS / 2 : kS;
  // With P through shared memory, three consumers (160 registers per thread) and head dim 128, wg is
  // opaque at each use (Warpgroup::here), so that the named barriers' ids (bar takes its id in a
  // vector register) are formed from it next to their barriers: one value lives across the KV loop
  // instead of three ids. The other forms have the registers and form the ids once.
  static constexpr bool kIdsAtBarrier = Path == PSource::smem && C == 3 && D == 128;
  // With P in registers, Q's descriptor at each k16 step is held (QDescriptors); with P through shared
  // memory (three consumers at 160 registers) the held words cost more registers than their rebuilding
  // costs instructions: there they are rebuilt.
  static constexpr bool kHoldQ = Path == PSource::registers;
  static constexpr int kQSteps = D / 16;
  // Where S's and O's accumulator slots sit (device/fragment.cuh): a thread's first element, and for
  // slot v its offset and which of the thread's two rows it is in (compile-time per slot).
  using SFrag = device::AccumulatorFragment<kN>;
  using OFrag = device::AccumulatorFragment<D>;
  using Storage = SharedStorage<D, Path>;
  using KRound = device::RingState<kKStages<D, Path>>;
  using VRound = device::RingState<kVStages<D, Path>>;
  using KRelease = device::RingRelease<kKStages<D, Path>, 1>;
  using VRelease = device::RingRelease<kVStages<D, Path>, 1>;
  static_assert(kOStore<D>.ok, "O must have a store plan into its tile (tmakit smem-store explains a refusal)");
  // O's addresses are XOR-linear for head dims 64, 128 and 256; for 96 (48 slots per thread, three 64-byte
  // atoms per row) the store evaluates its layout per address, once per tile in the epilogue.
  static_assert(kPPieceStore.ok, "P must have a store plan into its operand layout (tmakit smem-store explains a refusal)");
  static_assert(device::smem_store_impl::XorAddressMap<kPPieceSrc, kPPieceTile>::kLinear,
                "P's addresses are XOR-linear: no layout is evaluated on the GPU");
};

// This thread's place: its warpgroup wg (0 .. C - 1), its index t in the warpgroup, its first column
// of a block, and the warpgroup's scratch buffer (P's operand, PSource::smem; O's staging).
template <class F>
struct Warpgroup {
  int wg;
  int t;
  std::int32_t col0;
  unsigned char* scratch;
  __device__ __forceinline__ Warpgroup(typename F::Storage& s, int w)
      : wg(w), t(static_cast<int>(threadIdx.x % 128)), col0(F::SFrag::origin(t).col), scratch(s.scratch[w]) {}
  // wg, opaque to the compiler at each use where F::kIdsAtBarrier.
  __device__ __forceinline__ int here() const {
    int w = wg;
    if constexpr (F::kIdsAtBarrier) asm volatile("" : "+r"(w));
    return w;
  }
  // The named barrier of the warpgroup's 128 threads.
  __device__ __forceinline__ std::uint32_t barrier_id() const { return static_cast<std::uint32_t>(1 + here()); }
};

// The operand descriptors: one per operand buffer, built once; each k-step and stage is an add of a
// constant to it (wgmma_descriptor_advance), on values the compiler keeps in uniform registers (wg is
// warp-uniform).
//
// Q's, of this warpgroup's rows of the Q tile, and (F::kHoldQ) its low word at every k16 step,
// computed once and made opaque to the compiler (fence_operands: an empty asm that may change them),
// so that it keeps them in registers rather than rebuilding them at every KV block. K's and V's are
// held apart (StageDescriptors): beside lo, an array a loop walks, they would reach the compiler's
// later passes in another form (State says why).
template <class F>
struct QDescriptors {
  std::uint64_t base;
  std::uint32_t hi;              // base's high word
  std::uint32_t lo[F::kQSteps];  // F::kHoldQ
  __device__ __forceinline__ QDescriptors(typename F::Storage& s, int wg) {
    constexpr WgmmaDescriptorFields kQF = wgmma_descriptor_fields(kQTile<F::D, F::C>);
    static_assert(kQF.ok, "Q's tile must be a canonical WGMMA layout");
    base = wgmma_descriptor(device::shared_address(s.q) + q_start<F::D, F::C>(wg), kQF);
    hi = static_cast<std::uint32_t>(base >> 32);
    if constexpr (F::kHoldQ) {
      [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
        ((lo[Kk] = static_cast<std::uint32_t>(wgmma_descriptor_advance(base, kQStart<F::D, F::C, 0, Kk>))), ...);
      }(std::make_integer_sequence<int, F::kQSteps>{});
      device::wgmma::fence_operands(lo);
    }
  }
  // Q's descriptor at k16 step Kk.
  template <int Kk>
  __device__ __forceinline__ std::uint64_t step() const {
    if constexpr (F::kHoldQ)
      return (static_cast<std::uint64_t>(hi) << 32) | lo[Kk];
    else
      return wgmma_descriptor_advance(base, kQStart<F::D, F::C, 0, Kk>);
  }
};

// K's and V's (stage 0), and P's (PSource::smem: the scratch buffer). P's low word is made opaque to
// the compiler (fence_operands): each k16 step is then one add to the word it holds, where the
// compiler would rebuild the word at every KV block and mask each step's add.
template <class F>
struct StageDescriptors {
  std::uint64_t k, v;
  std::uint64_t p = 0;
  __device__ __forceinline__ StageDescriptors(typename F::Storage& s, unsigned char* pbuf) {
    constexpr WgmmaDescriptorFields kKF = wgmma_descriptor_fields(kKTile<F::D, F::Path>);
    constexpr WgmmaDescriptorFields kVF = wgmma_descriptor_fields(kVTile<F::D, F::Path>);
    constexpr WgmmaDescriptorFields kPF = wgmma_descriptor_fields(kPTile<F::D>);
    static_assert(kKF.ok && kVF.ok && kPF.ok, "the operand tiles must be canonical WGMMA layouts");
    k = wgmma_descriptor(device::shared_address(s.k[0]), kKF);
    v = wgmma_descriptor(device::shared_address(s.v[0]), kVF);
    if constexpr (F::Path == PSource::smem) {
      std::uint32_t p_lo[1] = {static_cast<std::uint32_t>(wgmma_descriptor(device::shared_address(pbuf), kPF))};
      device::wgmma::fence_operands(p_lo);
      p = (wgmma_descriptor(0, kPF) & 0xFFFFFFFF00000000ull) | p_lo[0];
    }
  }
};

// What every phase may read: the kernel's parameters, the shared storage, and the warpgroup's
// constants.
template <class F>
struct Context {
  const KernelParams& p;
  typename F::Storage& s;
  const Warpgroup<F>& w;
  const QDescriptors<F>& q;
  const StageDescriptors<F>& d;
};

// The warpgroup's running state, as references to locals of consume:
//   row0, seqlen   the tile's rows: this thread's first row in the sequence (slot v of S and O is in row
//                  row0 + row_of(v)), and the sequence's rows
//   qr, kr, vr     the rings' rounds read next (Q's: the tile's)
//   k_release ..   a K or V stage goes back to the producer with one arrival per consumer warpgroup,
//                  after its reads have completed (the warpgroup's wgmma.wait_group): thread 0 of the
//                  warpgroup arrives. Q's with one arrival per thread (SharedStorage).
//   o, m, l        O, the running row maxima (units of log2: scaled scores), this thread's share of the
//                  running row sums
//   a              P of the previous block as the RS form's A fragments (PSource::registers)
// Why references: each part is then a variable of its own, which the compiler promotes to registers on
// its own and early, as it does the locals a lambda captures. Held by value in one struct, the parts
// are promoted together, and only once every loop that walks one of its arrays is unrolled: the scalars
// come out in another form and the loop-carried values in another order, which ptxas allocates
// differently (the three-consumer forms then spill). The same holds for a block's temporaries (S, P,
// O's correction): declared in a phase called from the KV loop, they come out in another order, so the
// loop declares them and pipelined_block takes them (first_block, outside the loop, declares its own).
template <class F>
struct State {
  std::int32_t& row0;
  std::int32_t& seqlen;
  device::RingState<1>& qr;
  typename F::KRound& kr;
  typename F::VRound& vr;
  const typename F::KRelease& k_release;
  const typename F::VRelease& v_release;
  float (&o)[F::kO];
  float (&m)[2];
  float (&l)[2];
  std::uint32_t (&a)[F::kN / 16][4];
  // The warpgroup's first row of the tile (query block qb's row 64 wg): row0 less thread t's offset.
  __device__ __forceinline__ std::int32_t first_row(int t) const { return row0 - F::SFrag::origin(t).row; }
  // K of round kr has been read: its stage goes back, and the next round is the one to read.
  __device__ __forceinline__ void release_k(typename F::Storage& s) const {
    k_release.release(s.k_ring, kr);
    ++kr;
  }
  // The same for V.
  __device__ __forceinline__ void release_v(typename F::Storage& s) const {
    v_release.release(s.v_ring, vr);
    ++vr;
  }
};

// ---- a block's phases

// S = Q K^T into sc, K of round kr: D / 16 k16 steps, one commit group (K waited for).
template <class F>
__device__ __forceinline__ void issue_s(const Context<F>& c, const State<F>& st, float (&sc)[F::kS]) {
  const std::uint64_t k_st = wgmma_descriptor_advance(c.d.k, st.kr.index * kKVBytes<F::D, F::Path>);
  device::wgmma::fence();
  device::wgmma::fence_operands(sc);
  [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
    ((device::wgmma::mma<F::T, F::kN, 0, 0>(sc, c.q.template step<Kk>(),
                                            wgmma_descriptor_advance(k_st, kKStart<F::D, F::Path, Kk>), Kk > 0)),
     ...);
  }(std::make_integer_sequence<int, F::D / 16>{});
  device::wgmma::commit_group();
  device::wgmma::fence_operands(sc);
}

// O += P V, V of round vr: kBlockN / 16 k16 steps, one commit group; P from the scratch buffer or from
// the A fragments.
template <class F>
__device__ __forceinline__ void issue_pv(const Context<F>& c, const State<F>& st) {
  c.s.v_ring.wait_full(st.vr);
  const std::uint64_t v_st = wgmma_descriptor_advance(c.d.v, st.vr.index * kKVBytes<F::D, F::Path>);
  device::wgmma::fence();
  device::wgmma::fence_operands(st.o);
  if constexpr (F::Path == PSource::smem) {
    [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
      ((device::wgmma::mma<F::T, F::D, 0, 1>(st.o, wgmma_descriptor_advance(c.d.p, kPStart<F::D, Kk>),
                                             wgmma_descriptor_advance(v_st, kVStart<F::D, F::Path, Kk>), true)),
       ...);
    }(std::make_integer_sequence<int, F::kN / 16>{});
  } else {
    [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
      ((device::wgmma::fence_operands(st.a[Kk]),
        device::wgmma::mma_rs<F::T, F::D, 1>(st.o, st.a[Kk], wgmma_descriptor_advance(v_st, kVStart<F::D, F::Path, Kk>),
                                             true)),
       ...);
    }(std::make_integer_sequence<int, F::kN / 16>{});
  }
  device::wgmma::commit_group();
  device::wgmma::fence_operands(st.o);
}

// Block j's masks and online softmax (above): P into pbits, O's correction into corr.
template <class F>
__device__ __forceinline__ void softmax_step(const Context<F>& c, const State<F>& st, float (&sc)[F::kS], std::int32_t j,
                                             typename F::PBits (&pbits)[F::kPBits], float (&corr)[2]) {
  mask_block<F::Causal, F::kN>(sc, j * F::kN, st.row0, c.w.col0, st.seqlen, st.first_row(c.w.t));
  online_softmax<F::T, F::kN>(sc, c.p.scale_log2, st.m, st.l, pbits, corr);
}

// P_j becomes the next P V's A operand: written by the smem-store plan into the scratch buffer and
// fenced for the async proxy (every thread of the warpgroup, then the warpgroup's barrier), or packed
// into the RS form's fragments.
template <class F>
__device__ __forceinline__ void stage_p(const Context<F>& c, const State<F>& st, const typename F::PBits (&pbits)[F::kPBits]) {
  if constexpr (F::Path == PSource::smem) {
    store_p<F::D, F::kN>(pbits, c.w.scratch, c.w.t);
    device::fence_smem_writes_for_async();
    device::named_barrier_sync(c.w.barrier_id(), 128);
  } else {
    [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
      (device::wgmma::a_fragment<Kk>(pbits, st.a[Kk]), ...);
    }(std::make_integer_sequence<int, F::kN / 16>{});
  }
}

// The previous tile's O store (issued by thread 0 from the scratch buffer) has finished reading it,
// and every thread of the warpgroup knows: the buffer may be written again.
template <class F>
__device__ __forceinline__ void scratch_free(const Warpgroup<F>& w) {
  if (w.t == 0) device::wait_group_read<0>();
  device::named_barrier_sync(w.barrier_id(), 128);
}

// ---- a tile's phases

// The next tile, once its Q has landed: one CTA per tile, the CTA's own (once); persistent, the one
// the producer published with Q's round (qb < 0: none left).
template <class F>
__device__ __forceinline__ bool next_tile(const Context<F>& c, const State<F>& st, CtaTiles<false, kBlockM<F::C>>& own,
                                          Tile& tile) {
  if constexpr (F::Persistent) {
    c.s.q_ring.wait_full(st.qr);
    tile = c.s.tile;
    return tile.qb >= 0;
  } else {
    if (!own.next(c.p, tile)) return false;
    c.s.q_ring.wait_full(st.qr);
    return true;
  }
}

// The KV blocks of a tile: the CTA's (all) and this warpgroup's (mine, the first of them).
struct TileBlocks {
  std::int32_t all = 0, mine = 0;
};

// A tile's start: its rows, O zero, no maxima, no sums; and its blocks.
template <class F>
__device__ __forceinline__ TileBlocks begin_tile(const Context<F>& c, const State<F>& st, const Tile& tile) {
  constexpr int C = F::C;
  const std::int32_t qb = tile.qb, wg = c.w.wg;
  st.seqlen = tile.seqlen;
  st.row0 = qb * kBlockM<C> + kRowsPerConsumer * wg + F::SFrag::origin(c.w.t).row;
#pragma unroll
  for (int v = 0; v < F::kO; ++v) st.o[v] = 0.0f;
  st.m[0] = st.m[1] = -INFINITY;
  st.l[0] = st.l[1] = 0.0f;
  TileBlocks b;
  b.all = kv_blocks<F::D, F::Path, F::Causal>(tile.seqlen, qb);
  // This warpgroup's blocks: causal, those with a column at or left of its own last row. The CTA's
  // later blocks are wholly masked for it (they are the later warpgroups' diagonal): it skips them,
  // taking their turns and releasing their stages without multiplying (skip_blocks).
  b.mine = b.all;
  if constexpr (F::Causal) {
    const std::int32_t cols = min(tile.seqlen, qb * kBlockM<C> + kRowsPerConsumer * (wg + 1));
    b.mine = min(b.all, (cols + F::kN - 1) / F::kN);
  }
  // Rows all past the sequence's end (the last tile's padding): one block, whose results the O store
  // clips and the LSE skips; the CTA's other blocks it skips like the causal ones. Not where wg is
  // opaque (kIdsAtBarrier): there the 160 registers do not hold the count beside the loop's state,
  // and the padding's blocks run in full.
  if constexpr (!F::kIdsAtBarrier) {
    if (qb * kBlockM<C> + kRowsPerConsumer * wg >= tile.seqlen) b.mine = 1;
  }
  return b;
}

// Block 0: S alone, its softmax (O is still zero: nothing to rescale) and P_0. K is waited for before
// the turn, so that the turn is not held while a load is still in flight.
template <class F>
__device__ __forceinline__ void first_block(const Context<F>& c, const State<F>& st) {
  float sc[F::kS];
  typename F::PBits pbits[F::kPBits];
  float corr[2];
  c.s.k_ring.wait_full(st.kr);
  wait_turn<F::C>(c.w.here());
  issue_s<F>(c, st, sc);
  pass_turn<F::C>(c.w.here());
  device::wgmma::wait_group<0>();
  device::wgmma::fence_operands(sc);
  st.release_k(c.s);
  softmax_step<F>(c, st, sc, 0, pbits, corr);
  if constexpr (F::Persistent && F::Path == PSource::smem) {
    scratch_free<F>(c.w);  // P goes where the previous tile's O was (the CTA's first tile: at once)
  }
  stage_p<F>(c, st, pbits);
}

// Block j > 0: S_j and P_{j-1} V_{j-1} issued in one turn, the softmax of block j while that P V
// runs, then O rescaled by corr and P_j staged. sc, pbits, corr: the block's temporaries, declared by
// the KV loop (State says why).
template <class F>
__device__ __forceinline__ void pipelined_block(const Context<F>& c, const State<F>& st, std::int32_t j, float (&sc)[F::kS],
                                                typename F::PBits (&pbits)[F::kPBits], float (&corr)[2]) {
  c.s.k_ring.wait_full(st.kr);
  wait_turn<F::C>(c.w.here());
  issue_s<F>(c, st, sc);
  issue_pv<F>(c, st);  // V_{j-1}
  pass_turn<F::C>(c.w.here());
  device::wgmma::wait_group<1>();  // S_j has landed; P_{j-1} V_{j-1} may still run
  device::wgmma::fence_operands(sc);
  st.release_k(c.s);
  softmax_step<F>(c, st, sc, j, pbits, corr);
  device::wgmma::wait_group<0>();
  device::wgmma::fence_operands(st.o);
  st.release_v(c.s);
  rescale_o<F::D>(st.o, corr);
  stage_p<F>(c, st, pbits);
}

// The last block's P V, alone.
template <class F>
__device__ __forceinline__ void last_pv(const Context<F>& c, const State<F>& st) {
  wait_turn<F::C>(c.w.here());
  issue_pv<F>(c, st);
  pass_turn<F::C>(c.w.here());
  device::wgmma::wait_group<0>();
  device::wgmma::fence_operands(st.o);
  st.release_v(c.s);
}

// The CTA's blocks [mine, all), which this warpgroup skips: their turns, passed on at once, and their K
// and V stages, released in ring order, each once its load has landed: the full barrier's phase says
// that the stage's previous round was released by every consumer, so this arrival counts toward this
// round's phase and not (two stages) toward the previous one's. One block at a time, so that no stage
// another warpgroup waits for is held back.
template <class F>
__device__ __forceinline__ void skip_blocks(const Context<F>& c, const State<F>& st, TileBlocks b) {
  for (std::int32_t j = b.mine; j < b.all; ++j) {
    wait_turn<F::C>(c.w.here());
    pass_turn<F::C>(c.w.here());
    c.s.k_ring.wait_full(st.kr);
    st.release_k(c.s);
    c.s.v_ring.wait_full(st.vr);
    st.release_v(c.s);
  }
}

// The epilogue: O / l through the store plan into the scratch buffer (the last P V multiply has
// completed: no wgmma reads it any more), one TMA store of the warpgroup's 64 rows (the O plan clips
// rows past the sequence's end), and the log-sum-exp.
template <class F>
__device__ __forceinline__ void epilogue(const Context<F>& c, const State<F>& st, const Tile& tile) {
  constexpr int D = F::D;
  const KernelParams& p = c.p;
  const Warpgroup<F>& w = c.w;
  std::uint16_t obits[kOPieces<D>][F::kO / kOPieces<D>];
  normalize_o<F::T, D>(st.o, st.l, obits);
  unsigned char* obuf = w.scratch;
  if constexpr (kOInQ<D>) {
    // Every consumer's multiplies have completed (each passed its last wait): no wgmma reads Q, and
    // (persistent form) the producer loads the next tile's Q only once the O stores have read it.
    device::named_barrier_sync(kConsumersBarrier<F::C>, 128 * F::C);
    obuf = c.s.q + w.wg * kOBytes<D>;
  } else if constexpr (F::Persistent) {
    scratch_free<F>(w);  // no warp still reads P from it (PSource::smem), no earlier O store still reads it
  } else {
    device::named_barrier_sync(w.barrier_id(), 128);  // (PSource::smem) no warp still reads P from it
  }
  store_o<D>(obits, obuf, w.t);
  device::fence_smem_writes_for_async();
  device::named_barrier_sync(w.barrier_id(), 128);
  if (w.t == 0) {
    Programs<F::T, D, F::Path>::O::template store_shifted<0>(&p.o_map, obuf, tile.shift(p), st.first_row(w.t) / kRowsPerConsumer,
                                                             0, tile.h(p), tile.coord(p));
    device::commit_group();
    if constexpr (F::Persistent && kOInQ<D>) device::wait_group_read<0>();  // O has left Q's buffer
  }
  if constexpr (F::Persistent && kOInQ<D>) device::arrive(c.s.q_ring.empty[0]);  // thread 0 after its wait
  if (w.t % 4 == 0) write_lse<D>(tile.lse(p), st.row0, st.seqlen, st.m, st.l);
}

// The consumer warpgroup wg: its tiles in turn, each block by block, then the epilogue.
template <DataType T, int D, bool Causal, PSource Path, bool Persistent>
__device__ __forceinline__ void consume(const KernelParams& p, SharedStorage<D, Path>& s, int wg) {
  using F = ConsumerForm<T, D, Causal, Path, Persistent>;
  constexpr int C = F::C;
  const Warpgroup<F> w(s, wg);
  const QDescriptors<F> q(s, wg);
  const StageDescriptors<F> d(s, w.scratch);
  const Context<F> c{p, s, w, q, d};
  // The running state, each part a variable of its own (State says why).
  std::int32_t row0 = 0, seqlen = 0;
  device::RingState<1> qr;
  typename F::KRound kr;
  typename F::VRound vr;
  const typename F::KRelease k_release(s.k_ring, w.t);
  const typename F::VRelease v_release(s.v_ring, w.t);
  float o[F::kO];
  float m[2];
  float l[2];
  std::uint32_t a[F::kN / 16][4];
  const State<F> st{row0, seqlen, qr, kr, vr, k_release, v_release, o, m, l, a};
  // The turns: warpgroup 0 takes the first; the last warpgroup passes on its last turn of the CTA too,
  // and warpgroup 0 takes that one after its last tile, so that no barrier is left with an arrival
  // outstanding (even in a CTA without a tile).
  if (wg == C - 1) pass_turn<C>(w.here());
  CtaTiles<false, kBlockM<C>> own;
  Tile tile;
  while (next_tile<F>(c, st, own, tile)) {
    const TileBlocks b = begin_tile<F>(c, st, tile);
    first_block<F>(c, st);
    for (std::int32_t j = 1; j < b.mine; ++j) {
      float sc[F::kS];
      typename F::PBits pbits[F::kPBits];
      float corr[2];
      pipelined_block<F>(c, st, j, sc, pbits, corr);
    }
    last_pv<F>(c, st);
    // No wgmma of this warpgroup reads Q any more (persistent form: the producer loads the next tile's
    // Q once every consumer thread has said so). Where O is staged in Q's buffer (kOInQ), Q goes back
    // once the O store has read it instead (the epilogue).
    if constexpr (Persistent && !kOInQ<D>) device::arrive(s.q_ring.empty[0]);
    skip_blocks<F>(c, st, b);
    epilogue<F>(c, st, tile);
    ++qr;
  }
  if (wg == 0) wait_turn<C>(w.here());  // the last warpgroup's last turn
  if (w.t == 0) device::wait_group<0>();  // the stores have completed before the CTA's shared memory goes
}

template <DataType T, int D, bool Causal, PSource Path, bool Persistent>
__global__ void __launch_bounds__(kThreads<kConsumersFor<D, Path>>, 1) attention_kernel(const __grid_constant__ KernelParams p) {
  constexpr int C = kConsumersFor<D, Path>;
  if constexpr (!Persistent) {
    // Packed sequences: the grid covers the longest; a CTA past its own sequence's query blocks has no
    // tile and leaves before it sets anything up.
    if (!CtaTiles<false, kBlockM<C>>::has_tile(p)) return;
  }
  extern __shared__ unsigned char dyn[];
  const std::uint32_t base = device::shared_address(dyn);
  SharedStorage<D, Path>& s = *reinterpret_cast<SharedStorage<D, Path>*>(dyn + ((1024 - base % 1024) % 1024));
  if (threadIdx.x == 0) {
    s.q_ring.init(kQReleases<C>);
    s.k_ring.init(C);
    s.v_ring.init(C);
    device::watchdog::expect_note(s.q_ring.empty[0], kOInQ<D> ? "every consumer thread: its O store has read Q's buffer"
                                                              : "every consumer thread: its last P V of the tile has completed");
    for (int i = 0; i < kKStages<D, Path>; ++i)
      device::watchdog::expect_note(s.k_ring.empty[i], "every consumer warpgroup: S computed from this K stage");
    for (int i = 0; i < kVStages<D, Path>; ++i)
      device::watchdog::expect_note(s.v_ring.empty[i], "every consumer warpgroup: P V computed from this V stage");
  }
  __syncthreads();

  // The warpgroup index, broadcast from lane 0 so that the compiler knows it is the same in every lane
  // (what depends on it, the WGMMA descriptors among them, can live in uniform registers).
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  if (wg == 0) {
    device::setmaxnreg_dec<kProducerRegs<C>>();
    if (threadIdx.x == 0) produce<T, D, Path, Causal, Persistent>(p, s);
  } else {
    device::setmaxnreg_inc<kConsumerRegs<C>>();
    consume<T, D, Causal, Path, Persistent>(p, s, wg - 1);
  }
}

}  // namespace tmakit::attention_sm90

