// What the tmakit commands share around their own option parsing: exit statuses, the CLI11 parse
// step, how an outcome is reported (text on stdout/stderr, or one JSON object on stdout with
// --json), the one checked number parser, choices spelled in any case, and input files.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tmakit/host/json.hpp"
#include "tmakit/host/usage_rules.hpp"
#include "tmakit/tensor_map/bytes.hpp"

namespace tmakit::cli {

constexpr int kExitOk = 0;       // done (decode: decoded; diff: identical)
constexpr int kExitRefused = 1;  // refused: the driver would return CUDA_ERROR_INVALID_VALUE, or a
                                 // planner / layout rule failed (diff: the descriptors differ)
constexpr int kExitUsage = 2;    // bad usage or unreadable input

// Whether the command line asks for JSON (a `--json` argument anywhere): read before parsing, so
// that bad usage is JSON too.
bool wants_json(const std::vector<std::string>& args);

// How one command reports its outcome (docs/cli.md, "JSON output").
//   text:  results on `out`; usage errors and refusals on `err`, once;
//   JSON:  exactly one object on `out` for every outcome, with "ok" (false for bad usage and
//          refusals), "exit" (the exit status) and, when not ok, "error" {"rule","message",...}
//          (the first of "errors" where a command lists several).
struct Reporter {
  std::string command;  // "tmakit plan"
  bool json = false;
  std::ostream& out;
  std::ostream& err;

  // Bad usage (exit 2). Text: "<command>: <what>" on `err`, and with `help_hint` the line
  // "Run '<command> --help' for usage."; JSON: {"ok":false,"exit":2,"command",
  // "error":{"rule","option" (when given),"message","fix"}}. `what` names the option itself.
  int usage(UsageRule rule, const std::string& what, const std::string& option = "", bool help_hint = false) const;
  // A value that does not parse or is out of range: usage(value, option + ": " + what, option).
  int bad_value(const std::string& option, const std::string& what) const;
  // Help (exit 0): `text` on `out`; JSON: {"ok":true,"exit":0,"command","help":text}.
  int help(const std::string& text) const;

  // Prints a JSON outcome: `j` with "ok" and "exit" set and, when j has a non-empty "errors"
  // array and no "error", "error" = its first element. Returns `exit`.
  template <class Json>
  int json_result(Json j, int exit, bool ok) const {
    j["ok"] = ok;
    j["exit"] = exit;
    if (!j.contains("error") && j.contains("errors") && j["errors"].is_array() && !j["errors"].empty())
      j["error"] = j["errors"][0];
    out << json_text(j) << '\n';
    return exit;
  }
};

// What the parse step made of a command line.
struct CliParse {
  int rc = -1;                         // -1: parsed, run the command; kExitOk: help; kExitUsage: bad usage
  std::string text;                    // the help, or what is wrong (naming the option)
  UsageRule rule = UsageRule::syntax;  // bad usage: the rule
  std::string option;                  // bad usage: the option to blame ("" when none is)
};

// The parse step of every CLI11 command: `args` (the command line after the command's name) into
// `app`. Before CLI11 sees them, every word that starts with "--" must name an option of `app` or
// of one of its subcommands (else usage.syntax, with the nearest option: "did you mean
// --strides?"), each option may appear once (usage.syntax; one that collects a list, any number
// of times), "--opt=" needs a value (usage.value), and an option's value may not be another option
// (`--svg --json`: usage.value). CLI11's own
// errors, and any other exception it throws on odd input, are bad usage too (never escape).
// `cmd` gets the names of the subcommands given appended ("tmakit encode tiled").
CliParse parse_cli(CLI::App& app, std::vector<std::string> args, std::string& cmd);
// parse_cli, reported: -1 when the command should run; otherwise the exit status to return at
// once, kExitOk after printing --help or --help-all (and `help_footer`; JSON with --json), or
// kExitUsage after reporting the usage error.
int parse_app(CLI::App& app, std::vector<std::string> args, const Reporter& rep, const char* help_footer = "");

// The name among `names` nearest to `word` (at most two edits away, or a prefix of it or it of
// them), for "did you mean --strides?"; "" when none is near.
std::string nearest_name(std::string_view word, const std::vector<std::string>& names);

// The --json flag of every command that has one.
void add_json_flag(CLI::App& app, bool& json);

// A JSON object on one line of `out` (json_text: invalid UTF-8 becomes U+FFFD).
template <class Json>
void print_json(std::ostream& out, const Json& j) {
  out << json_text(j) << '\n';
}

// ---- numbers: the one checked parser of every command's numeric options and list items
// Decimal or 0x hex (parse_u64 / parse_i64 in tensor_map/names.hpp), surrounding spaces ignored,
// the whole text consumed, the value in T's range: "", "-1" (unsigned), "18446744073709551616" and
// "1x" are refused with a message naming the text and the range.
template <class T>
const char* number_range_words() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return "an unsigned integer below 2^32 (decimal or 0x hex)";
  if constexpr (std::is_same_v<T, std::uint64_t>) return "an unsigned integer below 2^64 (decimal or 0x hex)";
  if constexpr (std::is_same_v<T, std::int64_t>) return "an integer in -2^63..2^63-1 (decimal or 0x hex)";
  return "an integer in -2^31..2^31-1 (decimal or 0x hex)";
}
std::string number_error_text(std::string_view text, const char* range_words);
bool parse_number_u64(std::string_view text, std::uint64_t max, std::uint64_t& out);
bool parse_number_i64(std::string_view text, std::int64_t min, std::int64_t max, std::int64_t& out);
// Returns false with `why` = "'<text>' is not <range words>".
template <class T>
bool parse_number(std::string_view text, T& out, std::string& why) {
  bool ok = false;
  if constexpr (std::is_signed_v<T>) {
    std::int64_t x = 0;
    ok = parse_number_i64(text, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), x);
    out = static_cast<T>(x);
  } else {
    std::uint64_t x = 0;
    ok = parse_number_u64(text, std::numeric_limits<T>::max(), x);
    out = static_cast<T>(x);
  }
  if (!ok) why = number_error_text(text, number_range_words<T>());
  return ok;
}
// ---- choices: an option that takes one of a few words, in any case ('-' and '_' alike).
// Returns the index of `text` in `choices`, or -1.
int parse_choice(std::string_view text, std::initializer_list<const char*> choices);
// "none, x, y or z"
std::string choice_list(std::initializer_list<const char*> choices);

// ---- a cluster shape: --cluster X[,Y[,Z]] of plan and cluster-stage, each a CTA count 1..16 and at
// most 16 in all (missing dimensions are 1); false with `why` naming the dimension or the total.
bool parse_cluster(const std::string& s, std::uint32_t out[3], std::string& why);

// ---- input files
// Opens `path` for reading; false with `why` ("cannot read 'P': is a directory", "cannot read 'P'")
// when it is a directory or cannot be opened. The one check of every command that reads a file.
bool open_input(const std::string& path, std::ifstream& f, std::string& why);

// The most bytes a descriptor argument's file or stdin may hold: 256 hex digits with room for any
// spacing, separators and line breaks (an `xxd` dump of 128 bytes is under 600).
constexpr std::size_t kMaxDescriptorFileBytes = 64 * 1024;

// The text of a descriptor argument of decode/diff: "HEX" itself, or the contents of "@FILE" or
// "@-" (stdin), unchanged (parse_descriptor reads the digits), read up to kMaxDescriptorFileBytes.
// Returns false with a message in `error` when the file cannot be read (open_input's words) or
// holds more (a device such as /dev/zero, or an endless stream: read no further).
bool read_hex_arg(const std::string& arg, std::istream& stdin_stream, std::string& text, std::string& error);

// The 128 bytes of a descriptor argument `name` (HEX, @FILE, @-) of decode/diff: read_hex_arg, then
// parse_hex (tmakit/tensor_map/describe.hpp). Returns false with `rc` set after reporting the usage
// error that names the argument (usage.input: unreadable; usage.value: not 128 bytes of hex).
bool read_descriptor_arg(const std::string& arg, const char* name, std::istream& in, const Reporter& rep,
                         TensorMapBytes& bytes, int& rc);

}  // namespace tmakit::cli
