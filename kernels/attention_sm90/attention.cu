// Host side of the attention forward pass: the Q, K, V and O tile plans from the [batch, seqlen,
// heads, head_dim] tensors and the kernel's shared layouts, their descriptors, and the launch.
// Refusals come back as lines with a rule id and a fix (attention.* and kernel.cuda:
// kernels/common/rules.hpp; the planner's own words for a tensor TMA cannot copy), never as a
// launch that fails or hangs.
#include "kernels/attention_sm90/attention.hpp"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/attention_sm90/heuristics.hpp"
#include "kernels/attention_sm90/kernel.cuh"
#include "kernels/common/planned_tile.hpp"

namespace tmakit::attention_sm90 {
namespace {

using kernels::cuda_refusal;
using kernels::KernelRule;
using kernels::refusal;

// The query rows: how many, and how they divide into sequences.
struct Rows {
  bool packed = false;        // AttentionArgs::cu_seqlens given
  std::int64_t longest = 0;   // the longest sequence's rows
  std::int64_t window = 0;    // rows TMA sees of each sequence: seqlen, or packed the longest (at least 1)
  std::int64_t total = 0;     // every sequence's rows together
  std::vector<std::int32_t> offsets;  // packed: the batch + 1 offsets as read
};

// Packed sequences: the offsets, read from the caller's device memory and checked, every reason at
// once (attention.cu_seqlens). A problem is planned for the lengths read here.
bool read_packed_rows(const AttentionArgs& a, Rows& rows, std::vector<std::string>& errors) {
  auto bad_offsets = [&](const std::string& what) { errors.push_back(refusal(KernelRule::attention_cu_seqlens, what)); };
  if (a.batch > 65535) {  // before the batch + 1 offsets are read: the grid's limit (attention.grid)
    errors.push_back(refusal(KernelRule::attention_grid, "at most 65535 batches (sequences), got " + std::to_string(a.batch)));
    return false;
  }
  cudaPointerAttributes attr{};
  const cudaError_t kind = cudaPointerGetAttributes(&attr, a.cu_seqlens);
  if (kind != cudaSuccess || (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)) {
    (void)cudaGetLastError();
    bad_offsets(std::string("the offsets are not in device memory (") +
                (kind != cudaSuccess ? cudaGetErrorString(kind) : "a host pointer") + ")");
    return false;
  }
  rows.packed = true;
  rows.offsets.assign(static_cast<std::size_t>(a.batch) + 1, 0);
  const cudaError_t copied = cudaMemcpy(rows.offsets.data(), a.cu_seqlens, rows.offsets.size() * sizeof(std::int32_t),
                                        cudaMemcpyDefault);
  if (copied != cudaSuccess) {
    bad_offsets(std::string("the batch + 1 offsets could not be read (") + cudaGetErrorString(copied) + ")");
    return false;
  }
  const std::size_t bad_before = errors.size();
  if (rows.offsets[0] != 0)
    bad_offsets("the first offset is " + std::to_string(rows.offsets[0]) + ", not 0");
  for (std::size_t i = 0; i + 1 < rows.offsets.size(); ++i) {
    const std::int64_t len = std::int64_t{rows.offsets[i + 1]} - rows.offsets[i];
    if (len < 0)
      bad_offsets("sequence " + std::to_string(i) + " would have " + std::to_string(len) + " rows (offset " +
                  std::to_string(i + 1) + " = " + std::to_string(rows.offsets[i + 1]) + " is below offset " +
                  std::to_string(i) + " = " + std::to_string(rows.offsets[i]) + ")");
    else if (a.seqlen > 0 && len > a.seqlen)
      errors.push_back(refusal(KernelRule::attention_cu_seqlens,
                               "sequence " + std::to_string(i) + " has " + std::to_string(len) +
                                   " rows, more than seqlen = " + std::to_string(a.seqlen) +
                                   " (with cu_seqlens, seqlen bounds every sequence)",
                               "seqlen = 0, or the longest length"));
    rows.longest = std::max(rows.longest, len);
  }
  rows.total = rows.offsets.back();
  return errors.size() == bad_before;
}

// The global tensor `data` (heads heads, head_dim first for V) as the planner sees it (programs.cuh):
// [batch, seqlen, heads, head_dim], or packed [total, heads, head_dim] through a window of the longest
// sequence's rows.
GlobalTensor tensor_of(const AttentionArgs& a, const Rows& rows, const void* data, std::int64_t heads,
                       bool head_dim_first) {
  const auto address = reinterpret_cast<std::uint64_t>(data);
  if (rows.packed)
    return packed_tensor(a.dtype, address, rows.total, rows.window, heads, a.head_dim, head_dim_first);
  return bshd_tensor(a.dtype, address, a.batch, a.seqlen, heads, a.head_dim, head_dim_first);
}

using KernelFn = void (*)(KernelParams);

template <DataType T, int D, bool Causal, bool Persistent>
KernelFn kernel_for_source(PSource s) {
  if (s == PSource::smem) return &attention_kernel<T, D, Causal, PSource::smem, Persistent>;
  return &attention_kernel<T, D, Causal, PSource::registers, Persistent>;
}

template <DataType T, int D, bool Persistent>
KernelFn kernel_for_mask(bool causal, PSource s) {
  return causal ? kernel_for_source<T, D, true, Persistent>(s) : kernel_for_source<T, D, false, Persistent>(s);
}

template <int D>
KernelFn kernel_for(DataType t, bool causal, PSource s, bool persistent) {
  if (persistent)
    return t == DataType::float16 ? kernel_for_mask<DataType::float16, D, true>(causal, s)
                                  : kernel_for_mask<DataType::bfloat16, D, true>(causal, s);
  return t == DataType::float16 ? kernel_for_mask<DataType::float16, D, false>(causal, s)
                                : kernel_for_mask<DataType::bfloat16, D, false>(causal, s);
}

// Calls f(std::integral_constant<int, D>{}) for the built head dim d (the caller has checked it).
template <typename F>
auto with_head_dim(std::int64_t d, F&& f) {
  switch (d) {
    case 64: return f(std::integral_constant<int, 64>{});
    case 96: return f(std::integral_constant<int, 96>{});
    case 128: return f(std::integral_constant<int, 128>{});
    default: return f(std::integral_constant<int, 256>{});
  }
}

// Calls f(std::integral_constant<int, D>{}, std::integral_constant<PSource, Path>{}) for the built head
// dim d and the P path `source` (smem or registers): the kernel's shape (consumers, KV rows per block,
// stages) follows from the two.
template <typename F>
auto with_shape(std::int64_t d, PSource source, F&& f) {
  return with_head_dim(d, [&](auto dd) {
    return source == PSource::smem ? f(dd, std::integral_constant<PSource, PSource::smem>{})
                                   : f(dd, std::integral_constant<PSource, PSource::registers>{});
  });
}

// The planned tiles of head dim D with P from Path, each checked against the kernel's compiled copy
// program of its element type (programs.cuh).
template <DataType T, int D, PSource Path>
bool plan_tiles_of(const AttentionArgs& a, const Rows& rows, KernelParams& p, std::vector<std::string>& errors) {
  using P = Programs<T, D, Path>;
  constexpr int C = P::C;
  constexpr int N = kBlockN<D, Path>;
  const std::vector<std::string> rows_first = rows.packed ? std::vector<std::string>{"rows", "head_dim", "heads", "sequence_end"}
                                                          : std::vector<std::string>{"seqlen", "head_dim", "heads", "batch"};
  const std::vector<std::string> dim_first = {rows_first[1], rows_first[0], rows_first[2], rows_first[3]};
  kernels::PlannedTile q, k, v, o;
  const std::int64_t kv_heads = a.heads_kv > 0 ? a.heads_kv : a.heads;
  const PlanOptions load = tile_options(PlanDirection::load);
  constexpr KernelRule kRule = KernelRule::attention_plan_shape;
  bool ok = kernels::plan_compiled_tile("Q", tensor_of(a, rows, a.q, a.heads, false), kQTile<D, C>.tile,
                                        bshd_tile(kBlockM<C>, D), rows_first, load, P::Q::kShape, kRule, q, errors);
  ok &= kernels::plan_compiled_tile("K", tensor_of(a, rows, a.k, kv_heads, false), kKTile<D, Path>.tile, bshd_tile(N, D),
                                    rows_first, load, P::K::kShape, kRule, k, errors);
  ok &= kernels::plan_compiled_tile("V", tensor_of(a, rows, a.v, kv_heads, true), kVTile<D, Path>.tile, bshd_tile(D, N),
                                    dim_first, load, P::V::kShape, kRule, v, errors);
  ok &= kernels::plan_compiled_tile("O", tensor_of(a, rows, a.o, a.heads, false), kOTile<D>.tile,
                                    bshd_tile(kRowsPerConsumer, D), rows_first, tile_options(PlanDirection::store),
                                    P::O::kShape, kRule, o, errors);
  if (!ok) return false;
  p.q_map = q.map;
  p.k_map = k.map;
  p.v_map = v.map;
  p.o_map = o.map;
  return true;
}
template <int D, PSource Path>
bool plan_tiles(const AttentionArgs& a, const Rows& rows, KernelParams& p, std::vector<std::string>& errors) {
  return a.dtype == DataType::float16 ? plan_tiles_of<DataType::float16, D, Path>(a, rows, p, errors)
                                      : plan_tiles_of<DataType::bfloat16, D, Path>(a, rows, p, errors);
}

}  // namespace

struct Attention::Prepared {
  KernelParams params{};  // the persistent form's tile_counter: set per launch
  KernelFn kernel = nullptr;
  dim3 grid{};
  int threads = 0;  // kThreads of the kernel's consumer count
  std::size_t smem = 0;
};

namespace {

// The arguments' own rules, every reason at once.
void check_args(const AttentionArgs& a, std::vector<std::string>& errors) {
  auto refuse = [&](KernelRule r, const std::string& what) { errors.push_back(refusal(r, what)); };
  if (a.dtype != DataType::bfloat16 && a.dtype != DataType::float16)
    refuse(KernelRule::attention_dtype, "the element type must be bf16 or f16");
  if (!head_dim_built(a.head_dim))
    refuse(KernelRule::attention_head_dim, "head dims 64, 96, 128 and 256 are built, got " + std::to_string(a.head_dim));
  if (a.heads_kv < 0 || (a.heads_kv > 0 && a.heads % a.heads_kv != 0))
    refuse(KernelRule::attention_heads_kv, "the K / V heads must divide the query heads (grouped-query attention), got " +
                                               std::to_string(a.heads_kv) + " K / V heads for " +
                                               std::to_string(a.heads) + " query heads; 0 means as many as the query heads");
  if (a.batch < 1 || a.heads < 1 || (a.cu_seqlens ? a.seqlen < 0 : a.seqlen < 1))
    refuse(KernelRule::attention_extent, "batch, seqlen and heads must be at least 1 (with cu_seqlens, seqlen 0 or a "
                                         "bound on every sequence; got batch=" + std::to_string(a.batch) + " seqlen=" +
                                             std::to_string(a.seqlen) + " heads=" + std::to_string(a.heads) + ")");
  if (!a.q || !a.k || !a.v || !a.o || !a.lse)
    refuse(KernelRule::attention_null, "Q, K, V, O and LSE need a device pointer");
  if (!(a.scale >= 0.0f) || std::isinf(a.scale))
    refuse(KernelRule::attention_scale, "a finite scale > 0, or 0 for 1 / sqrt(head_dim), got " + std::to_string(a.scale));
  if (a.p_source != PSource::automatic && a.p_source != PSource::smem && a.p_source != PSource::registers)
    refuse(KernelRule::attention_p_source, "p_source is PSource::automatic, smem or registers (got " +
                                               std::to_string(static_cast<int>(a.p_source)) + ")");
  if (a.grid != GridForm::automatic && a.grid != GridForm::per_tile && a.grid != GridForm::persistent)
    refuse(KernelRule::attention_grid_form, "grid is GridForm::automatic, per_tile or persistent (got " +
                                                std::to_string(static_cast<int>(a.grid)) + ")");
  if (a.max_ctas < 0 || (a.max_ctas > 0 && a.grid != GridForm::persistent))
    refuse(KernelRule::attention_max_ctas, "a limit on the persistent form's CTAs, >= 1 with grid = GridForm::persistent, "
                                           "or 0 (as many as fit at once); got " + std::to_string(a.max_ctas) +
                                               (a.grid == GridForm::persistent ? "" : " without the persistent form"));
}

// The query rows of the problem: batch x seqlen, or packed sequences read off cu_seqlens.
bool rows_of(const AttentionArgs& a, Rows& rows, std::vector<std::string>& errors) {
  if (!a.cu_seqlens) {
    rows.longest = rows.window = a.seqlen;
    rows.total = a.batch * a.seqlen;
    return true;
  }
  if (!read_packed_rows(a, rows, errors)) return false;
  // Every tensor is seen through a window of the longest sequence's rows that begins before its base
  // (programs.cuh: packed_tensor): the base less that window is an address.
  const std::int64_t window_rows = rows.window = std::max<std::int64_t>(rows.longest, 1);
  const std::int64_t kv_heads = a.heads_kv > 0 ? a.heads_kv : a.heads;
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(std::max(a.heads, kv_heads) * a.head_dim * 2);
  for (const void* t : {a.q, a.k, a.v, static_cast<const void*>(a.o)})
    if (reinterpret_cast<std::uint64_t>(t) < static_cast<std::uint64_t>(window_rows) * row_bytes) {
      errors.push_back(refusal(KernelRule::attention_packed_base,
                               "a tensor's address is below the window of the longest sequence (" +
                                   std::to_string(window_rows) + " rows) that TMA addresses it through"));
      return false;
    }
  if (rows.total > 0x7ffffffe) {
    errors.push_back(refusal(KernelRule::attention_cu_seqlens, "at most 2^31 - 2 rows in all, got " + std::to_string(rows.total)));
    return false;
  }
  return true;
}

// Tiles per head: each sequence's query blocks of block_m rows.
std::int64_t tiles_per_head(const AttentionArgs& a, const Rows& rows, std::int64_t block_m) {
  auto per_sequence = [&](std::int64_t len) { return (len + block_m - 1) / block_m; };
  if (!rows.packed) return per_sequence(a.seqlen) * a.batch;
  std::int64_t n = 0;
  for (std::size_t i = 0; i + 1 < rows.offsets.size(); ++i) n += per_sequence(std::int64_t{rows.offsets[i + 1]} - rows.offsets[i]);
  return n;
}

// The persistent form's causal sections (kernel.cuh, CtaTiles): as many (head, batch) indices as have
// their K and V (of the longest sequence; a K / V head shared by `group` query heads counted once
// for them) within half of the L2 cache together, at least one.
std::int64_t section_heads(const AttentionArgs& a, const Rows& rows, int l2_bytes) {
  const std::int64_t group = a.heads_kv > 0 ? a.heads / a.heads_kv : 1;
  const std::int64_t kv_bytes = 2 * rows.longest * a.head_dim * kElemBytes;  // K and V of one K / V head
  const std::int64_t fit = kv_bytes > 0 ? std::int64_t{l2_bytes} / 2 * group / kv_bytes : 1;
  return std::clamp<std::int64_t>(fit, 1, a.heads * a.batch);
}

}  // namespace

Attention::Attention(const AttentionArgs& a) {
  AttentionStatus& st = status_;
  std::vector<std::string>& errors = st.errors;
  check_args(a, errors);
  if (!errors.empty()) return;
  Rows rows;
  if (!rows_of(a, rows, errors)) return;
  // The P path that runs: PSource::automatic resolved.
  const PSource source = a.p_source != PSource::automatic ? a.p_source
                         : rows.packed                   ? packed_p_source_chosen()
                                                         : p_source_chosen(a.head_dim, a.seqlen, a.causal);
  const std::int64_t block_m = with_shape(a.head_dim, source, [](auto d, auto path) {
    return kBlockM<kConsumersFor<decltype(d)::value, decltype(path)::value>>;
  });
  const std::int64_t q_blocks = (rows.longest + block_m - 1) / block_m;
  if (q_blocks > 0x7fffffff || a.heads > 65535 || a.batch > 65535 || rows.longest > 0x7fffffff ||
      q_blocks * a.heads * a.batch > 0x7fffffff) {
    errors.push_back(refusal(KernelRule::attention_grid,
                             "at most 2^31 - 1 query rows, 65535 heads, 65535 batches and 2^31 - 1 tiles (a tile: " +
                                 std::to_string(block_m) + " query rows of one head of one batch)"));
    return;
  }
  const std::int64_t tiles = tiles_per_head(a, rows, block_m) * a.heads;

  auto prep = std::make_shared<Prepared>();
  KernelParams& p = prep->params;
  const bool ok = with_shape(a.head_dim, source, [&](auto d, auto path) {
    return plan_tiles<decltype(d)::value, decltype(path)::value>(a, rows, p, errors);
  });
  if (!ok) return;
  p.group = static_cast<std::int32_t>(a.heads_kv > 0 ? a.heads / a.heads_kv : 1);
  p.lse = a.lse;
  p.cu_seqlens = a.cu_seqlens;
  p.seqlen = static_cast<std::int32_t>(rows.longest);
  p.window = static_cast<std::int32_t>(rows.window);
  p.lse_head_stride = rows.packed ? rows.total : a.seqlen;
  p.heads = static_cast<std::int32_t>(a.heads);
  p.batch = static_cast<std::int32_t>(a.batch);
  const double scale = a.scale > 0.0f ? a.scale : 1.0 / std::sqrt(static_cast<double>(a.head_dim));
  p.scale_log2 = static_cast<float>(scale * 1.4426950408889634);  // log2(e)

  const bool persistent =
      a.grid == GridForm::persistent ||
      (a.grid == GridForm::automatic &&
       (rows.packed ? packed_persistent_grid_chosen() : persistent_grid_chosen(a.head_dim, a.seqlen, a.causal, source)));
  with_shape(a.head_dim, source, [&](auto d, auto path) {
    constexpr int D = decltype(d)::value;
    constexpr PSource Path = decltype(path)::value;
    constexpr int C = kConsumersFor<D, Path>;
    prep->kernel = kernel_for<D>(a.dtype, a.causal, source, persistent);
    prep->smem = sizeof(SharedStorage<D, Path>) + 1024;  // + the alignment the kernel rounds its base up to
    prep->threads = kThreads<C>;
    st.config.block_m = kBlockM<C>;
    st.config.block_n = kBlockN<D, Path>;
    st.config.stages = kKStages<D, Path>;
    st.config.v_stages = kVStages<D, Path>;
    return 0;
  });
  if ((st.cuda = cudaFuncSetAttribute(prep->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(prep->smem))) != cudaSuccess) {
    errors.push_back(cuda_refusal("the kernel's shared-memory limit (" + std::to_string(prep->smem) + " bytes)", st.cuda));
    return;
  }
  std::int64_t ctas = tiles;
  if (persistent) {
    // As many CTAs as are resident at once on the current device (SMs x CTAs per SM for this kernel's
    // threads and shared memory: 1), at most one per unit of work, at most max_ctas.
    int device = 0, sms = 0, per_sm = 0;
    if ((st.cuda = cudaGetDevice(&device)) != cudaSuccess ||
        (st.cuda = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
        (st.cuda = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, prep->kernel, prep->threads, prep->smem)) != cudaSuccess) {
      errors.push_back(cuda_refusal("the persistent form's grid (SM count, occupancy)", st.cuda));
      return;
    }
    if (per_sm < 1) {
      errors.push_back(refusal(KernelRule::attention_occupancy, "no CTA of " + std::to_string(prep->threads) +
                                                                    " threads and " + std::to_string(prep->smem) +
                                                                    " bytes of shared memory fits an SM of this device"));
      return;
    }
    std::int64_t limit = static_cast<std::int64_t>(sms) * per_sm;
    if (a.max_ctas > 0) limit = std::min<std::int64_t>(limit, a.max_ctas);
    // The tiles are handed out as CTAs free up (kernel.cuh, CtaTiles), numbered as for the longest
    // sequence (a packed sequence's past its own are passed by): causal, longest first within sections
    // of as many (head, batch) indices as have K and V within half of L2 together; non-causal, one
    // (head, batch) after another.
    int l2_bytes = 0;
    if ((st.cuda = cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device)) != cudaSuccess) {
      errors.push_back(cuda_refusal("the L2 size", st.cuda));
      return;
    }
    p.raster.tiles_m = static_cast<std::int32_t>(a.heads * a.batch);
    p.raster.tiles_n = static_cast<std::int32_t>(q_blocks);
    p.raster.group = static_cast<std::int32_t>(a.causal ? section_heads(a, rows, l2_bytes) : 1);
    ctas = std::min<std::int64_t>(limit, tiles);
    prep->grid = dim3(static_cast<unsigned>(ctas));
  } else {
    prep->grid = dim3(static_cast<unsigned>(q_blocks), static_cast<unsigned>(a.heads), static_cast<unsigned>(a.batch));
  }
  st.config.tiles = static_cast<int>(tiles);
  st.config.ctas = static_cast<int>(ctas);
  st.config.persistent = persistent;
  st.config.smem_bytes = prep->smem;
  st.config.p_source = source;
  st.config.longest = rows.longest;
  st.config.total = rows.total;
  st.ok = true;
  prepared_ = std::move(prep);
}

cudaError_t Attention::launch(cudaStream_t stream) const {
  if (!status_.ok || !prepared_) return cudaErrorInvalidValue;
  const Prepared& q = *prepared_;
  if (q.grid.x == 0) return cudaSuccess;  // packed sequences, every one empty: nothing to compute
  if (!status_.config.persistent) {
    q.kernel<<<q.grid, q.threads, q.smem, stream>>>(q.params);
    return cudaGetLastError();
  }
  // The persistent form's tile counter: four bytes of the stream's memory pool, zeroed, for this
  // launch alone (launches on other streams take their own), given back once the kernel is done.
  KernelParams params = q.params;
  cudaError_t e = cudaMallocAsync(reinterpret_cast<void**>(&params.tile_counter), sizeof(std::int32_t), stream);
  if (e != cudaSuccess) return e;
  if ((e = cudaMemsetAsync(params.tile_counter, 0, sizeof(std::int32_t), stream)) == cudaSuccess) {
    q.kernel<<<q.grid, q.threads, q.smem, stream>>>(params);
    e = cudaGetLastError();
  }
  const cudaError_t freed = cudaFreeAsync(params.tile_counter, stream);
  return e != cudaSuccess ? e : freed;
}

AttentionStatus attention(const AttentionArgs& args, cudaStream_t stream) {
  const Attention a(args);
  AttentionStatus st = a.status();
  if (!st.ok) return st;
  st.cuda = a.launch(stream);
  if (st.cuda != cudaSuccess) {
    st.ok = false;
    st.errors.push_back(kernels::cuda_refusal("the launch", st.cuda));
  }
  return st;
}

}  // namespace tmakit::attention_sm90
