// Planted cluster bugs, each caught by the watchdog with a named diagnosis (never a hang). Each bug
// runs in a child process (this binary re-executed with --gtest_filter=ClusterPlantedChild.<Bug>
// and TMAKIT_WATCHDOG_CHILD=1), because __trap() ends the CUDA context; the parent asserts the
// child's output and that it ended within kChildSeconds. The cluster checks trap at the issue
// (no waiting); the waits that remain have a 200 ms bound.
//   IssueBeforeArm   the multicast leader issues right after setup, without waiting for the
//                    receivers' arm (they arm 20 ms later)      -> "diagnosis: issue before arm"
//   OnePerWarp       a DSMEM bulk copy issued by lane 0 of every warp -> "diagnosis: duplicate issue"
//   WrongFanIn       sliced multicast in a 4-CTA cluster, each receiver arms only its own slice
//                    (fan-in 1 instead of 4)                      -> "diagnosis: wrong fan-in"
//   IssueBeforeArmStCluster  a DSMEM st.shared::cluster copy for phase 1 issued before the receiver
//                    armed phase 1 (the ledger also counts phase 0's remote arrivals)
//                                                                 -> "diagnosis: issue before arm"
// The fourth planted bug, a CTA-scoped barrier used across CTAs, is named by plan validation
// (tests/test_cluster_plan.cpp, Handoff.CtaScopedBarrierAcrossCtasIsNamed: handoff.cta_scope): no
// runtime check can see a missing cluster-scope ordering.
// compute-sanitizer runs exclude ClusterPlanted.* and ClusterPlantedChild.* (scripts/gpu_suite.sh).
#define TMAKIT_WATCHDOG 1
#include "tmakit/device/cu_tensor_map.cuh"
#include "tmakit/device/dsmem.cuh"
#include "tmakit/device/launch.cuh"
#include "tmakit/device/multicast.cuh"
#include "tmakit/cluster/multicast.hpp"
#include "tmakit/cluster/dsmem_copy.hpp"

#include <cuda.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu_test_util.cuh"

namespace td = tmakit::device;
using namespace tmakit;

namespace {

constexpr unsigned long long kBoundNs = 200000000ull;
constexpr double kChildSeconds = 15.0;
constexpr std::uint32_t kCols = 32, kRows = 64;

TensorMapParams tile_params(const std::uint32_t* base, std::uint32_t rows) {
  TensorMapParams p;
  p.dtype = DataType::uint32;
  p.rank = 2;
  p.address = reinterpret_cast<std::uint64_t>(base);
  p.dims[0] = kCols;
  p.dims[1] = 1024;
  p.strides[0] = kCols * 4;
  p.box[0] = kCols;
  p.box[1] = rows;
  return p;
}

__device__ void spin_ns(unsigned long long ns) {
  const unsigned long long t0 = cuda::ptx::get_sreg_globaltimer();
  while (cuda::ptx::get_sreg_globaltimer() - t0 < ns) __nanosleep(1000);
}

// bug 0: none (leader arms, waits for the receivers' release, issues); bug 1: issue before arm.
__global__ void issue_before_arm_kernel(const __grid_constant__ MulticastPlan plan, const __grid_constant__ CUtensorMap map,
                                        int bug, unsigned* errors, const std::uint32_t* g) {
  __shared__ td::MulticastPipeline<1> pipe;
  __shared__ alignas(128) std::uint32_t tile[kCols * kRows];
  const std::uint32_t rank = td::cluster_rank();
  const StageRole role = stage_role(&plan, 1, rank);
  td::pipeline_init(pipe, role);
  const MulticastCta& c = plan.cta[rank];
  if (threadIdx.x == 0) {
    if (rank != 0) spin_ns(20000000ull);  // receivers arm late
    td::arm_round(pipe, role, 0);
    if (c.issues) {
      if (!bug) td::wait_receivers_armed(pipe, role, 0);
      td::issue_multicast(pipe, &map, tile, c.issue.mask, c.issue.bytes, 0, 0, 0);
    }
  }
  td::wait_round(pipe, 0);
  unsigned bad = 0;
  for (std::uint32_t i = threadIdx.x; i < kCols * kRows; i += blockDim.x) bad += tile[i] != g[i];
  if (bad) atomicAdd(errors, bad);
  td::pipeline_teardown();
}

// bug 0: none; bug 1: one receiver arms only its own slice (wrong fan-in).
__global__ void fan_in_kernel(const __grid_constant__ MulticastPlan plan, const __grid_constant__ CUtensorMap slice_map,
                              int bug, unsigned* errors, const std::uint32_t* g) {
  __shared__ td::MulticastPipeline<1> pipe;
  __shared__ alignas(128) std::uint32_t tile[kCols * kRows];
  const std::uint32_t rank = td::cluster_rank();
  StageRole role = stage_role(&plan, 1, rank);
  td::pipeline_init(pipe, role);
  const MulticastCta& c = plan.cta[rank];
  if (bug) role.expect_bytes = c.issue.bytes;  // the bug: "I expect what I load myself"
  if (threadIdx.x == 0) {
    td::arm_round(pipe, role, 0);
    td::wait_receivers_armed(pipe, role, 0);
    td::issue_multicast(pipe, &slice_map, reinterpret_cast<std::uint8_t*>(tile) + c.issue.smem_offset, c.issue.mask,
                        c.issue.bytes, 0, 0, static_cast<int>(c.issue.coord_offset));
  }
  td::Phase ph;
  if (bug) {
    tmakit_test::bounded_wait(pipe.full[0], ph);  // (no completed-phase check: the issuers report)
  } else {
    td::wait_round(pipe, 0);
    unsigned bad = 0;
    for (std::uint32_t i = threadIdx.x; i < kCols * kRows; i += blockDim.x) bad += tile[i] != g[i];
    if (bad) atomicAdd(errors, bad);
  }
  td::pipeline_teardown();
}

// bug 0: thread 0 issues the DSMEM copy; bug 1: lane 0 of every warp does.
__global__ void one_per_warp_kernel(const __grid_constant__ DsmemPlan plan, int bug, unsigned* errors) {
  __shared__ td::Barrier bar, ready;
  __shared__ alignas(128) std::uint32_t src[1024], dst[1024];
  const std::uint32_t rank = td::cluster_rank();
  for (std::uint32_t i = threadIdx.x; i < 1024; i += blockDim.x) src[i] = i * 7u + rank;
  td::publish_smem_writes();
  td::init_cluster_barriers([&] {
    td::init(bar, 1);
    td::init(ready, 1);
  });
  td::Phase ph, rph;
  if (rank == 1 && threadIdx.x == 0) td::dsmem_arm_and_release(bar, ready, plan, 0b1);  // CTA 0 sends
  if (rank == 0) {
    td::dsmem_wait_released(ready, rph);
    const bool issuer = bug ? (threadIdx.x % 32 == 0) : threadIdx.x == 0;
    if (issuer) td::dsmem_copy_bulk(plan, src, dst, 1, bar);
  } else {
    td::dsmem_wait(bar, ph);
    unsigned bad = 0;
    for (std::uint32_t i = threadIdx.x; i < 1024; i += blockDim.x) bad += dst[i] != i * 7u;
    if (bad) atomicAdd(errors, bad);
  }
  td::cluster_sync();
}

// bug 0: two st.shared::cluster copies, each after the receiver's release; bug 1: the second one
// (phase 1) is issued without waiting for it, while the receiver arms 20 ms late.
__global__ void st_cluster_phase_kernel(const __grid_constant__ DsmemPlan plan, int bug, unsigned* errors) {
  __shared__ td::Barrier bar, ready;
  __shared__ alignas(128) std::uint32_t src[1024], dst[1024];
  const std::uint32_t rank = td::cluster_rank();
  for (std::uint32_t i = threadIdx.x; i < 1024; i += blockDim.x) src[i] = i * 7u + rank;
  __syncthreads();
  td::init_cluster_barriers([&] {
    td::init(bar, plan.receiver_init_count());
    td::init(ready, 1);
  });
  td::Phase ph, rph;
  for (std::uint32_t it = 0; it < 2; ++it) {
    const bool late = bug && it == 1;
    if (rank == 1 && threadIdx.x == 0) {
      if (late) spin_ns(20000000ull);  // the receiver arms phase 1 late
      td::dsmem_arm_and_release(bar, ready, plan, 0b1);
    }
    if (rank == 0) {
      if (!late) td::dsmem_wait_released(ready, rph);
      td::dsmem_copy(plan, src, dst, 1, bar, it);
    } else {
      td::dsmem_wait(bar, ph);
      unsigned bad = 0;
      for (std::uint32_t i = threadIdx.x; i < 1024; i += blockDim.x) bad += dst[i] != i * 7u;
      if (bad) atomicAdd(errors, bad);
      __syncthreads();  // every thread read the copy before thread 0 arms (and releases) the next one
    }
  }
  td::cluster_sync();
}

enum class Bug { issue_before_arm, one_per_warp, wrong_fan_in, issue_before_arm_st_cluster };

// Runs one scenario; returns the synchronization error and the mismatch count.
cudaError_t run(Bug which, int bug, unsigned* mismatches) {
  std::vector<std::uint32_t> h(kCols * 1024);
  for (std::uint32_t i = 0; i < h.size(); ++i) h[i] = i * 2654435761u + 17u;
  std::uint32_t* g = nullptr;
  unsigned* errors = nullptr;
  if (cudaMalloc(&g, h.size() * 4) != cudaSuccess || cudaMalloc(&errors, sizeof(unsigned)) != cudaSuccess)
    return cudaErrorMemoryAllocation;
  cudaMemcpy(g, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  cudaMemset(errors, 0, sizeof(unsigned));
  cudaError_t e = td::watchdog::set_bound_ns(kBoundNs);
  if (e != cudaSuccess) return e;
  if (which == Bug::issue_before_arm) {
    MulticastSpec s;
    s.cluster = ClusterShape{2, 1, 1};
    s.share[0] = true;
    s.box = tile_params(g, kRows);
    const MulticastPlan plan = plan_multicast(s);
    CUtensorMap map;
    if (!plan.ok() || !td::encode_cu_tensor_map(s.box, &map)) return cudaErrorInvalidValue;
    e = td::launch_cluster(issue_before_arm_kernel, s.cluster, dim3(2), dim3(128), 0, plan, map, bug, errors,
                           static_cast<const std::uint32_t*>(g));
  } else if (which == Bug::wrong_fan_in) {
    MulticastSpec s;
    s.cluster = ClusterShape{4, 1, 1};
    s.share[0] = true;
    s.mode = MulticastMode::sliced;
    s.box = tile_params(g, kRows);
    const MulticastPlan plan = plan_multicast(s);
    CUtensorMap map;
    if (!plan.ok() || !td::encode_cu_tensor_map(plan.issue_params(0), &map)) return cudaErrorInvalidValue;
    e = td::launch_cluster(fan_in_kernel, s.cluster, dim3(4), dim3(128), 0, plan, map, bug, errors,
                           static_cast<const std::uint32_t*>(g));
  } else if (which == Bug::issue_before_arm_st_cluster) {
    DsmemSpec s;
    s.elem_bytes = 4;
    s.src = compact_region(4, 1024);
    s.dst = compact_region(4, 1024);
    s.prefer = DsmemPrefer::st_cluster;
    const DsmemPlan plan = plan_dsmem_copy(s);
    if (plan.path != DsmemPath::st_cluster || plan.spec.threads != 128) return cudaErrorInvalidValue;
    e = td::launch_cluster(st_cluster_phase_kernel, ClusterShape{2, 1, 1}, dim3(2), dim3(128), 0, plan, bug,
                           errors);
  } else {
    DsmemSpec s;
    s.elem_bytes = 4;
    s.src = compact_region(4, 1024);
    s.dst = compact_region(4, 1024);
    const DsmemPlan plan = plan_dsmem_copy(s);
    if (plan.path != DsmemPath::bulk_single) return cudaErrorInvalidValue;
    e = td::launch_cluster(one_per_warp_kernel, ClusterShape{2, 1, 1}, dim3(2), dim3(128), 0, plan, bug, errors);
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    cudaMemcpy(mismatches, errors, sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaFree(g);
    cudaFree(errors);
  }
  return e;
}

using tmakit_test::ChildResult;
using tmakit_test::is_child;
ChildResult run_child(const std::string& test) { return tmakit_test::run_child("ClusterPlantedChild." + test); }
void expect_diagnosis(const ChildResult& r, const std::vector<std::string>& needles) {
  tmakit_test::expect_diagnosis(r, needles, kChildSeconds);
}

void child_body(Bug b) {
  unsigned mismatches = 0;
  const cudaError_t e = run(b, 1, &mismatches);
  std::printf("child: cudaDeviceSynchronize -> %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
  std::fflush(stdout);
  EXPECT_EQ(e, cudaSuccess);  // fails for every planted bug: the gtest failure is the child's exit status
}

#define TMAKIT_CHILD_ONLY() \
  if (!is_child()) GTEST_SKIP() << "runs in a child process of ClusterPlanted.*"

}  // namespace

TEST(ClusterPlantedChild, IssueBeforeArm) { TMAKIT_CHILD_ONLY(); child_body(Bug::issue_before_arm); }
TEST(ClusterPlantedChild, OnePerWarp) { TMAKIT_CHILD_ONLY(); child_body(Bug::one_per_warp); }
TEST(ClusterPlantedChild, WrongFanIn) { TMAKIT_CHILD_ONLY(); child_body(Bug::wrong_fan_in); }
TEST(ClusterPlantedChild, IssueBeforeArmStCluster) {
  TMAKIT_CHILD_ONLY();
  child_body(Bug::issue_before_arm_st_cluster);
}

// The same kernels without the bug: they complete and deliver every word (no false positive).
TEST(ClusterPlantedFixed, ArmBeforeIssuePasses) {
  TMAKIT_REQUIRE_GPU();
  unsigned bad = 1;
  ASSERT_EQ(cudaSuccess, run(Bug::issue_before_arm, 0, &bad));
  EXPECT_EQ(bad, 0u);
}
TEST(ClusterPlantedFixed, OneIssuerPasses) {
  TMAKIT_REQUIRE_GPU();
  unsigned bad = 1;
  ASSERT_EQ(cudaSuccess, run(Bug::one_per_warp, 0, &bad));
  EXPECT_EQ(bad, 0u);
}
TEST(ClusterPlantedFixed, PlannedFanInPasses) {
  TMAKIT_REQUIRE_GPU();
  unsigned bad = 1;
  ASSERT_EQ(cudaSuccess, run(Bug::wrong_fan_in, 0, &bad));
  EXPECT_EQ(bad, 0u);
}
TEST(ClusterPlantedFixed, StClusterArmBeforeEachPhasePasses) {
  TMAKIT_REQUIRE_GPU();
  unsigned bad = 1;
  ASSERT_EQ(cudaSuccess, run(Bug::issue_before_arm_st_cluster, 0, &bad));
  EXPECT_EQ(bad, 0u);
}

TEST(ClusterPlanted, IssueBeforeArm) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("IssueBeforeArm"),
                   {"tmakit watchdog: block (0,0,0) thread (0,0,0), cluster CTA 0: copy into CTA 1's mbarrier at shared 0x",
                    "diagnosis: issue before arm: CTA 1 armed its barrier 0 time(s), the copy is for phase 0 (needs 1 "
                    "arm(s))"});
}

TEST(ClusterPlanted, OnePerWarp) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("OnePerWarp"),
                   {"cluster CTA 0: copy into CTA 1's mbarrier at shared 0x", "diagnosis: duplicate issue: bulk copy shared 0x",
                    "-> CTA 1 shared 0x", "(4096 B) issued again for the same phase; exactly one thread per CTA issues "
                    "each copy"});
}

TEST(ClusterPlanted, WrongFanIn) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("WrongFanIn"),
                   {"diagnosis: wrong fan-in: CTA ", "'s barrier armed 2048 B but the copies into it register ",
                    "B (this one: 2048 B from CTA ", "a receiver expects the SUM of every issue whose mask includes it"});
}

// The ledger counts the remote arrivals of st.shared::cluster copies too: after phase 0 it holds
// 1 + 128 arrivals, which an "arms >= phase + 1" check took for 129 arms (no report, a race).
TEST(ClusterPlanted, IssueBeforeArmStCluster) {
  TMAKIT_REQUIRE_GPU();
  expect_diagnosis(run_child("IssueBeforeArmStCluster"),
                   {"cluster CTA 0: copy into CTA 1's mbarrier at shared 0x", "diagnosis: issue before arm: CTA 1 armed "
                    "its barrier ", "the copy is for phase 1 (needs 2 arm(s))"});
}
