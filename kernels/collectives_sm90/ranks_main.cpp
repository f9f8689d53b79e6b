// tmakit_ranks: runs a program as N ranks, one process per GPU (launcher.hpp), and prints each
// rank's output prefixed with its rank. Exit status 0 when every rank exited 0, else 1; 2: usage.
//   tmakit_ranks [--timeout SECONDS] N PROGRAM [ARGS...]
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/collectives_sm90/launcher.hpp"

int main(int argc, char** argv) {
  int i = 1;
  double timeout = 600;
  if (i + 1 < argc && std::string(argv[i]) == "--timeout") {
    timeout = std::atof(argv[i + 1]);
    i += 2;
  }
  if (argc - i < 2) {
    std::fprintf(stderr, "usage: tmakit_ranks [--timeout SECONDS] N PROGRAM [ARGS...]\n");
    return 2;
  }
  const int n = std::atoi(argv[i]);
  std::vector<std::string> args(argv + i + 1, argv + argc);
  const auto res = tmakit::collectives::launch_ranks(n, args, timeout);
  for (const auto& r : res.ranks) {
    std::istringstream in(r.output);
    std::string line;
    while (std::getline(in, line)) std::printf("[rank %d] %s\n", r.rank, line.c_str());
    std::printf("[rank %d] exit %d%s\n", r.rank, r.exit_code, r.killed ? " (killed after the timeout)" : "");
  }
  std::printf("ranks: %d, %.2f s, %s\n", n, res.seconds, res.ok() ? "all exited 0" : "FAILED");
  return res.ok() ? 0 : 1;
}
