// A Hopper (sm_90a) attention forward pass built only from tmakit:
//
//   O = softmax(Q K^T * scale) V,   LSE = log(sum_j exp(Q K^T * scale)[i, j])   per row i,
//
// for batch x heads x seqlen, head dims 64, 96, 128 and 256, bf16 or f16 inputs and output, fp32
// softmax and accumulation, causal (row i sees columns j <= i) or not, grouped-query attention (fewer
// K / V heads than query heads). Q, K, V and O are [batch, seqlen, heads,
// head_dim] row-major (PyTorch's (B, S, H, D) contiguous tensors); LSE is fp32 [batch, heads, seqlen].
// seqlen need not be a multiple of the tile: TMA fills the loads past the end with zeros, the kernel
// masks those columns, and the O store is clipped. Packed sequences of different lengths
// (AttentionArgs::cu_seqlens) are [total, heads, head_dim] instead, each sequence clipped at its own
// end the same way.
//
//   tmakit::attention_sm90::AttentionArgs a;
//   a.batch = B; a.seqlen = S; a.heads = H; a.head_dim = 128;
//   a.q = dQ; a.k = dK; a.v = dV; a.o = dO; a.lse = dLSE; a.causal = true;
//   const AttentionStatus s = tmakit::attention_sm90::attention(a, stream);   // s.ok, or s.errors says why not
//
// How it is built (kernel.cuh, docs/attention.md): every descriptor, box, transaction byte count
// and shared offset comes from a tmakit plan (plan_tile for Q, K, V and O; plan_smem_store for P
// and O's way into shared memory; gmma_operand for the WGMMA operand layouts and descriptors).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/status.hpp"
#include "tmakit/core/dtype.hpp"

namespace tmakit::attention_sm90 {

// How P (the softmax probabilities) reaches the P V multiply: through shared memory by the
// smem-store plan (stmatrix into the K-major operand layout, then WGMMA with both operands in
// shared memory), or in registers (WGMMA with A from registers); automatic picks p_source_chosen's
// answer (heuristics.hpp; the kernels are built for smem and registers).
enum class PSource { smem, registers, automatic };

// The grid: one CTA per tile (kBlockM query rows of one head of one batch: AttentionConfig::block_m), or
// persistent: as many CTAs as are resident at once (at most one per tile), each computing tiles in
// turn, one tile's epilogue under the next tile's loads. automatic picks persistent_grid_chosen's
// answer (heuristics.hpp).
enum class GridForm { automatic, per_tile, persistent };

struct AttentionArgs {
  DataType dtype = DataType::bfloat16;  // of Q, K, V and O: bfloat16 or float16
  std::int64_t batch = 1, seqlen = 0, heads = 1, head_dim = 0;  // head_dim: 64, 96, 128 or 256
  // K / V heads (grouped-query attention: query head h reads K / V head h / (heads / heads_kv)); 0: heads.
  std::int64_t heads_kv = 0;
  const void* q = nullptr;
  const void* k = nullptr;  // [batch, seqlen, heads_kv, head_dim], as V
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;  // [batch, heads, seqlen] fp32 ([heads, total] with cu_seqlens)
  // Packed sequences of different lengths (FlashAttention's varlen form, PyTorch's jagged nested
  // tensors): `batch` sequences, sequence i being rows [cu_seqlens[i], cu_seqlens[i + 1]) of Q, K, V
  // and O, which are then [total, heads (K, V: heads_kv), head_dim] row-major, total = cu_seqlens[batch];
  // LSE is [heads, total]. cu_seqlens: batch + 1 non-decreasing int32 offsets from 0 in device memory,
  // read once when the problem is planned (an Attention is planned for those lengths). seqlen: 0, or
  // a bound that no sequence exceeds (FlashAttention's max_seqlen). Causal: each sequence on its own
  // diagonal (its row i sees its columns j <= i). Null: every batch has seqlen rows.
  const std::int32_t* cu_seqlens = nullptr;
  bool causal = false;
  float scale = 0.0f;  // the softmax scale; 0: 1 / sqrt(head_dim)
  PSource p_source = PSource::automatic;
  GridForm grid = GridForm::automatic;
  // Persistent form only: at most this many CTAs (0: as many as are resident at once). For tests that
  // give each CTA many tiles.
  int max_ctas = 0;
};

// What the launcher chose (reported for tests, benchmarks and the docs).
struct AttentionConfig {
  // Query rows per tile (192 with three consumers: head dim 64, and 96 and 128 with P through shared
  // memory); KV rows per block (128; at head dim 256 80 with P in registers, 64 with P through shared
  // memory).
  int block_m = 128, block_n = 128;
  int stages = 0;                     // K stages (the depth of the K ring)
  int v_stages = 0;                   // V stages
  int tiles = 0;                      // query blocks x heads x batch (packed: each sequence's query blocks)
  int ctas = 0;                       // CTAs launched: tiles, or (persistent) at most the resident CTAs
  bool persistent = false;            // the grid form launched (GridForm::automatic: the one it chose)
  std::size_t smem_bytes = 0;
  PSource p_source = PSource::registers;  // the path launched (PSource::automatic: the one it chose)
  std::int64_t longest = 0;  // rows of the longest sequence: seqlen, or read off cu_seqlens
  std::int64_t total = 0;    // query rows of every sequence together: batch x seqlen, or cu_seqlens[batch]
};

// ok, every refusal (attention.*, kernel.cuda, a tensor's planner refusals: docs/rules.md), the
// CUDA error, the config (kernels/common/status.hpp).
using AttentionStatus = kernels::KernelStatus<AttentionConfig>;

// An attention problem planned once and launched any number of times (planning and encoding the
// four descriptors are host work).
class Attention {
 public:
  explicit Attention(const AttentionArgs& args);  // plans and encodes; status() says whether it can launch
  const AttentionStatus& status() const { return status_; }
  cudaError_t launch(cudaStream_t stream = nullptr) const;  // asynchronous
  struct Prepared;

 private:
  AttentionStatus status_;
  std::shared_ptr<const Prepared> prepared_;
};

// Plans, encodes and launches on `stream` in one call. Returns after the launch (asynchronous).
AttentionStatus attention(const AttentionArgs& args, cudaStream_t stream = nullptr);

}  // namespace tmakit::attention_sm90
