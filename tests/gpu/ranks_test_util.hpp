// Shared helpers of the multi-GPU tests (one process per GPU; not a test itself). A test binary's
// parent-side tests (suite X) start the ranks, this same binary on one test of suite XRank with
// RANK / WORLD_SIZE / LOCAL_RANK set (kernels/collectives_sm90/launcher.hpp), and check what they
// printed and how they exited; outside a rank the XRank tests skip, and with too few GPUs the X tests.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "kernels/collectives_sm90/collectives.hpp"
#include "kernels/collectives_sm90/launcher.hpp"

namespace tmakit_test {

inline int gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

inline std::string self_path() {
  std::array<char, 4096> buf{};
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : std::string();
}

// Runs test `suite.test` of this binary as `world` ranks.
inline tmakit::collectives::LaunchResult run_rank_test(int world, const std::string& suite, const std::string& test,
                                                        double timeout_s = 300) {
  return tmakit::collectives::launch_ranks(world, {self_path(), "--gtest_filter=" + suite + "." + test}, timeout_s);
}

inline std::string all_output(const tmakit::collectives::LaunchResult& r) {
  std::string s;
  for (const auto& o : r.ranks)
    s += "---- rank " + std::to_string(o.rank) + " (exit " + std::to_string(o.exit_code) + ")\n" + o.output;
  return s;
}

inline bool in_rank() { return tmakit::collectives::rank_env().has_value(); }

// This rank's communicator (nullptr, and a line saying why, when it cannot join).
inline std::unique_ptr<tmakit::collectives::Communicator> join_ranks() {
  std::string err;
  auto c = tmakit::collectives::join_from_env(&err);
  if (!c) std::printf("join failed: %s\n", err.c_str());
  return c;
}

}  // namespace tmakit_test

#define TMAKIT_REQUIRE_GPUS(n)                                                                    \
  do {                                                                                            \
    const int have_ = tmakit_test::gpu_count();                                                   \
    if (have_ < (n)) GTEST_SKIP() << "needs " << (n) << " GPUs of one host; found " << have_;      \
  } while (0)

#define TMAKIT_REQUIRE_RANK(suite)                                                                 \
  if (!tmakit_test::in_rank())                                                                     \
  GTEST_SKIP() << "runs as a rank of a " suite ".* test (RANK / WORLD_SIZE set by the launcher)"
