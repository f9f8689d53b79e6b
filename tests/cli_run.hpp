// Running the CLI from a test: in process (tmakit::cli::run_cli on string streams) or as the built
// binary through the shell (exit status, stdout and stderr captured through temporary files).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace tmakit_test {

struct CliRun {
  int rc;
  std::string out, err;
};

inline CliRun run_inprocess(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  const int rc = tmakit::cli::run_cli(args, in, out, err);
  return {rc, out.str(), err.str()};
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The built binary (TMAKIT_CLI_BINARY) through the shell: `args` and `shell_suffix` are pasted
// verbatim (quote them yourself); the suffix comes after the captures, so it can redirect stdin
// ("<'file'") or stdout again (">/dev/full", ">&-").
inline CliRun run_binary(const std::string& args, const std::string& shell_suffix = "") {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path();
  const std::string tag = std::to_string(::getpid()) + "_" + std::to_string(counter++);
  const auto out = dir / ("tmakit_cli_out_" + tag), err = dir / ("tmakit_cli_err_" + tag);
  const std::string cmd = std::string("'") + TMAKIT_CLI_BINARY + "' " + args + " >'" + out.string() + "' 2>'" +
                          err.string() + "' " + shell_suffix;
  const int status = std::system(cmd.c_str());
  CliRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

}  // namespace tmakit_test
