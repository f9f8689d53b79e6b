// The attention forward kernel: one CTA per 128 query rows of one (batch, head), warp-specialized.
//
//   warpgroup 0     thread 0 (producer) loads the CTA's Q tile once, then the K and V tiles of each
//                   KV block of 128 rows into a ring of stages (K and V on barriers of their own,
//                   so that S = Q K^T starts before V has landed)
//   warpgroup 1, 2  (consumers) each owns 64 query rows: per KV block S = Q K^T (m64n128k16 WGMMA,
//                   both operands from shared memory), the masks (sequence end, causal), the
//                   online softmax in fp32 with exp2, then O += P V; at the end O / l through shared
//                   memory and a TMA store, and the log-sum-exp per row
//
// P reaches the second WGMMA one of two ways (PSource, a template parameter so both are measured):
//   PSource::smem       P is converted to 16 bits and written into a 64 x 128 K-major 128B-swizzled
//                     operand buffer by the smem-store plan plan_smem_store(wgmma_accumulator(128),
//                     that buffer) (stmatrix), fenced for the async proxy, and read by an SS WGMMA;
//   PSource::registers  the accumulator of S, converted to 16 bits, is the A fragment of the RS WGMMA
//                     as it stands (wgmma::a_fragment: slots paired, no data moves between threads).
//
// Nothing here computes a byte count, a box, a coordinate or a shared offset by hand:
//   - the Q, K, V and O tiles' descriptors, copies and expected bytes are tmakit plans (plan_tile,
//     made on the host in attention.cu against the layouts below) that load_tile / store_tile run;
//   - Q, K, P and O are gmma_operand's canonical K-major layouts and V its MN-major one (V is
//     [kv, d] with d contiguous: N-major for the B operand of O = P V); the WGMMA descriptors are
//     read off them (wgmma_descriptor_fields, wgmma_start_offset);
//   - P (PSource::smem) and O reach shared memory through plan_smem_store plans, checked at compile time.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <utility>

#include "kernels/attention_sm90/attention.hpp"
#include "tmakit/device/element_bits.cuh"
#include "tmakit/device/load_tile.cuh"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/ptx_raw.cuh"
#include "tmakit/device/smem_store.cuh"
#include "tmakit/device/store_tile.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/device/wgmma.cuh"
#include "tmakit/plan/tma_plan.hpp"
#include "tmakit/smem_store/gmma_descriptor.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit::attention_sm90 {

// ---- the tiles and their shared-memory layouts (compile time; attention.cu plans against the same objects)
inline constexpr int kBlockM = 128;  // query rows per CTA
inline constexpr int kBlockN = 128;  // KV rows per block
inline constexpr int kConsumers = 2;  // warpgroups, 64 query rows each
inline constexpr int kRowsPerConsumer = kBlockM / kConsumers;
inline constexpr int kThreads = 128 * (1 + kConsumers);
inline constexpr int kElemBytes = 2;
template <int D>
inline constexpr int kStages = D <= 64 ? 3 : 2;  // K and V stages (the ring's depth)

constexpr StoreDestination k_major_tile(int rows, int cols) {
  return gmma_operand(OperandMajor::k, Swizzle::b128, kElemBytes, rows, cols).value;
}
// Q: 128 x D (query rows x head dim), the A operand of S = Q K^T, K-major.
template <int D>
inline constexpr StoreDestination kQTile = k_major_tile(kBlockM, D);
// K: 128 x D (KV rows x head dim), the B operand of S (N = KV rows, K = head dim), K-major.
template <int D>
inline constexpr StoreDestination kKTile = k_major_tile(kBlockN, D);
// V: the B operand of O = P V (N = head dim, K = KV rows); V's head dim is contiguous, so it is
// MN-major: gmma_operand(mn, ...) of D x 128 (rows = head dim, cols = KV rows).
template <int D>
inline constexpr StoreDestination kVTile = gmma_operand(OperandMajor::mn, Swizzle::b128, kElemBytes, D, kBlockN).value;
// P: a consumer's 64 x 128 probabilities, the A operand of O = P V, K-major.
inline constexpr StoreDestination kPTile = k_major_tile(kRowsPerConsumer, kBlockN);
// O: a consumer's 64 x D output rows, written by the store plan and read by the O plan's TMA store.
template <int D>
inline constexpr StoreDestination kOTile = k_major_tile(kRowsPerConsumer, D);

// The register -> shared stores: S's accumulator as P, O's accumulator as O.
inline constexpr StoreSource kSSrc = wgmma_accumulator(kBlockN);
inline constexpr SmemStorePlan kPStore = plan_smem_store(kSSrc, kPTile);
static_assert(kPStore.ok, "P must have a store plan into its operand layout (tmakit smem-store explains a refusal)");
static_assert(device::smem_store_impl::XorAddressMap<kSSrc, kPTile>::kLinear,
              "P's addresses are XOR-linear: no layout is evaluated on the GPU");
template <int D>
inline constexpr StoreSource kOSrc = wgmma_accumulator(D);
template <int D>
inline constexpr SmemStorePlan kOStore = plan_smem_store(kOSrc<D>, kOTile<D>);

// Where the WGMMA operands start inside their buffers, before the swizzle (scalar constants): the
// first row of consumer Wg's 64-row share of Q, and the first column of k16 step Kk.
template <int D, int Wg, int Kk>
inline constexpr std::uint32_t kQStart = wgmma_start_offset(kQTile<D>, kRowsPerConsumer * Wg, 16 * Kk);
template <int D, int Kk>
inline constexpr std::uint32_t kKStart = wgmma_start_offset(kKTile<D>, 0, 16 * Kk);
template <int D, int Kk>
inline constexpr std::uint32_t kVStart = wgmma_start_offset(kVTile<D>, 0, 16 * Kk);
template <int Kk>
inline constexpr std::uint32_t kPStart = wgmma_start_offset(kPTile, 0, 16 * Kk);

template <int D>
inline constexpr std::uint32_t kQBytes = kBlockM * D * kElemBytes;
template <int D>
inline constexpr std::uint32_t kKVBytes = kBlockN * D * kElemBytes;
// A consumer's scratch buffer: P (PSource::smem) during the KV loop, O in the epilogue.
template <int D>
inline constexpr std::uint32_t kScratchBytes = kRowsPerConsumer * (D > kBlockN ? D : kBlockN) * kElemBytes;

template <int D>
struct alignas(1024) SharedStorage {
  unsigned char q[kQBytes<D>];
  unsigned char k[kStages<D>][kKVBytes<D>];
  unsigned char v[kStages<D>][kKVBytes<D>];
  unsigned char scratch[kConsumers][kScratchBytes<D>];
  device::Barrier q_full;
  device::Barrier k_full[kStages<D>], v_full[kStages<D>];
  device::Barrier empty[kStages<D>];  // one arrival per consumer warp: the stage's K and V are read
};

// Everything the kernel reads from the host, as one __grid_constant__ parameter.
struct KernelParams {
  TmaPlan q, k, v, o;
  CUtensorMap q_map, k_map, v_map, o_map;
  float* lse = nullptr;  // [batch, heads, seqlen]
  std::int32_t seqlen = 0, heads = 0, batch = 0, q_blocks = 0;
  float scale_log2 = 0.0f;  // the softmax scale times log2(e): the kernel's exponentials are exp2
};


// The KV blocks the CTA of query block qb visits: every block, or (causal) those with a column at
// or left of the tile's last row.
template <bool Causal>
__device__ __forceinline__ std::int32_t kv_blocks(const KernelParams& p, std::int32_t qb) {
  const std::int32_t cols = Causal ? min(p.seqlen, (qb + 1) * kBlockM) : p.seqlen;
  return (cols + kBlockN - 1) / kBlockN;
}

// Round j of the ring uses stage j % Stages; its barriers complete phase j / Stages.
template <int D>
__device__ __forceinline__ std::uint32_t ring_parity(std::int32_t j) {
  return static_cast<std::uint32_t>(j / kStages<D>) & 1u;
}

// ---- producer: one thread. Q once, then K and V of every KV block, a stage each.
template <int D, bool Causal>
__device__ __forceinline__ void produce(const KernelParams& p, SharedStorage<D>& s, std::int32_t qb, std::int32_t h,
                                        std::int32_t b) {
  device::prefetch_tensor_map(&p.q_map);
  device::prefetch_tensor_map(&p.k_map);
  device::prefetch_tensor_map(&p.v_map);
  const std::int32_t qc[kMaxTileModes] = {qb, 0, h, b};
  device::load_tile(p.q, &p.q_map, s.q, s.q_full, qc);
  const std::int32_t blocks = kv_blocks<Causal>(p, qb);
  for (std::int32_t j = 0; j < blocks; ++j) {
    const int st = j % kStages<D>;
    if (j >= kStages<D>) device::watchdog::wait_parity(s.empty[st], ring_parity<D>(j - kStages<D>), device::watchdog::bound_ns());
    const std::int32_t kc[kMaxTileModes] = {j, 0, h, b};  // K: (KV rows, head dim, head, batch)
    const std::int32_t vc[kMaxTileModes] = {0, j, h, b};  // V: (head dim, KV rows, head, batch)
    device::load_tile(p.k, &p.k_map, s.k[st], s.k_full[st], kc);
    device::load_tile(p.v, &p.v_map, s.v[st], s.v_full[st], vc);
  }
}

// ---- consumer: warpgroup wg (0 or 1) owns query rows [64 wg, 64 wg + 64) of the CTA's tile.
template <DataType T, int D, bool Causal, PSource Path>
__device__ __forceinline__ void consume(const KernelParams& p, SharedStorage<D>& s, int wg, std::int32_t qb,
                                        std::int32_t h, std::int32_t b) {
  constexpr WgmmaDescriptorFields kQF = wgmma_descriptor_fields(kQTile<D>);
  constexpr WgmmaDescriptorFields kKF = wgmma_descriptor_fields(kKTile<D>);
  constexpr WgmmaDescriptorFields kVF = wgmma_descriptor_fields(kVTile<D>);
  constexpr WgmmaDescriptorFields kPF = wgmma_descriptor_fields(kPTile);
  static_assert(kQF.ok && kKF.ok && kVF.ok && kPF.ok, "the operand tiles must be canonical WGMMA layouts");
  static_assert(kOStore<D>.ok, "O must have a store plan into its tile (tmakit smem-store explains a refusal)");
  static_assert(device::smem_store_impl::XorAddressMap<kOSrc<D>, kOTile<D>>::kLinear, "O's addresses are XOR-linear");
  constexpr int kS = kBlockN / 2;  // accumulator slots of S per thread
  constexpr int kO = D / 2;        // of O
  const int t = threadIdx.x % 128;
  const std::uint32_t barrier_id = 1 + wg;  // named barrier of this warpgroup's 128 threads
  // This thread's two rows (slots v with (v / 2) % 2 == r hold row0 + 8 r) and its first column.
  const std::int32_t row0 = qb * kBlockM + kRowsPerConsumer * wg + 16 * (t / 32) + (t % 32) / 4;
  const std::int32_t col0 = 2 * (t % 4);
  const std::uint32_t q0 = device::shared_address(s.q) + (wg == 0 ? kQStart<D, 0, 0> : kQStart<D, 1, 0>);

  float o[kO];
#pragma unroll
  for (int i = 0; i < kO; ++i) o[i] = 0.0f;
  float m[2] = {-INFINITY, -INFINITY};  // running row maxima, in units of log2 (scaled scores)
  float l[2] = {0.0f, 0.0f};            // this thread's share of the running row sums

  device::watchdog::wait_parity(s.q_full, 0, device::watchdog::bound_ns());
  const std::int32_t blocks = kv_blocks<Causal>(p, qb);
  for (std::int32_t j = 0; j < blocks; ++j) {
    const int st = j % kStages<D>;
    const std::uint32_t parity = ring_parity<D>(j);

    // S = Q K^T: D / 16 k16 steps.
    float sc[kS];
    device::watchdog::wait_parity(s.k_full[st], parity, device::watchdog::bound_ns());
    const std::uint32_t k0 = device::shared_address(s.k[st]);
    device::wgmma::fence();
    device::wgmma::fence_operands(sc);
    [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
      ((device::wgmma::mma<T, kBlockN, 0, 0>(sc, wgmma_descriptor(q0 + kQStart<D, 0, Kk>, kQF),
                                             wgmma_descriptor(k0 + kKStart<D, Kk>, kKF), Kk > 0)),
       ...);
    }(std::make_integer_sequence<int, D / 16>{});
    device::wgmma::commit_group();
    device::wgmma::fence_operands(sc);
    device::wgmma::wait_group<0>();
    device::wgmma::fence_operands(sc);

    // Masks: columns past the sequence's end (the block's rows TMA filled with zeros) and, causal,
    // columns right of the row. Only blocks that reach either pay for them.
    const std::int32_t kv0 = j * kBlockN;
    const bool tail = kv0 + kBlockN > p.seqlen;
    const bool diagonal = Causal && kv0 + kBlockN - 1 > qb * kBlockM + kRowsPerConsumer * wg;
    if (tail || diagonal) {
#pragma unroll
      for (int v = 0; v < kS; ++v) {
        const std::int32_t col = kv0 + 8 * (v / 4) + col0 + v % 2;
        const std::int32_t row = row0 + 8 * ((v / 2) % 2);
        if (col >= p.seqlen || (Causal && col > row)) sc[v] = -INFINITY;
      }
    }

    // Online softmax: new row maxima (over the quad of threads that shares a row), the rescaling of
    // what O and l hold so far, and P = exp2(S scale log2(e) - max).
    float corr[2], base[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = -INFINITY;
#pragma unroll
      for (int v = 0; v < kS; ++v)
        if ((v / 2) % 2 == r) mx = fmaxf(mx, sc[v]);
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(m[r], mx * p.scale_log2);
      base[r] = m_new == -INFINITY ? 0.0f : m_new;  // a row with nothing unmasked yet stays at 0
      corr[r] = exp2f(m[r] - base[r]);
      m[r] = m_new;
      l[r] *= corr[r];
    }
#pragma unroll
    for (int v = 0; v < kO; ++v) o[v] *= corr[(v / 2) % 2];
    std::uint16_t bits[kS];
#pragma unroll
    for (int v = 0; v < kS; ++v) {
      const float pv = exp2f(fmaf(sc[v], p.scale_log2, -base[(v / 2) % 2]));
      l[(v / 2) % 2] += pv;
      bits[v] = device::to_bits<T>(pv);
    }

    // O += P V: kBlockN / 16 k16 steps.
    if constexpr (Path == PSource::smem) {
      unsigned char* pbuf = s.scratch[wg];
      device::store_planned<kPStore, kSSrc, kPTile>(pbuf, t, bits);
      device::fence_smem_writes_for_async();                  // the wgmma reads P through the async proxy
      device::ptx_raw::named_barrier_sync(barrier_id, 128);  // every thread's share of P is written
      device::watchdog::wait_parity(s.v_full[st], parity, device::watchdog::bound_ns());
      const std::uint32_t p0 = device::shared_address(pbuf), v0 = device::shared_address(s.v[st]);
      device::wgmma::fence();
      device::wgmma::fence_operands(o);
      [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
        ((device::wgmma::mma<T, D, 0, 1>(o, wgmma_descriptor(p0 + kPStart<Kk>, kPF),
                                         wgmma_descriptor(v0 + kVStart<D, Kk>, kVF), true)),
         ...);
      }(std::make_integer_sequence<int, kBlockN / 16>{});
    } else {
      std::uint32_t a[kBlockN / 16][4];  // every step's A fragment, written before the wgmma fence
      [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
        (device::wgmma::a_fragment<Kk>(bits, a[Kk]), ...);
      }(std::make_integer_sequence<int, kBlockN / 16>{});
      device::watchdog::wait_parity(s.v_full[st], parity, device::watchdog::bound_ns());
      const std::uint32_t v0 = device::shared_address(s.v[st]);
      device::wgmma::fence();
      device::wgmma::fence_operands(o);
      [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
        ((device::wgmma::fence_operands(a[Kk]),
          device::wgmma::mma_rs<T, D, 1>(o, a[Kk], wgmma_descriptor(v0 + kVStart<D, Kk>, kVF), true)),
         ...);
      }(std::make_integer_sequence<int, kBlockN / 16>{});
    }
    device::wgmma::commit_group();
    device::wgmma::fence_operands(o);
    device::wgmma::wait_group<0>();
    device::wgmma::fence_operands(o);
    __syncwarp();  // every lane of this warp is done with the stage (and with P)
    if (t % 32 == 0) device::arrive(s.empty[st]);
  }

  // Epilogue: the row sums over the quad, O / l through the store plan into the scratch buffer
  // (the last P V multiply has completed: no wgmma reads it any more), one TMA store of the
  // warpgroup's 64 rows (the O plan clips rows past the sequence's end), and the log-sum-exp.
  float inv[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    inv[r] = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
  }
  std::uint16_t obits[kO];
#pragma unroll
  for (int v = 0; v < kO; ++v) obits[v] = device::to_bits<T>(o[v] * inv[(v / 2) % 2]);
  unsigned char* obuf = s.scratch[wg];
  device::ptx_raw::named_barrier_sync(barrier_id, 128);  // (PSource::smem) no warp still reads P from it
  device::store_planned<kOStore<D>, kOSrc<D>, kOTile<D>>(obuf, t, obits);
  device::fence_smem_writes_for_async();
  device::ptx_raw::named_barrier_sync(barrier_id, 128);
  if (t == 0) {
    const std::int32_t oc[kMaxTileModes] = {kConsumers * qb + wg, 0, h, b};
    device::store_tile(p.o, &p.o_map, obuf, oc);
    device::commit_group();
  }
  if (t % 4 == 0) {
    float* lse = p.lse + (static_cast<std::int64_t>(b) * p.heads + h) * p.seqlen;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const std::int32_t row = row0 + 8 * r;
      // log(sum exp(s scale)) = (max + log2(sum)) ln 2, the max in units of log2
      if (row < p.seqlen) lse[row] = (m[r] + log2f(l[r])) * 0.69314718055994531f;
    }
  }
  if (t == 0) device::wait_group<0>();  // the store has completed before the CTA's shared memory goes
}

template <DataType T, int D, bool Causal, PSource Path>
__global__ void __launch_bounds__(kThreads, 1) attention_kernel(const __grid_constant__ KernelParams p) {
  extern __shared__ unsigned char dyn[];
  const std::uint32_t base = device::shared_address(dyn);
  SharedStorage<D>& s = *reinterpret_cast<SharedStorage<D>*>(dyn + ((1024 - base % 1024) % 1024));
  // The longest causal rows first: query blocks in reverse order.
  const std::int32_t qb = p.q_blocks - 1 - static_cast<std::int32_t>(blockIdx.x);
  const std::int32_t h = static_cast<std::int32_t>(blockIdx.y), b = static_cast<std::int32_t>(blockIdx.z);
  if (threadIdx.x == 0) {
    device::init(s.q_full, 1);
    for (int i = 0; i < kStages<D>; ++i) {
      device::init(s.k_full[i], 1);
      device::init(s.v_full[i], 1);
      device::init(s.empty[i], 4 * kConsumers);
    }
  }
  __syncthreads();

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    device::ptx_raw::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) produce<D, Causal>(p, s, qb, h, b);
  } else {
    device::ptx_raw::setmaxnreg_inc<232>();
    consume<T, D, Causal, Path>(p, s, wg - 1, qb, h, b);
  }
}

}  // namespace tmakit::attention_sm90
