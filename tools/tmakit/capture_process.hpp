// The process side of `tmakit capture -- CMD`: where libtmakit_capture.so is, and CMD run with it
// preloaded (LD_PRELOAD, TMAKIT_CAPTURE naming the records file), its stdin, stdout and stderr
// those of tmakit, its exit status returned. Linux (posix_spawn, /proc/self/exe).
#pragma once

#include <string>
#include <vector>

namespace tmakit::cli {

// The capture library: `given` (--lib) when not empty, else $TMAKIT_CAPTURE_LIB, else
// libtmakit_capture.so next to the running executable (a build tree), else in the install's
// library directory beside its bin/ (../lib, ../lib64, or the configured CMAKE_INSTALL_LIBDIR).
// Returns the absolute path, or "" with `why` saying where it looked and what to do.
std::string find_capture_library(const std::string& given, std::string& why);

struct ChildOutcome {
  bool started = false;
  int exit_status = 0;  // CMD's exit status; 128 + N when signal N ended it; 127 / 126 when it could
                        // not be run (not found / not executable), as a shell reports them
  int signal = 0;
  std::string error;    // why it could not be run
};

// Runs `argv` (argv[0] looked up in PATH) with `library` preloaded ahead of any LD_PRELOAD already
// set, and TMAKIT_CAPTURE=`records`. While it runs, tmakit ignores SIGINT and SIGQUIT (a terminal's
// Ctrl-C reaches the child, which decides; the report still follows), as system(3) does.
ChildOutcome run_with_capture(const std::vector<std::string>& argv, const std::string& library,
                              const std::string& records);

}  // namespace tmakit::cli
