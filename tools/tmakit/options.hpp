// What the tmakit commands share around their own option parsing: exit statuses, the CLI11 parse
// step, the two forms of a usage error, JSON output, and descriptor arguments (decode, diff).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <ostream>
#include <string>
#include <vector>

#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/bytes.hpp"

namespace tmakit::cli {

constexpr int kExitOk = 0;       // done (decode: decoded; diff: identical)
constexpr int kExitRefused = 1;  // refused: the driver would return CUDA_ERROR_INVALID_VALUE, or a
                                 // planner / layout rule failed (diff: the descriptors differ)
constexpr int kExitUsage = 2;    // bad usage or unreadable input

// Parses `args` (the command line after the command's name) into `app`. Returns -1 when the
// command should run; otherwise the exit status to return at once: kExitOk after printing --help
// or --help-all (and `help_footer`) to `out`, kExitUsage after printing a usage error to `err`.
// A usage error names the subcommands of `app` that were given ("tmakit encode tiled: ..."); any
// other exception CLI11 throws on odd input is a usage error too (never escapes).
int parse_app(CLI::App& app, std::vector<std::string> args, const std::string& name, std::ostream& out,
              std::ostream& err, const char* help_footer = "");

// The --json flag of every command that has one.
void add_json_flag(CLI::App& app, bool& json);

// A usage error in the command line's grammar, with the pointer to --help:
//   "<cmd>: <what>\nRun '<cmd> --help' for usage.\n" on `err`. Returns kExitUsage.
int usage_error(std::ostream& err, const std::string& cmd, const std::string& what);
// A value that does not parse or a file that cannot be read or written: "<where>: <what>\n" on
// `err`. Returns kExitUsage.
int value_error(std::ostream& err, const std::string& where, const std::string& what);

// A JSON object on one line of `out` (json_text: invalid UTF-8 becomes U+FFFD).
template <class Json>
void print_json(std::ostream& out, const Json& j) {
  out << json_text(j) << '\n';
}

// The text of a descriptor argument of decode/diff: "HEX" itself, or the contents of "@FILE" or
// "@-" (stdin), unchanged (parse_descriptor reads the digits). Returns false with a message in
// `error` when the file cannot be read.
bool read_hex_arg(const std::string& arg, std::istream& stdin_stream, std::string& text, std::string& error);

// The 128 bytes of a descriptor's text (parse_hex in tmakit/tensor_map/describe.hpp). Returns
// false after printing "tmakit: <what>: <why>" to `err` when the text is not 128 bytes of hex.
bool parse_descriptor(const std::string& text, const char* what, TensorMapBytes& bytes, std::ostream& err);

}  // namespace tmakit::cli
