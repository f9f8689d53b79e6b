// What the tmakit commands share (see options.hpp).
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <istream>
#include <iterator>
#include <sstream>

#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {

bool wants_json(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--json") != args.end();
}

int Reporter::usage(UsageRule rule, const std::string& what, const std::string& option, bool help_hint) const {
  if (json) {
    nlohmann::ordered_json e{{"rule", rule_id(rule)}};
    if (!option.empty()) e["option"] = option;
    e["message"] = what;
    e["fix"] = help_hint ? "run '" + command + " --help' for usage" : std::string(rule_fix(rule));
    print_json(out, nlohmann::ordered_json{{"ok", false}, {"exit", kExitUsage}, {"command", command}, {"error", e}});
    return kExitUsage;
  }
  err << command << ": " << what << '\n';
  if (help_hint) err << "Run '" << command << " --help' for usage.\n";
  return kExitUsage;
}

int Reporter::bad_value(const std::string& option, const std::string& what) const {
  return usage(UsageRule::value, option + ": " + what, option);
}

int parse_cli(CLI::App& app, std::vector<std::string> args, std::string& cmd, std::string& text) {
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments back to front
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    text = app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    text = app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    for (const CLI::App* s : app.get_subcommands()) cmd += " " + s->get_name();
    text = e.what();
    return kExitUsage;
  } catch (const std::exception& e) {
    text = e.what();
    return kExitUsage;
  }
  return -1;
}

int parse_app(CLI::App& app, std::vector<std::string> args, const Reporter& rep, const char* help_footer) {
  Reporter r = rep;
  std::string text;
  const int rc = parse_cli(app, std::move(args), r.command, text);
  if (rc == kExitOk) rep.out << text << help_footer;
  if (rc == kExitUsage) return r.usage(UsageRule::syntax, text, "", true);
  return rc;
}

void add_json_flag(CLI::App& app, bool& json) {
  app.add_flag("--json", json, "print one JSON object on stdout, for every outcome (errors too)");
}

std::string number_error_text(std::string_view text, const char* range_words) {
  return quote_user_text(trim_space(text)) + " is not " + range_words;
}

bool parse_number_u64(std::string_view text, std::uint64_t max, std::uint64_t& out) {
  return parse_u64(text, out) && out <= max;
}

bool parse_number_i64(std::string_view text, std::int64_t min, std::int64_t max, std::int64_t& out) {
  return parse_i64(text, out) && out >= min && out <= max;
}

namespace {
char fold(char c) { return c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
}  // namespace

int parse_choice(std::string_view text, std::initializer_list<const char*> choices) {
  const std::string_view t = trim_space(text);
  int i = 0;
  for (const char* c : choices) {
    const std::string_view s(c);
    if (s.size() == t.size() && std::equal(s.begin(), s.end(), t.begin(), [](char a, char b) { return fold(a) == fold(b); }))
      return i;
    ++i;
  }
  return -1;
}

std::string choice_list(std::initializer_list<const char*> choices) {
  std::string r;
  std::size_t i = 0;
  for (const char* c : choices) {
    if (i > 0) r += i + 1 == choices.size() ? " or " : ", ";
    r += c;
    ++i;
  }
  return r;
}

bool open_input(const std::string& path, std::ifstream& f, std::string& why) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    why = "cannot read " + quote_user_text(path) + ": is a directory";
    return false;
  }
  f.open(path, std::ios::binary);
  if (!f) {
    why = "cannot read " + quote_user_text(path);
    return false;
  }
  return true;
}

namespace {

// Reads `in` to its end, but never more than kMaxDescriptorFileBytes (a larger file, a device or an
// endless stream is refused after that many bytes).
bool read_bounded(std::istream& in, const std::string& what, std::string& text, std::string& error) {
  text.resize(kMaxDescriptorFileBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) {
    error = "cannot read " + what;
    return false;
  }
  if (text.size() > kMaxDescriptorFileBytes) {
    error = what + " holds more than " + std::to_string(kMaxDescriptorFileBytes) +
            " bytes (a descriptor is 256 hex digits); read no further";
    return false;
  }
  return true;
}

}  // namespace

bool read_hex_arg(const std::string& arg, std::istream& stdin_stream, std::string& text, std::string& error) {
  text.clear();
  if (arg.empty() || arg[0] != '@') {
    text = arg;
    return true;
  }
  const std::string path = arg.substr(1);
  if (path == "-") return read_bounded(stdin_stream, "stdin", text, error);
  std::ifstream f;
  if (!open_input(path, f, error)) return false;
  return read_bounded(f, quote_user_text(path), text, error);
}

bool read_descriptor_arg(const std::string& arg, const char* name, std::istream& in, const Reporter& rep,
                         TensorMapBytes& bytes, int& rc) {
  std::string text, why;
  if (!read_hex_arg(arg, in, text, why)) {
    rc = rep.usage(UsageRule::input, std::string(name) + ": " + why, name);
    return false;
  }
  if (!parse_hex(text, bytes, &why)) {
    rc = rep.bad_value(name, why);
    return false;
  }
  return true;
}

}  // namespace tmakit::cli
