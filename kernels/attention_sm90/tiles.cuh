// The attention kernel's tiles (kernel.cuh): per head dim and P path, the consumer count, the KV
// block, the ring depths, the shared-memory layouts of Q, K, V, P and O (gmma_operand's canonical
// WGMMA layouts), the register -> shared store plans of P and O, and the byte counts of the buffers.
// Compile-time objects only: the host plans the tensors' copies against the same layouts
// (programs.cuh, attention.cu), and the kernel reads its WGMMA descriptors off them.
#pragma once

#include <cstdint>
#include <utility>

#include "kernels/attention_sm90/attention.hpp"
#include "tmakit/smem_store/gmma_descriptor.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit::attention_sm90 {

// ---- the tiles and their shared-memory layouts
//
//   head dim D        64     96     128        256
//   consumers C       3      3 / 2  3 / 2      2        (warpgroups of 64 query rows, kBlockM = 64 C;
//                                                        P through shared memory / in registers)
//   KV rows per block 128    128    128        64 / 80  (kBlockN: S is 64 x kBlockN per consumer; P
//                                                        through shared memory / in registers)
//   K stages          4      2 / 3  2          2        (as many as fit beside Q and the scratch buffers
//   V stages          5      3 / 4  2          2         in 227 KiB; V first: V_j's stage is freed last,
//                                                        by P_j V_j, so its load has the least time;
//                                                        head dim 128 with P in registers has room for
//                                                        a third V stage, not yet measured)
//   registers         32 / 160 with three consumers (512 threads), else 40 / 232 (384): producer / consumers
//   swizzle of Q K V O 128B  64B    128B   128B    (a row of 96 elements is 3 atoms of 64 bytes, not
//                                                   whole atoms of 128)
//   O leaves through  the consumer's scratch buffer (D <= 128) or Q's buffer (D = 256: a 64 x 256 tile
//                     does not fit beside the stages; Q is read no more once both consumers are done)
// Consumer warpgroups C, 64 query rows each: three where their registers allow, else two. A third
// warpgroup's multiplies fill the time two spend in softmaxes (head dim 64's multiplies per KV block are
// half head dim 128's for the same softmax), but three leave each consumer 160 registers: enough for O,
// S and the bookkeeping, and at head dims 96 and 128 not for P's register fragments beside them (P in
// registers spilled there, docs/lab/attention.md), so P in registers keeps two consumers above head dim 64.
template <int D, PSource Path>
inline constexpr int kConsumersFor = D == 64 || (Path == PSource::smem && D <= 128) ? 3 : 2;
inline constexpr int kRowsPerConsumer = 64;
template <int C>
inline constexpr int kBlockM = kRowsPerConsumer * C;  // query rows per CTA (a tile)
template <int C>
inline constexpr int kThreads = 128 * (1 + C);
// Registers per thread after setmaxnreg: the producer warpgroup gives up what the consumers take, the
// CTA's total within what it was launched with (512 threads x 128 with three consumers, 384 x 168 with
// two: __launch_bounds__(threads, 1) gives each thread 64 Ki / threads rounded down to a multiple of 8).
// A setmaxnreg.inc beyond that total waits for registers that never come: the kernel hangs (measured
// with 32 / 240 at 384 threads, 65,536 > 64,512).
template <int C>
inline constexpr int kProducerRegs = C == 3 ? 32 : 40;
template <int C>
inline constexpr int kConsumerRegs = C == 3 ? 160 : 232;
template <int C>
inline constexpr int kLaunchRegs = 65536 / (128 * (1 + C)) / 8 * 8;
template <int C>
inline constexpr bool kRegistersFit = 128 * kProducerRegs<C> + C * 128 * kConsumerRegs<C> <= 128 * (1 + C) * kLaunchRegs<C>;
static_assert(kRegistersFit<3> && kRegistersFit<2>, "the warpgroups' registers fit what the CTA is launched with");
inline constexpr int kElemBytes = 2;
// The head dims there are kernels for (attention.cu refuses the others).
constexpr bool head_dim_built(long long d) { return d == 64 || d == 96 || d == 128 || d == 256; }
// KV rows per block. With P in registers at head dim 256 a block is wider (80): the fixed costs of a
// block (waits, the turn, O's rescale) are paid over more multiplies. At head dim 128 a block of 128
// rows divides the power-of-two sequence lengths that a wider one would pad (docs/lab/attention.md,
// 2026-12-06 18:42). P through shared memory keeps whole 64-element rows of the 128B swizzle (128, 64).
template <int D, PSource Path>
inline constexpr int kBlockN = Path == PSource::registers && D == 256 ? 80 : D > 128 ? 64 : 128;
template <int D, PSource Path>
inline constexpr int kKStages = D == 64 ? 4 : D == 96 && kConsumersFor<D, Path> == 2 ? 3 : 2;  // depth of the K ring
template <int D, PSource Path>
inline constexpr int kVStages = D == 64 ? 5 : D == 96 ? (kConsumersFor<D, Path> == 3 ? 3 : 4) : 2;  // of the V ring
template <int D>
inline constexpr Swizzle kSwizzle = D % 64 == 0 ? Swizzle::b128 : Swizzle::b64;

constexpr StoreDestination k_major_tile(int rows, int cols, Swizzle sw = Swizzle::b128) {
  return gmma_operand(OperandMajor::k, sw, kElemBytes, rows, cols).value;
}
// Q: kBlockM x D (query rows x head dim), the A operand of S = Q K^T, K-major.
template <int D, int C>
inline constexpr StoreDestination kQTile = k_major_tile(kBlockM<C>, D, kSwizzle<D>);
// K: kBlockN x D (KV rows x head dim), the B operand of S (N = KV rows, K = head dim), K-major.
template <int D, PSource Path>
inline constexpr StoreDestination kKTile = k_major_tile(kBlockN<D, Path>, D, kSwizzle<D>);
// V: the B operand of O = P V (N = head dim, K = KV rows); V's head dim is contiguous, so it is
// MN-major: gmma_operand(mn, ...) of D x kBlockN (rows = head dim, cols = KV rows).
template <int D, PSource Path>
inline constexpr StoreDestination kVTile =
    gmma_operand(OperandMajor::mn, kSwizzle<D>, kElemBytes, D, kBlockN<D, Path>).value;
// P through shared memory (PSource::smem): a consumer's 64 x kBlockN probabilities, the A operand of
// O = P V, K-major.
template <int D>
inline constexpr StoreDestination kPTile = k_major_tile(kRowsPerConsumer, kBlockN<D, PSource::smem>);
// O: a consumer's 64 x D output rows, written by the store plan and read by the O plan's TMA store.
template <int D>
inline constexpr StoreDestination kOTile = k_major_tile(kRowsPerConsumer, D, kSwizzle<D>);

// The register -> shared stores: S's accumulator as P, O's accumulator as O.
// P is stored in pieces of 64 columns (one 128-byte swizzle atom): piece i of the m64nN accumulator (its
// slots 32 i .. 32 i + 31, columns [64 i, 64 i + 64)) is an m64n64 accumulator of its own, and the piece
// of the P tile is a 64 x 64 K-major tile at the tile's offset of column 64 i. Every piece is stored by
// the same plan from its own offset, so a thread's store addresses are the first piece's plus a
// constant (the stmatrix's immediate): the KV loop needs four addresses per thread, not the eight of
// one 64 x 128 plan, whose second half differs from its first by an XOR that ptxas does not fold.
inline constexpr int kPPieceCols = 64;
template <int D>
inline constexpr int kPPieces = kBlockN<D, PSource::smem> / kPPieceCols;
inline constexpr StoreSource kPPieceSrc = wgmma_accumulator(kPPieceCols);
inline constexpr StoreDestination kPPieceTile = k_major_tile(kRowsPerConsumer, kPPieceCols);
inline constexpr SmemStorePlan kPPieceStore = plan_smem_store(kPPieceSrc, kPPieceTile);
template <int D, int Piece>
inline constexpr std::uint32_t kPPieceOffset = static_cast<std::uint32_t>(kPTile<D>.buffer_offset(0, kPPieceCols * Piece));
// The pieces tile the P tile: the piece's layout shifted by the piece's offset is the tile's (checked on
// every 7th row and column: every row of the swizzle's 8-row pattern, every 8-row group, every
// 16-byte chunk of a row).
template <int D>
constexpr bool p_pieces_tile_p() {
  if (kBlockN<D, PSource::smem> % kPPieceCols != 0) return false;
  for (int piece = 0; piece < kPPieces<D>; ++piece)
    for (int r = 0; r < kRowsPerConsumer; r += 7)
      for (int c = 0; c < kPPieceCols; c += 7)
        if (kPTile<D>.buffer_offset(r, kPPieceCols * piece + c) !=
            kPTile<D>.buffer_offset(0, kPPieceCols * piece) + kPPieceTile.buffer_offset(r, c))
          return false;
  return true;
}
static_assert(p_pieces_tile_p<64>() && p_pieces_tile_p<96>() && p_pieces_tile_p<128>() && p_pieces_tile_p<256>(),
              "the P tile is 64 x 64 pieces side by side");
// O is stored in pieces of at most 128 columns: a piece of the m64nD accumulator (its slots
// 64 i .. 64 i + 63 for columns [128 i, 128 i + 128)) is an m64n128 accumulator of its own, and the piece
// of the O tile is a 64 x 128 K-major tile at the tile's offset of column 128 i. A piece small enough is
// checked XOR-linear at compile time (no layout evaluated on the GPU); all of 64 x 256 is past that check.
template <int D>
inline constexpr int kOPieceCols = D > 128 ? 128 : D;
template <int D>
inline constexpr int kOPieces = D / kOPieceCols<D>;
template <int D>
inline constexpr StoreSource kOSrc = wgmma_accumulator(kOPieceCols<D>);
template <int D>
inline constexpr StoreDestination kOPieceTile = k_major_tile(kRowsPerConsumer, kOPieceCols<D>, kSwizzle<D>);
template <int D>
inline constexpr SmemStorePlan kOStore = plan_smem_store(kOSrc<D>, kOPieceTile<D>);
template <int D, int Piece>
inline constexpr std::uint32_t kOPieceOffset = static_cast<std::uint32_t>(kOTile<D>.buffer_offset(0, kOPieceCols<D> * Piece));
// The pieces tile the O tile: the piece's layout shifted by the piece's offset is the tile's (checked
// at the corners of every 8 x 8 block).
template <int D>
constexpr bool o_pieces_tile_o() {
  for (int piece = 0; piece < kOPieces<D>; ++piece)
    for (int r = 0; r < kRowsPerConsumer; r += 7)
      for (int c = 0; c < kOPieceCols<D>; c += 7)
        if (kOTile<D>.buffer_offset(r, kOPieceCols<D> * piece + c) !=
            kOTile<D>.buffer_offset(0, kOPieceCols<D> * piece) + kOPieceTile<D>.buffer_offset(r, c))
          return false;
  return true;
}
static_assert(o_pieces_tile_o<256>(), "the O tile of head dim 256 is two 64 x 128 pieces side by side");

// Where the WGMMA operands start inside their buffers, before the swizzle (scalar constants): the
// first row of consumer Wg's 64-row share of Q, and the first column of k16 step Kk.
template <int D, int C, int Wg, int Kk>
inline constexpr std::uint32_t kQStart = wgmma_start_offset(kQTile<D, C>, kRowsPerConsumer * Wg, 16 * Kk);
// Consumer wg's share of Q (the first k16 step).
template <int D, int C>
__device__ __forceinline__ std::uint32_t q_start(int wg) {
  if constexpr (C == 3)
    return wg == 0 ? kQStart<D, C, 0, 0> : wg == 1 ? kQStart<D, C, 1, 0> : kQStart<D, C, 2, 0>;
  else
    return wg == 0 ? kQStart<D, C, 0, 0> : kQStart<D, C, 1, 0>;
}
template <int D, PSource Path, int Kk>
inline constexpr std::uint32_t kKStart = wgmma_start_offset(kKTile<D, Path>, 0, 16 * Kk);
template <int D, PSource Path, int Kk>
inline constexpr std::uint32_t kVStart = wgmma_start_offset(kVTile<D, Path>, 0, 16 * Kk);
template <int D, int Kk>
inline constexpr std::uint32_t kPStart = wgmma_start_offset(kPTile<D>, 0, 16 * Kk);

template <int D, int C>
inline constexpr std::uint32_t kQBytes = kBlockM<C> * D * kElemBytes;
template <int D, PSource Path>
inline constexpr std::uint32_t kKVBytes = kBlockN<D, Path> * D * kElemBytes;
template <int D>
inline constexpr std::uint32_t kOBytes = kRowsPerConsumer * D * kElemBytes;
// O is staged in Q's buffer (64 rows of it per consumer) at head dim 256: a 64 x 256 tile does not fit
// beside the stages. Q is read no more once both consumers' last multiplies have completed; in the
// persistent form the next tile's Q is loaded only once the O stores have read the buffer.
template <int D>
inline constexpr bool kOInQ = D > 128;
// A consumer's scratch buffer: P (PSource::smem) during the KV loop, and O in the epilogue unless
// kOInQ (then, with P in registers, a token 16 bytes).
template <int D, PSource Path>
inline constexpr std::uint32_t kScratchBytes =
    Path == PSource::smem ? kRowsPerConsumer * kBlockN<D, Path> * kElemBytes : kOInQ<D> ? 16 : kOBytes<D>;
template <int D, PSource Path>
inline constexpr std::uint32_t kOBufferBytes = kOInQ<D> ? kOBytes<D> : kScratchBytes<D, Path>;
static_assert(kQBytes<256, 2> == 2 * kOBytes<256>, "O of head dim 256 takes Q's buffer, 64 rows per consumer");
static_assert(kScratchBytes<64, PSource::smem> >= kOBytes<64> && kScratchBytes<96, PSource::smem> >= kOBytes<96> &&
                  kScratchBytes<128, PSource::smem> >= kOBytes<128>,
              "P's scratch buffer holds O in the epilogue");


}  // namespace tmakit::attention_sm90
