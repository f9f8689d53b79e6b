// mbarrier API on the GPU: phase tracking over many phases, arrive/expect_tx with 1-D bulk copies
// completing bytes, test_wait/try_wait parity semantics, remote arrivals in a cluster. Built with
// the project's default watchdog setting (off in Release); the watchdog-on path is exercised by
// test_watchdog.cu (Watchdog.CorrectKernelPasses).
#include "tmakit/device/mbarrier.cuh"

#include <cstdint>
#include <vector>

#include "gpu_test_util.cuh"

namespace td = tmakit::device;

namespace {

constexpr int kThreads = 128;
constexpr int kRounds = 1000;

// Every thread arrives each round; one writer per round stores a value before arriving, every
// thread checks it after the wait (two slots: round r + 2 reuses a slot only after every thread
// arrived in round r + 1, i.e. finished its check of round r).
__global__ void many_phases_kernel(unsigned* errors, unsigned* parities) {
  __shared__ td::Barrier bar;
  __shared__ int slot[2];
  td::Phase phase;
  if (threadIdx.x == 0) td::init(bar, kThreads);
  __syncthreads();
  for (int r = 0; r < kRounds; ++r) {
    if (threadIdx.x == r % kThreads) slot[r & 1] = r + 1;
    td::arrive(bar);
    td::wait(bar, phase);
    if (slot[r & 1] != r + 1) atomicAdd(&errors[0], 1u);
    if (phase.parity != static_cast<std::uint32_t>((r + 1) & 1)) atomicAdd(&errors[1], 1u);
    if (!td::test_wait(bar, static_cast<std::uint32_t>(r & 1))) atomicAdd(&errors[2], 1u);
    if (threadIdx.x == 0 && r < 8) parities[r] = phase.parity;
  }
}

constexpr int kSrcBytes = 1 << 16;
constexpr int kCopyRounds = 64;

__host__ __device__ constexpr std::uint32_t copy_bytes(int r) { return 16u * (1u + (r * 37u) % 256u); }  // 16..4096
__host__ __device__ constexpr std::uint32_t copy_offset(int r) { return (r * 4112u) % (kSrcBytes - 4096u); }

// One producer thread; each round arms the bytes and issues a 1-D bulk copy global -> shared,
// in one of three shapes: arrive_expect_tx + one copy; expect_tx + two half copies + arrive;
// arrive_expect_tx(0) with expect_tx after it (arming may follow the arrival while a copy is
// pending). All threads wait and check every byte. Before the producer starts a round, thread 1
// checks the parity semantics: the current phase is incomplete, the previous one complete.
__global__ void bulk_copy_kernel(const std::uint8_t* src, unsigned* errors) {
  __shared__ td::Barrier bar;
  __shared__ alignas(128) std::uint8_t buf[4096];
  td::Phase phase;
  if (threadIdx.x == 0) td::init(bar, 1);
  __syncthreads();
  for (int r = 0; r < kCopyRounds; ++r) {
    const std::uint32_t n = copy_bytes(r), off = copy_offset(r);
    if (threadIdx.x == 1) {
      if (td::test_wait(bar, phase.parity)) atomicAdd(&errors[1], 1u);        // current phase: not complete
      if (!td::test_wait(bar, phase.parity ^ 1u)) atomicAdd(&errors[2], 1u);  // previous phase: complete
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      switch (r % 3) {
        case 0:
          td::arrive_expect_tx(bar, n);
          cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, buf, src + off, n, td::raw(bar));
          break;
        case 1: {
          const std::uint32_t half = (n / 32u) * 16u;  // multiple of 16, may be 0
          td::expect_tx(bar, n);
          if (half)
            cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, buf, src + off, half, td::raw(bar));
          cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, buf + half, src + off + half,
                                   n - half, td::raw(bar));
          td::arrive(bar);
          break;
        }
        default:
          td::expect_tx(bar, n);
          td::arrive(bar);  // the phase still waits for the n bytes armed before the arrival
          cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, buf, src + off, n, td::raw(bar));
          break;
      }
    }
    td::wait(bar, phase);
    if (!td::try_wait(bar, phase.parity ^ 1u)) atomicAdd(&errors[3], 1u);  // the phase just completed
    for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x)
      if (buf[i] != src[off + i]) atomicAdd(&errors[0], 1u);
    __syncthreads();  // everyone has read buf before the next copy overwrites it
  }
}

// Cluster of 2: each CTA's barrier expects 2 arrivals per phase, one from its own thread 0 and one
// remote, from the peer CTA's thread 0 (arrive_remote, and arrive_expect_tx_remote with 0 bytes).
constexpr int kClusterRounds = 16;
__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(unsigned* errors) {
  __shared__ td::Barrier bar;
  td::Phase phase;
  auto cluster = cooperative_groups::this_cluster();
  const unsigned peer = cluster.block_rank() ^ 1u;
  if (threadIdx.x == 0) {
    td::init(bar, 2);
    td::fence_init_cluster();
  }
  cluster.sync();
  for (int r = 0; r < kClusterRounds; ++r) {
    if (threadIdx.x == 0) {
      td::arrive(bar);
      if (r % 2) td::arrive_remote(bar, peer);
      else td::arrive_expect_tx_remote(bar, peer, 0);
    }
    td::wait(bar, phase);
    cluster.sync();  // no CTA starts round r + 1 (arriving remotely) before both finished round r
  }
  if (threadIdx.x == 0 && phase.parity != static_cast<std::uint32_t>(kClusterRounds & 1)) atomicAdd(&errors[0], 1u);
}

}  // namespace

TEST(Mbarrier, ManyPhasesParityTracking) {
  TMAKIT_REQUIRE_GPU();
  unsigned *errors = nullptr, *parities = nullptr;
  TMAKIT_CUDA_OK(cudaMalloc(&errors, 3 * sizeof(unsigned)));
  TMAKIT_CUDA_OK(cudaMalloc(&parities, 8 * sizeof(unsigned)));
  TMAKIT_CUDA_OK(cudaMemset(errors, 0, 3 * sizeof(unsigned)));
  many_phases_kernel<<<4, kThreads>>>(errors, parities);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  unsigned h[3], p[8];
  TMAKIT_CUDA_OK(cudaMemcpy(h, errors, sizeof h, cudaMemcpyDeviceToHost));
  TMAKIT_CUDA_OK(cudaMemcpy(p, parities, sizeof p, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 0u) << "a thread passed a wait before the round's writer arrived";
  EXPECT_EQ(h[1], 0u) << "Phase::parity did not flip once per completed wait";
  EXPECT_EQ(h[2], 0u) << "test_wait(parity of the completed phase) returned false";
  for (int r = 0; r < 8; ++r) EXPECT_EQ(p[r], static_cast<unsigned>((r + 1) & 1)) << "round " << r;
  cudaFree(errors);
  cudaFree(parities);
}

TEST(Mbarrier, BulkCopyCompletesTransactionBytes) {
  TMAKIT_REQUIRE_GPU();
  std::vector<std::uint8_t> host(kSrcBytes);
  for (int i = 0; i < kSrcBytes; ++i) host[i] = static_cast<std::uint8_t>((i * 131u + (i >> 8)) & 0xff);
  std::uint8_t* src = nullptr;
  unsigned* errors = nullptr;
  TMAKIT_CUDA_OK(cudaMalloc(&src, kSrcBytes));
  TMAKIT_CUDA_OK(cudaMalloc(&errors, 4 * sizeof(unsigned)));
  TMAKIT_CUDA_OK(cudaMemcpy(src, host.data(), kSrcBytes, cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMemset(errors, 0, 4 * sizeof(unsigned)));
  bulk_copy_kernel<<<2, 128>>>(src, errors);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  unsigned h[4];
  TMAKIT_CUDA_OK(cudaMemcpy(h, errors, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 0u) << "bytes in shared memory differ from the source after the wait";
  EXPECT_EQ(h[1], 0u) << "test_wait(current parity) was true before the producer arrived";
  EXPECT_EQ(h[2], 0u) << "test_wait(previous parity) was false";
  EXPECT_EQ(h[3], 0u) << "try_wait(parity of the completed phase) was false";
  cudaFree(src);
  cudaFree(errors);
}

TEST(Mbarrier, RemoteArrivalsInCluster) {
  TMAKIT_REQUIRE_GPU();
  unsigned* errors = nullptr;
  TMAKIT_CUDA_OK(cudaMalloc(&errors, 2 * sizeof(unsigned)));
  TMAKIT_CUDA_OK(cudaMemset(errors, 0, 2 * sizeof(unsigned)));
  cluster_kernel<<<8, 64>>>(errors);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  unsigned h[2];
  TMAKIT_CUDA_OK(cudaMemcpy(h, errors, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 0u) << "wrong final parity after " << kClusterRounds << " phases";
  cudaFree(errors);
}
