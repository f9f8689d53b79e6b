// What the tmakit commands share (see options.hpp).
#include "options.hpp"

#include <algorithm>
#include <fstream>
#include <istream>
#include <iterator>
#include <sstream>

#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {

int parse_app(CLI::App& app, std::vector<std::string> args, const std::string& name, std::ostream& out,
              std::ostream& err, const char* help_footer) {
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments back to front
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    out << app.help() << help_footer;
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All) << help_footer;
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::string cmd = name;
    for (const CLI::App* sub : app.get_subcommands()) cmd += " " + sub->get_name();
    return usage_error(err, cmd, e.what());
  } catch (const std::exception& e) {
    return usage_error(err, name, e.what());
  }
  return -1;
}

void add_json_flag(CLI::App& app, bool& json) { app.add_flag("--json", json, "print JSON"); }

int usage_error(std::ostream& err, const std::string& cmd, const std::string& what) {
  err << cmd << ": " << what << "\nRun '" << cmd << " --help' for usage.\n";
  return kExitUsage;
}

int value_error(std::ostream& err, const std::string& where, const std::string& what) {
  err << where << ": " << what << '\n';
  return kExitUsage;
}

bool read_hex_arg(const std::string& arg, std::istream& stdin_stream, std::string& text, std::string& error) {
  text.clear();
  if (arg.empty() || arg[0] != '@') {
    text = arg;
    return true;
  }
  const std::string path = arg.substr(1);
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(stdin_stream), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = "cannot read " + quote_user_text(path);
    return false;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) {
    error = "cannot read " + quote_user_text(path);
    return false;
  }
  text = ss.str();
  return true;
}

bool parse_descriptor(const std::string& text, const char* what, TensorMapBytes& bytes, std::ostream& err) {
  std::string why;
  if (parse_hex(text, bytes, &why)) return true;
  err << "tmakit: " << what << ": " << why << '\n';
  return false;
}

}  // namespace tmakit::cli
