// All-gather fused into the GEMM across the GPUs of one NVLink domain (host API; kernel.cuh holds
// the kernel): every rank computes D = allgather(A) * B in one launch, no separate collective.
//
//   A  m x k bf16, row-major (ld = k), at the same offset of every rank's symmetric window
//      (collectives::Window): rank r owns rows [r m/W, (r + 1) m/W) and has filled them; the call
//      fills the other rows in place (after it, every rank's window holds the whole A)
//   B  k x n bf16, this rank's own, column-major (each column's K contiguous: the GEMM's K-major
//      operand), ld >= k
//   D  m x n bf16, row-major, this rank's own
//
// P puller CTAs move each remote row block of A (128 rows) across NVLink once, by TMA (a plan of
// tmakit/peer: one descriptor per peer), and release its flag; the other CTAs run the GEMM
// (kernels/gemm_sm90, the same mainloop), this rank's rows first, then each remote row block once
// its flag is released. docs/collectives.md (All-gather fused into the GEMM) says how and why.
//
//   auto comm = collectives::join_from_env(&err);
//   collectives::Window a;  comm->alloc_window(m * k * 2, &a, &err);   // collective
//   ... fill rows [r m/W, (r+1) m/W) of a.ptr ...
//   AllGatherGemmArgs g;  g.m = M; g.n = N; g.k = K; g.a = &a; g.b = dB; g.ldb = K; g.d = dD; g.ldd = N;
//   AllGatherGemm op(*comm, g);                // plans, encodes; op.status() says whether it can launch
//   op.launch(*comm, stream);                  // every rank, in the same order as its other calls on comm
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/collectives_sm90/collectives.hpp"
#include "kernels/common/status.hpp"
#include "tmakit/peer/row_gather_plan.hpp"

namespace tmakit::allgather_gemm {

struct AllGatherGemmArgs {
  std::int64_t m = 0, n = 0, k = 0;
  const collectives::Window* a = nullptr;  // the window holding A
  std::uint64_t a_offset = 0;              // A's offset in it (the same on every rank)
  const void* b = nullptr;
  std::int64_t ldb = 0;                    // elements between B's columns (>= k)
  void* d = nullptr;
  std::int64_t ldd = 0;                    // elements between D's rows (>= n)
  int pullers = 8;                         // CTAs that pull A's rows (the GEMM gets the other SMs)
  int stages = 6;                          // shared-memory tiles (64 x 256) per puller
  // Planted fault, for tests: this rank's pullers pull the row blocks owned by this peer rank but
  // never release them; its GEMM CTAs' bounded wait (watchdog) names them. -1: none.
  int withhold_rank = -1;
};

struct AllGatherGemmConfig {
  int pullers = 0;
  int gemm_ctas = 0;         // persistent GEMM CTAs
  int grid = 0;              // pullers + GEMM CTAs (at most one per SM: every CTA resident)
  int row_blocks = 0;        // of A (128 rows each)
  int remote_blocks = 0;     // pulled by this rank
  std::uint64_t block_bytes = 0;
  std::size_t smem_bytes = 0;
};

// ok, every refusal (allgather_gemm.*, the peer rules, kernel.cuda, the GEMM's own after "GEMM: ":
// docs/rules.md), the CUDA error, the config (kernels/common/status.hpp).
using AllGatherGemmStatus = kernels::KernelStatus<AllGatherGemmConfig>;

class AllGatherGemm {
 public:
  AllGatherGemm(const collectives::Communicator& comm, const AllGatherGemmArgs& args);
  ~AllGatherGemm();
  AllGatherGemm(const AllGatherGemm&) = delete;
  AllGatherGemm& operator=(const AllGatherGemm&) = delete;
  const AllGatherGemmStatus& status() const { return status_; }
  const RowGatherPlan& gather_plan() const { return plan_; }
  // Asynchronous; numbered with the communicator's next call (every rank launches in the same order).
  cudaError_t launch(collectives::Communicator& comm, cudaStream_t stream = nullptr);
  struct Prepared;

 private:
  AllGatherGemmStatus status_;
  RowGatherPlan plan_{};
  std::unique_ptr<Prepared> prepared_;
};

// The bound of the GEMM's wait for a row block (ns; the checked form only, a no-op in the release
// form): past it, the watchdog names the row block, its owner and its puller, and traps. Every
// other wait of the kernel gets twice this bound (the waits that queue behind a missing row block
// must not be the ones that report it). Default: 0.5 s (and 1 s).
cudaError_t set_watchdog_bound_ns(unsigned long long ns);
bool watchdog_compiled_in();

}  // namespace tmakit::allgather_gemm
