// One process per GPU: a parent starts `world` copies of a program, each with the environment a
// rank reads (torchrun's names), and collects their exit statuses and output.
//
//   RANK, WORLD_SIZE, LOCAL_RANK   the rank (= the GPU it takes: one host)
//   TMAKIT_NCCL_ID_FILE            where rank 0 writes the ncclUniqueId and the others read it
//   NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1, TORCH_SYMM_MEM_DISABLE_MULTICAST=1  (always)
//
// A rank past `timeout_s` is killed (SIGKILL, by its process id), and the result says so. Host
// code only: no CUDA, no NCCL (the parent never touches a GPU, so it may fork after a CUDA call:
// each child execs at once).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tmakit::collectives {

struct RankOutcome {
  int rank = 0;
  int exit_code = -1;   // exit status, or 128 + signal
  bool killed = false;  // past the timeout
  std::string output;   // stdout and stderr together
};

struct LaunchResult {
  std::vector<RankOutcome> ranks;
  double seconds = 0;
  bool ok() const;  // every rank exited 0
};

// Runs argv (argv[0]: the program's path) as `world` ranks. extra_env: more "NAME=value" entries.
LaunchResult launch_ranks(int world, const std::vector<std::string>& argv, double timeout_s,
                          const std::vector<std::string>& extra_env = {});

// This process's rank, from the environment above (nullopt: not started as a rank).
struct RankEnv {
  int rank = 0, world = 1, local_rank = 0;
  std::string id_file;
};
std::optional<RankEnv> rank_env();

}  // namespace tmakit::collectives
