// The CLI11 parse step every subcommand shares: help, usage errors, exit statuses.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace tmakit::cli {

// Parses `args` (the command line after the subcommand's name) into `app`. Returns -1 when the
// command should run; otherwise the exit status to return at once: 0 after printing --help or
// --help-all (and `help_footer`), 2 after printing a usage error to `err`. A usage error names the
// subcommands of `app` that were given ("tmakit encode tiled: ..."); any other exception CLI11
// throws on odd input is a usage error too (never escapes).
inline int parse_app(CLI::App& app, std::vector<std::string> args, const std::string& name, std::ostream& out,
                     std::ostream& err, const char* help_footer = "") {
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments back to front
  const auto usage = [&](const std::string& cmd, const char* what) {
    err << cmd << ": " << what << "\nRun '" << cmd << " --help' for usage.\n";
    return 2;
  };
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    out << app.help() << help_footer;
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All) << help_footer;
    return 0;
  } catch (const CLI::ParseError& e) {
    std::string cmd = name;
    for (const CLI::App* sub : app.get_subcommands()) cmd += " " + sub->get_name();
    return usage(cmd, e.what());
  } catch (const std::exception& e) {
    return usage(name, e.what());
  }
  return -1;
}

}  // namespace tmakit::cli
