// Finding the capture library and running a command under it (capture_process.hpp).
#include "capture_process.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#ifndef TMAKIT_INSTALL_LIBDIR
#define TMAKIT_INSTALL_LIBDIR "lib"
#endif

extern char** environ;

namespace tmakit::cli {
namespace {

namespace fs = std::filesystem;
constexpr const char* kLibraryName = "libtmakit_capture.so";

// Where a library of this executable can be: next to it, then the install's library directories.
std::vector<fs::path> candidates() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = exe.parent_path();
  std::vector<fs::path> out = {dir / kLibraryName};
  for (const char* lib : {TMAKIT_INSTALL_LIBDIR, "lib", "lib64"}) {
    const fs::path p = dir.parent_path() / lib / kLibraryName;
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

// An existing regular file, as an absolute path LD_PRELOAD can hold (no ' ' or ':', its separators).
bool usable(const fs::path& p, std::string& abs, std::string& why) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) {
    why = "'" + p.string() + "' is not a file";
    return false;
  }
  abs = fs::absolute(p, ec).lexically_normal().string();
  if (abs.find_first_of(" :") != std::string::npos) {
    why = "'" + abs + "' holds a space or ':', which LD_PRELOAD cannot: copy the library elsewhere";
    return false;
  }
  return true;
}

// The environment of the child: ours, with LD_PRELOAD led by the library and TMAKIT_CAPTURE set.
std::vector<std::string> child_environment(const std::string& library, const std::string& records) {
  std::vector<std::string> env;
  std::string preload = library;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("LD_PRELOAD=", 0) == 0) {
      if (kv.size() > 11) preload += ":" + kv.substr(11);
    } else if (kv.rfind("TMAKIT_CAPTURE=", 0) != 0) {
      env.push_back(kv);
    }
  }
  env.push_back("LD_PRELOAD=" + preload);
  env.push_back("TMAKIT_CAPTURE=" + records);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

ChildOutcome wait_for(pid_t pid) {
  ChildOutcome o;
  o.started = true;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    o.signal = WTERMSIG(status);
    o.exit_status = 128 + o.signal;
  } else {
    o.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  return o;
}

}  // namespace

std::string find_capture_library(const std::string& given, std::string& why) {
  std::string abs;
  if (!given.empty()) {
    if (usable(given, abs, why)) return abs;
    why = "--lib: " + why;
    return "";
  }
  if (const char* env = std::getenv("TMAKIT_CAPTURE_LIB"); env && *env) {
    if (usable(env, abs, why)) return abs;
    why = "$TMAKIT_CAPTURE_LIB: " + why;
    return "";
  }
  std::string tried;
  for (const fs::path& p : candidates()) {
    std::string ignored;
    if (usable(p, abs, ignored)) return abs;
    tried += (tried.empty() ? "" : ", ") + p.string();
  }
  why = std::string("cannot find ") + kLibraryName + " (looked in " + (tried.empty() ? "nowhere" : tried) +
        "); build it (cmake --build build --target tmakit_capture), or give its path with --lib PATH or "
        "$TMAKIT_CAPTURE_LIB";
  return "";
}

ChildOutcome run_with_capture(const std::vector<std::string>& argv, const std::string& library,
                              const std::string& records) {
  std::vector<std::string> args = argv, env = child_environment(library, records);
  std::vector<char*> cargs = c_strings(args), cenv = c_strings(env);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);  // the child takes Ctrl-C as it would without tmakit
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, cargs[0], nullptr, &attr, cargs.data(), cenv.data());
  ChildOutcome o;
  if (rc == 0) {
    o = wait_for(pid);
  } else {
    o.exit_status = rc == ENOENT ? 127 : 126;
    o.error = "cannot run '" + argv[0] + "': " + std::strerror(rc);
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  posix_spawnattr_destroy(&attr);
  return o;
}

}  // namespace tmakit::cli
