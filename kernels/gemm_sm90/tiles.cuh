// The GEMM's tiles: the tile shapes the kernel is compiled for, their shared-memory layouts, the
// epilogue's chunks and their register -> shared store plans, and where each WGMMA operand starts.
// Everything here is a compile-time constant; gemm.cu plans against the same objects.
#pragma once

#include <cstdint>

#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/ring.cuh"
#include "tmakit/device/smem_store.cuh"
#include "tmakit/smem_store/gmma_descriptor.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit::gemm_sm90 {

// What A and B hold, as the kernel multiplies them: 16-bit values of one type (bf16 or f16: WGMMA
// m64nNk16, either operand K- or MN-major) or FP8 values, e4m3 or e5m2 for each operand (m64nNk32,
// both K-major: WGMMA reads one-byte operands only so). Either way one instruction covers 32 bytes
// of K, and a K block is 128 bytes of K: 64 16-bit or 128 FP8 elements, so that the operand tiles
// of a stage have the same bytes, shared layouts and WGMMA descriptors whatever the type.
enum class Inputs : std::uint8_t { bf16, f16, e4m3_e4m3, e4m3_e5m2, e5m2_e4m3, e5m2_e5m2 };
TMAKIT_HD constexpr int input_bytes(Inputs in) { return in == Inputs::bf16 || in == Inputs::f16 ? 2 : 1; }
TMAKIT_HD constexpr bool is_fp8(Inputs in) { return input_bytes(in) == 1; }
// The element type of A and B's tensor maps: TMA moves FP8 as UINT8 (CUtensorMapDataType has no
// FP8 type; a copy moves bytes).
TMAKIT_HD constexpr DataType tma_type(Inputs in) {
  return in == Inputs::bf16 ? DataType::bfloat16 : in == Inputs::f16 ? DataType::float16 : DataType::uint8;
}

// Every tile is 128 rows by TileN columns, in K blocks of 128 bytes. Two consumer warpgroups of 64
// rows each (m64nNk16 with N = TileN), or, in a swapped tile, one warpgroup over the whole 128 x 64
// tile with WGMMA's M along the tile's 64 columns and its N along the 128 rows (m64n128k16 with B's
// tile as WGMMA's A operand and A's as its B): twice the work per instruction and each operand read
// once, where two warpgroups of m64n64 read B's tile twice.
inline constexpr int kTileM = 128;
inline constexpr int kTileKBytes = 128;                  // a K block: one 128-byte swizzle row per operand row
inline constexpr int kKStepBytes = 32;                   // K of one WGMMA instruction (k16 16-bit, k32 FP8)
inline constexpr int kKSteps = kTileKBytes / kKStepBytes;
// A promoted FP8 form (kernel.cuh's mainloop_promoted) multiplies each K block of a consumer's share
// in column slices (of WGMMA's N: a swapped tile's 128 rows), each into block registers of its own
// before they are added to the accumulators. Two sets of block registers take turns where the
// accumulators and both sets fit in this many registers (of the consumers' kConsumerRegisters: the
// rest holds descriptors, addresses and counters); one set otherwise.
inline constexpr int kPromotedRegisters = 192;
// The slice width: a 256-column share in two n128 halves (one set: 128 accumulators and 64 block
// registers); a 192-column one in two n96 slices, one in each set (96 accumulators and 2 x 48 block
// registers); a 128-wide one (a 128-column or swapped tile) in two n64 slices, one in each set; a
// 64-column share whole. Two sets of n64 slices in the 256-column tile ran slower than one set of
// halves, one set of n128 in the 128-wide share no faster than two sets of n64 (docs/lab/gemm.md,
// 2026-12-07 10:26 and 10:37), and two sets of n96 in the 192-column share faster than one n192
// group (2026-12-07 17:54).
constexpr int promoted_slice_n(int tile_n, bool swapped) {
  const int n = swapped ? 128 : tile_n;
  return n == 128 ? 64 : n == 256 ? 128 : n == 192 ? 96 : n;
}
template <int InBytes>
inline constexpr int kTileK = kTileKBytes / InBytes;     // a K block in elements: 64 (16-bit) or 128 (FP8)
inline constexpr int kConsumers = 2;  // warpgroups of an unswapped tile, kTileM / 64 rows each
inline constexpr int kThreads = 128 * (1 + kConsumers);
inline constexpr int kOutBytes = 2;   // C and D: bf16 or f16
inline constexpr int kChunkN = 64;     // the epilogue writes D (and reads C) in 64 x 64 chunks
inline constexpr int kChunkNF32 = 32;  // and adds split-K partial sums in 64 x 32 fp32 chunks
// Registers per thread after setmaxnreg: the producer warpgroup gives what the consumers'
// accumulators and their operands need (384 threads x 168 at launch = 64,512 = 40 x 128 + 2 x 232 x 128).
inline constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
static_assert(kProducerRegisters * 128 + kConsumers * kConsumerRegisters * 128 <= 65536, "the register file");

// A tile shape: TileN columns per tile, the ring's depth, and how its consumers share the work.
// The stages fill what the shared memory leaves beside the epilogue's chunks (heuristics.hpp says
// which shape a problem takes).
//   cooperative (the default): both consumer warpgroups work on the same tile, 64 rows each, and
//     write it out together; the multiplies stop while they do.
//   swapped: one consumer warpgroup, the 128 x 64 tile multiplied with WGMMA's M along its columns.
//   ping-pong: each consumer warpgroup owns a whole 128 x TileN tile (two m64nNk16 per k16 step,
//     one per 64-row half, sharing B) and the two take this CTA's tiles in turn, so that one writes
//     its tile out while the other multiplies: the tensor cores do not wait for an epilogue. Its
//     TileN is 192: 192 accumulators per thread, the most the consumers' registers hold (a 128 x
//     128 ping-pong tile reads each k16 step's B twice for half the work of a 128 x 256 one, and
//     measured slower: docs/lab/gemm.md, 2026-12-06 06:18).
//   64 rows (Rows = 64, cooperative): one consumer warpgroup over a 64-row tile, for problems whose
//     M fits in one (promoted FP8, heuristics.hpp): a 128-row tile there loads a half of zeros, and
//     the 64-row tile's smaller stages make the ring twice as deep.
enum class Split { cooperative, swapped, pingpong };
template <int TileN, int Stages, Split How = Split::cooperative, int Rows = kTileM>
struct TileShape {
  static constexpr bool kSwapped = How == Split::swapped;
  static constexpr bool kPingPong = How == Split::pingpong;
  static_assert(kPingPong ? TileN == 192 : TileN == 64 || TileN == 128 || TileN == 192 || TileN == 256,
                "m64nNk16 with N = 64, 128, 192 or 256 (ping-pong: 192, its accumulators two halves of N / 2 registers)");
  static_assert(!kSwapped || TileN == 64, "a swapped tile's 64 columns are WGMMA's M");
  static_assert(Rows == kTileM || (Rows == 64 && How == Split::cooperative), "128 rows, or 64 in one cooperative warpgroup");
  static constexpr int kTileN = TileN;
  static constexpr int kTileRows = Rows;
  static constexpr std::uint32_t kABytes = Rows * kTileKBytes;  // a stage's A tile
  static constexpr int kStages = Stages;
  static constexpr int kConsumers = kSwapped ? 1 : kPingPong ? 2 : Rows / 64;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  // Warpgroups that read each stage (and release it): ping-pong's stages belong to one tile each.
  static constexpr int kReaders = kPingPong ? 1 : kConsumers;
  // Rows of the tile one consumer multiplies and writes out.
  static constexpr int kRowsPerConsumer = kPingPong ? kTileM : Rows / kConsumers;
  // D chunks per consumer and tile: 64 x 64 each, row-major over the consumer's rows (unswapped), 64
  // rows each (swapped); W's 64 x 32.
  static constexpr int kChunksPerRow = kSwapped ? 1 : TileN / kChunkN;
  static constexpr int kChunks = kSwapped ? kTileM / 64 : kRowsPerConsumer / 64 * kChunksPerRow;
  static constexpr int kChunksF32 = kSwapped ? kTileM / kChunkNF32 : TileN / kChunkNF32;
  // fp32 registers per consumer thread: a 64-row half of the tile (m64nNk16) is N / 2 of them.
  static constexpr int kAccumulators = kSwapped ? kTileM / 2 : kRowsPerConsumer / 64 * (TileN / 2);
  // Registers per thread after setmaxnreg: a ping-pong tile's 192 accumulators need the consumers'
  // largest share, which leaves the producer warpgroup the least setmaxnreg allows.
  static constexpr int kProducerRegisters = kPingPong ? 24 : gemm_sm90::kProducerRegisters;
  static constexpr int kConsumerRegisters = kPingPong ? 240 : gemm_sm90::kConsumerRegisters;
  static_assert(kProducerRegisters * 128 + kConsumers * kConsumerRegisters * 128 <= 65536, "the register file");
};
using WideTile = TileShape<256, 4>;                        // the large problems
using Tile128 = TileShape<128, 6>;                         // skinny problems: more tiles, a deeper ring
using Tile64 = TileShape<64, 8>;                           // the skinniest: more tiles still
using SwappedTile = TileShape<64, 8, Split::swapped>;      // the same tiles, one consumer warpgroup
using PingPongTile = TileShape<192, 4, Split::pingpong>;  // the large problems, epilogues overlapped
// Block-scaled FP8 (kernel.cuh): the tiles with a stage less, for the stages' scale columns.
using WideTileScaled = TileShape<256, 3>;
using Tile128Scaled = TileShape<128, 5>;
using Tile64Scaled = TileShape<64, 7>;
// Promoted FP8 on the large problems (heuristics.hpp): 128 x 192, each consumer's K block in two
// m64n96k32 groups, the second issued before the first is added (the 256-column tile's two halves
// wait for each in turn); with block scales, the same stages (their scale columns fit beside them).
using Tile192 = TileShape<192, 4>;
// Promoted FP8 where M fits in 64 rows (heuristics.hpp): 64 x 64 tiles, one consumer warpgroup, 12
// stages of 16 KiB (a 128 x 64 tile's 24 KiB stages leave room for 7 or 8), per-tensor or
// block-scaled alike (the scale columns fit beside them).
using Tile64Rows = TileShape<64, 12, Split::cooperative, 64>;

// A as Rows x K block (M x K: 128 rows, or a 64-row tile's 64), B as TileN x K block (N x K), of InBytes-byte elements: K-major when
// the operand's K is contiguous in global memory, MN-major otherwise (WGMMA reads either of 16-bit
// operands, imm-trans says which; FP8 operands are K-major).
constexpr StoreDestination operand_tile(bool mn_major, int mn, int in_bytes) {
  return gmma_operand(mn_major ? OperandMajor::mn : OperandMajor::k, Swizzle::b128, in_bytes, mn, kTileKBytes / in_bytes)
      .value;
}
template <bool MnMajor, int InBytes, int Rows = kTileM>
inline constexpr StoreDestination kATile = operand_tile(MnMajor, Rows, InBytes);
template <bool MnMajor, int TileN, int InBytes>
inline constexpr StoreDestination kBTile = operand_tile(MnMajor, TileN, InBytes);

// An epilogue chunk: 64 rows x `cols` columns, row-major, 128B swizzle (rows of 128 bytes: 64 bf16
// or f16 values, 32 fp32 ones); transposed: the same chunk addressed as (column, row).
constexpr SwizzledLayout chunk_layout(int cols, bool transposed = false) {
  SwizzledLayout s;
  s.swizzle = swizzle_for(Swizzle::b128);
  s.layout = transposed ? make_layout(IntTuple::make(64, cols), IntTuple::make(1, cols))
                        : make_layout(IntTuple::make(64, cols), IntTuple::make(cols, 1));
  return s;
}
// The D (and C) chunk: 64 x 64, the accumulator's columns [64c, 64c + 64) (any m64nN: slot v holds
// column 8 (v / 4) + ..., so a chunk is 32 consecutive slots).
inline constexpr SwizzledLayout kChunkLayout = chunk_layout(kChunkN);
inline constexpr StoreDestination kChunkDst = smem_destination(kChunkLayout, kOutBytes, 64, kChunkN);
inline constexpr StoreSource kChunkSrc = wgmma_accumulator(kChunkN);
inline constexpr SmemStorePlan kChunkStore = plan_smem_store(kChunkSrc, kChunkDst);
static_assert(kChunkStore.ok, "the accumulator chunk must have a store plan (tmakit smem-store explains a refusal)");
static_assert(device::smem_store_impl::XorAddressMap<kChunkSrc, kChunkDst>::kLinear,
              "the chunk's addresses are XOR-linear: no layout is evaluated on the GPU");
// A swapped tile's accumulator rows are D's columns: the same row-major D chunk, seen from the
// accumulator as (column, row); the store plan takes stmatrix's transposing form.
inline constexpr StoreDestination kChunkDstT = smem_destination(chunk_layout(kChunkN, true), kOutBytes, 64, kChunkN);
inline constexpr SmemStorePlan kChunkStoreT = plan_smem_store(kChunkSrc, kChunkDstT);
static_assert(kChunkStoreT.ok, "the swapped accumulator chunk must have a store plan");
static_assert(device::smem_store_impl::XorAddressMap<kChunkSrc, kChunkDstT>::kLinear,
              "the swapped chunk's addresses are XOR-linear");

// Split K: a tile's K slices meet in a workspace W (m x n fp32; a swapped tile's W is n x m, so that
// its chunks are the accumulator's rows as they are) in 64 x 32 chunks (128-byte rows,
// 128B swizzle: the same 8 KiB buffers): the first stores its partial sums, the middle ones add
// theirs by TMA reductions (.add), the last loads W back into its accumulators and writes D as an
// unsplit tile does (kernel.cuh, device/split_turns.cuh).
inline constexpr SwizzledLayout kChunkLayoutF32 = chunk_layout(kChunkNF32);
inline constexpr StoreDestination kChunkDstF32 = smem_destination(kChunkLayoutF32, 4, 64, kChunkNF32);
inline constexpr StoreSource kChunkSrcF32 = wgmma_accumulator(kChunkNF32);  // columns [32c, 32c + 32)
inline constexpr SmemStorePlan kChunkStoreF32 = plan_smem_store(kChunkSrcF32, kChunkDstF32);
static_assert(kChunkStoreF32.ok, "the fp32 partial chunk must have a store plan");
static_assert(device::smem_store_impl::XorAddressMap<kChunkSrcF32, kChunkDstF32>::kLinear,
              "the fp32 chunk's addresses are XOR-linear");

// Where a warpgroup's wgmma operands start inside a stage, before the swizzle (scalar constants:
// device code never evaluates a layout at run time): the first row of warpgroup w's 64-row share of
// A, and the first column of K step kk (kKStepBytes of K) of A and of B.
template <bool AMn, int InBytes, int Wg, int Kk, int Rows = kTileM>
inline constexpr std::uint32_t kAStart = wgmma_start_offset(kATile<AMn, InBytes, Rows>, 64 * Wg, Kk * kKStepBytes / InBytes);
template <bool BMn, int TileN, int InBytes, int Kk>
inline constexpr std::uint32_t kBStart = wgmma_start_offset(kBTile<BMn, TileN, InBytes>, 0, Kk * kKStepBytes / InBytes);
template <bool MnMajor, int InBytes, int Rows = kTileM>
inline constexpr WgmmaDescriptorFields kAFields = wgmma_descriptor_fields(kATile<MnMajor, InBytes, Rows>);
template <bool MnMajor, int TileN, int InBytes>
inline constexpr WgmmaDescriptorFields kBFields = wgmma_descriptor_fields(kBTile<MnMajor, TileN, InBytes>);

template <int TileN>
inline constexpr std::uint32_t kBBytes = TileN * kTileKBytes;
inline constexpr std::uint32_t kChunkBytes = 64 * kChunkN * kOutBytes;
// A K-major FP8 tile is, byte for byte, the K-major 16-bit tile of the same rows: the same layout
// in bytes and the same descriptor fields (the kernel's FP8 forms change only the instruction).
static_assert(kAFields<false, 1>.ok && kAFields<false, 1>.lbo_bytes == kAFields<false, 2>.lbo_bytes &&
                  kAFields<false, 1>.sbo_bytes == kAFields<false, 2>.sbo_bytes && kAStart<false, 1, 1, 3> == kAStart<false, 2, 1, 3>,
              "FP8 and 16-bit K-major operand tiles share their bytes");

// Block scales (DeepSeek-V3's FP8 recipe): A's scales, one fp32 per row and K block, M contiguous in
// global memory; a stage holds the column of its K block for the tile's rows (128 or 64: 512 or 256
// bytes, loaded beside the A tile). B's, one per 128 x 128 block, are read from global memory by the consumers.
inline constexpr int kScaleBlock = 128;  // K (and B's N) elements per scale
constexpr SwizzledLayout scale_column_layout(int rows) {
  SwizzledLayout s;
  s.swizzle = swizzle_for(Swizzle::none);
  s.layout = make_layout(IntTuple::make(rows), IntTuple::make(1));  // the K block's mode has extent 1
  return s;
}
template <int Rows = kTileM>
inline constexpr SwizzledLayout kScaleColumnLayout = scale_column_layout(Rows);
template <int Stages, int Rows>
struct ScaleColumns {
  alignas(128) float a[Stages][Rows];
};
template <int Rows>
struct ScaleColumns<0, Rows> {};

template <class Tile, bool BlockScales = false>
struct alignas(1024) SharedStorage {
  unsigned char a[Tile::kStages][Tile::kABytes];
  unsigned char b[Tile::kStages][kBBytes<Tile::kTileN>];
  unsigned char d[Tile::kConsumers][2][kChunkBytes];  // two chunks per consumer: one fills while one stores
  device::Ring<Tile::kStages> ring;
  device::Barrier c_full[Tile::kConsumers];
  device::Barrier w_full[Tile::kConsumers][2];  // split K, the last slice: W's chunks into d[wg][buf]
  std::uint32_t turn[Tile::kConsumers];         // split K: the slice's turn, told to the warpgroup
  [[no_unique_address]] ScaleColumns<BlockScales ? Tile::kStages : 0, Tile::kTileRows> scales;  // block scales: A's per stage
};
// What a CTA asks for: the storage and the alignment the kernel rounds its base up to.
template <class Tile, bool BlockScales = false>
inline constexpr std::size_t kDynamicSmem = sizeof(SharedStorage<Tile, BlockScales>) + 1024;
static_assert(kDynamicSmem<WideTile> <= 232448 && kDynamicSmem<Tile128> <= 232448 && kDynamicSmem<Tile64> <= 232448 &&
                  kDynamicSmem<SwappedTile> <= 232448 && kDynamicSmem<PingPongTile> <= 232448 && kDynamicSmem<Tile192> <= 232448 &&
                  kDynamicSmem<WideTileScaled, true> <= 232448 && kDynamicSmem<Tile128Scaled, true> <= 232448 &&
                  kDynamicSmem<Tile64Scaled, true> <= 232448 && kDynamicSmem<Tile192, true> <= 232448 &&
                  kDynamicSmem<Tile64Rows, true> <= 232448,
              "every tile shape fits in an sm_90 CTA's 227 KiB of shared memory");

}  // namespace tmakit::gemm_sm90
