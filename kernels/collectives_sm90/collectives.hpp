// All-gather and reduce-scatter across the GPUs of one NVLink domain, built from tmakit's TMA plans
// on NCCL 2.28's symmetric memory (host API; kernel.cuh holds the kernel).
//
// NCCL provides: the communicator (ncclCommInitRank), the memory (ncclMemAlloc), its registration
// as symmetric windows (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC) and the load/store
// accessible address of every rank's window in this process (ncclGetLsaPointer, NCCL's device API,
// read once per window by a one-thread kernel). tmakit provides: one descriptor per peer from one
// plan (tmakit/peer), the TMA copies, the byte accounting, and the counted signals with bounded
// waits (NCCL's LSA barrier waits without a bound and cannot say which peer is missing, so the
// signals are tmakit's own counters, kept in a symmetric window of their own).
//
// One process per GPU (launcher.hpp starts them). Every rank, in the same order:
//   auto comm = Communicator::create(rank, world, id, &err);        // collective
//   Window in, out;  comm->alloc_window(bytes, &in, &err); ...      // collective
//   CollectiveOp op;
//   CollectiveShape s{CollectiveKind::all_gather, DataType::bfloat16, rows, cols};
//   if (!prepare(*comm, s, in, out, &op)) print op.refusals;       // plan + descriptors, host only
//   launch(*comm, op, stream);                                      // every rank, same order
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/collectives_sm90/kernel.cuh"
#include "kernels/collectives_sm90/launcher.hpp"
#include "tmakit/peer/collective_plan.hpp"
#include "tmakit/peer/peer_plan.hpp"
#include "tmakit/peer/signals.hpp"

namespace tmakit::collectives {

// Sets NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 in this
// process (overwriting): NVLink multicast stays off. Communicator::create calls it first.
void disable_nvlink_multicast();

// One registered symmetric window of this rank.
struct Window {
  void* ptr = nullptr;        // this rank's memory (ncclMemAlloc)
  std::size_t bytes = 0;
  ncclWindow_t win = nullptr;
  PeerWindow view{};          // every rank's base in this process
};

class Communicator {
 public:
  // Collective over `world` processes (one GPU each; the caller has set the device).
  static std::unique_ptr<Communicator> create(int rank, int world, const ncclUniqueId& id, std::string* error);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int world() const { return world_; }
  int local_device() const { return device_; }
  ncclComm_t nccl() const { return comm_; }
  // The ranks load/store accessible from this one (NCCL's LSA team).
  int lsa_ranks() const { return lsa_ranks_; }

  // Collective: every rank allocates and registers a window of `bytes` (rounded up to 4096).
  bool alloc_window(std::size_t bytes, Window* out, std::string* error);
  // Collective: deregisters and frees.
  void free_window(Window& w);

  const PeerSignals& signals() const { return signals_; }
  std::uint64_t next_call() { return ++calls_; }

 private:
  Communicator() = default;
  int rank_ = 0, world_ = 0, lsa_ranks_ = 0, device_ = 0;
  ncclComm_t comm_ = nullptr;
  Window signal_window_{};
  PeerSignals signals_{};
  std::uint64_t calls_ = 0;
};

// The ncclUniqueId of a job started by launch_ranks: rank 0 makes it and writes env.id_file (whole,
// by rename); the others wait for the file (up to 60 s).
bool shared_unique_id(const RankEnv& env, ncclUniqueId* id, std::string* error);

// A rank started by launch_ranks (or torchrun-style variables): takes GPU LOCAL_RANK, shares the
// id, creates the communicator. nullptr (and *error) when any step fails.
std::unique_ptr<Communicator> join_from_env(std::string* error);

// A planned collective: the plan, and the kernel's parameter with every descriptor encoded.
struct CollectiveOp {
  CollectivePlan plan{};
  CollectiveArgs args{};
  std::vector<std::string> refusals;  // one line per finding (peer rules, then the planner's)
};

// Host only: plans `shape` over the windows and encodes one output descriptor per rank. False (and
// op->refusals) when anything is refused.
bool prepare(const Communicator& comm, const CollectiveShape& shape, const Window& in, const Window& out,
             CollectiveOp* op);

// Launches the prepared collective on `stream` (numbered with the communicator's next call).
cudaError_t launch(Communicator& comm, CollectiveOp& op, cudaStream_t stream);

// Sets the bound of the watchdog's waits in the collective kernel (ns; the form built with the
// watchdog only, a no-op in the release form).
cudaError_t set_watchdog_bound_ns(unsigned long long ns);

// Whether this library was built with the watchdog.
bool watchdog_compiled_in();

}  // namespace tmakit::collectives
