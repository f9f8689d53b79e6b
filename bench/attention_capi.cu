// A C ABI over kernels/attention_sm90's Attention, for bench/bench_attention.py: Python (ctypes +
// PyTorch) measures tmakit's attention forward and PyTorch's scaled_dot_product_attention in one
// process, on the same tensors, with the same CUDA events.
//
//   h = tmakit_attention_create(q, k, v, o, lse, batch, seqlen, heads, head_dim, causal, p_source,
//                               scale, err, err_len)     // plans and encodes once; NULL + err if refused
//   h = tmakit_attention_create_grid(..., scale, grid, max_ctas, err, err_len)   // the grid form chosen
//   h = tmakit_attention_create_packed(q, k, v, o, lse, cu_seqlens, batch, seqlen, heads, head_dim,
//                                      causal, p_source, scale, grid, max_ctas, err, err_len)
//                                                         // packed sequences of different lengths
//   tmakit_attention_grid(h, out)                         // out[0..2] = persistent, CTAs launched, tiles
//   tmakit_attention_launch(h, stream, count)             // count launches on stream; a cudaError_t
//   tmakit_attention_destroy(h)
//
// The CUDA runtime is linked statically and kept private (-Wl,--exclude-libs,ALL: bench/CMakeLists.txt),
// so this library neither needs a libcudart on the machine nor binds to the one PyTorch loads. Both
// runtimes work in the device's primary context (the runtime uses the context current to the thread,
// which PyTorch has made the primary one), so PyTorch's device pointers are valid here, and a stream
// handle from torch.cuda.Stream().cuda_stream is a driver CUstream, which the runtime accepts as
// its own: "The types CUstream and cudaStream_t are identical and may be used interchangeably"
// (cuda_runtime_api.h, Interactions with the CUDA Driver API).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "kernels/attention_sm90/attention.hpp"

#define TMAKIT_CAPI extern "C" __attribute__((visibility("default")))

namespace {

using tmakit::attention_sm90::Attention;
using tmakit::attention_sm90::AttentionArgs;
using tmakit::attention_sm90::GridForm;
using tmakit::attention_sm90::PSource;
using tmakit::kernels::KernelRule;
using tmakit::kernels::refusal;

void put_error(char* err, int err_len, const std::string& text) {
  if (err && err_len > 0) std::snprintf(err, static_cast<std::size_t>(err_len), "%s", text.c_str());
}

// A planned attention problem, or nullptr with every reason in err (one line each).
// p_source: 0 = P through shared memory (PSource::smem), 1 = P in registers (PSource::registers),
// 2 = the launcher's choice (PSource::automatic).
// scale: the softmax scale, 0 for 1 / sqrt(head_dim).
// grid: 0 = one CTA per tile, 1 = the persistent form, 2 = the launcher's choice (AttentionArgs::grid:
// GridForm::per_tile, persistent, automatic); max_ctas: the persistent form's CTA limit, 0 for as many
// as are resident at once.
// cu_seqlens: null, or (packed sequences, AttentionArgs::cu_seqlens) batch + 1 int32 row offsets in device
// memory, with q, k, v, o [total, heads, head_dim] and lse [heads, total].
void* create(const void* q, const void* k, const void* v, void* o, float* lse, const std::int32_t* cu_seqlens,
             std::int64_t batch, std::int64_t seqlen, std::int64_t heads, std::int64_t head_dim, int causal,
             int p_source, float scale, int grid, int max_ctas, char* err, int err_len) {
  put_error(err, err_len, "");
  std::string bad;
  if (p_source < 0 || p_source > 2)
    bad += refusal(KernelRule::attention_p_source,
                   "p_source: 0 (shared memory), 1 (registers) or 2 (automatic), got " + std::to_string(p_source),
                   "give p_source 0, 1 or 2") +
           "\n";
  if (grid < 0 || grid > 2)
    bad += refusal(KernelRule::attention_grid_form,
                   "grid: 0 (one CTA per tile), 1 (persistent) or 2 (automatic), got " + std::to_string(grid),
                   "give grid 0, 1 or 2") +
           "\n";
  if (!bad.empty()) {
    put_error(err, err_len, bad);
    return nullptr;
  }
  AttentionArgs a;
  a.batch = batch;
  a.seqlen = seqlen;
  a.heads = heads;
  a.head_dim = head_dim;
  a.q = q;
  a.k = k;
  a.v = v;
  a.o = o;
  a.lse = lse;
  a.cu_seqlens = cu_seqlens;
  a.causal = causal != 0;
  a.scale = scale;
  a.p_source = p_source == 0 ? PSource::smem : p_source == 1 ? PSource::registers : PSource::automatic;
  a.grid = grid == 0 ? GridForm::per_tile : grid == 1 ? GridForm::persistent : GridForm::automatic;
  a.max_ctas = max_ctas;
  try {
    auto* h = new Attention(a);
    if (h->status().ok) return h;
    std::string text;
    for (const std::string& line : h->status().errors) text += line + "\n";
    put_error(err, err_len, text);
    delete h;
  } catch (const std::exception& e) {
    put_error(err, err_len, std::string("tmakit_attention_create: ") + e.what());
  }
  return nullptr;
}

}  // namespace

TMAKIT_CAPI void* tmakit_attention_create_grid(const void* q, const void* k, const void* v, void* o, float* lse,
                                               std::int64_t batch, std::int64_t seqlen, std::int64_t heads,
                                               std::int64_t head_dim, int causal, int p_source, float scale,
                                               int grid, int max_ctas, char* err, int err_len) {
  return create(q, k, v, o, lse, nullptr, batch, seqlen, heads, head_dim, causal, p_source, scale, grid, max_ctas, err,
                err_len);
}

// Packed sequences of different lengths: batch sequences, sequence i rows [cu_seqlens[i], cu_seqlens[i + 1])
// of q, k, v, o ([total, heads, head_dim]); lse [heads, total]; seqlen 0 or a bound on every length.
TMAKIT_CAPI void* tmakit_attention_create_packed(const void* q, const void* k, const void* v, void* o, float* lse,
                                                 const std::int32_t* cu_seqlens, std::int64_t batch,
                                                 std::int64_t seqlen, std::int64_t heads, std::int64_t head_dim,
                                                 int causal, int p_source, float scale, int grid, int max_ctas,
                                                 char* err, int err_len) {
  if (!cu_seqlens) {
    put_error(err, err_len,
              refusal(KernelRule::attention_cu_seqlens, "packed sequences need their batch + 1 offsets (null given)") +
                  "\n");
    return nullptr;
  }
  return create(q, k, v, o, lse, cu_seqlens, batch, seqlen, heads, head_dim, causal, p_source, scale, grid, max_ctas,
                err, err_len);
}

// The one-CTA-per-tile form (tmakit_attention_create_grid with grid = 0).
TMAKIT_CAPI void* tmakit_attention_create(const void* q, const void* k, const void* v, void* o, float* lse,
                                          std::int64_t batch, std::int64_t seqlen, std::int64_t heads,
                                          std::int64_t head_dim, int causal, int p_source, float scale, char* err,
                                          int err_len) {
  return tmakit_attention_create_grid(q, k, v, o, lse, batch, seqlen, heads, head_dim, causal, p_source, scale, 0, 0,
                                      err, err_len);
}

// count launches on stream (a cudaStream_t / CUstream; 0 is the legacy default stream), asynchronous.
// Returns the first launch's error (cudaSuccess = 0).
TMAKIT_CAPI int tmakit_attention_launch(const void* handle, void* stream, int count) {
  if (!handle || count < 0) return static_cast<int>(cudaErrorInvalidValue);
  const auto* h = static_cast<const Attention*>(handle);
  for (int i = 0; i < count; ++i) {
    const cudaError_t e = h->launch(static_cast<cudaStream_t>(stream));
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  return static_cast<int>(cudaSuccess);
}

// What the launcher chose: out[0..5] = block_m, block_n, stages, CTAs launched, smem_bytes, p_source (0/1: the
// path launched, automatic resolved).
TMAKIT_CAPI int tmakit_attention_config(const void* handle, std::int64_t* out) {
  if (!handle || !out) return static_cast<int>(cudaErrorInvalidValue);
  const auto& c = static_cast<const Attention*>(handle)->status().config;
  out[0] = c.block_m;
  out[1] = c.block_n;
  out[2] = c.stages;
  out[3] = c.ctas;
  out[4] = static_cast<std::int64_t>(c.smem_bytes);
  out[5] = c.p_source == PSource::smem ? 0 : 1;
  return 0;
}

// The grid the launcher chose: out[0..2] = persistent (0/1), CTAs launched, tiles (query blocks x heads x batch).
TMAKIT_CAPI int tmakit_attention_grid(const void* handle, std::int64_t* out) {
  if (!handle || !out) return static_cast<int>(cudaErrorInvalidValue);
  const auto& c = static_cast<const Attention*>(handle)->status().config;
  out[0] = c.persistent ? 1 : 0;
  out[1] = c.ctas;
  out[2] = c.tiles;
  return 0;
}

TMAKIT_CAPI void tmakit_attention_destroy(void* handle) { delete static_cast<Attention*>(handle); }

TMAKIT_CAPI const char* tmakit_attention_error_string(int error) {
  return cudaGetErrorString(static_cast<cudaError_t>(error));
}

// This library's CUDA runtime version (CUDART_VERSION it was built with, e.g. 13000).
TMAKIT_CAPI int tmakit_attention_runtime_version() { return CUDART_VERSION; }
