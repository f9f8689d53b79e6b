// What the tmakit commands share (see options.hpp).
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <istream>
#include <iterator>
#include <sstream>

#include "tmakit/cluster/shape.hpp"
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

int Reporter::help(const std::string& text) const {
  if (json) {
    print_json(out, nlohmann::ordered_json{{"ok", true}, {"exit", kExitOk}, {"command", command}, {"help", text}});
  } else {
    out << text;
  }
  return kExitOk;
}

namespace {

// The long options of `app` and of all its subcommands ("--name"), whether each takes a value, and
// whether it may be given more than once (an option that collects a list, e.g. cluster-stage's
// --multicast: one value each time).
struct KnownOption {
  std::string name;
  bool takes_value = false;
  bool repeatable = false;
};

void collect_options(const CLI::App& app, std::vector<KnownOption>& out) {
  for (const CLI::Option* o : app.get_options())
    for (const std::string& l : o->get_lnames())
      out.push_back({"--" + l, o->get_items_expected_max() > 0, o->get_expected_max() > 1});
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) collect_options(*sub, out);
}

const KnownOption* find_option(const std::vector<KnownOption>& known, std::string_view name) {
  for (const KnownOption& k : known)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> option_names(const std::vector<KnownOption>& known) {
  std::vector<std::string> names;
  for (const KnownOption& k : known) names.push_back(k.name);
  return names;
}

CliParse usage_failure(UsageRule rule, std::string text, std::string option) {
  return CliParse{kExitUsage, std::move(text), rule, std::move(option)};
}

// The checks of parse_cli before CLI11: every "--word" names a known option, once, with a value
// where it takes one. Words after "--" are positional and not looked at.
CliParse check_option_words(const std::vector<std::string>& args, const std::vector<KnownOption>& known) {
  std::vector<std::string> seen;
  const KnownOption* wants_value = nullptr;  // the option before this word, when it takes a value
  for (const std::string& a : args) {
    if (a == "--") break;
    const bool option_word = a.size() > 2 && a[0] == '-' && a[1] == '-';
    if (!option_word) {
      wants_value = nullptr;
      continue;
    }
    const std::size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    if (wants_value)
      return usage_failure(UsageRule::value,
                           wants_value->name + ": expected a value, found the option " + quote_user_text(a), wants_value->name);
    const KnownOption* k = find_option(known, name);
    if (!k) {
      const std::string near = nearest_name(name, option_names(known));
      return usage_failure(UsageRule::syntax,
                           "unknown option " + quote_user_text(name) + (near.empty() ? "" : "; did you mean " + near + "?"), "");
    }
    if (!k->repeatable && std::find(seen.begin(), seen.end(), name) != seen.end())
      return usage_failure(UsageRule::syntax, name + " given more than once; give it once", name);
    seen.push_back(name);
    if (eq != std::string::npos && eq + 1 == a.size())
      return usage_failure(UsageRule::value, name + ": an empty value after '='; give " + name + "=VALUE", name);
    wants_value = k->takes_value && eq == std::string::npos ? k : nullptr;
  }
  return {};
}

// Levenshtein distance of two short words.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearest_name(std::string_view word, const std::vector<std::string>& names) {
  constexpr std::size_t kMaxEdits = 2, kMinPrefix = 3;
  const std::string_view w = word.substr(0, std::min<std::size_t>(word.size(), 64));
  const std::string* best = nullptr;
  std::size_t best_d = 0;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(w, n);
    const std::size_t shorter = std::min(w.size(), n.size());
    const bool prefix = shorter >= kMinPrefix + 2 && (n.rfind(w, 0) == 0 || w.rfind(n, 0) == 0);
    if ((d <= kMaxEdits || prefix) && (!best || d < best_d)) {
      best = &n;
      best_d = d;
    }
  }
  return best ? *best : "";
}

CliParse parse_cli(CLI::App& app, std::vector<std::string> args, std::string& cmd) {
  std::vector<KnownOption> known;
  collect_options(app, known);
  known.push_back({"--help-all", false});
  if (CliParse pre = check_option_words(args, known); pre.rc >= 0) {
    for (const std::string& a : args)  // name the map kind when one was given: "tmakit encode tiled"
      for (const CLI::App* sub : app.get_subcommands([&](const CLI::App* s) { return s->check_name(a); }))
        cmd += " " + sub->get_name();
    return pre;
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments back to front
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    for (const CLI::App* sub : app.get_subcommands()) cmd += " " + sub->get_name();
    return {kExitOk, app.help(), UsageRule::syntax, ""};
  } catch (const CLI::CallForAllHelp&) {
    for (const CLI::App* sub : app.get_subcommands()) cmd += " " + sub->get_name();
    return {kExitOk, app.help("", CLI::AppFormatMode::All), UsageRule::syntax, ""};
  } catch (const CLI::ParseError& e) {
    for (const CLI::App* sub : app.get_subcommands()) cmd += " " + sub->get_name();
    return usage_failure(UsageRule::syntax, e.what(), "");
  } catch (const std::exception& e) {
    return usage_failure(UsageRule::syntax, e.what(), "");
  }
  for (const CLI::App* sub : app.get_subcommands()) cmd += " " + sub->get_name();
  return {};
}

int parse_app(CLI::App& app, std::vector<std::string> args, const Reporter& rep, const char* help_footer) {
  Reporter r = rep;
  const CliParse p = parse_cli(app, std::move(args), r.command);
  if (p.rc == kExitOk) return rep.help(p.text + help_footer);
  if (p.rc == kExitUsage) return r.usage(p.rule, p.text, p.option, true);
  return p.rc;
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

bool parse_cluster(const std::string& s, std::uint32_t out[3], std::string& why) {
  out[0] = out[1] = out[2] = 1;
  std::size_t pos = 0;
  int n = 0;
  while (pos <= s.size()) {
    const std::size_t c = s.find(',', pos);
    const std::string item = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    if (n >= 3) {
      why = "expected 1 to 3 comma-separated CTA counts X[,Y[,Z]], e.g. 2,1";
      return false;
    }
    std::uint32_t v = 0;
    if (!parse_number(item, v, why)) return false;
    if (v < 1 || v > 16) {
      why = "dimension " + std::string(1, "xyz"[n]) + " has " + std::to_string(v) +
            " CTAs; each dimension holds 1..16 CTAs (a cluster at most 16 in all)";
      return false;
    }
    out[n++] = v;
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  const std::uint32_t ctas = out[0] * out[1] * out[2];
  if (ctas > kMaxClusterSize) {
    why = std::to_string(out[0]) + " x " + std::to_string(out[1]) + " x " + std::to_string(out[2]) + " = " +
          std::to_string(ctas) + " CTAs; a cluster holds at most " + std::to_string(kMaxClusterSize) + " in all";
    return false;
  }
  return true;
}

}  // namespace tmakit::cli
