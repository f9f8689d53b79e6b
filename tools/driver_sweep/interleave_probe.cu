// interleave_probe: what a TMA tiled load (tmakit::device::load) writes into shared memory for
// interleaved (16B / 32B) tensor maps made by the driver. Protocol and output: probe_common.cuh.
// Build: nvcc -std=c++20 --expt-relaxed-constexpr -I include -gencode=arch=compute_90a,code=sm_90a \
//          tools/driver_sweep/interleave_probe.cu -lcuda -o interleave_probe
// Run:   probe_run.sh ./interleave_probe cases.txt OUT   (cases: interleave_cases.py), one case per line:
//   dtype(0..9) il(0..2) sw(0..3) rank  dims[rank]  strides[rank-1]  box[rank]  es[rank]  coords[rank]
#include <sstream>

#include "probe_common.cuh"

namespace td = tmakit::device;

__global__ void probe_kernel(const __grid_constant__ CUtensorMap map, int rank, int4 c03, int c4) {
  __shared__ td::Barrier bar;
  extern __shared__ __align__(1024) std::uint32_t smem[];
  probe::load_and_dump(smem, bar, [&](std::uint32_t* s, td::Barrier& b) {
    switch (rank) {
      case 3: td::load(&map, s, b, c03.x, c03.y, c03.z); break;
      case 4: td::load(&map, s, b, c03.x, c03.y, c03.z, c03.w); break;
      default: td::load(&map, s, b, c03.x, c03.y, c03.z, c03.w, c4); break;
    }
  });
}

int main() {
  cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, probe::kDumpWords * 4);
  return probe::run_cases(std::size_t{1} << 24, [](const std::string& line, std::uint32_t* d) {  // 64 MiB
    std::istringstream in(line);
    int dt, il, sw, rank;
    in >> dt >> il >> sw >> rank;
    cuuint64_t dims[5] = {}, strides[4] = {};
    cuuint32_t box[5] = {}, es[5] = {};
    int coords[5] = {};
    for (int i = 0; i < rank; ++i) in >> dims[i];
    for (int i = 0; i < rank - 1; ++i) in >> strides[i];
    for (int i = 0; i < rank; ++i) in >> box[i];
    for (int i = 0; i < rank; ++i) in >> es[i];
    for (int i = 0; i < rank; ++i) in >> coords[i];
    CUtensorMap m;
    const CUresult r = cuTensorMapEncodeTiled(&m, CUtensorMapDataType(dt), rank, d, dims, strides, box, es,
                                              CUtensorMapInterleave(il), CUtensorMapSwizzle(sw),
                                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r == CUDA_SUCCESS)
      probe_kernel<<<1, 256, probe::kDumpWords * 4>>>(m, rank, int4{coords[0], coords[1], coords[2], coords[3]},
                                                      coords[4]);
    return r;
  });
}
