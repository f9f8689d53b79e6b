// im2col_probe: what an im2col TMA load (tmakit::device::load_im2col) writes into shared memory,
// for im2col maps made by the driver (cuTensorMapEncodeIm2col). Protocol and output: probe_common.cuh.
// Build: nvcc -std=c++20 --expt-relaxed-constexpr -I include -gencode=arch=compute_90a,code=sm_90a \
//          tools/driver_sweep/im2col_probe.cu -lcuda -o im2col_probe
// Input, one case per line:
//   dtype sw rank dims[rank] strides[rank-1] lower[rank-2] upper[rank-2] channels pixels es[rank]
//   coords[rank] offsets[rank-2]
#include <sstream>

#include "probe_common.cuh"

namespace td = tmakit::device;

__global__ void probe_kernel(const __grid_constant__ CUtensorMap map, int rank, int4 c03, int c4, ushort4 off) {
  __shared__ td::Barrier bar;
  extern __shared__ __align__(1024) std::uint32_t smem[];
  probe::load_and_dump(smem, bar, [&](std::uint32_t* s, td::Barrier& b) {
    if (rank == 3) {
      const std::int32_t c[3] = {c03.x, c03.y, c03.z};
      td::load_im2col(&map, s, b, c, off.x);
    } else if (rank == 4) {
      const std::int32_t c[4] = {c03.x, c03.y, c03.z, c03.w};
      td::load_im2col(&map, s, b, c, off.x, off.y);
    } else {
      const std::int32_t c[5] = {c03.x, c03.y, c03.z, c03.w, c4};
      td::load_im2col(&map, s, b, c, off.x, off.y, off.z);
    }
  });
}

int main() {
  cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, probe::kDumpWords * 4);
  return probe::run_cases(std::size_t{1} << 22, [](const std::string& line, std::uint32_t* d) {  // 16 MiB
    std::istringstream in(line);
    int dt, sw, rank;
    in >> dt >> sw >> rank;
    cuuint64_t dims[5] = {}, strides[4] = {};
    int lower[3] = {}, upper[3] = {}, coords[5] = {};
    unsigned offs[3] = {};
    cuuint32_t channels = 0, pixels = 0, es[5] = {};
    for (int i = 0; i < rank; ++i) in >> dims[i];
    for (int i = 0; i < rank - 1; ++i) in >> strides[i];
    for (int i = 0; i < rank - 2; ++i) in >> lower[i];
    for (int i = 0; i < rank - 2; ++i) in >> upper[i];
    in >> channels >> pixels;
    for (int i = 0; i < rank; ++i) in >> es[i];
    for (int i = 0; i < rank; ++i) in >> coords[i];
    for (int i = 0; i < rank - 2; ++i) in >> offs[i];
    CUtensorMap m;
    const CUresult r = cuTensorMapEncodeIm2col(&m, CUtensorMapDataType(dt), rank, d, dims, strides, lower, upper,
                                               channels, pixels, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                               CUtensorMapSwizzle(sw), CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r == CUDA_SUCCESS)
      probe_kernel<<<1, 256, probe::kDumpWords * 4>>>(
          m, rank, int4{coords[0], coords[1], coords[2], coords[3]}, coords[4],
          ushort4{static_cast<unsigned short>(offs[0]), static_cast<unsigned short>(offs[1]),
                  static_cast<unsigned short>(offs[2]), 0});
    return r;
  });
}
