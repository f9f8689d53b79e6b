// tmakit: command-line front end (see cli.hpp and the README for the contract).
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  const int rc = tmakit::cli::run_cli(args, std::cin, std::cout, std::cerr);
  std::cout.flush();
  return rc;
}
