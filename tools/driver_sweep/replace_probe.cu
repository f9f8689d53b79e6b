// replace_probe: applies tensormap.replace (sm_90a) to a driver-made descriptor, one field and
// value at a time, and prints the 128 bytes before and after. Shows where the hardware's own
// instruction writes each field, and how PTX's enum values map to the descriptor's bits.
// Build: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a replace_probe.cu -lcuda
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace ptx = cuda::ptx;

enum Which { kElem, kInterleave, kSwizzle, kFill, kRank };

template <int W, int V>
__global__ void replace_one(CUtensorMap* tm) {
  if constexpr (W == kElem) ptx::tensormap_replace_elemtype(ptx::space_global, tm, ptx::n32_t<V>{});
  if constexpr (W == kInterleave) ptx::tensormap_replace_interleave_layout(ptx::space_global, tm, ptx::n32_t<V>{});
  if constexpr (W == kSwizzle) ptx::tensormap_replace_swizzle_mode(ptx::space_global, tm, ptx::n32_t<V>{});
  if constexpr (W == kFill) ptx::tensormap_replace_fill_mode(ptx::space_global, tm, ptx::n32_t<V>{});
  if constexpr (W == kRank) ptx::tensormap_replace_rank(ptx::space_global, tm, uint32_t(V));
}

static CUtensorMap base_map() {
  CUtensorMap m;
  cuuint64_t dims[3] = {64, 100, 7}, strides[2] = {128, 12800};
  cuuint32_t box[3] = {64, 32, 2}, es[3] = {1, 1, 1};
  CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, (void*)0x7f0000000000ull, dims, strides,
                                      box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) std::printf("encode failed %d\n", int(r));
  return m;
}

static void hexline(const char* tag, const CUtensorMap& m) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(&m);
  std::printf("%s ", tag);
  for (int i = 0; i < 128; ++i) std::printf("%02x", p[i]);
  std::printf("\n");
}

template <int W, int V>
static void run(const char* name) {
  CUtensorMap h = base_map(), *d = nullptr;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
  replace_one<W, V><<<1, 1>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  char tag[64];
  std::snprintf(tag, sizeof tag, "%s=%d%s", name, V, e == cudaSuccess ? "" : "(error)");
  hexline(tag, h);
}

int main() {
  cudaFree(nullptr);  // create the context
  hexline("base", base_map());
  run<kElem, 0>("elemtype"); run<kElem, 1>("elemtype"); run<kElem, 2>("elemtype"); run<kElem, 3>("elemtype");
  run<kElem, 4>("elemtype"); run<kElem, 5>("elemtype"); run<kElem, 6>("elemtype"); run<kElem, 7>("elemtype");
  run<kElem, 8>("elemtype"); run<kElem, 9>("elemtype"); run<kElem, 10>("elemtype"); run<kElem, 11>("elemtype");
  run<kElem, 12>("elemtype");
  run<kInterleave, 0>("interleave"); run<kInterleave, 1>("interleave"); run<kInterleave, 2>("interleave");
  run<kSwizzle, 0>("swizzle_mode"); run<kSwizzle, 1>("swizzle_mode"); run<kSwizzle, 2>("swizzle_mode");
  run<kSwizzle, 3>("swizzle_mode");
  run<kFill, 0>("fill_mode"); run<kFill, 1>("fill_mode");
  run<kRank, 1>("rank"); run<kRank, 5>("rank");
  return 0;
}
