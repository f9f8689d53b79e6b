// Instructions executed per map by encode_many, encode_into_host and encode_host (encode_host.hpp)
// on the encode benchmark's mixed parameter sets, counted exactly by single-stepping one call under ptrace
// (Linux, x86-64). Virtual machines often expose no hardware counters to a program (`perf stat`
// prints `cycles <not supported>`), so this is the one cost besides time that can be read there;
// time still decides (fewer instructions did not always mean less time, since encode_many's block
// form is bound by its two 512-bit vector ports: docs/lab/encode_2026-11-26.md, 2026-11-26, instructions per
// map).
//   build/bench/icount_encode            (no GPU needed)
// Each count includes the benchmark loop's own instructions around the call (about 34 for
// encode_many, about 9 per map for the loop over encode_into_host, more for encode_host's, which
// copies each map out of its result as bench_encode does).
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "encode_configs.hpp"
#include "tmakit/tensor_map/encode_host.hpp"

namespace {

using namespace tmakit;
using tmakit_bench::keep;

// Runs body() in a child process and returns how many instructions it executed, by stepping the
// child one instruction at a time between two int3 markers; -1 if tracing is not allowed.
long count_instructions(const std::function<void()>& body) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(1);
    raise(SIGSTOP);
    asm volatile("int3");
    body();
    asm volatile("int3");
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);  // stopped by SIGSTOP (or exited: tracing refused)
  if (!WIFSTOPPED(status)) return -1;
  ptrace(PTRACE_CONT, pid, nullptr, nullptr);
  waitpid(pid, &status, 0);  // the first int3
  long steps = 0;
  for (;;) {
    user_regs_struct regs{};
    ptrace(PTRACE_GETREGS, pid, nullptr, &regs);
    const long word = ptrace(PTRACE_PEEKTEXT, pid, reinterpret_cast<void*>(regs.rip), nullptr);
    if ((word & 0xff) == 0xcc) break;  // the second int3
    ptrace(PTRACE_SINGLESTEP, pid, nullptr, nullptr);
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) || WIFSIGNALED(status)) return -1;
    ++steps;
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return steps;
}

__attribute__((noinline)) void loop_into(const TensorMapParams* p, TensorMapBytes* out, int n) {
  for (int i = 0; i < n; ++i) {
    const bool ok = encode_into_host(p[i], out[i]);
    keep(ok);
    keep(out[i]);
  }
}

__attribute__((noinline)) void loop_encode_host(const TensorMapParams* p, TensorMapBytes* out, int n) {
  for (int i = 0; i < n; ++i) {
    const EncodeResult r = encode_host(p[i]);
    out[i] = r.map;
    keep(out[i]);
  }
}

}  // namespace

int main() {
  std::printf("encode's fast path runs its %s form on this CPU\n", encode_fast_host_form());
  std::printf("%6s %24s %34s %29s\n", "maps", "encode_many: instr/map", "encode_into_host loop: instr/map",
              "encode_host loop: instr/map");
  for (const int n : {1, 2, 3, 4, 8, 16, 32, 256}) {
    const std::vector<TensorMapParams> cfgs = tmakit_bench::make_configs(n, false);
    std::vector<TensorMapBytes> out(n);
    const auto ok = std::make_unique<bool[]>(n);
    encode_many(cfgs.data(), out.data(), ok.get(), n);  // once outside the count: lazy binding
    loop_into(cfgs.data(), out.data(), n);
    loop_encode_host(cfgs.data(), out.data(), n);
    const long many = count_instructions([&] {
      const std::size_t encoded = encode_many(cfgs.data(), out.data(), ok.get(), n);
      keep(encoded);
    });
    const long into = count_instructions([&] { loop_into(cfgs.data(), out.data(), n); });
    const long result = count_instructions([&] { loop_encode_host(cfgs.data(), out.data(), n); });
    if (many < 0 || into < 0 || result < 0) {
      std::fprintf(stderr, "icount_encode: ptrace is not allowed here\n");
      return 1;
    }
    std::printf("%6d %24.1f %34.1f %29.1f\n", n, double(many) / n, double(into) / n, double(result) / n);
  }
  return 0;
}
