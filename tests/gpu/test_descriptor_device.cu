// Tensor maps made in device code. EncodeManyShapesAndLoad: a kernel encodes 64 grouped-GEMM-like
// problem shapes (bf16, rank 2, varying dims, row pitch, address, L2 promotion) with the same
// constexpr encoder the host uses; the bytes must equal the host's, and each block uses its map at
// once for a TMA load (acquire, then cp.async.bulk.tensor) whose 32x8 box must match the data,
// out-of-bounds zeros included. EditTemplateAndLoad: each block's warp edits a copy of shape 0's
// map into its own shape (TensorMapEdit: address, dims, stride; publish through
// tensormap.cp_fenceproxy), acquires and loads again; bytes and data are checked the same way.
//
// EncodeManyInCudaHostCode: the host library's encoders (encode_host.hpp, compiled by nvcc in a .cu
// file's host code) give encode()'s maps for the 64 shapes (no GPU needed).
//
// The planted bug "descriptor updated without the acquire fence" is a memory-model race: the TMA
// unit may or may not read stale bytes, so no run-time test shows it reliably. The API makes it
// hard to write instead; UnfencedUseDoesNotCompile checks that at compile time.
#include "tmakit/device/descriptor.cuh"
#include "tmakit/device/mbarrier.cuh"

#include <cstdint>
#include <type_traits>
#include <vector>

#include "gpu_test_util.cuh"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_host.hpp"

namespace td = tmakit::device;

namespace {

constexpr int kShapes = 64;
constexpr int kBoxCols = 32, kBoxRows = 8;  // bf16: 64 B x 8 rows = 512 B per load
constexpr int kBoxElems = kBoxCols * kBoxRows;

struct Shape {
  std::uint64_t cols, rows, pitch_bytes, offset_bytes;
  std::int32_t c0, r0;  // load coordinates (innermost first)
};

std::vector<Shape> make_shapes() {
  std::vector<Shape> v;
  std::uint64_t off = 0;
  for (int i = 0; i < kShapes; ++i) {
    Shape s{};
    s.cols = 32 + 8 * ((i * 5) % 29);
    s.rows = 8 + (i * 7) % 50;
    s.pitch_bytes = (s.cols * 2 + 15) / 16 * 16 + 16 * (i % 3);
    s.offset_bytes = off;
    off += (s.rows * s.pitch_bytes + 255) / 256 * 256;
    switch (i % 3) {
      case 0: s.c0 = 0, s.r0 = 0; break;
      case 1: s.c0 = static_cast<std::int32_t>(s.cols) - 16, s.r0 = static_cast<std::int32_t>(s.rows) - 4; break;
      default: s.c0 = -8, s.r0 = -2; break;
    }
    v.push_back(s);
  }
  return v;
}

std::uint64_t total_bytes(const std::vector<Shape>& v) {
  const Shape& s = v.back();
  return s.offset_bytes + (s.rows * s.pitch_bytes + 255) / 256 * 256;
}

std::uint16_t value(int i, std::uint64_t r, std::uint64_t c) {
  return static_cast<std::uint16_t>(1 + (i * 977u + r * 131u + c * 3u) % 65000u);
}

tmakit::TensorMapParams params_for(const Shape& s, int i, std::uint64_t base, tmakit::L2Promotion l2) {
  tmakit::TensorMapParams p;
  p.kind = tmakit::MapKind::tiled;
  p.arch = tmakit::Arch::sm_90;
  p.dtype = tmakit::DataType::bfloat16;
  p.rank = 2;
  p.address = base + s.offset_bytes;
  p.dims[0] = s.cols;
  p.dims[1] = s.rows;
  p.strides[0] = s.pitch_bytes;
  p.box[0] = kBoxCols;
  p.box[1] = kBoxRows;
  p.l2 = l2;
  (void)i;
  return p;
}

// The block's barrier and box buffer; init() by thread 0 before a __syncthreads().
struct LoadSmem {
  td::Barrier bar;
  alignas(128) std::uint16_t box[kBoxElems];
};

// Thread 0: arms the barrier and loads the box at (c0, r0) through `map`.
__device__ void issue_box(LoadSmem& sm, td::AcquiredTensorMap map, std::int32_t c0, std::int32_t r0) {
  td::arrive_expect_tx(sm.bar, kBoxElems * 2);
  const std::int32_t coords[2] = {c0, r0};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_shared, cuda::ptx::space_global, sm.box, map.get(), coords,
                                  td::raw(sm.bar));
}

// Everyone: waits for the box and writes it to out[blockIdx.x * kBoxElems ...].
__device__ void finish_box(LoadSmem& sm, std::uint16_t* out) {
  td::Phase phase;
  td::wait(sm.bar, phase);
  for (int k = threadIdx.x; k < kBoxElems; k += blockDim.x) out[blockIdx.x * kBoxElems + k] = sm.box[k];
}

__global__ void encode_and_load_kernel(const tmakit::TensorMapParams* params, const Shape* shapes, td::TensorMap* maps,
                                       unsigned* ok, std::uint16_t* out) {
  __shared__ LoadSmem sm;
  const int i = blockIdx.x;
  if (threadIdx.x == 0) td::init(sm.bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    bool good = false;
    const td::AcquiredTensorMap m = td::acquire(td::encode_and_publish(params[i], &maps[i], &good));
    ok[i] = good;
    issue_box(sm, m, shapes[i].c0, shapes[i].r0);
  }
  finish_box(sm, out);
}

__global__ void edit_and_load_kernel(const td::TensorMap* tmpl, const tmakit::TensorMapParams* params,
                                     const Shape* shapes, td::TensorMap* maps, std::uint16_t* out) {
  __shared__ LoadSmem sm;
  __shared__ alignas(128) td::TensorMap staging;
  const int i = blockIdx.x;
  if (threadIdx.x == 0) td::init(sm.bar, 1);
  __syncthreads();
  // blockDim.x == 32: the whole block is the editing warp.
  td::TensorMapEdit edit(staging, *tmpl);
  edit.set_global_address(reinterpret_cast<const void*>(params[i].address));
  edit.set_global_dim(0, params[i].dims[0]);
  edit.set_global_dim(1, params[i].dims[1]);
  edit.set_global_stride(1, params[i].strides[0]);
  const td::PublishedTensorMap pub = edit.publish(&maps[i]);
  if (threadIdx.x == 0) issue_box(sm, td::acquire(pub), shapes[i].c0, shapes[i].r0);
  finish_box(sm, out);
}

struct Fixture {
  std::vector<Shape> shapes = make_shapes();
  std::uint8_t* data = nullptr;
  Shape* d_shapes = nullptr;
  tmakit::TensorMapParams* d_params = nullptr;
  td::TensorMap* d_maps = nullptr;
  std::uint16_t* d_out = nullptr;
  unsigned* d_ok = nullptr;
  std::vector<tmakit::TensorMapParams> params;

  cudaError_t setup(bool vary_l2) {
    const std::uint64_t bytes = total_bytes(shapes);
    std::vector<std::uint8_t> host(bytes, 0);
    for (int i = 0; i < kShapes; ++i)
      for (std::uint64_t r = 0; r < shapes[i].rows; ++r)
        for (std::uint64_t c = 0; c < shapes[i].cols; ++c) {
          const std::uint16_t v = value(i, r, c);
          const std::uint64_t at = shapes[i].offset_bytes + r * shapes[i].pitch_bytes + 2 * c;
          host[at] = static_cast<std::uint8_t>(v);
          host[at + 1] = static_cast<std::uint8_t>(v >> 8);
        }
    cudaError_t e;
    if ((e = cudaMalloc(&data, bytes)) != cudaSuccess) return e;
    if ((e = cudaMemcpy(data, host.data(), bytes, cudaMemcpyHostToDevice)) != cudaSuccess) return e;
    const auto base = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(data));
    for (int i = 0; i < kShapes; ++i)
      params.push_back(params_for(shapes[i], i, base,
                                  vary_l2 ? static_cast<tmakit::L2Promotion>(i % 4) : tmakit::L2Promotion::b128));
    if ((e = cudaMalloc(&d_shapes, sizeof(Shape) * kShapes)) != cudaSuccess) return e;
    if ((e = cudaMalloc(&d_params, sizeof(tmakit::TensorMapParams) * kShapes)) != cudaSuccess) return e;
    if ((e = cudaMalloc(&d_maps, sizeof(td::TensorMap) * kShapes)) != cudaSuccess) return e;
    if ((e = cudaMalloc(&d_out, sizeof(std::uint16_t) * kBoxElems * kShapes)) != cudaSuccess) return e;
    if ((e = cudaMalloc(&d_ok, sizeof(unsigned) * kShapes)) != cudaSuccess) return e;
    if ((e = cudaMemcpy(d_shapes, shapes.data(), sizeof(Shape) * kShapes, cudaMemcpyHostToDevice)) != cudaSuccess) return e;
    if ((e = cudaMemcpy(d_params, params.data(), sizeof(tmakit::TensorMapParams) * kShapes, cudaMemcpyHostToDevice)) !=
        cudaSuccess)
      return e;
    if ((e = cudaMemset(d_maps, 0, sizeof(td::TensorMap) * kShapes)) != cudaSuccess) return e;
    if ((e = cudaMemset(d_out, 0xff, sizeof(std::uint16_t) * kBoxElems * kShapes)) != cudaSuccess) return e;
    return cudaMemset(d_ok, 0, sizeof(unsigned) * kShapes);
  }
  ~Fixture() {
    cudaFree(data);
    cudaFree(d_shapes);
    cudaFree(d_params);
    cudaFree(d_maps);
    cudaFree(d_out);
    cudaFree(d_ok);
  }

  // Host checks: every device map equals the host encoding; every box equals the data (0 outside).
  void check() {
    std::vector<td::TensorMap> maps(kShapes);
    std::vector<std::uint16_t> out(kBoxElems * kShapes);
    ASSERT_EQ(cudaSuccess, cudaMemcpy(maps.data(), d_maps, sizeof(td::TensorMap) * kShapes, cudaMemcpyDeviceToHost));
    ASSERT_EQ(cudaSuccess, cudaMemcpy(out.data(), d_out, sizeof(std::uint16_t) * out.size(), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kShapes; ++i) {
      tmakit::TensorMapBytes expect;
      ASSERT_TRUE(tmakit::encode_into(params[i], expect)) << "shape " << i << " is invalid on the host";
      for (int w = 0; w < 16; ++w)
        EXPECT_EQ(maps[i].words[w], expect.words[w]) << "shape " << i << ", word " << w << " differs from the host encoding";
      int bad = 0;
      for (int r = 0; r < kBoxRows; ++r)
        for (int c = 0; c < kBoxCols; ++c) {
          const std::int64_t gr = shapes[i].r0 + r, gc = shapes[i].c0 + c;
          const bool in = gr >= 0 && gc >= 0 && gr < std::int64_t(shapes[i].rows) && gc < std::int64_t(shapes[i].cols);
          const std::uint16_t want = in ? value(i, std::uint64_t(gr), std::uint64_t(gc)) : 0;
          bad += out[i * kBoxElems + r * kBoxCols + c] != want;
        }
      EXPECT_EQ(bad, 0) << "shape " << i << ": " << bad << " of " << kBoxElems << " elements of the loaded box differ";
    }
  }
};

}  // namespace

TEST(DescriptorDevice, EncodeManyShapesAndLoad) {
  TMAKIT_REQUIRE_GPU();
  Fixture f;
  TMAKIT_CUDA_OK(f.setup(/*vary_l2=*/true));
  encode_and_load_kernel<<<kShapes, 32>>>(f.d_params, f.d_shapes, f.d_maps, f.d_ok, f.d_out);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned> ok(kShapes);
  TMAKIT_CUDA_OK(cudaMemcpy(ok.data(), f.d_ok, sizeof(unsigned) * kShapes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kShapes; ++i) EXPECT_EQ(ok[i], 1u) << "device encode_into refused shape " << i;
  f.check();
}

TEST(DescriptorDevice, EditTemplateAndLoad) {
  TMAKIT_REQUIRE_GPU();
  Fixture f;
  TMAKIT_CUDA_OK(f.setup(/*vary_l2=*/false));  // the template's fields other than address/dims/stride are kept
  tmakit::TensorMapBytes tmpl;
  ASSERT_TRUE(tmakit::encode_into(f.params[0], tmpl));
  td::TensorMap* d_tmpl = nullptr;
  TMAKIT_CUDA_OK(cudaMalloc(&d_tmpl, sizeof tmpl));
  TMAKIT_CUDA_OK(cudaMemcpy(d_tmpl, &tmpl, sizeof tmpl, cudaMemcpyHostToDevice));
  edit_and_load_kernel<<<kShapes, 32>>>(d_tmpl, f.d_params, f.d_shapes, f.d_maps, f.d_out);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  f.check();
  cudaFree(d_tmpl);
}

TEST(DescriptorDevice, EncodeManyInCudaHostCode) {
  const std::vector<Shape> shapes = make_shapes();
  std::vector<tmakit::TensorMapParams> params;
  for (int i = 0; i < kShapes; ++i)
    params.push_back(params_for(shapes[i], i, 0x7f0000000000, static_cast<tmakit::L2Promotion>(i % 4)));
  params[5].box[0] = 0;  // one refusal
  std::vector<tmakit::TensorMapBytes> maps(kShapes);
  bool ok[kShapes];
  EXPECT_EQ(tmakit::encode_many(params.data(), maps.data(), ok, kShapes), std::size_t{kShapes - 1});
  for (int i = 0; i < kShapes; ++i) {
    const tmakit::EncodeResult r = tmakit::encode(params[i]);
    EXPECT_EQ(ok[i], r.ok()) << "shape " << i;
    EXPECT_EQ(maps[i], r.map) << "shape " << i;
    EXPECT_EQ(tmakit::encode_host(params[i]).map, r.map) << "shape " << i;
    tmakit::TensorMapBytes into{};
    EXPECT_EQ(tmakit::encode_into_host(params[i], into), r.ok()) << "shape " << i;
    if (r.ok()) EXPECT_EQ(into, r.map) << "shape " << i;
  }
}

// The planted bug "use an edited descriptor without the acquire fence" does not compile: a
// PublishedTensorMap is not a pointer, and an AcquiredTensorMap (what copies take: get()) comes
// only from acquire(). Run-time detection is not possible (a stale read is a race the hardware may
// or may not lose), so this is the check.
TEST(DescriptorDevice, UnfencedUseDoesNotCompile) {
  static_assert(!std::is_convertible_v<td::PublishedTensorMap, const void*>);
  static_assert(!std::is_convertible_v<td::PublishedTensorMap, const td::TensorMap*>);
  static_assert(!std::is_convertible_v<td::PublishedTensorMap, td::AcquiredTensorMap>);
  static_assert(!std::is_constructible_v<td::AcquiredTensorMap, const void*>);
  static_assert(!std::is_constructible_v<td::AcquiredTensorMap, const td::TensorMap*>);
  static_assert(!std::is_constructible_v<td::PublishedTensorMap, const td::TensorMap*>);
  SUCCEED();
}
