// Tensor maps made and changed in device code, with the publish/acquire order built in.
//
// Three ways to a descriptor the TMA unit may read, each ending in a value of type
// AcquiredTensorMap, the only type tmakit hands out for use by TMA copies (get() gives the
// const void* the copy instructions take):
//
//   1. Encode in device code, straight into global memory (the same constexpr encoder the host
//      uses, so the bytes equal the host's and the driver's):
//        PublishedTensorMap pub = encode_and_publish(params, &gmem_maps[i]);   // any one thread
//        AcquiredTensorMap map  = acquire(pub);                                 // before use
//   2. Edit a copy of an existing map (one warp, all 32 lanes):
//        __shared__ alignas(128) TensorMap staging;
//        TensorMapEdit edit(staging, *src);                      // warp-collective copy to smem
//        edit.set_global_address(ptr); edit.set_global_dim(1, rows); edit.set_global_stride(1, ldb);
//        PublishedTensorMap pub = edit.publish(&gmem_maps[i]);   // warp-collective:
//                                   // tensormap.cp_fenceproxy.global.shared::cta ... release.gpu
//        AcquiredTensorMap map = acquire(pub);                   // fence.proxy.tensormap acquire
//   3. A consumer that only has the global pointer (another block, another kernel):
//        AcquiredTensorMap map = acquire(&gmem_maps[i]);
//
// PublishedTensorMap is [[nodiscard]] and converts to nothing: the edited or encoded bytes cannot
// reach a copy without acquire(). A copy issued from an unacquired map is a memory-model race that
// may or may not read stale bytes (the TMA unit caches descriptors): it is not reliably detectable
// at run time, so this API makes it hard to write instead (tests/gpu/test_descriptor_device.cu
// checks the types at compile time).
//
// Field edits: set_global_address uses tensormap.replace (cuda::ptx) where the architecture has it
// (sm_90a, sm_100a, sm_101a); dims and strides are written with the encoder's own bit layout
// (tmap_fields), which is exact by construction: PTX's new_val convention for those fields was not
// measured (for .rank it is the stored value, rank - 1, measured on the H200). Changing the box,
// the element type or the swizzle also changes derived fields (box bytes, smem alignment): re-encode
// (way 1) for those.
#pragma once

#include <cuda/ptx>

#include <cstdint>
#include <type_traits>

#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/params.hpp"

#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM101_ALL)
#define TMAKIT_HAS_TENSORMAP_REPLACE 1
#else
#define TMAKIT_HAS_TENSORMAP_REPLACE 0
#endif

namespace tmakit::device {

// A tensor map in memory: 128 bytes, 64-byte aligned, like CUtensorMap.
using TensorMap = tmakit::TensorMapBytes;
static_assert(sizeof(TensorMap) == 128 && alignof(TensorMap) == 64);

// A map whose bytes were released to the tensormap proxy (gpu scope). Use it through acquire().
class [[nodiscard]] PublishedTensorMap {
 public:
  __device__ const TensorMap* address() const { return p_; }  // for handing to other blocks

 private:
  __device__ explicit PublishedTensorMap(const TensorMap* p) : p_(p) {}
  const TensorMap* p_;
  friend class TensorMapEdit;
  friend __device__ PublishedTensorMap encode_and_publish(const TensorMapParams&, TensorMap*, bool*);
};

// A map made visible to this thread's TMA copies.
class AcquiredTensorMap {
 public:
  __device__ const void* get() const { return p_; }

 private:
  __device__ explicit AcquiredTensorMap(const void* p) : p_(p) {}
  const void* p_;
  friend __device__ AcquiredTensorMap acquire(PublishedTensorMap);
  friend __device__ AcquiredTensorMap acquire(const TensorMap*);
};

// fence.proxy.tensormap::generic.acquire.gpu on the 128 bytes: the copies this thread issues after
// it read the map as published.
__device__ inline AcquiredTensorMap acquire(const TensorMap* gmem_map) {
  cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_acquire, cuda::ptx::scope_gpu, gmem_map,
                                           cuda::ptx::n32_t<128>{});
  return AcquiredTensorMap(gmem_map);
}
__device__ inline AcquiredTensorMap acquire(PublishedTensorMap pub) { return acquire(pub.address()); }

// Validates and encodes `p` with tmakit::encode_into and stores the 128 bytes to `gmem_map`
// (global memory, 64-byte aligned), then releases them to the tensormap proxy
// (fence.proxy.tensormap::generic.release.gpu). On invalid parameters nothing is written and
// *ok (when given) is false; the returned handle then names the untouched map.
__device__ inline PublishedTensorMap encode_and_publish(const TensorMapParams& p, TensorMap* gmem_map,
                                                        bool* ok = nullptr) {
  TensorMapBytes m;
  const bool good = tmakit::encode_into(p, m);
  if (good)
    for (int i = 0; i < 16; ++i) gmem_map->words[i] = m.words[i];
  if (ok) *ok = good;
  cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_release, cuda::ptx::scope_gpu);
  return PublishedTensorMap(gmem_map);
}

// An edit of a map staged in shared memory. Construct, set and publish with all 32 lanes of one
// warp, converged (publish is tensormap.cp_fenceproxy, a .sync.aligned instruction); setters take
// effect once (lane 0 writes).
class TensorMapEdit {
 public:
  // `smem_staging`: a 128-byte aligned TensorMap in shared memory. Copies `src` (global or shared).
  __device__ TensorMapEdit(TensorMap& smem_staging, const TensorMap& src) : s_(smem_staging) {
    const unsigned lane = threadIdx.x % 32u;
    if (lane < 16) s_.words[lane] = src.words[lane];
    __syncwarp();
  }

  __device__ void set_global_address(const void* ptr) {
    if (lane0()) {
#if TMAKIT_HAS_TENSORMAP_REPLACE
      cuda::ptx::tensormap_replace_global_address(cuda::ptx::space_shared, &s_,
                                                  static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ptr)));
#else
      s_.set_bits(tmap_fields::kAddress.lo, tmap_fields::kAddress.width, reinterpret_cast<std::uintptr_t>(ptr));
#endif
    }
  }
  // Global dim `i` (0 = innermost), in elements (1 .. 2^32).
  __device__ void set_global_dim(int i, std::uint64_t dim) {
    if (lane0()) put(tmap_fields::dim_minus1(i), dim - 1);
  }
  // Global stride of dim `i` (1 .. rank-1), in bytes (a multiple of 16), as cuTensorMapEncodeTiled
  // takes globalStrides[i - 1].
  __device__ void set_global_stride(int i, std::uint64_t bytes) {
    if (lane0()) {
      put(tmap_fields::stride_lo(i - 1), bytes >> 4);
      put(tmap_fields::stride_hi(i - 1), bytes >> 36);
    }
  }

  // Copies the staged map to `gmem_map` with tensormap.cp_fenceproxy (release, gpu scope).
  // Warp-collective: all 32 lanes, converged.
  __device__ PublishedTensorMap publish(TensorMap* gmem_map) {
    __syncwarp();
    cuda::ptx::tensormap_cp_fenceproxy(cuda::ptx::sem_release, cuda::ptx::scope_gpu, gmem_map, &s_,
                                       cuda::ptx::n32_t<128>{});
    return PublishedTensorMap(gmem_map);
  }

  __device__ const TensorMap& staged() const { return s_; }

 private:
  __device__ static bool lane0() { return threadIdx.x % 32u == 0; }
  __device__ void put(tmap_fields::BitRange r, std::uint64_t v) { s_.set_bits(r.lo, r.width, v); }
  TensorMap& s_;
};

// The unfenced orders do not compile: a published map is not a pointer, an acquired map comes only
// from acquire().
static_assert(!std::is_convertible_v<PublishedTensorMap, const void*>);
static_assert(!std::is_convertible_v<PublishedTensorMap, const TensorMap*>);
static_assert(!std::is_constructible_v<AcquiredTensorMap, const void*>);
static_assert(!std::is_constructible_v<AcquiredTensorMap, const TensorMap*>);

}  // namespace tmakit::device
