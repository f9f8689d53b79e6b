// The watchdog on planted bugs. Each bug runs in a child process (this binary re-executed with
// --gtest_filter=WatchdogChild.<Bug> and TMAKIT_WATCHDOG_CHILD=1), because __trap() ends the CUDA
// context. The parent asserts the child's output holds the named diagnosis and that the child
// ended within kChildSeconds (the bound is 200 ms; the rest is CUDA start-up and the 1 s grace the
// non-reporting threads give the reporting one). WatchdogChild.* skip unless run as a child.
// compute-sanitizer runs exclude Watchdog.* and WatchdogChild.* (a trapping kernel is their point).
// The fifth planted bug is not an mbarrier one: a 128B-swizzled TMA load into a buffer 512 B past a
// 1024 B boundary, caught by tma.cuh's alignment check before the copy is issued.
#define TMAKIT_WATCHDOG 1
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/tensor_map/encode.hpp"

#include <cuda.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_util.cuh"

namespace td = tmakit::device;

namespace {

constexpr unsigned long long kBoundNs = 200000000ull;  // 200 ms
constexpr double kChildSeconds = 15.0;
constexpr std::uint32_t kCopyBytes = 4096;

enum class Bug : int { none = 0, tx_too_small = 1, tx_too_large = 2, missing_arrive = 3, wrong_parity = 4 };

// One CTA of 64 threads. Thread 0 produces: arms the barrier, registers the copy with the
// watchdog, issues a 4096-byte bulk copy. Everyone waits.
__global__ void planted_kernel(const std::uint8_t* src, int bug, unsigned* out) {
  __shared__ td::Barrier bar;
  __shared__ alignas(128) std::uint8_t buf[2 * kCopyBytes];
  td::Phase phase;
  const Bug b = static_cast<Bug>(bug);
  if (threadIdx.x == 0) td::init(bar, b == Bug::missing_arrive ? 2 : 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::uint32_t armed = b == Bug::tx_too_small ? kCopyBytes / 2u : b == Bug::tx_too_large ? 2u * kCopyBytes : kCopyBytes + 0u;
    if (b == Bug::missing_arrive) td::watchdog::expect_note(bar, "2 arrivals: thread 0 with the bytes, thread 32 (forgotten)");
    td::arrive_expect_tx(bar, armed);
    td::watchdog::expect_bulk_copy(bar, src, kCopyBytes);
    const std::uint32_t n = kCopyBytes;  // (a by-reference argument must not name the constexpr itself)
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, buf, src, n, td::raw(bar));
  }
  td::wait(bar, phase);
  if (b == Bug::wrong_parity) td::wait(bar, phase);  // waits again "for the same data": parity 1, never completes
  unsigned sum = 0;
  for (unsigned i = threadIdx.x; i < kCopyBytes; i += blockDim.x) sum += buf[i] != src[i];
  atomicAdd(out, sum);
}

// Runs the planted kernel; returns the error of the synchronization.
cudaError_t run_planted(Bug bug, unsigned* mismatches) {
  std::vector<std::uint8_t> host(kCopyBytes);
  for (std::uint32_t i = 0; i < kCopyBytes; ++i) host[i] = static_cast<std::uint8_t>(i * 7u + 1u);
  std::uint8_t* src = nullptr;
  unsigned* out = nullptr;
  if (cudaMalloc(&src, kCopyBytes) != cudaSuccess || cudaMalloc(&out, sizeof(unsigned)) != cudaSuccess)
    return cudaErrorMemoryAllocation;
  cudaMemcpy(src, host.data(), kCopyBytes, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(unsigned));
  cudaError_t e = td::watchdog::set_bound_ns(kBoundNs);
  if (e != cudaSuccess) return e;
  planted_kernel<<<1, 64>>>(src, static_cast<int>(bug), out);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    cudaMemcpy(mismatches, out, sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaFree(src);
    cudaFree(out);
  }
  return e;
}

// The misaligned-swizzle bug: a 2-D u8 tensor 128 x 64, box 128 x 32 (4096 B), 128B swizzle,
// descriptor as a __grid_constant__ parameter. Thread 0 loads the box at (0, 0) into
// base + offset, base a 1024 B-aligned point of a static buffer; everyone waits. offset 0 is the
// correct kernel (bytes checked against the 128B swizzle pattern: 16 B chunk c of row r lands at
// chunk c ^ (r % 8)); offset 512 is the planted bug.
constexpr std::uint32_t kSwzRowBytes = 128, kSwzRows = 32, kSwzTileBytes = kSwzRowBytes * kSwzRows;
constexpr std::uint32_t kMisalignOffset = 512;

__global__ void swizzled_load_kernel(const __grid_constant__ CUtensorMap map, std::uint32_t offset,
                                     const std::uint8_t* src, unsigned* out) {
  __shared__ td::Barrier bar;
  __shared__ alignas(1024) std::uint8_t raw_buf[1024 + kMisalignOffset + kSwzTileBytes];
  // (alignas on __shared__ is honored, but round up explicitly so the offset is exact either way)
  const std::uint32_t a = static_cast<std::uint32_t>(__cvta_generic_to_shared(raw_buf));
  std::uint8_t* dst = raw_buf + (1024u - a % 1024u) % 1024u + offset;
  td::Phase phase;
  if (threadIdx.x == 0) td::init(bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    td::arrive_expect_tx(bar, kSwzTileBytes);
    td::watchdog::expect_tma_load(bar, &map, kSwzTileBytes, "u8", kSwzRowBytes, kSwzRows);
    td::load(&map, dst, bar, 0, 0);
  }
  td::wait(bar, phase);
  unsigned bad = 0;
  for (unsigned i = threadIdx.x; i < kSwzTileBytes; i += blockDim.x) {
    const unsigned r = i / kSwzRowBytes, chunk = (i % kSwzRowBytes) / 16u, byte = i % 16u;
    bad += dst[r * kSwzRowBytes + ((chunk ^ (r % 8u)) * 16u) + byte] != src[i];
  }
  atomicAdd(out, bad);
}

// Runs the swizzled load with the buffer at `offset` past a 1024 B boundary; returns the error of
// the synchronization.
cudaError_t run_swizzled(std::uint32_t offset, unsigned* mismatches) {
  const std::uint32_t total = kSwzRowBytes * 64;
  std::vector<std::uint8_t> host(total);
  for (std::uint32_t i = 0; i < total; ++i) host[i] = static_cast<std::uint8_t>(i * 11u + 3u);
  std::uint8_t* src = nullptr;
  unsigned* out = nullptr;
  if (cudaMalloc(&src, total) != cudaSuccess || cudaMalloc(&out, sizeof(unsigned)) != cudaSuccess)
    return cudaErrorMemoryAllocation;
  cudaMemcpy(src, host.data(), total, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(unsigned));
  tmakit::TensorMapParams p;
  p.dtype = tmakit::DataType::uint8;
  p.rank = 2;
  p.address = reinterpret_cast<std::uint64_t>(src);
  p.dims[0] = kSwzRowBytes;
  p.dims[1] = 64;
  p.strides[0] = kSwzRowBytes;
  p.box[0] = kSwzRowBytes;
  p.box[1] = kSwzRows;
  p.swizzle = tmakit::Swizzle::b128;
  tmakit::TensorMapBytes bytes{};
  if (!tmakit::encode_into(p, bytes)) return cudaErrorInvalidValue;
  CUtensorMap map;
  std::memcpy(&map, &bytes, sizeof map);
  cudaError_t e = td::watchdog::set_bound_ns(kBoundNs);
  if (e != cudaSuccess) return e;
  swizzled_load_kernel<<<1, 64>>>(map, offset, src, out);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    cudaMemcpy(mismatches, out, sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaFree(src);
    cudaFree(out);
  }
  return e;
}

using tmakit_test::ChildResult;
using tmakit_test::is_child;
ChildResult run_child(const std::string& test) { return tmakit_test::run_child("WatchdogChild." + test); }
void expect_diagnosis(const ChildResult& r, const std::vector<std::string>& needles) {
  tmakit_test::expect_diagnosis(r, needles, kChildSeconds);
}

#define TMAKIT_CHILD_ONLY() \
  if (!is_child()) GTEST_SKIP() << "runs in a child process of Watchdog.*"

void child_body(Bug bug) {
  unsigned mismatches = 0;
  const cudaError_t e = run_planted(bug, &mismatches);
  std::printf("child: cudaDeviceSynchronize -> %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
  std::fflush(stdout);
  EXPECT_EQ(e, cudaSuccess);  // fails for every planted bug: the gtest failure is the child's exit status
}

}  // namespace

// --- children: one planted bug each.
TEST(WatchdogChild, TxTooSmall) { TMAKIT_CHILD_ONLY(); child_body(Bug::tx_too_small); }
TEST(WatchdogChild, TxTooLarge) { TMAKIT_CHILD_ONLY(); child_body(Bug::tx_too_large); }
TEST(WatchdogChild, MissingArrive) { TMAKIT_CHILD_ONLY(); child_body(Bug::missing_arrive); }
TEST(WatchdogChild, WrongParity) { TMAKIT_CHILD_ONLY(); child_body(Bug::wrong_parity); }
TEST(WatchdogChild, MisalignedSwizzle) {
  TMAKIT_CHILD_ONLY();
  unsigned mismatches = 0;
  const cudaError_t e = run_swizzled(kMisalignOffset, &mismatches);
  std::printf("child: cudaDeviceSynchronize -> %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
  std::fflush(stdout);
  EXPECT_EQ(e, cudaSuccess);  // fails: the alignment check traps before the copy is issued
}

// The same kernel without a bug: completes, copies every byte, no report (the watchdog's
// completed-phase check gives no false positive).
TEST(Watchdog, CorrectKernelPasses) {
  TMAKIT_REQUIRE_GPU();
  unsigned mismatches = 1;
  ASSERT_EQ(cudaSuccess, run_planted(Bug::none, &mismatches));
  EXPECT_EQ(mismatches, 0u);
}

// Too little armed: the 4096 bytes drive the tx count below zero. Per the PTX ISA the phase
// completes when the pending arrival count and the tx count both reach zero, so it may complete
// as soon as 2048 bytes have landed (the wait then sees registered > armed and reports at once), or,
// if the bytes are counted in one step, never (the timeout reports). Both name the diagnosis.
TEST(Watchdog, ExpectTxTooSmall) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("TxTooSmall"),
                   {"tmakit watchdog: block (0,0,0) thread (", "mbarrier at shared 0x", "parity 0",
                    "2048 B tx armed, 4096 B registered by copies", "expected: bulk copy of 4096 B from 0x",
                    "diagnosis: expect_tx too small: copies registered 4096 B but only 2048 B were armed"});
}

TEST(Watchdog, ExpectTxTooLarge) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("TxTooLarge"),
                   {"tmakit watchdog: block (0,0,0) thread (", "parity 0: phase not complete after ",
                    "(bound 200000000 ns)", "state word 0x", "not readable on sm_90",
                    "1 arrival(s) per phase, 1 arrival(s) made, 8192 B tx armed, 4096 B registered by copies",
                    "expected: bulk copy of 4096 B from 0x",
                    "diagnosis: expect_tx too large: 8192 B armed but copies registered only 4096 B"});
}

TEST(Watchdog, MissingArrive) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("MissingArrive"),
                   {"parity 0: phase not complete after ", "(bound 200000000 ns)",
                    "2 arrival(s) per phase, 1 arrival(s) made, 4096 B tx armed, 4096 B registered by copies",
                    "expected: bulk copy of 4096 B",  // the last registration is kept
                    "diagnosis: missing arrive: 1 of 2 arrival(s) made in the current phase"});
}

TEST(Watchdog, WrongParity) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("WrongParity"),
                   {"parity 1: phase not complete after ", "(bound 200000000 ns)",
                    "1 arrival(s) per phase, 1 arrival(s) made, 4096 B tx armed, 4096 B registered by copies",
                    "diagnosis: wrong parity (or a phase nobody arrives on): the ledger shows 1 complete phase(s) "
                    "and nothing armed for the awaited one (parity 1)"});
}

// The swizzled load into a 1024 B-aligned buffer: the alignment check (which reads the descriptor
// from the __grid_constant__ parameter) lets it through, and the bytes land in the 128B pattern.
TEST(Watchdog, AlignedSwizzledLoadPasses) {
  TMAKIT_REQUIRE_GPU();
  unsigned mismatches = 1;
  ASSERT_EQ(cudaSuccess, run_swizzled(0, &mismatches));
  EXPECT_EQ(mismatches, 0u);
}

// A 128B-swizzled tiled load into base + 512 (base 1024 B-aligned): reported before the copy is
// issued, named, and the kernel ends (trap) instead of writing a wrongly swizzled tile.
TEST(Watchdog, MisalignedSwizzleBuffer) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("MisalignedSwizzle"),
                   {"tmakit watchdog: block (0,0,0) thread (0,0,0): TMA load into shared address 0x",
                    "not aligned to the 1024 B its 128B swizzle needs (descriptor at 0x",
                    "diagnosis: misaligned TMA buffer: shared 0x", "is 512 B past a 1024 B boundary; align the buffer "
                    "(__align__(1024) / round the dynamic smem offset up)"});
}
