// The CLI11 parse step every subcommand shares: help, usage errors, exit statuses.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace tmakit::cli {

// Parses `args` (the command line after the subcommand's name) into `app`. Returns -1 when the
// command should run; otherwise the exit status to return at once: 0 after printing --help (and
// `help_footer`), 2 after printing a usage error to `err`.
inline int parse_app(CLI::App& app, std::vector<std::string> args, const std::string& name, std::ostream& out,
                     std::ostream& err, const char* help_footer = "") {
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments back to front
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    out << app.help() << help_footer;
    return 0;
  } catch (const CLI::ParseError& e) {
    err << name << ": " << e.what() << "\nRun '" << name << " --help' for usage.\n";
    return 2;
  }
  return -1;
}

}  // namespace tmakit::cli
