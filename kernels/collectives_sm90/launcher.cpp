#include "kernels/collectives_sm90/launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace tmakit::collectives {

bool LaunchResult::ok() const {
  if (ranks.empty()) return false;
  for (const RankOutcome& r : ranks)
    if (r.exit_code != 0) return false;
  return true;
}

std::optional<RankEnv> rank_env() {
  const char* r = std::getenv("RANK");
  const char* w = std::getenv("WORLD_SIZE");
  if (!r || !w) return std::nullopt;
  RankEnv e;
  e.rank = std::atoi(r);
  e.world = std::atoi(w);
  const char* l = std::getenv("LOCAL_RANK");
  e.local_rank = l ? std::atoi(l) : e.rank;
  const char* f = std::getenv("TMAKIT_NCCL_ID_FILE");
  if (f) e.id_file = f;
  return e;
}

LaunchResult launch_ranks(int world, const std::vector<std::string>& argv, double timeout_s,
                          const std::vector<std::string>& extra_env) {
  LaunchResult res;
  char dir_template[] = "/tmp/tmakit_ranks_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir || argv.empty() || world < 1) return res;
  const std::string base(dir);
  const std::string id_file = base + "/nccl_id";
  std::vector<pid_t> pids(world, -1);
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < world; ++r) {
    // Everything the child needs is built before fork: it only dup2s and execs.
    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e) {
      const std::string s(*e);
      const auto name = s.substr(0, s.find('='));
      if (name == "RANK" || name == "WORLD_SIZE" || name == "LOCAL_RANK" || name == "TMAKIT_NCCL_ID_FILE" ||
          name == "NCCL_NVLS_ENABLE" || name == "NVSHMEM_DISABLE_NVLS" || name == "TORCH_SYMM_MEM_DISABLE_MULTICAST")
        continue;
      env_s.push_back(s);
    }
    env_s.push_back("RANK=" + std::to_string(r));
    env_s.push_back("WORLD_SIZE=" + std::to_string(world));
    env_s.push_back("LOCAL_RANK=" + std::to_string(r));
    env_s.push_back("TMAKIT_NCCL_ID_FILE=" + id_file);
    env_s.push_back("NCCL_NVLS_ENABLE=0");
    env_s.push_back("NVSHMEM_DISABLE_NVLS=1");
    env_s.push_back("TORCH_SYMM_MEM_DISABLE_MULTICAST=1");
    for (const std::string& s : extra_env) env_s.push_back(s);
    std::vector<char*> envp, args;
    for (std::string& s : env_s) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    for (std::string& s : argv_copy) args.push_back(s.data());
    args.push_back(nullptr);
    const std::string out = base + "/rank" + std::to_string(r) + ".log";
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      execve(args[0], args.data(), envp.data());
      _exit(127);
    }
    if (fd >= 0) close(fd);
    pids[r] = pid;
  }
  res.ranks.resize(world);
  int running = 0;
  for (int r = 0; r < world; ++r) {
    res.ranks[r].rank = r;
    if (pids[r] > 0) ++running;
  }
  while (running > 0) {
    for (int r = 0; r < world; ++r) {
      if (pids[r] <= 0) continue;
      int st = 0;
      if (waitpid(pids[r], &st, WNOHANG) == pids[r]) {
        res.ranks[r].exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        pids[r] = -1;
        --running;
      }
    }
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (running > 0 && dt > timeout_s) {
      for (int r = 0; r < world; ++r) {
        if (pids[r] <= 0) continue;
        kill(pids[r], SIGKILL);
        int st = 0;
        waitpid(pids[r], &st, 0);
        res.ranks[r].exit_code = 128 + SIGKILL;
        res.ranks[r].killed = true;
        pids[r] = -1;
      }
      running = 0;
    }
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int r = 0; r < world; ++r) {
    const std::string out = base + "/rank" + std::to_string(r) + ".log";
    std::ifstream f(out);
    std::stringstream ss;
    ss << f.rdbuf();
    res.ranks[r].output = ss.str();
    std::remove(out.c_str());
  }
  std::remove(id_file.c_str());
  std::remove((id_file + ".tmp").c_str());
  rmdir(base.c_str());
  return res;
}

}  // namespace tmakit::collectives
