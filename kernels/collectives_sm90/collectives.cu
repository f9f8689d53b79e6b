// Host side of the collectives: NCCL communicator and symmetric windows, plans and descriptors,
// launches. Built twice (CMakeLists.txt): with the watchdog (checked) and without (release).
#include "kernels/collectives_sm90/collectives.hpp"

#include <nccl_device.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "kernels/common/rules.hpp"
#include "tmakit/device/cu_tensor_map.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/peer/explain.hpp"
#include "tmakit/plan/explain.hpp"

namespace tmakit::collectives {

namespace {

// Every rank's window base as an address of this process (NCCL's device API).
__global__ void lsa_pointers(ncclWindow_t w, int world, std::uint64_t* out) {
  for (int p = 0; p < world; ++p) out[p] = reinterpret_cast<std::uint64_t>(ncclGetLsaPointer(w, 0, p));
}

bool nccl_ok(ncclResult_t r, const char* what, std::string* error) {
  if (r == ncclSuccess) return true;
  if (error) *error = std::string(what) + ": " + ncclGetErrorString(r);
  return false;
}
bool cuda_ok(cudaError_t e, const char* what, std::string* error) {
  if (e == cudaSuccess) return true;
  if (error) *error = std::string(what) + ": " + cudaGetErrorString(e);
  return false;
}

}  // namespace

void disable_nvlink_multicast() {
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  setenv("NVSHMEM_DISABLE_NVLS", "1", 1);
  setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 1);
}

std::unique_ptr<Communicator> Communicator::create(int rank, int world, const ncclUniqueId& id, std::string* error) {
  disable_nvlink_multicast();
  std::unique_ptr<Communicator> c(new Communicator);
  c->rank_ = rank;
  c->world_ = world;
  cudaGetDevice(&c->device_);
  if (world < 1 || world > kMaxPeers) {
    if (error) *error = explain(PeerIssue{PeerRule::world_size, -1, world, kMaxPeers});
    return nullptr;
  }
  if (!nccl_ok(ncclCommInitRank(&c->comm_, world, id, rank), "ncclCommInitRank", error)) return nullptr;
  // The first window also checks the LSA team (alloc_window: peer.lsa_team).
  if (!c->alloc_window(kSignalWindowBytes, &c->signal_window_, error)) return nullptr;
  if (!cuda_ok(cudaMemset(c->signal_window_.ptr, 0, kSignalWindowBytes), "cudaMemset", error)) return nullptr;
  if (!cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", error)) return nullptr;
  // Every rank's counters are zero before any rank signals: one NCCL all-reduce as a barrier.
  float* one = nullptr;
  if (!cuda_ok(cudaMalloc(&one, sizeof(float)), "cudaMalloc", error)) return nullptr;
  const bool synced = nccl_ok(ncclAllReduce(one, one, 1, ncclFloat32, ncclSum, c->comm_, nullptr), "ncclAllReduce",
                              error) &&
                      cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", error);
  cudaFree(one);
  if (!synced) return nullptr;
  c->signals_.local = static_cast<std::uint64_t*>(c->signal_window_.ptr);
  for (int p = 0; p < world; ++p) c->signals_.peer[p] = reinterpret_cast<std::uint64_t*>(c->signal_window_.view.base[p]);
  c->signals_.rank = rank;
  c->signals_.world = world;
  return c;
}

Communicator::~Communicator() {
  if (!comm_) return;
  if (signal_window_.ptr) free_window(signal_window_);
  ncclCommDestroy(comm_);
}

bool Communicator::alloc_window(std::size_t bytes, Window* out, std::string* error) {
  bytes = (bytes + kWindowAlignment - 1) / kWindowAlignment * kWindowAlignment;
  Window w;
  w.bytes = bytes;
  if (!nccl_ok(ncclMemAlloc(&w.ptr, bytes), "ncclMemAlloc", error)) return false;
  if (!nccl_ok(ncclCommWindowRegister(comm_, w.ptr, bytes, &w.win, NCCL_WIN_COLL_SYMMETRIC), "ncclCommWindowRegister",
               error))
    return false;
  // The ranks load/store accessible from this one, read once a window exists (NCCL sets up its
  // symmetric memory with the first registration). Peer p is LSA rank p: the team must be the world.
  const ncclTeam_t lsa = ncclTeamLsa(comm_);
  lsa_ranks_ = lsa.rank == rank_ ? lsa.nRanks : 0;
  std::uint64_t* d = nullptr;
  if (!cuda_ok(cudaMalloc(&d, sizeof(std::uint64_t) * kMaxPeers), "cudaMalloc", error)) return false;
  lsa_pointers<<<1, 1>>>(w.win, world_, d);
  const bool copied = cuda_ok(cudaGetLastError(), "lsa_pointers", error) &&
                      cuda_ok(cudaMemcpy(w.view.base, d, sizeof(std::uint64_t) * world_, cudaMemcpyDeviceToHost),
                              "cudaMemcpy", error);
  cudaFree(d);
  if (!copied) return false;
  w.view.world = world_;
  w.view.rank = rank_;
  w.view.lsa_ranks = lsa_ranks_;
  w.view.bytes = bytes;
  PeerIssues issues;
  check_window(w.view, issues);
  if (!issues.empty()) {
    if (error) *error = explain(issues.items[0]);
    return false;
  }
  *out = w;
  return true;
}

void Communicator::free_window(Window& w) {
  if (w.win) ncclCommWindowDeregister(comm_, w.win);
  if (w.ptr) ncclMemFree(w.ptr);
  w = Window{};
}

bool shared_unique_id(const RankEnv& env, ncclUniqueId* id, std::string* error) {
  if (env.id_file.empty()) {
    if (error) *error = "TMAKIT_NCCL_ID_FILE is not set";
    return false;
  }
  if (env.rank == 0) {
    if (!nccl_ok(ncclGetUniqueId(id), "ncclGetUniqueId", error)) return false;
    const std::string tmp = env.id_file + ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary);
      f.write(reinterpret_cast<const char*>(id), sizeof *id);
      if (!f) {
        if (error) *error = "cannot write " + tmp;
        return false;
      }
    }
    if (std::rename(tmp.c_str(), env.id_file.c_str()) != 0) {
      if (error) *error = "cannot rename " + tmp;
      return false;
    }
    return true;
  }
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    std::ifstream f(env.id_file, std::ios::binary);
    if (f && f.read(reinterpret_cast<char*>(id), sizeof *id)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (error) *error = "no ncclUniqueId in " + env.id_file + " after 60 s (did rank 0 start?)";
  return false;
}

std::unique_ptr<Communicator> join_from_env(std::string* error) {
  disable_nvlink_multicast();
  const std::optional<RankEnv> env = rank_env();
  if (!env) {
    if (error) *error = "RANK / WORLD_SIZE not set: start the ranks with tmakit_ranks";
    return nullptr;
  }
  if (!cuda_ok(cudaSetDevice(env->local_rank), "cudaSetDevice", error)) return nullptr;
  ncclUniqueId id{};
  if (!shared_unique_id(*env, &id, error)) return nullptr;
  return Communicator::create(env->rank, env->world, id, error);
}

bool prepare(const Communicator& comm, const CollectiveShape& shape, const Window& in, const Window& out,
             CollectiveOp* op) {
  op->refusals.clear();
  op->plan = plan_collective(shape, in.view, out.view);
  const CollectivePlan& c = op->plan;
  if (!c.ok()) {
    op->refusals = explain_all(c.issues);
    for (const PlanDiagnostic& d : explain_plan(c.plan_issues, TileProblem{})) op->refusals.push_back(d.message());
    return false;
  }
  if (shape.blocks > static_cast<std::int32_t>(kMaxSignalBlocks) || shape.stages > static_cast<std::int32_t>(kMaxStages)) {
    const std::string most = std::to_string(kMaxSignalBlocks) + " blocks and " + std::to_string(kMaxStages) + " stages";
    op->refusals.push_back(
        kernels::refusal(PeerRule::blocks_range, "the kernel takes at most " + most, "use at most " + most));
    return false;
  }
  // Block b of one rank waits for block b of every other: every block must be resident at once.
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess && shape.blocks > sms) {
    const std::string what = std::to_string(shape.blocks) + " blocks on a GPU of " + std::to_string(sms) +
                             " SMs: block b of each rank waits for block b of the others, so every block must be "
                             "resident (one per SM)";
    op->refusals.push_back(kernels::refusal(PeerRule::blocks_range, what, "use at most " + std::to_string(sms)));
    return false;
  }
  CollectiveArgs& a = op->args;
  a = CollectiveArgs{};
  const int rank = comm.rank(), world = comm.world();
  bool encoded = true;
  for (int p = 0; p < world; ++p) {
    encoded = encoded && device::encode_cu_tensor_map(peer_params(c.input, p), &a.in[p]);
    encoded = encoded && device::encode_cu_tensor_map(peer_params(c.output, p), &a.out[p]);
  }
  if (!encoded) {
    op->refusals.push_back(
        kernels::refusal(PeerRule::plan_refused, "a planned descriptor did not encode", kernels::kUnencodedFix));
    return false;
  }
  a.load = c.input.plan;
  a.push = c.output.plan;
  a.own = c.own.plan;
  a.signals = comm.signals();
  a.tiles = c.tiles;
  a.col_tiles = c.col_tiles;
  a.tile_bytes = c.tile_bytes;
  a.stage_bytes = c.stage_bytes;
  a.stages = static_cast<std::uint32_t>(shape.stages);
  a.lag = static_cast<std::uint32_t>(shape.lag);
  a.pull = shape.pull ? 1u : 0u;
  a.schedule = static_cast<std::uint32_t>(shape.schedule);
  return true;
}

cudaError_t launch(Communicator& comm, CollectiveOp& op, cudaStream_t stream) {
  op.args.call = comm.next_call();
  auto kernel = op.plan.shape.kind == CollectiveKind::all_gather ? collective_kernel<CollectiveKind::all_gather>
                                                                 : collective_kernel<CollectiveKind::reduce_scatter>;
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(op.plan.smem_bytes));
  if (e != cudaSuccess) return e;
  kernel<<<op.plan.shape.blocks, 32, op.plan.smem_bytes, stream>>>(op.args);
  return cudaGetLastError();
}

cudaError_t set_watchdog_bound_ns(unsigned long long ns) { return device::watchdog::set_bound_ns(ns); }

bool watchdog_compiled_in() { return TMAKIT_WATCHDOG != 0; }

}  // namespace tmakit::collectives
